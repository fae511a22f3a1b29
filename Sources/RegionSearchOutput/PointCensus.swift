import CGEOS
import RegionSearchCore
import RegionSearchModel

/// Counts the POIs inside written polygons, as a GIS "count points in polygon" on the output file
/// would: the test is GEOS `covers` on the polygon exactly as written (lon/lat, rounded to 7
/// decimals, holes included) against each point as the POI layer writes it (also rounded to 7
/// decimals), so the counts in a region's properties describe its polygon and agree with a join
/// of the two written layers even for a POI that is itself a hull vertex.
public struct PointCensus {
    let lon: Column<Double>
    let lat: Column<Double>
    /// Point indices sorted by longitude (then index), to find a polygon's candidates quickly.
    private let byLon: [UInt32]

    public init(lon: Column<Double>, lat: Column<Double>) {
        self.lon = lon
        self.lat = lat
        byLon = (0..<UInt32(lon.count)).sorted { a, b in
            lon[Int(a)] != lon[Int(b)] ? lon[Int(a)] < lon[Int(b)] : a < b
        }
    }

    /// All POIs, and those with `match` set, inside the polygon parts (exterior + holes each).
    public func count(_ parts: [[GeoJSONWriter.Ring]], match: Column<UInt8>, geos: GEOSContext) throws(GEOSError)
        -> (all: Int, matching: Int)
    {
        var all = 0
        var matching = 0
        for part in parts {
            let polygon = try geos.polygon(rings: part.map { (x: $0.lon, y: $0.lat) })
            guard let box = polygon.envelope else { continue }
            let prepared = try polygon.prepared()
            var lo = 0
            var hi = byLon.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if lon[Int(byLon[mid])] < box.minX - 1e-7 { lo = mid + 1 } else { hi = mid }
            }
            var k = lo
            while k < byLon.count {
                let i = Int(byLon[k])
                k += 1
                // Candidates are found by the unrounded longitude; rounding moves a point by at most
                // half a grid step, so the window is widened by one step on each side.
                if lon[i] > box.maxX + 1e-7 { break }
                let x = GeoJSONWriter.rounded(lon[i])
                let y = GeoJSONWriter.rounded(lat[i])
                guard x >= box.minX && x <= box.maxX && y >= box.minY && y <= box.maxY else { continue }
                if try prepared.covers(x: x, y: y) {
                    all += 1
                    if match[i] != 0 { matching += 1 }
                }
            }
        }
        return (all, matching)
    }
}
