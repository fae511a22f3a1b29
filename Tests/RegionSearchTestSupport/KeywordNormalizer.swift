import RegionSearchModel

/// Normalises category values and joins them as ingest writes a POI's keyword text (memoised:
/// categories repeat). A test builds keyword text with it without running ingest.
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
