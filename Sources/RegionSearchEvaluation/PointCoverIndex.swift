import RegionSearchOutput

/// Answers "which points lie in this polygonal area (interior or boundary)?" for many points.
///
/// The area is split into its polygons; each is prepared in GEOS. A uniform grid over the area's
/// envelope lists the polygons whose envelope meets each cell, so a point costs one cell lookup
/// and a few envelope comparisons; only points inside some polygon's envelope reach GEOS (which,
/// in 3.11, needs a point geometry per test).
///
/// Boundary points count as inside (GEOS `covers`): a convex hull's corner POIs belong to it.
final class PointCoverIndex {
    private let parts: [GEOSPreparedGeometry]
    private let envelopes: [GEOSEnvelope]
    private let bounds: GEOSEnvelope?
    private let columns: Int
    private let rows: Int
    private let cellWidth: Double
    private let cellHeight: Double
    /// CSR lists: `cellStart[c]..<cellStart[c+1]` index into `cellParts`.
    private let cellStart: [Int32]
    private let cellParts: [Int32]

    /// Indexes a polygonal geometry (Polygon, MultiPolygon or a collection holding polygons).
    public init(_ area: GEOSGeometry) throws(GEOSError) {
        let polygonal = try area.polygonalParts()
        var parts: [GEOSPreparedGeometry] = []
        var envelopes: [GEOSEnvelope] = []
        let count = polygonal.isPolygon ? 1 : polygonal.geometryCount
        for i in 0..<count {
            let p = polygonal.isPolygon ? polygonal : try polygonal.part(i)
            guard let e = p.envelope else { continue }
            parts.append(try p.prepared())
            envelopes.append(e)
        }
        self.parts = parts
        self.envelopes = envelopes
        guard var total = envelopes.first else {
            bounds = nil
            columns = 0
            rows = 0
            cellWidth = 1
            cellHeight = 1
            cellStart = [0]
            cellParts = []
            return
        }
        for e in envelopes.dropFirst() { total = total.union(e) }
        bounds = total
        // About four cells per polygon, at most 512 × 512.
        let side = min(512, max(1, Int((Double(envelopes.count) * 4).squareRoot().rounded(.up))))
        let width = max((total.maxX - total.minX) / Double(side), 1e-9)
        let height = max((total.maxY - total.minY) / Double(side), 1e-9)
        columns = side
        rows = side
        cellWidth = width
        cellHeight = height
        var counts = [Int32](repeating: 0, count: side * side + 1)
        func cells(_ e: GEOSEnvelope) -> (ClosedRange<Int>, ClosedRange<Int>) {
            let c0 = min(side - 1, max(0, Int((e.minX - total.minX) / width)))
            let c1 = min(side - 1, max(0, Int((e.maxX - total.minX) / width)))
            let r0 = min(side - 1, max(0, Int((e.minY - total.minY) / height)))
            let r1 = min(side - 1, max(0, Int((e.maxY - total.minY) / height)))
            return (c0...c1, r0...r1)
        }
        for e in envelopes {
            let (cs, rs) = cells(e)
            for r in rs { for c in cs { counts[r * side + c + 1] += 1 } }
        }
        for i in 1..<counts.count { counts[i] += counts[i - 1] }
        var fill = counts
        var list = [Int32](repeating: 0, count: Int(counts[side * side]))
        for (k, e) in envelopes.enumerated() {
            let (cs, rs) = cells(e)
            for r in rs {
                for c in cs {
                    let cell = r * side + c
                    list[Int(fill[cell])] = Int32(k)
                    fill[cell] += 1
                }
            }
        }
        cellStart = counts
        cellParts = list
    }

    /// Whether the point lies in the area or on its boundary.
    public func covers(x: Double, y: Double) throws(GEOSError) -> Bool {
        guard let b = bounds, b.contains(x: x, y: y) else { return false }
        let c = min(columns - 1, max(0, Int((x - b.minX) / cellWidth)))
        let r = min(rows - 1, max(0, Int((y - b.minY) / cellHeight)))
        let cell = r * columns + c
        for k in Int(cellStart[cell])..<Int(cellStart[cell + 1]) {
            let part = Int(cellParts[k])
            if envelopes[part].contains(x: x, y: y), try parts[part].covers(x: x, y: y) { return true }
        }
        return false
    }

    /// Flags for many points: `result[i]` is whether point `i` is covered.
    public func covers(x: UnsafeBufferPointer<Double>, y: UnsafeBufferPointer<Double>) throws(GEOSError) -> [Bool] {
        var out = [Bool](repeating: false, count: x.count)
        for i in 0..<x.count where try covers(x: x[i], y: y[i]) { out[i] = true }
        return out
    }
}
