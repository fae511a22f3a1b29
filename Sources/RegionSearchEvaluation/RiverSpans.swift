import RegionSearchCore
import RegionSearchOutput

/// The regions that span a river: whose polygon holds land on both of its banks, whether one part
/// joins them across the water or separate parts lie on either side (the region's members are
/// then on both banks).
///
/// A river is a must-not feature of kind `river`, or of kind `void` whose `name` is `river` or
/// starts with `river ` (the bands of the generator's `rivers` scenario, "river 0" … "river 3").
/// Its **banks** are the connected parts of the domain less the river grown by the tolerance τ.
/// The domain is the convex hull of the POIs (without POIs, the bounding box of the must-not
/// features) cut to the river's own extent along its longer axis (between its westmost and
/// eastmost points for a river wider than tall, else between its southmost and northmost), so
/// that a river drawn across the data from edge to edge cuts it into two banks even where a few
/// POIs lie beyond its ends (more than two where it meanders out of the domain and back); a river
/// that ends inside the data has a single bank and no region can span it (the report counts such
/// rivers). A region **spans** a river when its polygon covers at least
/// ``minimumPart`` m² of two or more of its banks. The tolerance keeps a margin that reaches a
/// little into the water, or across it by less than τ, from counting: only land more than τ from
/// the water is a bank.
public struct RiverSpans: Sendable, Equatable {
    /// Land closer than this to the water is not a bank (metres).
    public var tolerance: Double
    /// Identifiers of the rivers (must-not features), in file order.
    public var riverIDs: [JSONValue] = []
    /// Per river: the number of banks it has in the domain (1: it cannot be spanned).
    public var banks: [Int] = []
    /// Per region (the order of the regions scored): the rivers (indices into ``riverIDs``) it spans.
    public var spans: [[Int]] = []

    /// The smallest area (m²) of a bank a region must cover for that bank to count.
    public static let minimumPart = 1.0
    /// The default tolerance τ.
    public static let defaultTolerance = 10.0

    /// Whether a must-not feature is a river.
    static func isRiver(_ item: EvaluationLayer.Item) -> Bool {
        if item.kind == "river" { return true }
        guard item.kind == "void", let name = item.name else { return false }
        return name == "river" || name.hasPrefix("river ")
    }

    /// The regions spanning each river of `mustNot` within `domain` (a ring in the evaluation CRS).
    static func compute(
        regions: [EvaluationLayer.Item], mustNot: [EvaluationLayer.Item], domain: (x: [Double], y: [Double]),
        tolerance: Double, context: GEOSContext
    ) throws -> RiverSpans {
        var out = RiverSpans(tolerance: tolerance)
        out.spans = [[Int]](repeating: [], count: regions.count)
        let hull = try context.polygon(x: domain.x, y: domain.y)
        let (minX, maxX) = (domain.x.min() ?? 0, domain.x.max() ?? 0)
        let (minY, maxY) = (domain.y.min() ?? 0, domain.y.max() ?? 0)
        for river in mustNot where isRiver(river) {
            let k = out.riverIDs.count
            out.riverIDs.append(river.id)
            guard let e = river.envelope else {
                out.banks.append(0)
                continue
            }
            let across =
                e.maxX - e.minX >= e.maxY - e.minY
                ? try context.polygon(
                    x: [e.minX, e.maxX, e.maxX, e.minX], y: [minY - 1, minY - 1, maxY + 1, maxY + 1])
                : try context.polygon(
                    x: [minX - 1, maxX + 1, maxX + 1, minX - 1], y: [e.minY, e.minY, e.maxY, e.maxY])
            let water = tolerance > 0 ? try river.geometry.buffer(tolerance, quadrantSegments: 8) : river.geometry
            let land = try hull.intersection(across).difference(water).polygons().filter { $0.area > 0 }
            out.banks.append(land.count)
            guard land.count >= 2 else { continue }
            let envelopes = land.map(\.envelope)
            for (j, region) in regions.enumerated() where region.area > 0 {
                guard let e = region.envelope else { continue }
                var covered = 0
                for (b, bank) in land.enumerated() {
                    guard let be = envelopes[b], be.intersects(e) else { continue }
                    if try region.geometry.intersection(bank).area >= Self.minimumPart { covered += 1 }
                    if covered >= 2 { break }
                }
                if covered >= 2 { out.spans[j].append(k) }
            }
        }
        return out
    }

    /// The number of regions among `indices` that span at least one river.
    func spanning(_ indices: [Int]) -> Int { indices.filter { !spans[$0].isEmpty }.count }
}
