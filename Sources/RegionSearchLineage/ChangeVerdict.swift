/// What happened to a region between two results (``RegionMatching`` decides; docs/RUNNING.md,
/// "Night after night", gives the rule).
public enum ChangeVerdict: String, CaseIterable, Sendable {
    /// No region of the previous result was the same place.
    case new
    /// The same place, about the same size (members and area) and centre.
    case unchanged
    /// The same place with clearly more keyword POIs (or, members equal, clearly more area).
    case grown
    /// The same place with clearly fewer keyword POIs (or less area).
    case shrunk
    /// The same POIs (or about the same number), but its centre moved by half its radius or more.
    case moved
    /// One of the pieces one previous region became (the piece holding most of it keeps its id).
    case split
    /// Made of two or more previous regions (it keeps the id of the one it holds most of).
    case merged
    /// A previous region no region of this result continues (listed with its last geometry).
    case retired
}
