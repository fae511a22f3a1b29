import RegionSearchModel
import RegionSearchOutput

/// One region as the lineage sees it: where it is (its polygon), what it holds (its keyword
/// POIs, by the input's POI id), which group it belongs to (keyword and level) and the id it
/// carries.
///
/// Tonight's regions come from the hulls stage's result (``RegionIdentity``), last night's from
/// the lineage file (``LineageState``), and `regionsearch diff` reads any region file; members
/// are then known only for lineage files, and matching falls back to the polygons.
public struct TrackedRegion {
    /// `region_id`: stable in a lineage; the row number (from 1) in tonight's unidentified result.
    public var id: Int
    public var keyword: String
    /// 0 = coarsest (the region hierarchy); regions are matched only within one keyword and level.
    public var level: Int
    /// Rank within the keyword and level (1 = most keyword POIs).
    public var rank: Int
    /// `region_id` of the enclosing region (one level up; for a street, its level-0 region), or nil.
    public var parentID: Int?
    /// The keys of the keyword POIs the region was found with (``POIKey``), sorted bytewise and
    /// unique; empty when the file gives no members (a plain region file).
    public var members: [String]
    /// The region's keyword POIs: `members.count` when members are known, else the file's
    /// `n_keyword_pois` (counted inside the polygon).
    public var keywordPOIs: Int
    /// Geodesic area of the polygon, m² (the `area_m2` property).
    public var areaM2: Double
    /// The polygon in WGS 84 lon/lat: polygons → rings (exterior first) → closed vertices.
    public var polygons: [[GeoJSONWriter.Ring]]
    /// A name a person recognises (``RegionLabeler``), and the rule that chose it.
    public var label: String?
    public var labelRule: String?

    public init(
        id: Int, keyword: String, level: Int, rank: Int, parentID: Int?, members: [String], keywordPOIs: Int,
        areaM2: Double, polygons: [[GeoJSONWriter.Ring]], label: String? = nil, labelRule: String? = nil
    ) {
        self.id = id
        self.keyword = keyword
        self.level = level
        self.rank = rank
        self.parentID = parentID
        self.members = members
        self.keywordPOIs = keywordPOIs
        self.areaM2 = areaM2
        self.polygons = polygons
        self.label = label
        self.labelRule = labelRule
    }

    /// The group a region is matched in.
    public struct Group: Hashable, Comparable, Sendable {
        public var keyword: String
        public var level: Int

        public init(keyword: String, level: Int) {
            self.keyword = keyword
            self.level = level
        }

        /// Bytewise keyword order, then level: the same on every platform and locale.
        public static func < (a: Group, b: Group) -> Bool {
            if a.keyword != b.keyword { return a.keyword.utf8.lexicographicallyPrecedes(b.keyword.utf8) }
            return a.level < b.level
        }
    }

    /// Its keyword as the query it stands for (``KeywordQuery/canonical``) with its level: a
    /// keyword spelt another way (`Restaurant`, `ＲＥＳＴＡＵＲＡＮＴ`), which finds the same POIs,
    /// is the same group, so a manifest's respelling keeps every region's id.
    public var group: Group { Group(keyword: Self.canonicalKeyword(keyword), level: level) }

    /// The keyword's canonical query; as written when it is no query (an older file's).
    static func canonicalKeyword(_ keyword: String) -> String {
        (try? KeywordQuery(keyword))?.canonical ?? keyword
    }

    /// Sorts and deduplicates member keys bytewise (the order ``members`` must have).
    public static func canonicalMembers(_ keys: [String]) -> [String] {
        var sorted = keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        var out: [String] = []
        out.reserveCapacity(sorted.count)
        for k in sorted where out.last != k { out.append(k) }
        sorted.removeAll()
        return out
    }
}
