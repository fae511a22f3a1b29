/// Planar convex hulls (Andrew's monotone chain) and the small polygon predicates the regions and
/// hulls stages need; exact enough for projected metre coordinates.
public struct ConvexHull2D: Sendable {
    /// Hull vertices counter-clockwise, no repeated closing vertex. Fewer than 3 for degenerate
    /// inputs (one distinct point, or collinear points give the two extremes).
    public var x: [Double]
    public var y: [Double]
    /// The number of distinct points the hull was built from.
    public var locations: Int

    /// Hull of the given points.
    public init(x px: [Double], y py: [Double]) {
        let n = px.count
        var idx = Array(0..<n)
        idx.sort { (px[$0], py[$0], $0) < (px[$1], py[$1], $1) }
        // Drop exact duplicates.
        var pts: [(Double, Double)] = []
        pts.reserveCapacity(n)
        for i in idx where pts.last.map({ $0 != (px[i], py[i]) }) ?? true { pts.append((px[i], py[i])) }
        locations = pts.count
        if pts.count < 3 {
            x = pts.map { $0.0 }
            y = pts.map { $0.1 }
            return
        }
        func cross(_ o: (Double, Double), _ a: (Double, Double), _ b: (Double, Double)) -> Double {
            (a.0 - o.0) * (b.1 - o.1) - (a.1 - o.1) * (b.0 - o.0)
        }
        var hull: [(Double, Double)] = []
        for p in pts {
            while hull.count >= 2 && cross(hull[hull.count - 2], hull[hull.count - 1], p) <= 0 { hull.removeLast() }
            hull.append(p)
        }
        let lower = hull.count + 1
        for p in pts.reversed().dropFirst() {
            while hull.count >= lower && cross(hull[hull.count - 2], hull[hull.count - 1], p) <= 0 { hull.removeLast() }
            hull.append(p)
        }
        hull.removeLast()
        if hull.count < 3 {
            // All collinear: keep the two extremes.
            hull = [pts.first!, pts.last!]
        }
        x = hull.map { $0.0 }
        y = hull.map { $0.1 }
    }

    public var count: Int { x.count }

    /// Area (m²); 0 for degenerate hulls.
    public var area: Double {
        guard count >= 3 else { return 0 }
        var a = 0.0
        for i in 0..<count {
            let j = (i + 1) % count
            a += x[i] * y[j] - x[j] * y[i]
        }
        return abs(a) / 2
    }

    /// Perimeter (m); for degenerate hulls, twice the distance between the extremes.
    public var perimeter: Double {
        guard count >= 2 else { return 0 }
        var p = 0.0
        for i in 0..<count {
            let j = (i + 1) % count
            p += ((x[j] - x[i]) * (x[j] - x[i]) + (y[j] - y[i]) * (y[j] - y[i])).squareRoot()
        }
        return p
    }

    /// Axis-aligned bounds (minX, minY, maxX, maxY).
    public var bounds: (Double, Double, Double, Double) {
        (x.min() ?? 0, y.min() ?? 0, x.max() ?? 0, y.max() ?? 0)
    }

    /// Whether (px, py) lies inside or on the hull (within `tolerance` metres for degenerate hulls).
    public func contains(_ px: Double, _ py: Double, tolerance: Double = 1e-6) -> Bool {
        if count == 0 { return false }
        if count < 3 {
            return distance(px, py) <= tolerance
        }
        for i in 0..<count {
            let j = (i + 1) % count
            let c = (x[j] - x[i]) * (py - y[i]) - (y[j] - y[i]) * (px - x[i])
            if c < -tolerance * max(1, ((x[j] - x[i]) * (x[j] - x[i]) + (y[j] - y[i]) * (y[j] - y[i])).squareRoot()) {
                return false
            }
        }
        return true
    }

    /// Distance from a point to the hull (0 inside).
    public func distance(_ px: Double, _ py: Double) -> Double {
        if count >= 3 && contains(px, py, tolerance: 0) { return 0 }
        if count == 1 { return ((px - x[0]) * (px - x[0]) + (py - y[0]) * (py - y[0])).squareRoot() }
        var best = Double.infinity
        for i in 0..<count {
            let j = (i + 1) % count
            best = min(best, segmentDistance(px, py, x[i], y[i], x[j], y[j]))
        }
        return best
    }

    /// Smallest distance between two hulls (0 when they touch or overlap).
    public func distance(to other: ConvexHull2D) -> Double {
        guard count > 0, other.count > 0 else { return .infinity }
        // Crossing edges (e.g. two thin rectangles forming a cross, no vertex inside the other).
        if count >= 2 && other.count >= 2 {
            for i in 0..<count {
                let i2 = (i + 1) % count
                for j in 0..<other.count {
                    let j2 = (j + 1) % other.count
                    if segmentsIntersect(x[i], y[i], x[i2], y[i2], other.x[j], other.y[j], other.x[j2], other.y[j2]) {
                        return 0
                    }
                }
            }
        }
        var best = Double.infinity
        for i in 0..<count { best = min(best, other.distance(x[i], y[i])) }
        if best == 0 { return 0 }
        for i in 0..<other.count { best = min(best, distance(other.x[i], other.y[i])) }
        return best
    }
}

/// Distance from (px, py) to the segment (ax, ay)–(bx, by).
@inline(__always)
func segmentDistance(_ px: Double, _ py: Double, _ ax: Double, _ ay: Double, _ bx: Double, _ by: Double) -> Double {
    let dx = bx - ax
    let dy = by - ay
    let len2 = dx * dx + dy * dy
    var t = len2 > 0 ? ((px - ax) * dx + (py - ay) * dy) / len2 : 0
    t = min(1, max(0, t))
    let qx = ax + t * dx - px
    let qy = ay + t * dy - py
    return (qx * qx + qy * qy).squareRoot()
}

/// Whether segments a1–a2 and b1–b2 share a point.
func segmentsIntersect(
    _ ax1: Double, _ ay1: Double, _ ax2: Double, _ ay2: Double,
    _ bx1: Double, _ by1: Double, _ bx2: Double, _ by2: Double
) -> Bool {
    func orient(_ ox: Double, _ oy: Double, _ px: Double, _ py: Double, _ qx: Double, _ qy: Double) -> Double {
        (px - ox) * (qy - oy) - (py - oy) * (qx - ox)
    }
    func onSegment(_ ox: Double, _ oy: Double, _ px: Double, _ py: Double, _ qx: Double, _ qy: Double) -> Bool {
        min(ox, px) <= qx && qx <= max(ox, px) && min(oy, py) <= qy && qy <= max(oy, py)
    }
    let d1 = orient(bx1, by1, bx2, by2, ax1, ay1)
    let d2 = orient(bx1, by1, bx2, by2, ax2, ay2)
    let d3 = orient(ax1, ay1, ax2, ay2, bx1, by1)
    let d4 = orient(ax1, ay1, ax2, ay2, bx2, by2)
    if ((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0)) { return true }
    if d1 == 0 && onSegment(bx1, by1, bx2, by2, ax1, ay1) { return true }
    if d2 == 0 && onSegment(bx1, by1, bx2, by2, ax2, ay2) { return true }
    if d3 == 0 && onSegment(ax1, ay1, ax2, ay2, bx1, by1) { return true }
    if d4 == 0 && onSegment(ax1, ay1, ax2, ay2, bx2, by2) { return true }
    return false
}
