/// The thresholds of the matching rule (``RegionMatching``). The defaults are the documented
/// rule; they are parameters of the matcher so that tests and experiments can state them.
public struct MatchRule: Sendable, Equatable {
    /// A previous and a current region are *linked* (the same place, wholly or in part) when at
    /// least this share of either one is the other: of its keyword POIs (when both sides have
    /// members) or of its area.
    public var linkShare: Double = 0.5
    /// Grown / shrunk: at least this relative change in keyword POIs…
    public var memberChange: Double = 0.1
    /// …and at least this many POIs.
    public var memberChangeMinimum: Int = 2
    /// Grown / shrunk by area when the members did not change: the area grew by this factor or
    /// shrank by its inverse.
    public var areaFactor: Double = 1.25
    /// Moved: the centre moved by at least this share of the radius of a disc of the larger area.
    public var shiftShare: Double = 0.5

    public init() {}
}
