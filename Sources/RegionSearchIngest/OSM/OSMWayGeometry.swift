import Foundation

/// The representative point of an OSM way that is a POI (a building outline, a park, a
/// platform line), so it can stand beside node POIs.
///
/// Rule:
/// - **Closed way** (first and last node ref equal, at least 4 refs): the area centroid of the
///   ring when it lies inside the ring; otherwise (concave shapes such as L- or U-shaped buildings)
///   a point on the surface: on the horizontal line halfway between the two vertex latitudes
///   nearest the middle of the ring's latitude range (so the line passes through no vertex), the
///   midpoint of the widest stretch inside the ring (even–odd rule, as GEOS `PointOnSurface`).
///   A ring with no area (all vertices on one line) is treated as an open way.
/// - **Open way:** the point halfway along its length, lengths measured in a local
///   equirectangular frame (longitude differences scaled by the cosine of the first vertex's
///   latitude), interpolated linearly within the segment.
/// - **Single node, or zero length:** the first node.
///
/// All arithmetic is done relative to the first vertex, with longitude differences wrapped into
/// [-180°, 180°] so ways crossing the antimeridian work; the result longitude is wrapped back
/// into [-180°, 180°]. The computation is deterministic (fixed order of operations), so both
/// readers give bit-identical points for identical node coordinates.
enum OSMWayGeometry {
    /// - Parameters:
    ///   - lons: longitudes of the way's nodes in way order (degrees, valid).
    ///   - lats: latitudes, same count, at least one.
    ///   - closed: whether the way's first and last node refs are the same node.
    static func representativePoint(lons: [Double], lats: [Double], closed: Bool) -> (lon: Double, lat: Double) {
        precondition(lons.count == lats.count && !lons.isEmpty)
        let lon0 = lons[0]
        let lat0 = lats[0]
        let xs = lons.map { wrap($0 - lon0) }
        let ys = lats.map { $0 - lat0 }
        var local: (x: Double, y: Double)
        if closed && xs.count >= 4, let p = areaPoint(xs: Array(xs.dropLast()), ys: Array(ys.dropLast())) {
            local = p
        } else {
            local = lineMidpoint(xs: xs, ys: ys, lat0: lat0)
        }
        return (wrap(lon0 + local.x), lat0 + local.y)
    }

    @inline(__always)
    private static func wrap(_ d: Double) -> Double {
        d > 180 ? d - 360 : (d < -180 ? d + 360 : d)
    }

    /// Centroid or point on surface of the ring `xs, ys` (closing vertex not repeated); nil when
    /// the ring has no usable area.
    private static func areaPoint(xs: [Double], ys: [Double]) -> (x: Double, y: Double)? {
        let n = xs.count
        var twiceArea = 0.0
        var cx = 0.0
        var cy = 0.0
        var minX = xs[0]
        var maxX = xs[0]
        var minY = ys[0]
        var maxY = ys[0]
        for i in 0..<n {
            let j = i + 1 == n ? 0 : i + 1
            let cross = xs[i] * ys[j] - xs[j] * ys[i]
            twiceArea += cross
            cx += (xs[i] + xs[j]) * cross
            cy += (ys[i] + ys[j]) * cross
            minX = min(minX, xs[i])
            maxX = max(maxX, xs[i])
            minY = min(minY, ys[i])
            maxY = max(maxY, ys[i])
        }
        // A sliver whose area is negligible against its bounding box has an unstable centroid.
        guard twiceArea.isFinite, abs(twiceArea) > 1e-9 * (maxX - minX) * (maxY - minY), twiceArea != 0 else {
            return nil
        }
        let centroid = (x: cx / (3 * twiceArea), y: cy / (3 * twiceArea))
        if contains(xs: xs, ys: ys, x: centroid.x, y: centroid.y) { return centroid }
        return surfacePoint(xs: xs, ys: ys, minY: minY, maxY: maxY)
    }

    /// Even–odd point-in-ring test.
    private static func contains(xs: [Double], ys: [Double], x: Double, y: Double) -> Bool {
        var inside = false
        var j = xs.count - 1
        for i in 0..<xs.count {
            if (ys[i] > y) != (ys[j] > y) {
                let crossX = xs[i] + (y - ys[i]) * (xs[j] - xs[i]) / (ys[j] - ys[i])
                if x < crossX { inside.toggle() }
            }
            j = i
        }
        return inside
    }

    /// Midpoint of the widest interior stretch on a scan line that avoids every vertex.
    private static func surfacePoint(xs: [Double], ys: [Double], minY: Double, maxY: Double) -> (x: Double, y: Double)?
    {
        let centreY = (minY + maxY) / 2
        var loY = minY
        var hiY = maxY
        for y in ys {
            if y <= centreY {
                if y > loY { loY = y }
            } else if y < hiY {
                hiY = y
            }
        }
        let scanY = (loY + hiY) / 2
        var crossings: [Double] = []
        var j = xs.count - 1
        for i in 0..<xs.count {
            if (ys[i] < scanY) != (ys[j] < scanY) {
                crossings.append(xs[i] + (scanY - ys[i]) * (xs[j] - xs[i]) / (ys[j] - ys[i]))
            }
            j = i
        }
        crossings.sort()
        var best: (x: Double, y: Double)?
        var bestWidth = -1.0
        var k = 0
        while k + 1 < crossings.count {
            let width = crossings[k + 1] - crossings[k]
            if width > bestWidth {
                bestWidth = width
                best = ((crossings[k] + crossings[k + 1]) / 2, scanY)
            }
            k += 2
        }
        return best
    }

    /// The point halfway along the polyline (local equirectangular lengths).
    private static func lineMidpoint(xs: [Double], ys: [Double], lat0: Double) -> (x: Double, y: Double) {
        let scale = cos(lat0 * .pi / 180)
        var lengths = [Double](repeating: 0, count: max(0, xs.count - 1))
        var total = 0.0
        for i in 0..<lengths.count {
            let dx = (xs[i + 1] - xs[i]) * scale
            let dy = ys[i + 1] - ys[i]
            lengths[i] = (dx * dx + dy * dy).squareRoot()
            total += lengths[i]
        }
        guard total > 0, total.isFinite else { return (xs[0], ys[0]) }
        let half = total / 2
        var walked = 0.0
        for i in 0..<lengths.count where lengths[i] > 0 {
            if walked + lengths[i] >= half {
                let t = (half - walked) / lengths[i]
                return (xs[i] + t * (xs[i + 1] - xs[i]), ys[i] + t * (ys[i + 1] - ys[i]))
            }
            walked += lengths[i]
        }
        return (xs[xs.count - 1], ys[ys.count - 1])
    }
}
