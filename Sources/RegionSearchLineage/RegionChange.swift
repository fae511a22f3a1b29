import RegionSearchOutput

/// One entry of a change report: a current region (or a retired one), its verdict and the
/// figures behind it.
public struct RegionChange {
    /// The region's id (a retired region's last id).
    public var id: Int
    public var keyword: String
    public var level: Int
    public var verdict: ChangeVerdict
    /// The previous region whose id this one continues (equal to ``id`` in a lineage); nil for a
    /// new region or a split piece born with a new id.
    public var previousID: Int?
    /// `split`: the previous region that split, and every current region it became (ids, ascending).
    public var splitFrom: Int?
    public var splitInto: [Int] = []
    /// `merged`: the previous regions it is made of (ids, ascending).
    public var mergedFrom: [Int] = []
    /// `retired`: the current region that holds most of it, when it merged into one.
    public var mergedInto: Int?
    /// Keyword POIs before and after, and shared (nil: not compared by members).
    public var membersBefore: Int?
    public var membersAfter: Int?
    public var membersShared: Int?
    /// Geodesic areas (m²) before and after.
    public var areaBeforeM2: Double?
    public var areaAfterM2: Double?
    /// Intersection over union of the two polygons, and how far the centre moved (m).
    public var iou: Double?
    public var shiftM: Double?
    public var label: String?
    /// The current polygon, or a retired region's last one.
    public var polygons: [[GeoJSONWriter.Ring]]
}
