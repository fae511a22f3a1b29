import Foundation

/// Conversions between WGS84 and the offset coordinate systems of Chinese map providers.
///
/// GCJ-02 ("Mars coordinates", used by Amap/AutoNavi, Tencent and Google inside China) is WGS84
/// shifted by a published, deliberately non-linear function of position; BD-09 (Baidu) applies a
/// further rotation-and-scale to GCJ-02. Neither is in PROJ. The forward transforms are the
/// published formulas; the inverses are:
/// - BD-09 → GCJ-02: the published closed form (exact to about 1e-6°, well under a metre);
/// - GCJ-02 → WGS84: fixed-point iteration of the forward transform until successive
///   estimates agree to better than 1e-7° (about 1 cm), instead of the common one-step
///   approximation that is off by up to a few metres.
///
/// Outside mainland China (the published rectangle lon 72.004…137.8347, lat 0.8293…55.8271) the
/// offset is not applied, as the providers do.
public enum ChineseCoordinates {
    /// The coordinate systems an input can declare.
    public enum System: String, CaseIterable, Sendable {
        case wgs84, gcj02, bd09
    }

    private static let semiMajor = 6_378_245.0  // Krasovsky 1940
    private static let eccentricitySquared = 0.006_693_421_622_965_943_23
    static let baiduFactor = Double.pi * 3000.0 / 180.0

    /// Whether the GCJ-02 offset applies at this WGS84/GCJ-02 position.
    @inline(__always)
    static func isInsideChina(lon: Double, lat: Double) -> Bool {
        lon >= 72.004 && lon <= 137.8347 && lat >= 0.8293 && lat <= 55.8271
    }

    /// The GCJ-02 offset (degrees) at a WGS84 position.
    private static func offset(lon: Double, lat: Double) -> (dLon: Double, dLat: Double) {
        let x = lon - 105.0
        let y = lat - 35.0
        let sx = sqrt(abs(x))
        let common = (20.0 * sin(6.0 * x * .pi) + 20.0 * sin(2.0 * x * .pi)) * 2.0 / 3.0
        var dLat = -100.0 + 2.0 * x + 3.0 * y + 0.2 * y * y + 0.1 * x * y + 0.2 * sx + common
        dLat += (20.0 * sin(y * .pi) + 40.0 * sin(y / 3.0 * .pi)) * 2.0 / 3.0
        dLat += (160.0 * sin(y / 12.0 * .pi) + 320.0 * sin(y * .pi / 30.0)) * 2.0 / 3.0
        var dLon = 300.0 + x + 2.0 * y + 0.1 * x * x + 0.1 * x * y + 0.1 * sx + common
        dLon += (20.0 * sin(x * .pi) + 40.0 * sin(x / 3.0 * .pi)) * 2.0 / 3.0
        dLon += (150.0 * sin(x / 12.0 * .pi) + 300.0 * sin(x / 30.0 * .pi)) * 2.0 / 3.0
        let radLat = lat / 180.0 * .pi
        var magic = sin(radLat)
        magic = 1 - eccentricitySquared * magic * magic
        let sqrtMagic = sqrt(magic)
        dLat = (dLat * 180.0) / ((semiMajor * (1 - eccentricitySquared)) / (magic * sqrtMagic) * .pi)
        dLon = (dLon * 180.0) / (semiMajor / sqrtMagic * cos(radLat) * .pi)
        return (dLon, dLat)
    }

    /// WGS84 → GCJ-02 (the published forward transform).
    static func wgs84ToGCJ02(lon: Double, lat: Double) -> (lon: Double, lat: Double) {
        guard isInsideChina(lon: lon, lat: lat) else { return (lon, lat) }
        let d = offset(lon: lon, lat: lat)
        return (lon + d.dLon, lat + d.dLat)
    }

    /// GCJ-02 → WGS84 by fixed-point iteration of the forward transform: w ← w + (g − f(w)),
    /// starting from w = g, until the correction is below `tolerance` degrees. The offset's
    /// derivative is of order 1e-5, so each step gains about five digits and two to three
    /// steps suffice; the iteration count is capped for safety.
    static func gcj02ToWGS84(lon: Double, lat: Double, tolerance: Double = 1e-7) -> (lon: Double, lat: Double) {
        guard isInsideChina(lon: lon, lat: lat) else { return (lon, lat) }
        var wLon = lon
        var wLat = lat
        for _ in 0..<30 {
            let f = wgs84ToGCJ02(lon: wLon, lat: wLat)
            let cLon = lon - f.lon
            let cLat = lat - f.lat
            wLon += cLon
            wLat += cLat
            if abs(cLon) < tolerance && abs(cLat) < tolerance { break }
        }
        return (wLon, wLat)
    }

    /// BD-09 → GCJ-02 (the published closed-form inverse).
    static func bd09ToGCJ02(lon: Double, lat: Double) -> (lon: Double, lat: Double) {
        let x = lon - 0.0065
        let y = lat - 0.006
        let z = sqrt(x * x + y * y) - 0.000_02 * sin(y * baiduFactor)
        let theta = atan2(y, x) - 0.000_003 * cos(x * baiduFactor)
        return (z * cos(theta), z * sin(theta))
    }

    /// BD-09 → WGS84 (closed form to GCJ-02, then the iterative inverse).
    static func bd09ToWGS84(lon: Double, lat: Double) -> (lon: Double, lat: Double) {
        let g = bd09ToGCJ02(lon: lon, lat: lat)
        return gcj02ToWGS84(lon: g.lon, lat: g.lat)
    }

    /// Converts a position in `system` to WGS84.
    @inline(__always)
    public static func toWGS84(lon: Double, lat: Double, from system: System) -> (lon: Double, lat: Double) {
        switch system {
        case .wgs84: return (lon, lat)
        case .gcj02: return gcj02ToWGS84(lon: lon, lat: lat)
        case .bd09: return bd09ToWGS84(lon: lon, lat: lat)
        }
    }
}
