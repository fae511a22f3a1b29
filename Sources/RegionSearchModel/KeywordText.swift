import Foundation

/// Normalisation of keyword text: Unicode NFKC, then full case folding, with control characters
/// turned into spaces and runs of white space collapsed.
///
/// NFKC maps compatibility forms to their plain equivalents (ＣＡＦＥ → CAFE, ⽕锅 → 火锅, ﬁ → fi);
/// case folding makes CAFE, Cafe and cafe equal (and Straße equal to STRASSE). A POI's keyword
/// values are normalised one by one and joined by ``separator``.
public enum KeywordText {
    /// Joins the keyword values of one POI in the `keywords` column.
    public static let separator: Character = "\n"
    public static let separatorByte: UInt8 = 0x0A

    /// Normalises one value.
    public static func normalize(_ raw: String) -> String {
        var raw = raw
        let ascii = raw.withUTF8 { isASCII($0) }
        var folded: String
        if ascii {
            folded = raw
        } else {
            folded =
                raw.precomposedStringWithCompatibilityMapping
                .folding(options: [.caseInsensitive], locale: nil)
                .precomposedStringWithCompatibilityMapping
        }
        var s =
            folded.withUTF8 { bytes -> String? in
                if isCollapsed(bytes) { return nil }
                return String(unsafeUninitializedCapacity: bytes.count) { collapse(bytes, into: $0.baseAddress!) }
            } ?? folded
        if !ascii {
            // Unicode white space other than ASCII (e.g. U+3000 ideographic space after NFKC is
            // already U+0020; NBSP becomes U+0020 too) — collapse what remains.
            if s.unicodeScalars.contains(where: { $0.properties.isWhitespace && $0 != " " }) {
                s = s.unicodeScalars.split(whereSeparator: { $0.properties.isWhitespace })
                    .map { String(String.UnicodeScalarView($0)) }.joined(separator: " ")
            }
        }
        return s
    }

    /// Whether every byte is ASCII (checked eight at a time).
    @inlinable
    public static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let p = bytes.baseAddress else { return true }
        let n = bytes.count
        var i = 0
        while i + 8 <= n {
            if UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return false }
            i += 8
        }
        while i < n {
            if p[i] >= 0x80 { return false }
            i += 1
        }
        return true
    }

    /// Whether ``collapse(_:into:)`` would return `bytes` unchanged: no ASCII upper case, no
    /// control characters, no space at either end or after another space (the common case,
    /// checked without writing anything; the empty value is collapsed).
    @inlinable
    public static func isCollapsed(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = bytes.first, let last = bytes.last else { return true }
        if first == 0x20 || last == 0x20 { return false }
        var previousSpace = false
        for b in bytes {
            if b < 0x20 || b == 0x7F || (b >= 0x41 && b <= 0x5A) || (b == 0x20 && previousSpace) { return false }
            previousSpace = b == 0x20
        }
        return true
    }

    /// The byte pass of ``normalize(_:)``, the last step for every value (and the only one for
    /// ASCII values): ASCII upper case to lower case; control characters, DEL and spaces to one
    /// space between words, none at either end. Other bytes are kept, so UTF-8 stays valid. Writes
    /// at most `bytes.count` bytes to `out` and returns how many it wrote.
    @inlinable
    public static func collapse(_ bytes: UnsafeBufferPointer<UInt8>, into out: UnsafeMutablePointer<UInt8>) -> Int {
        var n = 0
        var pendingSpace = false
        for var b in bytes {
            if b <= 0x20 || b == 0x7F {
                pendingSpace = n > 0
                continue
            }
            if b >= 0x41 && b <= 0x5A { b += 0x20 }
            if pendingSpace {
                out[n] = 0x20
                n += 1
                pendingSpace = false
            }
            out[n] = b
            n += 1
        }
        return n
    }
}

/// Memoises ``KeywordText/normalize(_:)`` for repeated values (categories repeat a lot: a
/// million POIs typically carry a few thousand distinct category strings).
struct KeywordNormalizer {
    private var cache: [String: String] = [:]
    private let limit: Int

    public init(cacheLimit: Int = 200_000) { limit = cacheLimit }

    public mutating func normalize(_ raw: String) -> String {
        if let hit = cache[raw] { return hit }
        let n = KeywordText.normalize(raw)
        if cache.count < limit { cache[raw] = n }
        return n
    }

    /// Normalises several values and joins them with the keyword separator, dropping empties
    /// and exact repeats (first occurrence wins, so the order is stable).
    public mutating func join(_ values: [String]) -> String {
        var seen: [String] = []
        for v in values {
            let n = normalize(v)
            if !n.isEmpty && !seen.contains(n) { seen.append(n) }
        }
        return seen.joined(separator: String(KeywordText.separator))
    }
}

/// Decides whether a POI's keyword text matches a query keyword.
///
/// The rule, for Latin, Cyrillic, CJK and other scripts alike: the query is normalised like the
/// keyword text (NFKC + case fold) and must occur in it as a substring, with word boundaries
/// where the script has them:
/// - if the query starts with a letter or digit of a script that separates words (Latin,
///   Cyrillic, Greek, Arabic, …), the character before the occurrence must not be a letter or
///   digit; likewise at the end. So `bank` matches "bank" and "bank of china" but not "banking"
///   or "embankment", and `кофейни` matches "кофейни".
/// - scripts written without spaces (Han, Hiragana, Katakana, Hangul, Thai, Lao, Khmer, Myanmar)
///   have no boundary requirement at a CJK edge: `咖啡` matches "瑞幸咖啡" and `火锅` matches
///   "餐饮服务;中餐厅;火锅店".
/// - a trailing `*` asks for a prefix match: `cafe*` also matches "cafeteria"; a leading `*` a
///   suffix match.
/// The keyword text holds only the keyword fields chosen at ingest (category, tags, rubrics),
/// not the name, unless ingest was told to add the name.
public struct KeywordMatcher: Sendable {
    public let query: String
    public let normalized: [UInt8]
    private let checkStart: Bool
    private let checkEnd: Bool

    public init(_ query: String) {
        var q = query
        var prefixOnly = false
        var suffixOnly = false
        if q.hasSuffix("*") {
            prefixOnly = true
            q.removeLast()
        }
        if q.hasPrefix("*") {
            suffixOnly = true
            q.removeFirst()
        }
        self.query = query
        let norm = KeywordText.normalize(q)
        normalized = Array(norm.utf8)
        let scalars = Array(norm.unicodeScalars)
        checkStart =
            !suffixOnly
            && scalars.first.map { KeywordMatcher.isWordCharacter($0) && !KeywordMatcher.isUnspacedScript($0) } ?? false
        checkEnd =
            !prefixOnly
            && scalars.last.map { KeywordMatcher.isWordCharacter($0) && !KeywordMatcher.isUnspacedScript($0) } ?? false
    }

    /// Letters, marks and digits count as word characters.
    @inline(__always)
    static func isWordCharacter(_ s: Unicode.Scalar) -> Bool {
        if s.value < 0x80 {
            let v = s.value
            return (v >= 0x30 && v <= 0x39) || (v >= 0x61 && v <= 0x7A) || (v >= 0x41 && v <= 0x5A)
        }
        let p = s.properties
        return p.isAlphabetic || p.numericType != nil || p.generalCategory == .nonspacingMark
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
    public func matches(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        let q = normalized
        let m = q.count
        let n = text.count
        guard m > 0, n >= m else { return false }
        return q.withUnsafeBufferPointer { qb -> Bool in
            let first = qb[0]
            var i = 0
            while i <= n - m {
                if text[i] != first {
                    i += 1
                    continue
                }
                var k = 1
                while k < m && text[i + k] == qb[k] { k += 1 }
                if k == m && boundaryOK(text, start: i, end: i + m) { return true }
                i += 1
            }
            return false
        }
    }

    public func matches(_ text: String) -> Bool {
        var t = text
        return t.withUTF8 { matches($0) }
    }

    private func boundaryOK(_ text: UnsafeBufferPointer<UInt8>, start: Int, end: Int) -> Bool {
        if checkStart && start > 0 {
            var j = start - 1
            while j > 0 && text[j] & 0xC0 == 0x80 { j -= 1 }
            if let s = decodeScalar(text, at: j), KeywordMatcher.isWordCharacter(s) { return false }
        }
        if checkEnd && end < text.count {
            if let s = decodeScalar(text, at: end), KeywordMatcher.isWordCharacter(s) { return false }
        }
        return true
    }

    private func decodeScalar(_ text: UnsafeBufferPointer<UInt8>, at i: Int) -> Unicode.Scalar? {
        var it = text[i...].makeIterator()
        var decoder = UTF8()
        if case .scalarValue(let s) = decoder.decode(&it) { return s }
        return nil
    }
}
