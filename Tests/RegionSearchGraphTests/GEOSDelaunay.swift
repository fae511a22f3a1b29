import CGEOS

/// Delaunay edges computed by GEOS (the second implementation the triangulation is checked
/// against), as index pairs (i < j) into the given distinct points.
enum GEOSDelaunay {
    static func edges(x: [Double], y: [Double]) -> Set<UInt64> {
        let ctx = GEOS_init_r()!
        defer { GEOS_finish_r(ctx) }
        var index: [Key: Int] = [:]
        for i in 0..<x.count where index[Key(x[i], y[i])] == nil { index[Key(x[i], y[i])] = i }
        var points: [OpaquePointer?] = (0..<x.count).map { GEOSGeom_createPointFromXY_r(ctx, x[$0], y[$0]) }
        let multi = points.withUnsafeMutableBufferPointer {
            GEOSGeom_createCollection_r(ctx, Int32(GEOS_MULTIPOINT.rawValue), $0.baseAddress, UInt32(x.count))!
        }
        defer { GEOSGeom_destroy_r(ctx, multi) }
        guard let lines = GEOSDelaunayTriangulation_r(ctx, multi, 0, 1) else { return [] }
        defer { GEOSGeom_destroy_r(ctx, lines) }
        var out = Set<UInt64>()
        for g in 0..<GEOSGetNumGeometries_r(ctx, lines) {
            let line = GEOSGetGeometryN_r(ctx, lines, g)!
            let seq = GEOSGeom_getCoordSeq_r(ctx, line)!
            var size: UInt32 = 0
            GEOSCoordSeq_getSize_r(ctx, seq, &size)
            var ends: [Int] = []
            for v in [0, size - 1] {
                var px = 0.0
                var py = 0.0
                GEOSCoordSeq_getXY_r(ctx, seq, v, &px, &py)
                ends.append(index[Key(px, py)]!)
            }
            out.insert(pair(ends[0], ends[1]))
        }
        return out
    }

    struct Key: Hashable {
        let x: UInt64, y: UInt64
        init(_ x: Double, _ y: Double) {
            self.x = (x == 0 ? 0 : x).bitPattern
            self.y = (y == 0 ? 0 : y).bitPattern
        }
    }

    static func pair(_ a: Int, _ b: Int) -> UInt64 { UInt64(min(a, b)) << 32 | UInt64(max(a, b)) }
}
