/// Whether a region's polygon is one a person would draw: it covers its members and the ground
/// between them, and nothing else.
///
/// Two measures, both written on every region feature:
/// - ``emptyShare``: the share of the polygon farther than ``emptyDistance`` spacings (the region's
///   median distance from a member to its 5th nearest keyword location) from every member. An arm
///   or corridor without members along it, or a straight side across ground the members leave
///   empty, is such ground; the skeleton's own gaps (edges up to `edge_spacing` spacings, triangles
///   up to `triangle_spacing`) keep every point of a drawn region within two spacings of a member
///   when they are at their defaults.
/// - ``membersInside``: the share of the region's members the polygon (as written, after it was cut
///   to its parent and to better-ranked regions of its level) covers.
///
/// ``passes`` holds when at most ``emptyLimit`` of the polygon is empty ground and at least
/// ``insideLimit`` of its members are inside.
public struct ShapeCheck: Sendable, Equatable {
    public var emptyShare: Double
    public var membersInside: Double

    public init(emptyShare: Double, membersInside: Double) {
        self.emptyShare = emptyShare
        self.membersInside = membersInside
    }

    /// Ground farther than this many spacings from every member counts as empty.
    public static let emptyDistance = 2.0
    /// At most this share of a polygon may be empty ground…
    public static let emptyLimit = 0.05
    /// …and at least this share of its members must be inside.
    public static let insideLimit = 0.9

    public var passes: Bool { emptyShare <= Self.emptyLimit && membersInside >= Self.insideLimit }
}
