import Foundation
import RegionSearchOutput

/// Longitude/latitude as metres on a plane that is true at one latitude (equirectangular): over
/// the extent of two regions of one city, areas are off by well under 1 %, and the lineage uses
/// them only for ratios (shares, IoU) and for how far a region's centre moved — never as the
/// area it reports (that is the geodesic `area_m2`).
struct LocalPlane {
    /// Mean Earth radius (IUGG), metres.
    static let radius = 6_371_008.8
    let kx: Double
    let ky: Double

    init(latitude: Double) {
        let metresPerDegree = Self.radius * Double.pi / 180
        ky = metresPerDegree
        kx = metresPerDegree * cos(latitude * Double.pi / 180)
    }

    /// A ring's vertices in metres.
    func project(_ ring: GeoJSONWriter.Ring) -> (x: [Double], y: [Double]) {
        (ring.lon.map { $0 * kx }, ring.lat.map { $0 * ky })
    }

    /// Area (m²) and area-weighted centroid (lon/lat) of polygons: exterior rings count
    /// positive and holes negative whatever their orientation in the file.
    func areaAndCentroid(_ polygons: [[GeoJSONWriter.Ring]]) -> (area: Double, lon: Double, lat: Double) {
        var area = 0.0
        var cx = 0.0
        var cy = 0.0
        for polygon in polygons {
            for (k, ring) in polygon.enumerated() {
                let n = ring.lon.count
                guard n >= 3 else { continue }
                var a = 0.0
                var sx = 0.0
                var sy = 0.0
                // Relative to the first vertex: keeps the sums small, so the result does not
                // depend on where on Earth the ring is.
                let x0 = ring.lon[0]
                let y0 = ring.lat[0]
                for i in 0..<n {
                    let j = i + 1 == n ? 0 : i + 1
                    let xi = (ring.lon[i] - x0) * kx
                    let yi = (ring.lat[i] - y0) * ky
                    let xj = (ring.lon[j] - x0) * kx
                    let yj = (ring.lat[j] - y0) * ky
                    let c = xi * yj - xj * yi
                    a += c
                    sx += (xi + xj) * c
                    sy += (yi + yj) * c
                }
                guard a != 0 else { continue }
                let ringArea = abs(a) / 2
                let ringCX = x0 + sx / (3 * a) / kx
                let ringCY = y0 + sy / (3 * a) / ky
                let signed = k == 0 ? ringArea : -ringArea
                area += signed
                cx += signed * ringCX
                cy += signed * ringCY
            }
        }
        guard area > 0 else {
            let first = polygons.first?.first
            return (0, first?.lon.first ?? 0, first?.lat.first ?? 0)
        }
        return (area, cx / area, cy / area)
    }

    /// Distance in metres between two lon/lat positions.
    func distance(_ a: (lon: Double, lat: Double), _ b: (lon: Double, lat: Double)) -> Double {
        let dx = (a.lon - b.lon) * kx
        let dy = (a.lat - b.lat) * ky
        return (dx * dx + dy * dy).squareRoot()
    }
}
