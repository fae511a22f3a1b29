import RegionSearchCore
import RegionSearchOutput

/// How many coarsest-level regions each downtown holds, per keyword: the null test "at most one
/// region per downtown at the coarsest level" of a city with downtowns and nothing planted.
///
/// Downtowns are must-not features of kind `downtown` (the generator's `downtowns` scenario
/// writes each Gaussian downtown as the disc of twice its σ). Every level-0 region of a keyword is
/// given to the downtown its polygon overlaps most (by area; ties to the first in file order), or
/// counted as outside all downtowns when it overlaps none.
public struct DowntownCounts: Sendable, Equatable {
    /// Identifiers of the downtowns, in file order.
    public var downtownIDs: [JSONValue] = []
    /// Per region keyword label (code-point order): level-0 regions per downtown (in the order of
    /// ``downtownIDs``) and those outside every downtown.
    public var byKeyword: [(keyword: String, perDowntown: [Int], outside: Int)] = []

    public static func == (a: DowntownCounts, b: DowntownCounts) -> Bool {
        a.downtownIDs == b.downtownIDs && a.byKeyword.map(\.keyword) == b.byKeyword.map(\.keyword)
            && a.byKeyword.map(\.perDowntown) == b.byKeyword.map(\.perDowntown)
            && a.byKeyword.map(\.outside) == b.byKeyword.map(\.outside)
    }

    /// The largest number of level-0 regions of one keyword in one downtown (0 without downtowns).
    public var maxPerDowntown: Int { byKeyword.flatMap(\.perDowntown).max() ?? 0 }

    static func isDowntown(_ item: EvaluationLayer.Item) -> Bool { item.kind == "downtown" }

    /// The counts for the level-0 regions of `regions` (regions without keyword are left out).
    static func compute(regions: [EvaluationLayer.Item], mustNot: [EvaluationLayer.Item], context: GEOSContext)
        throws -> DowntownCounts
    {
        let downtowns = mustNot.filter(isDowntown)
        var out = DowntownCounts(downtownIDs: downtowns.map(\.id))
        let labels = Set(regions.compactMap(\.keyword)).sorted(by: codePointOrder)
        for label in labels {
            var per = [Int](repeating: 0, count: downtowns.count)
            var outside = 0
            for region in regions where region.keyword == label && region.level == 0 {
                var best = -1
                var bestArea = 0.0
                if let e = region.envelope, region.area > 0 {
                    for (d, downtown) in downtowns.enumerated() {
                        guard let de = downtown.envelope, de.intersects(e) else { continue }
                        let a = try region.geometry.intersection(downtown.geometry).area
                        if a > bestArea {
                            bestArea = a
                            best = d
                        }
                    }
                }
                if best >= 0 { per[best] += 1 } else { outside += 1 }
            }
            out.byKeyword.append((label, per, outside))
        }
        return out
    }
}
