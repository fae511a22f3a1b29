import RegionSearchCore

/// Quick, exact answers to the two questions the ring test asks of a candidate's convex hull for
/// every POI it walks: inside the hull (``ConvexHull2D/contains(_:_:tolerance:)``) and within a
/// distance of it (``ConvexHull2D/distance(_:_:)``). Both cost a pass over the hull's edges; a
/// common keyword's ring walks tens of thousands of POIs round a hull of a dozen corners.
///
/// The hull lies between two discs round the centroid of its corners: the largest inside it
/// (radius `inner`, the least distance from the centroid to an edge's line) and the smallest
/// holding it (`outer`, the farthest corner). A point well inside the inner disc is inside; a
/// point beyond the outer disc is at least its distance to that disc from the hull. Only points
/// between the two discs, or too near a threshold, need the edges (nil). The margins — a
/// millimetre plus a billionth of the distances involved — are far above the rounding of the
/// edge tests, so every answer given is the one the edge test gives.
///
/// Outside the hull, `contains` accepts a point within its tolerance of every edge's line. Beyond
/// a sharp corner a point is nearer the lines than the hull (a needle's tip): by a factor of at
/// least sin(θ/2), θ the corner's angle, which bounds the quick "outside".
struct HullScreen {
    private let cx: Double
    private let cy: Double
    private let inner: Double
    private let outer: Double
    /// sin(θ_min / 2) over the corners' angles.
    private let sharpest: Double
    /// The shortest edge (the edge test's tolerance grows for edges under a metre).
    private let shortestEdge: Double
    private let usable: Bool

    init(_ hull: ConvexHull2D) {
        let n = hull.count
        guard n >= 3 else {
            (cx, cy, inner, outer, sharpest, shortestEdge, usable) = (0, 0, 0, 0, 0, 0, false)
            return
        }
        var sx = 0.0
        var sy = 0.0
        for i in 0..<n {
            sx += hull.x[i]
            sy += hull.y[i]
        }
        let (mx, my) = (sx / Double(n), sy / Double(n))
        var inner = Double.infinity
        var outer = 0.0
        var sharpest = 1.0
        var shortest = Double.infinity
        for i in 0..<n {
            let j = (i + 1) % n
            let h = (i + n - 1) % n
            let (ex, ey) = (hull.x[j] - hull.x[i], hull.y[j] - hull.y[i])
            let length = (ex * ex + ey * ey).squareRoot()
            shortest = min(shortest, length)
            // Counter-clockwise: the centroid is on the left of every edge.
            inner = min(inner, length > 0 ? (ex * (my - hull.y[i]) - ey * (mx - hull.x[i])) / length : 0)
            outer = max(outer, ((hull.x[i] - mx) * (hull.x[i] - mx) + (hull.y[i] - my) * (hull.y[i] - my)).squareRoot())
            let (ax, ay) = (hull.x[h] - hull.x[i], hull.y[h] - hull.y[i])
            let la = (ax * ax + ay * ay).squareRoot()
            sharpest = min(
                sharpest, Self.halfAngleSine(ax, ay, ex, ey, la, length, scale: abs(hull.x[i]) + abs(hull.y[i])))
        }
        (cx, cy) = (mx, my)
        self.inner = inner
        self.outer = outer
        self.sharpest = sharpest
        shortestEdge = shortest
        usable = inner.isFinite && inner > 0 && outer.isFinite && shortest > 0
    }

    /// A lower bound on sin(θ/2) for the angle θ between (ax, ay) and (ex, ey) (lengths `la`,
    /// `le`) at a corner of coordinates about `scale`; 0 below 1e-6. Not from 1 − cos θ, which
    /// rounding leaves at a few ulps for a needle's tip (θ ≈ 1e-13 read as 1e-8): from the cross
    /// product, less what the rounding of the differences and of the product can add to it.
    static func halfAngleSine(
        _ ax: Double, _ ay: Double, _ ex: Double, _ ey: Double, _ la: Double, _ le: Double, scale: Double
    ) -> Double {
        guard la > 0, le > 0, la.isFinite, le.isFinite else { return 0 }
        let cosine = max(-1, min(1, (ax * ex + ay * ey) / (la * le)))
        // θ ≥ 90°: 1 − cos θ ≥ 1, no cancellation.
        if cosine <= 0 { return ((1 - cosine) / 2).squareRoot() }
        let rounding = 1e-12 * (abs(ax * ey) + abs(ay * ex)) + 1e-12 * scale * (la + le)
        let sine = max(0, abs(ax * ey - ay * ex) - rounding) / (la * le)
        // sin(θ/2) = sin θ / (2 cos(θ/2)) = sin θ / √(2 (1 + cos θ)).
        let half = sine / (2 * (1 + cosine)).squareRoot()
        return half >= 1e-6 ? half : 0
    }

    /// A millimetre plus a billionth of the centre's coordinates and of the distance `d`.
    @inline(__always) private func margin(_ d: Double) -> Double { 1e-3 + 1e-9 * (abs(cx) + abs(cy) + d + outer) }

    /// Whether (px, py) is inside the hull as `contains(px, py, tolerance:)` decides, when that
    /// is sure without the edges.
    func inside(_ px: Double, _ py: Double, tolerance: Double) -> Bool? {
        guard usable else { return nil }
        let d = ((px - cx) * (px - cx) + (py - cy) * (py - cy)).squareRoot()
        let m = margin(d)
        if d <= inner - m { return true }
        // Beyond the outer disc by δ: some edge's line is at least δ · sin(θ_min / 2) away.
        let allowance = tolerance * max(1, shortestEdge) / shortestEdge
        if sharpest > 0 && (d - outer) * sharpest > allowance + m { return false }
        return nil
    }

    /// Whether (px, py) is within `width` of the hull as `distance(px, py) <= width` decides,
    /// when that is sure without the edges.
    func within(_ width: Double, _ px: Double, _ py: Double) -> Bool? {
        guard usable else { return nil }
        let d = ((px - cx) * (px - cx) + (py - cy) * (py - cy)).squareRoot()
        let m = margin(d + width)
        if d - inner <= width - m { return true }
        if d - outer >= width + m { return false }
        return nil
    }
}
