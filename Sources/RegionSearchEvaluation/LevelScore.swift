import RegionSearchCore

/// The scores of the regions of one level of the hierarchy (`level` property; 0 = coarsest, and
/// every region of a file without levels): recall of the truths by this level's regions alone,
/// precision of this level's regions, their F1, and the region checks over them.
public struct LevelScore: Sendable, Equatable {
    public var level: Int
    /// All regions of this level, scored or not.
    public var regionCount = 0
    /// Regions of this level with at least one same-keyword truth: the precision denominator.
    public var scoredRegionCount = 0
    /// Per threshold t: truths whose best IoU with a same-keyword region *of this level* is ≥ t,
    /// over all truths.
    public var recall: [Double] = []
    /// Per threshold t: scored regions of this level whose best IoU with a same-keyword truth is
    /// ≥ t, over the scored regions of this level.
    public var precision: [Double] = []
    public var f1: [Double] = []
    /// Regions of this level per keyword label (code-point order; every keyword of the report).
    public var regionsPerKeyword: [(keyword: String, count: Int)] = []
    /// The region checks over this level's regions (with checks and POIs).
    public var regionChecks: RegionCheck.Summary?
    /// Area of this level's regions in must-not areas (with a must-not file), summed over keywords.
    public var mustNot: MustNotShare?
    /// Regions of this level spanning a river (with rivers in the must-not file).
    public var spanningRivers: Int?

    public static func == (a: LevelScore, b: LevelScore) -> Bool {
        a.level == b.level && a.regionCount == b.regionCount && a.scoredRegionCount == b.scoredRegionCount
            && a.recall == b.recall && a.precision == b.precision && a.f1 == b.f1
            && a.regionsPerKeyword.map(\.keyword) == b.regionsPerKeyword.map(\.keyword)
            && a.regionsPerKeyword.map(\.count) == b.regionsPerKeyword.map(\.count)
            && a.regionChecks == b.regionChecks && a.mustNot == b.mustNot && a.spanningRivers == b.spanningRivers
    }

    /// Per-level recall, precision and F1 of `truths` against the scored regions `regions`, and
    /// the best level per threshold (the level with the highest F1; ties to the coarser level;
    /// F1 0 and level nil when no level has regions).
    ///
    /// - Parameters:
    ///   - truthBestByLevel: per truth, its best IoU with a paired region of each level.
    ///   - regionBest: a region's best IoU with a paired truth among `truths`.
    ///   - matchesOther: whether a region matches some truth at a threshold; asked only of a region
    ///     that does not match `truths` there, so it says the region matches a truth outside them (of
    ///     another kind): such a region is a right answer to another question and is left out of the
    ///     precision's count at that threshold, not counted wrong.
    static func fit(
        truths: [Int], regions: [Int], levels: [Int], thresholds: [Double], truthBestByLevel: [[Int: Double]],
        regionBest: (Int) -> Double, regionLevel: (Int) -> Int,
        matchesOther: (_ region: Int, _ threshold: Double) -> Bool = { _, _ in false }
    ) -> (
        levels: [(level: Int, scored: Int, recall: [Double], precision: [Double], f1: [Double])], bestF1: [Double],
        bestLevel: [Int?]
    ) {
        var out: [(level: Int, scored: Int, recall: [Double], precision: [Double], f1: [Double])] = []
        var bestF1 = [Double](repeating: 0, count: thresholds.count)
        var bestLevel = [Int?](repeating: nil, count: thresholds.count)
        for level in levels {
            let scored = regions.filter { regionLevel($0) == level }
            var recall: [Double] = []
            var precision: [Double] = []
            var f1: [Double] = []
            for (k, t) in thresholds.enumerated() {
                let r =
                    truths.isEmpty
                    ? 0 : Double(truths.filter { (truthBestByLevel[$0][level] ?? 0) >= t }.count) / Double(truths.count)
                let matched = scored.filter { regionBest($0) >= t }.count
                let counted = scored.count - scored.filter { regionBest($0) < t && matchesOther($0, t) }.count
                let p = counted == 0 ? 0 : Double(matched) / Double(counted)
                let f = r + p > 0 ? 2 * r * p / (r + p) : 0
                recall.append(r)
                precision.append(p)
                f1.append(f)
                if !scored.isEmpty && (bestLevel[k] == nil || f > bestF1[k]) {
                    bestF1[k] = f
                    bestLevel[k] = level
                }
            }
            out.append((level, scored.count, recall, precision, f1))
        }
        return (out, bestF1, bestLevel)
    }
}
