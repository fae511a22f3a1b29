import RegionSearchCore
import RegionSearchModel

/// Builds the POI table from validated records: extracts ids and names (missing markers
/// become empty), applies the duplicate policy to repeated ids (within all inputs, or per input
/// with `id_scope: input`), splits and normalises keyword values and joins them (without
/// repeats) into the keyword text.
///
/// A value from a named key (a column with a header name, a GeoJSON property, an OSM tag key;
/// `name` for the name) is written after its key's code (``KeywordText/keyCode(_:)``). Keys are
/// normalised like values and numbered in order of first appearance: input by input, a
/// delimited input's keyword columns in spec order when it starts, other inputs' keys as their
/// records use them — the same for any thread count, since records keep their order.
struct TableBuilder {
    private var lon: [Double] = []
    private var lat: [Double] = []
    private var source: [UInt32] = []
    private var line: [UInt64] = []
    private var ids = GrowableBytes()
    private var idOffsets: [UInt64] = [0]
    private var names = GrowableBytes()
    private var nameOffsets: [UInt64] = [0]
    private var keywords = GrowableBytes()
    private var keywordOffsets: [UInt64] = [0]
    /// Streets by row, for the rows that have one (few inputs have any: no column until one does).
    private var streets: [(row: Int, street: String)] = []
    private var places: [POITable.Place] = []

    private let duplicates: IngestSettings.DuplicatePolicy
    private let idScope: IngestSettings.IdScope
    /// The first row of the current input: a repeat of an earlier row is a repeat across inputs.
    private var inputStartRow = 0
    private let nameAsKeyword: Bool
    private var cache = KeywordCache()
    private var index = IdIndex()
    private var splitter = KeywordSplitter(missingValues: [])
    private var ruleSplits: [InputSpec.KeywordSplit] = []
    /// All rules' separators, one after another; rule c's is `separatorRanges[c]`.
    private var separators: [UInt8] = []
    private var separatorRanges: [Range<Int>] = []
    /// Id hashes of the batch being added (see ``prepare(_:_:)``).
    private var idHashes: [UInt64] = []
    /// Keyword values of one field, and unescaped list items.
    private var slices: [KeywordSplitter.ValueSlice] = []
    private var listScratch: [UInt8] = []
    private var touched: UInt64 = 0
    /// Normalised keyword values merged into earlier rows (policy `merge`), by row, in first-seen
    /// order, with the set of them (an id repeated 100,000 times must not scan a list per value)
    /// and their bytes with separators (held to the row's cap, ``IngestDriver/maxKeywordTextBytes``).
    private var extras: [Int: (values: [[UInt8]], seen: Set<[UInt8]>, bytes: Int)] = [:]
    /// Values left out because their row's keyword text had reached its cap.
    private(set) var droppedValues = 0
    private let textCap: Int
    /// Keyword text of the row being built and the ranges of its values.
    private var text = GrowableBytes(capacity: 1024)
    private var valueRanges: [Range<Int>] = []
    /// Up to this many values a repeat is found by scanning the row's values (nearly every row);
    /// beyond it by hash, so a row with n values costs O(n), not O(n²).
    private static let linearScanLimit = 16
    /// Indices into `valueRanges` by ``ShortHash`` of the value; filled once a row passes
    /// ``linearScanLimit`` values, empty otherwise.
    private var valueIndex: [UInt64: [Int]] = [:]
    /// Byte-string comparisons made to find repeated keyword values (tests check that it grows
    /// linearly with the values).
    private(set) var valueComparisons = 0
    /// The key table: normalised names, their lookup and codes.
    private var keyNames: [String] = []
    private var keyLookup: [String: Int32] = [:]
    private var keyCodes: [[UInt8]] = []
    /// Key index of each split rule's column (-1: none), and of each key of the current batch.
    private var ruleKeys: [Int32] = []
    private var batchKeys: [Int32] = []
    /// Key index of the name (when added as a keyword), -1 until first used.
    private var nameKey: Int32 = -1
    /// Key index of each ``KeywordSplitter/hstoreKeys`` entry, -1 until first used.
    private var hstoreKeys = [Int32](repeating: -1, count: KeywordSplitter.hstoreKeys.count)

    /// `textCap` defaults to ``IngestDriver/maxKeywordTextBytes`` (tests give a smaller one).
    init(settings: IngestSettings, textCap: Int = IngestDriver.maxKeywordTextBytes) {
        duplicates = settings.duplicates
        idScope = settings.idScope
        nameAsKeyword = settings.nameAsKeyword
        self.textCap = textCap
    }

    var count: Int { lon.count }

    /// Starts an input: split rules, their columns' keys and missing-value markers are the
    /// input's; ids are looked up among all inputs so far, or only this one (`id_scope: input`).
    mutating func startInput(
        rules: [(split: InputSpec.KeywordSplit, separator: [UInt8])], keys: [String?] = [], missingValues: [String]
    ) {
        if idScope == .input { index = IdIndex() }
        inputStartRow = count
        ruleSplits = rules.map { $0.split }
        var columnKeys: [Int32] = []
        for c in rules.indices {
            if c < keys.count, let name = keys[c] {
                columnKeys.append(key(named: name))
            } else {
                columnKeys.append(-1)
            }
        }
        ruleKeys = columnKeys
        separators = []
        separatorRanges = []
        for r in rules {
            separatorRanges.append(separators.count..<(separators.count + r.separator.count))
            separators += r.separator
        }
        splitter = KeywordSplitter(missingValues: missingValues)
    }

    /// Reserves room for about `rows` more rows, with string sizes like the rows so far
    /// (avoids regrowing large columns; the estimate only affects speed).
    mutating func reserve(rows: Int) {
        guard rows > 0, count > 0 else { return }
        let n = count + rows
        func scaled(_ bytes: Int) -> Int { Int(Double(bytes) / Double(count) * Double(n) * 1.1) + 1024 }
        HugePages.reserve(&lon, n)
        HugePages.reserve(&lat, n)
        HugePages.reserve(&source, n)
        HugePages.reserve(&line, n)
        HugePages.reserve(&idOffsets, n + 1)
        HugePages.reserve(&nameOffsets, n + 1)
        HugePages.reserve(&keywordOffsets, n + 1)
        ids.reserve(scaled(ids.count))
        names.reserve(scaled(names.count))
        keywords.reserve(scaled(keywords.count))
        index.reserve(n)
    }

    /// Collects the batch's id hashes (computed by the reading side) and resolves its keys.
    mutating func prepare(
        _ entries: UnsafeBufferPointer<RecordBatch.Entry>, _ fields: RecordBatch.FieldResolver, keyNames: [String] = []
    ) {
        idHashes.removeAll(keepingCapacity: true)
        for e in entries { idHashes.append(e.idHash) }
        batchKeys = keyNames.map { key(named: $0) }
    }

    /// The key index of an hstore tag key (registered on first use).
    private mutating func hstoreKey(_ k: Int) -> Int32 {
        if hstoreKeys[k] < 0 {
            hstoreKeys[k] = key(named: String(decoding: KeywordSplitter.hstoreKeys[k], as: UTF8.self))
        }
        return hstoreKeys[k]
    }

    /// The index of a raw key name in the key table (added when new); -1 when it normalises to
    /// nothing.
    private mutating func key(named raw: String) -> Int32 {
        let name = KeywordText.normalize(raw)
        if name.isEmpty { return -1 }
        if let i = keyLookup[name] { return i }
        let i = Int32(keyNames.count)
        keyNames.append(name)
        keyLookup[name] = i
        keyCodes.append(KeywordText.keyCode(Int(i)))
        return i
    }

    /// Loads the id-table slots of records `range` of the prepared batch (call shortly
    /// before adding them: a few hundred at a time stay in the cache).
    mutating func touchSlots(_ range: Range<Int>) {
        touched &+= idHashes.withUnsafeBufferPointer { index.touch(UnsafeBufferPointer(rebasing: $0[range])) }
    }

    /// Adds record `k` (valid, not rejected) of a batch prepared with ``prepare(_:_:)``: a
    /// new row, or a duplicate handled by the policy.
    @inline(__always)
    mutating func add(
        _ entry: RecordBatch.Entry, _ k: Int, keywordFields: UnsafeBufferPointer<RecordBatch.KeywordField>,
        _ fields: RecordBatch.FieldResolver, source sourceIndex: UInt32, counts: inout IngestCounts
    ) {
        let row = lon.count
        let id = fields[entry.id]
        if !id.isEmpty {
            let hash = idHashes[k]
            let first = idOffsets.withUnsafeBufferPointer { offsets in
                index.firstRow(for: id, hash: hash, row: row, bytes: ids.base, offsets: offsets)
            }
            if let first {
                if first < inputStartRow { counts.crossInputDuplicates += 1 }
                switch duplicates {
                case .merge:
                    buildText(keywordFields, fields, name: fields[entry.name])
                    merge(into: first)
                    counts.mergedDuplicates += 1
                    return
                case .keepFirst:
                    counts.droppedDuplicates += 1
                    return
                case .keepAll:
                    counts.keptDuplicates += 1
                }
            }
        }
        let name = fields[entry.name]
        buildText(keywordFields, fields, name: name)
        lon.append(entry.lon)
        lat.append(entry.lat)
        ids.append(id)
        idOffsets.append(UInt64(ids.count))
        names.append(name)
        nameOffsets.append(UInt64(names.count))
        keywords.append(text.bytes)
        keywordOffsets.append(UInt64(keywords.count))
        source.append(sourceIndex)
        line.append(entry.line)
        counts.accepted += 1
        let tags = fields[entry.tags]
        if !tags.isEmpty {
            let found = LabelTags.read(tags)
            if let street = found.street { streets.append((row, street)) }
            if let kind = found.place, !name.isEmpty {
                places.append(
                    POITable.Place(
                        name: String(decoding: name.trimmingASCIIWhitespace(), as: UTF8.self), kind: kind,
                        lon: entry.lon, lat: entry.lat))
            }
        }
    }

    /// The record's normalised keyword values, without repeats, joined into `text`.
    @inline(__always)
    private mutating func buildText(
        _ keywordFields: UnsafeBufferPointer<RecordBatch.KeywordField>, _ fields: RecordBatch.FieldResolver,
        name: UnsafeBufferPointer<UInt8>
    ) {
        startText()
        for kf in keywordFields {
            let bytes = fields[kf.ref]
            if kf.column < 0 {
                appendValue(bytes, key: kf.key >= 0 ? batchKeys[Int(kf.key)] : -1, cache: true)
                continue
            }
            let c = Int(kf.column)
            let key = ruleKeys[c]
            let range = separatorRanges[c]
            slices.removeAll(keepingCapacity: true)
            listScratch.removeAll(keepingCapacity: true)
            separators.withUnsafeBufferPointer { all in
                splitter.collect(
                    bytes, mode: ruleSplits[c], separator: UnsafeBufferPointer(rebasing: all[range]), into: &slices,
                    scratch: &listScratch)
            }
            for i in 0..<slices.count {
                let v = slices[i]
                let valueKey = v.key < 0 ? key : hstoreKey(Int(v.key))
                if v.inScratch {
                    // Copied out: appendValue may not run while listScratch is borrowed.
                    let item = Array(listScratch[Int(v.start)..<Int(v.start + v.count)])
                    item.withUnsafeBufferPointer { appendValue($0, key: valueKey, cache: true) }
                } else {
                    appendValue(
                        KeywordSplitter.bytes(v, field: bytes, scratch: UnsafeBufferPointer(start: nil, count: 0)),
                        key: valueKey, cache: true)
                }
            }
        }
        if nameAsKeyword && !name.isEmpty {
            if nameKey < 0 { nameKey = key(named: "name") }
            // Names are nearly all distinct: normalise without filling the cache.
            appendValue(name, key: nameKey, cache: false)
        }
    }

    /// Normalises one raw value onto `text`, after the code of `key` (-1: none), unless it is
    /// empty or already there with the same key (`normalize: false` for items that are
    /// normalised already, key code included).
    @inline(__always)
    private mutating func appendValue(
        _ raw: UnsafeBufferPointer<UInt8>, key: Int32, cache useCache: Bool, normalize: Bool = true
    ) {
        if raw.isEmpty { return }
        let before = text.count
        if before > 0 { text.append(KeywordText.separatorByte) }
        let start = text.count
        if key >= 0 { keyCodes[Int(key)].withUnsafeBufferPointer { text.append($0) } }
        let valueStart = text.count
        if normalize {
            cache.appendNormalized(raw, to: &text, cache: useCache)
        } else {
            text.append(raw)
        }
        let n = text.count - start
        var repeated = text.count == valueStart
        var hash: UInt64 = 0
        if !repeated {
            let value = text[start..<(start + n)]
            if valueRanges.count < Self.linearScanLimit {
                for r in valueRanges where r.count == n {
                    valueComparisons &+= 1
                    if text[r].elementsEqual(value) {
                        repeated = true
                        break
                    }
                }
            } else {
                if valueIndex.isEmpty {
                    for (k, r) in valueRanges.enumerated() {
                        valueIndex[ShortHash.hash(text[r]), default: []].append(k)
                    }
                }
                hash = ShortHash.hash(value)
                for k in valueIndex[hash] ?? [] where valueRanges[k].count == n {
                    valueComparisons &+= 1
                    if text[valueRanges[k]].elementsEqual(value) {
                        repeated = true
                        break
                    }
                }
            }
        }
        if !repeated && text.count > textCap {
            // Over the POI's cap: left out, counted (whole values only, in input order).
            droppedValues += 1
            repeated = true
        }
        if repeated {
            text.truncate(to: before)
        } else {
            if !valueIndex.isEmpty { valueIndex[hash, default: []].append(valueRanges.count) }
            valueRanges.append(start..<(start + n))
        }
    }

    /// Empties `text` for the next row.
    @inline(__always)
    private mutating func startText() {
        text.truncate(to: 0)
        valueRanges.removeAll(keepingCapacity: true)
        if !valueIndex.isEmpty { valueIndex.removeAll() }
    }

    /// Keeps the values now in `text` for `row` (policy `merge`).
    private mutating func merge(into row: Int) {
        guard !valueRanges.isEmpty else { return }
        var entry = extras.removeValue(forKey: row) ?? ([], [], 0)
        let own = Int(keywordOffsets[row + 1] - keywordOffsets[row])
        for r in valueRanges {
            let v = Array(text[r])
            guard !entry.seen.contains(v) else { continue }
            // The row's text after finish(): its own values, then each merged one after a separator.
            guard own + entry.bytes + (own + entry.bytes > 0 ? 1 : 0) + v.count <= textCap else {
                droppedValues += 1
                continue
            }
            entry.seen.insert(v)
            entry.values.append(v)
            entry.bytes += (own + entry.bytes > 0 ? 1 : 0) + v.count
        }
        extras[row] = entry
    }

    /// The finished table: merged keyword values are added to their rows (in row order).
    mutating func finish() -> POITable {
        var table = POITable()
        table.lon = lon
        table.lat = lat
        table.source = source
        table.line = line
        table.ids = StringColumn(offsets: idOffsets, bytes: ids.array())
        table.names = StringColumn(offsets: nameOffsets, bytes: names.array())
        var kw = StringColumn(offsets: keywordOffsets, bytes: keywords.array())
        if !extras.isEmpty {
            let rows = extras.keys.sorted()
            var out = StringColumn()
            out.reserve(strings: kw.count, bytes: kw.bytes.count + rows.count * 32)
            var next = 0
            kw.bytes.withUnsafeBufferPointer { bytes in
                for row in 0..<kw.count {
                    let r = kw.range(row)
                    guard next < rows.count && rows[next] == row else {
                        out.append(utf8: UnsafeBufferPointer(rebasing: bytes[r]))
                        continue
                    }
                    startText()
                    for part in UnsafeBufferPointer(rebasing: bytes[r]).split(separator: KeywordText.separatorByte) {
                        appendValue(UnsafeBufferPointer(rebasing: part), key: -1, cache: false, normalize: false)
                    }
                    for v in extras[row]!.values {
                        v.withUnsafeBufferPointer { appendValue($0, key: -1, cache: false, normalize: false) }
                    }
                    out.append(utf8: text.bytes)
                    next += 1
                }
            }
            kw = out
            extras = [:]
        }
        table.keywords = kw
        table.keywordKeys = keyNames
        if !streets.isEmpty {
            var column = StringColumn()
            var next = 0
            for row in 0..<table.count {
                if next < streets.count && streets[next].row == row {
                    column.append(streets[next].street)
                    next += 1
                } else {
                    column.append("")
                }
            }
            table.streets = column
        }
        table.places = places
        return table
    }
}
