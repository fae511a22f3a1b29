import RegionSearchCore

/// The scores of the truths of one `kind` (strip, district, cluster, core, block, town, …), as if
/// the truth held only them: recall at any level, the best level's F1, member recall.
public struct KindScore: Sendable, Equatable {
    public var kind: String
    public var truthCount = 0
    /// Regions whose keyword pairs with a truth of this kind (all levels).
    public var scoredRegionCount = 0
    /// Per threshold: truths of this kind matched by a same-keyword region of any level.
    public var recall: [Double] = []
    /// Per threshold: the highest F1 of one level, with that level's recall of this kind's truths
    /// and its precision against them (regions of the level matching a truth of this kind over the
    /// scored regions of the level); nil level when no level has a scored region.
    public var bestLevelF1: [Double] = []
    public var bestLevel: [Int?] = []
    /// Member recall of this kind's truths (all keywords), with members and checks.
    public var members: MemberRecall?
}
