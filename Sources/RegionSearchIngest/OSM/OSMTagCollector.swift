/// Gathers the relevant tags of one OSM element (copied, because reader buffers move between
/// tags) and turns them into a name and keywords by the rules of ``OSMOptions``.
///
/// One collector is reused for every element, so steady-state reading allocates only for the
/// strings of accepted POIs.
struct OSMTagCollector {
    private struct Tag {
        var role: OSMKeyRole
        var keyStart: Int
        var keyCount: Int
        var valueStart: Int
        var valueCount: Int
    }

    private var bytes: [UInt8] = []
    private var tags: [Tag] = []
    /// Whether a POI key has been added since the last reset.
    private(set) var isPOI = false

    mutating func reset() {
        bytes.removeAll(keepingCapacity: true)
        tags.removeAll(keepingCapacity: true)
        isPOI = false
    }

    /// Adds a tag whose key has a relevant role (callers skip irrelevant keys).
    mutating func add(role: OSMKeyRole, key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        let keyStart = bytes.count
        bytes.append(contentsOf: key)
        let valueStart = bytes.count
        bytes.append(contentsOf: value)
        tags.append(
            Tag(role: role, keyStart: keyStart, keyCount: key.count, valueStart: valueStart, valueCount: value.count))
        if role.isPOI { isPOI = true }
    }

    /// Name, keywords and the tag key of each keyword, or the reason they cannot be read. A
    /// value repeated under another key is kept once per key (`amenity=parking` and
    /// `parking=parking` are two keyed values).
    func nameAndKeywords() -> Result<OSMTagValues, OSMTagProblem> {
        var comparisons = 0
        return nameAndKeywords(comparisons: &comparisons)
    }

    /// Up to this many keywords a repeat is found by scanning them; beyond it through a set, so
    /// an element with 300,000 tags costs O(n), not O(n²).
    static let linearScanLimit = 16

    /// A keyword value with the tag key it came from: the unit of "repeated".
    private struct KeyedValue: Hashable {
        var key: String
        var value: String
    }

    /// ``nameAndKeywords()``, adding to `comparisons` the string comparisons made to drop
    /// repeated keywords (tests check that it grows linearly).
    func nameAndKeywords(comparisons: inout Int) -> Result<OSMTagValues, OSMTagProblem> {
        bytes.withUnsafeBufferPointer { buf -> Result<OSMTagValues, OSMTagProblem> in
            func text(_ start: Int, _ count: Int) -> String? {
                String(validating: UnsafeBufferPointer(rebasing: buf[start..<start + count]), as: UTF8.self)
            }
            var street: String?
            var place: String?
            for tag in tags where tag.role.isLabel {
                guard let key = text(tag.keyStart, tag.keyCount), let value = text(tag.valueStart, tag.valueCount)
                else {
                    return .failure(.invalidUTF8(key: lossy(buf, tag.keyStart, tag.keyCount)))
                }
                if key == LabelTags.street { street = value } else if key == LabelTags.place { place = value }
            }
            var name = ""
            if let tag = tags.first(where: { $0.role.isName }) {
                guard let s = text(tag.valueStart, tag.valueCount) else {
                    return .failure(.invalidUTF8(key: lossy(buf, tag.keyStart, tag.keyCount)))
                }
                name = s
            }
            // Keyword tags by rank, ties in file order (insertion sort: an element has few tags).
            var order: [Int] = []
            for (i, tag) in tags.enumerated() where tag.role.keywordRank >= 0 {
                var j = order.count
                order.append(i)
                while j > 0, tags[order[j - 1]].role.keywordRank > tag.role.keywordRank {
                    order[j] = order[j - 1]
                    j -= 1
                }
                order[j] = i
            }
            var keywords: [String] = []
            var keys: [String] = []
            var seen: Set<KeyedValue> = []
            for i in order {
                let tag = tags[i]
                guard let key = text(tag.keyStart, tag.keyCount) else {
                    return .failure(.invalidUTF8(key: lossy(buf, tag.keyStart, tag.keyCount)))
                }
                var start = tag.valueStart
                let end = tag.valueStart + tag.valueCount
                while start <= end {
                    var stop = start
                    while stop < end, buf[stop] != UInt8(ascii: ";") { stop += 1 }
                    var lo = start
                    var hi = stop
                    while lo < hi, buf[lo] == UInt8(ascii: " ") { lo += 1 }
                    while hi > lo, buf[hi - 1] == UInt8(ascii: " ") { hi -= 1 }
                    if hi > lo {
                        let isYes =
                            hi - lo == 3 && buf[lo] == UInt8(ascii: "y") && buf[lo + 1] == UInt8(ascii: "e")
                            && buf[lo + 2] == UInt8(ascii: "s")
                        let partStart = isYes ? tag.keyStart : lo
                        let partCount = isYes ? tag.keyCount : hi - lo
                        guard let word = text(partStart, partCount) else {
                            return .failure(.invalidUTF8(key: lossy(buf, tag.keyStart, tag.keyCount)))
                        }
                        if keywords.count < Self.linearScanLimit {
                            comparisons += keywords.count
                            if !zip(keys, keywords).contains(where: { $0 == key && $1 == word }) {
                                keywords.append(word)
                                keys.append(key)
                            }
                        } else {
                            if seen.isEmpty { seen = Set(zip(keys, keywords).map { KeyedValue(key: $0, value: $1) }) }
                            comparisons += 1
                            if seen.insert(KeyedValue(key: key, value: word)).inserted {
                                keywords.append(word)
                                keys.append(key)
                            }
                        }
                    }
                    start = stop + 1
                }
            }
            return .success(
                OSMTagValues(
                    name: name, keywords: keywords, keys: keys,
                    labelTags: LabelTags.hstore(street: street, place: place)))
        }
    }

    /// The collected tags as `[k=v, k=v]` in file order (invalid UTF-8 shown as U+FFFD), for
    /// the `raw` text of rejected records.
    var tagDescription: String {
        bytes.withUnsafeBufferPointer { buf in
            var out = "["
            for (i, tag) in tags.enumerated() {
                if i > 0 { out += ", " }
                out += lossy(buf, tag.keyStart, tag.keyCount)
                out += "="
                out += lossy(buf, tag.valueStart, tag.valueCount)
            }
            return out + "]"
        }
    }
}

/// What an element's tags give: the name, the keyword values and the tag key of each.
struct OSMTagValues: Equatable {
    var name: String
    var keywords: [String]
    var keys: [String]
    /// `addr:street` and `place` as hstore text (``LabelTags``), "" for none.
    var labelTags: String = ""
}

/// Why the tags of a POI could not be used.
enum OSMTagProblem: Error, Equatable {
    case invalidUTF8(key: String)

    var reason: String {
        switch self {
        case .invalidUTF8(let key): return "invalid UTF-8 in the value of tag '\(key)'"
        }
    }
}

private func lossy(_ buf: UnsafeBufferPointer<UInt8>, _ start: Int, _ count: Int) -> String {
    String(decoding: UnsafeBufferPointer(rebasing: buf[start..<start + count]), as: UTF8.self)
}
