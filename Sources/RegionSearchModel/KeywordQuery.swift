/// A query keyword, parsed: a token query (`parking`, `bank of china`, `cafe*`, `咖啡`) or a
/// `key=value` query (`amenity=parking`, `cuisine=coffee_shop`, `shop=*`).
///
/// The whole query is normalised like keyword text first (``KeywordText/normalize(_:)``: NFKC,
/// case fold, blanks collapsed), so `ＣＡＦＥ`, `Cafe` and `cafe` are one query, and a full-width
/// `＝` or `＊` counts as `=` or `*`. Then:
/// - a query holding `=` is a `key=value` query: the key is the text before the first `=`, the
///   value the text after it (both trimmed); neither may be empty, the key may not hold `*`;
/// - a trailing `*` asks for a prefix match, a leading `*` for a suffix match (both: a
///   substring); what is left may not be empty (a lone `*` would match everything). For a
///   `key=value` query the stars apply to the value, and `key=*` means any value of that key.
///
/// ``canonical`` is the normalised query written back (`amenity=parking`, `cafe*`): two queries
/// with the same canonical form match the same POIs and are the same keyword.
public struct KeywordQuery: Sendable, Hashable {
    /// The query as given.
    public let given: String
    /// The normalised tag key of a `key=value` query; nil for a token query.
    public let key: String?
    /// The normalised text to find (a token query) or the value (a `key=value` query), without
    /// the stars.
    public let text: String
    /// A trailing `*`: the match may continue after ``text``.
    public let prefix: Bool
    /// A leading `*`: the match may start before ``text``.
    public let suffix: Bool

    public init(_ given: String) throws(KeywordQueryError) {
        self.given = given
        let normalized = KeywordText.normalize(given)
        var rest = Substring(normalized)
        if let eq = normalized.firstIndex(of: "=") {
            let key = normalized[..<eq].trimmingSpaces
            rest = normalized[normalized.index(after: eq)...].trimmingSpaces
            guard !key.isEmpty else { throw .noKey(given) }
            guard !key.contains("*") else { throw .wildcardKey(given) }
            guard !rest.isEmpty else { throw .noValue(given) }
            self.key = String(key)
        } else {
            key = nil
            guard !rest.isEmpty else { throw .empty(given) }
        }
        var p = false
        var s = false
        if rest.hasSuffix("*") {
            p = true
            rest = rest.dropLast()
        }
        if rest.hasPrefix("*") {
            s = true
            rest = rest.dropFirst()
        }
        rest = rest.trimmingSpaces
        if rest.isEmpty {
            if key == nil { throw .onlyWildcard(given) }
            // `key=*`, `key=**`: any value, one meaning, one canonical form.
            (p, s) = (true, false)
        }
        prefix = p
        suffix = s
        text = String(rest)
    }

    /// The normalised query, as matched: `amenity=parking`, `cafe*`, `*_parking`.
    public var canonical: String {
        let core = (suffix ? "*" : "") + text + (prefix ? "*" : "")
        if let key { return key + "=" + (core.isEmpty ? "*" : core) }
        return core
    }

    /// Hashable and equal by ``canonical`` meaning (the spelling given does not count).
    public static func == (a: KeywordQuery, b: KeywordQuery) -> Bool {
        a.key == b.key && a.text == b.text && a.prefix == b.prefix && a.suffix == b.suffix
    }

    public func hash(into h: inout Hasher) {
        h.combine(key)
        h.combine(text)
        h.combine(prefix)
        h.combine(suffix)
    }

    /// A query list without repeats: the first spelling of each query is kept, in order, and
    /// every later one that means the same (`BANK`, `ｂａｎｋ` after `bank`) is listed in
    /// `duplicates` with its position and the kept query's position.
    public static func distinct(_ queries: [KeywordQuery]) -> (
        kept: [KeywordQuery], duplicates: [(index: Int, sameAs: Int)]
    ) {
        var firstIndex: [KeywordQuery: Int] = [:]
        var kept: [KeywordQuery] = []
        var duplicates: [(index: Int, sameAs: Int)] = []
        for (i, q) in queries.enumerated() {
            if let first = firstIndex[q] {
                duplicates.append((i, first))
            } else {
                firstIndex[q] = i
                kept.append(q)
            }
        }
        return (kept, duplicates)
    }
}

/// Why a query keyword cannot be used; the message names the query and says what to write.
public enum KeywordQueryError: Error, Equatable, CustomStringConvertible {
    case empty(String)
    case onlyWildcard(String)
    case noKey(String)
    case noValue(String)
    case wildcardKey(String)

    public var description: String {
        switch self {
        case .empty(let q):
            return "\"\(q)\" is empty after normalisation"
        case .onlyWildcard(let q):
            return
                "\"\(q)\" is only a wildcard, which would match every POI; give a word (cafe* matches words that "
                + "start with cafe)"
        case .noKey(let q):
            return "\"\(q)\" has nothing before '='; a key=value query names a tag key, e.g. amenity=parking"
        case .noValue(let q):
            return "\"\(q)\" has nothing after '='; give a value, e.g. amenity=parking, or amenity=* for any value"
        case .wildcardKey(let q):
            return "\"\(q)\": the key of a key=value query cannot hold *; give the tag key exactly"
        }
    }
}

extension Substring {
    /// Without leading and trailing spaces (normalised text has no other blanks).
    fileprivate var trimmingSpaces: Substring {
        var s = self
        while s.first == " " { s = s.dropFirst() }
        while s.last == " " { s = s.dropLast() }
        return s
    }
}
