import Foundation

/// Decides whether a POI's keyword text matches a query keyword (see ``KeywordQuery`` for how a
/// query is read).
///
/// The keyword text is a list of *values* (``KeywordText``): a tag value like `bicycle_parking`,
/// a category level like `餐饮服务`, a rubric like `Кафе`, the name when ingest added it. Query
/// and values are normalised alike (NFKC + case fold), so `ＣＡＦＥ` finds `cafe` and `⽕锅` finds
/// `火锅`.
///
/// **Token queries** (`parking`, `bank of china`): the query must occur in one value as whole
/// tokens. Tokens are runs of letters, digits, marks and `_`; spaces and punctuation separate
/// them, `_` does not — it joins the words of one OSM tag value. So `parking` matches `parking`,
/// `Parking garage` and `P+R parking`, but not `bicycle_parking`, `parking_entrance` or
/// `motorcycle_parking`; `bank` matches `Bank of China` but not `banking` or `embankment`.
/// - Scripts written without spaces (Han, kana, Hangul, Thai, Lao, Khmer, Myanmar) have no token
///   edge at a character of theirs: `咖啡` matches `瑞幸咖啡`, `火锅` matches `火锅店`.
/// - A trailing `*` drops the token edge at the end (a prefix match: `cafe*` matches
///   `cafeteria`, `parking*` matches `parking_entrance`), a leading `*` the one at the start
///   (`*_parking` matches `bicycle_parking` and `motorcycle_parking`).
///
/// **`key=value` queries** (`amenity=parking`, `fclass=parking`, `cuisine=coffee_shop`): a value
/// that came from that key — an OSM tag key, a GeoJSON property or a delimited column named as a
/// keyword field — and is exactly that value (OSM multi-values split at `;` are separate values).
/// Stars apply to the value: `amenity=parking*` is a prefix of the value, `shop=*` any value of
/// `shop`. OSM's `yes` is stored as the key (`shop=yes` gives the value `shop`), so `shop=yes`
/// also finds a value `shop` from key `shop`. The key table (`keys`) is the pois artifact's
/// `keyword_keys`; a key missing from it matches nothing (``isKeyKnown``).
public struct KeywordMatcher: Sendable {
    /// The query as given.
    public let query: String
    /// The normalised query (``KeywordQuery/canonical``), or "" when the query is not valid (such
    /// a matcher matches nothing).
    public let canonical: String
    /// The token text or the `key=value` value, UTF-8.
    private let pattern: [UInt8]
    private let checkStart: Bool
    private let checkEnd: Bool
    /// `key=value` queries: the key code, or nil when the key is not in the table.
    private let keyCode: [UInt8]?
    private let isTag: Bool
    /// The key's UTF-8, for `key=yes` (OSM stores `yes` as the key).
    private let yesAlternative: [UInt8]?
    private let prefix: Bool
    private let suffix: Bool

    /// A matcher for `query`; an invalid query (see ``KeywordQuery``) gives a matcher that matches
    /// nothing.
    public init(_ query: String, keys: [String] = []) {
        if let q = try? KeywordQuery(query) {
            self.init(q, keys: keys)
        } else {
            self.init(invalid: query)
        }
    }

    private init(invalid query: String) {
        self.query = query
        canonical = ""
        pattern = []
        checkStart = false
        checkEnd = false
        keyCode = nil
        isTag = false
        yesAlternative = nil
        prefix = false
        suffix = false
    }

    public init(_ q: KeywordQuery, keys: [String] = []) {
        query = q.given
        canonical = q.canonical
        pattern = Array(q.text.utf8)
        prefix = q.prefix
        suffix = q.suffix
        if let key = q.key {
            isTag = true
            keyCode = keys.firstIndex(of: key).map { KeywordText.keyCode($0) }
            yesAlternative = q.text == "yes" && !q.prefix && !q.suffix ? Array(key.utf8) : nil
            checkStart = false
            checkEnd = false
        } else {
            isTag = false
            keyCode = nil
            yesAlternative = nil
            let scalars = q.text.unicodeScalars
            checkStart =
                !q.suffix && scalars.first.map { Self.isWordCharacter($0) && !Self.isUnspacedScript($0) } ?? false
            checkEnd = !q.prefix && scalars.last.map { Self.isWordCharacter($0) && !Self.isUnspacedScript($0) } ?? false
        }
    }

    /// Whether this is a `key=value` query.
    public var isTagQuery: Bool { isTag }

    /// False for a `key=value` query whose key is not in the key table (it matches nothing).
    public var isKeyKnown: Bool { !isTag || keyCode != nil }

    /// Letters, marks, digits and `_` are token characters.
    @inline(__always)
    static func isWordCharacter(_ s: Unicode.Scalar) -> Bool {
        if s.value < 0x80 { return isASCIIWordByte(UInt8(s.value)) }
        let p = s.properties
        return p.isAlphabetic || p.numericType != nil || p.generalCategory == .nonspacingMark
    }

    @inline(__always)
    static func isASCIIWordByte(_ v: UInt8) -> Bool {
        (v >= 0x30 && v <= 0x39) || (v >= 0x61 && v <= 0x7A) || (v >= 0x41 && v <= 0x5A) || v == 0x5F
    }

    /// Scripts written without spaces between words.
    @inline(__always)
    static func isUnspacedScript(_ s: Unicode.Scalar) -> Bool {
        switch s.value {
        case 0x2E80...0x2FDF, 0x3005...0x3007, 0x3021...0x3029, 0x3040...0x30FF, 0x3100...0x312F,
            0x3190...0x31FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xF900...0xFAFF, 0x20000...0x3FFFF,
            0x1100...0x11FF, 0x3130...0x318F, 0xAC00...0xD7AF,
            0x0E00...0x0EFF, 0x1000...0x109F, 0x1780...0x17FF:
            return true
        default:
            return false
        }
    }

    /// Whether `text` (normalised keyword text, UTF-8) contains a match.
    @inline(__always)
    public func matches(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        isTag ? matchesTag(text) : matchesToken(text)
    }

    public func matches(_ text: String) -> Bool {
        var t = text
        return t.withUTF8 { matches($0) }
    }

    // MARK: - Token queries

    private func matchesToken(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        let m = pattern.count
        let n = text.count
        guard m > 0, n >= m, let t = text.baseAddress else { return false }
        return pattern.withUnsafeBufferPointer { qb -> Bool in
            let q = qb.baseAddress!
            let first = q[0]
            var i = 0
            let last = n - m
            while i <= last {
                // memchr finds the next candidate start with wide loads.
                guard let hit = memchr(t + i, Int32(first), last - i + 1) else { return false }
                i = UnsafePointer(hit.assumingMemoryBound(to: UInt8.self)) - t
                if memcmp(t + i + 1, q + 1, m - 1) == 0 && boundaryOK(text, start: i, end: i + m) { return true }
                i += 1
            }
            return false
        }
    }

    @inline(__always)
    private func boundaryOK(_ text: UnsafeBufferPointer<UInt8>, start: Int, end: Int) -> Bool {
        if checkStart && start > 0 {
            let b = text[start - 1]
            if b < 0x80 {
                if Self.isASCIIWordByte(b) { return false }
            } else {
                var j = start - 1
                while j > 0 && text[j] & 0xC0 == 0x80 { j -= 1 }
                if let s = decodeScalar(text, at: j), Self.isWordCharacter(s) { return false }
            }
        }
        if checkEnd && end < text.count {
            let b = text[end]
            if b < 0x80 {
                if Self.isASCIIWordByte(b) { return false }
            } else if let s = decodeScalar(text, at: end), Self.isWordCharacter(s) {
                return false
            }
        }
        return true
    }

    private func decodeScalar(_ text: UnsafeBufferPointer<UInt8>, at i: Int) -> Unicode.Scalar? {
        var it = text[i...].makeIterator()
        var decoder = UTF8()
        if case .scalarValue(let s) = decoder.decode(&it) { return s }
        return nil
    }

    // MARK: - key=value queries

    private func matchesTag(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let code = keyCode, let t = text.baseAddress else { return false }
        let n = text.count
        let c = code.count
        var i = 0
        while i < n {
            // Item i..<end: its key code, then its value.
            let end =
                memchr(t + i, Int32(KeywordText.separatorByte), n - i).map {
                    UnsafePointer($0.assumingMemoryBound(to: UInt8.self)) - t
                } ?? n
            if end - i > c, !KeywordText.isKeyCodeByte(t[i + c]),
                code.withUnsafeBufferPointer({ memcmp(t + i, $0.baseAddress!, c) == 0 }),
                valueMatches(UnsafeBufferPointer(start: t + i + c, count: end - i - c))
            {
                return true
            }
            i = end + 1
        }
        return false
    }

    @inline(__always)
    private func valueMatches(_ value: UnsafeBufferPointer<UInt8>) -> Bool {
        switch (prefix, suffix) {
        case (false, false):
            return value.elementsEqual(pattern) || (yesAlternative.map { value.elementsEqual($0) } ?? false)
        case (true, false):
            return value.starts(with: pattern)
        case (false, true):
            return value.count >= pattern.count && value.suffix(pattern.count).elementsEqual(pattern)
        case (true, true):
            if pattern.isEmpty { return true }
            guard value.count >= pattern.count else { return false }
            return (0...(value.count - pattern.count)).contains { s in
                value[s..<(s + pattern.count)].elementsEqual(pattern)
            }
        }
    }
}
