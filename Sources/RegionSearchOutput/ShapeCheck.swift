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

    /// The share of `polygon` (in the plane) farther than `distance` from every point (x, y),
    /// measured on a regular grid of sample points over the polygon's envelope (cell centres, at
    /// least 20 and at most about 60 cells across): a union of thousands of discs in GEOS costs
    /// seconds and gigabytes, sampling milliseconds, and the share is a figure to two decimals.
    static func emptyShare(of polygon: GEOSGeometry, x: [Double], y: [Double], distance: Double) throws(GEOSError)
        -> Double
    {
        guard let box = polygon.envelope, distance > 0, !x.isEmpty else { return 0 }
        let width = box.maxX - box.minX
        let height = box.maxY - box.minY
        let step = max(min(distance / 2, max(width, height) / 20), max(width, height) / 60, 1e-9)
        // The points in a grid of cells `distance` wide: a sample's neighbours within `distance`
        // lie in its cell or the eight around it.
        var cells: [SIMD2<Int>: [Int]] = [:]
        func cell(_ px: Double, _ py: Double) -> SIMD2<Int> {
            SIMD2(Int(((px - box.minX) / distance).rounded(.down)), Int(((py - box.minY) / distance).rounded(.down)))
        }
        for i in 0..<x.count { cells[cell(x[i], y[i]), default: []].append(i) }
        let prepared = try polygon.prepared()
        let d2 = distance * distance
        var inside = 0
        var empty = 0
        var sy = box.minY + step / 2
        while sy < box.maxY {
            var sx = box.minX + step / 2
            while sx < box.maxX {
                if try prepared.covers(x: sx, y: sy) {
                    inside += 1
                    let c = cell(sx, sy)
                    var near = false
                    search: for dx in -1...1 {
                        for dy in -1...1 {
                            for i in cells[SIMD2(c.x + dx, c.y + dy)] ?? [] {
                                let ex = x[i] - sx
                                let ey = y[i] - sy
                                if ex * ex + ey * ey <= d2 {
                                    near = true
                                    break search
                                }
                            }
                        }
                    }
                    if !near { empty += 1 }
                }
                sx += step
            }
            sy += step
        }
        return inside > 0 ? Double(empty) / Double(inside) : 0
    }
}
