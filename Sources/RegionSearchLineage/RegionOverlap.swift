import RegionSearchOutput

/// How much ground two polygons share, in m² on the ``LocalPlane`` of the pair: the sum over
/// their parts' pairwise intersections (the parts of a valid MultiPolygon are disjoint), through
/// GEOS. A polygon GEOS finds invalid (a hand-made region file) is made valid first.
///
/// One instance per thread: it owns a GEOS context.
final class RegionOverlap {
    private let geos = GEOSContext()

    /// The bounding box of polygons in lon/lat (nil when they have no vertex).
    static func bounds(_ polygons: [[GeoJSONWriter.Ring]]) -> (
        minLon: Double, minLat: Double, maxLon: Double, maxLat: Double
    )? {
        var b: (Double, Double, Double, Double)?
        for polygon in polygons {
            guard let ring = polygon.first else { continue }
            for (lon, lat) in zip(ring.lon, ring.lat) {
                if let (a, c, d, e) = b {
                    b = (min(a, lon), min(c, lat), max(d, lon), max(e, lat))
                } else {
                    b = (lon, lat, lon, lat)
                }
            }
        }
        return b.map { (minLon: $0.0, minLat: $0.1, maxLon: $0.2, maxLat: $0.3) }
    }

    /// The area two polygons share, m² on `plane`.
    func intersectionArea(_ a: [[GeoJSONWriter.Ring]], _ b: [[GeoJSONWriter.Ring]], plane: LocalPlane) throws(GEOSError)
        -> Double
    {
        let pa = try parts(a, plane)
        let pb = try parts(b, plane)
        var total = 0.0
        for x in pa {
            guard let ex = x.envelope else { continue }
            for y in pb {
                guard let ey = y.envelope, ex.minX <= ey.maxX, ey.minX <= ex.maxX, ex.minY <= ey.maxY,
                    ey.minY <= ex.maxY
                else { continue }
                total += try x.intersection(y).area
            }
        }
        return total
    }

    private func parts(_ polygons: [[GeoJSONWriter.Ring]], _ plane: LocalPlane) throws(GEOSError) -> [GEOSGeometry] {
        var out: [GEOSGeometry] = []
        for polygon in polygons where !polygon.isEmpty {
            var g = try geos.polygon(rings: polygon.map { plane.project($0) })
            if !g.isValid { g = try g.makeValid() }
            out.append(g)
        }
        return out
    }
}
