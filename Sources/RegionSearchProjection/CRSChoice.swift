import Foundation
import RegionSearchCore

/// The metric CRS that `project` uses, and why (what `crs: "auto"` explains).
public struct CRSChoice: Sendable, Equatable {
    /// A definition PROJ accepts (EPSG code or PROJ string).
    public var definition: String
    /// How it was chosen, in one sentence.
    public var explanation: String
    /// Whether distances and shapes are near-true only locally (UTM: true everywhere it is used;
    /// equal-area continental/world projections: areas true, shapes distorted far from the centre).
    public var isLocal: Bool
    /// The central meridian when the choice is a UTM zone.
    var utmCentralMeridian: Double?

    public init(definition: String, explanation: String, isLocal: Bool, utmCentralMeridian: Double? = nil) {
        self.definition = definition
        self.explanation = explanation
        self.isLocal = isLocal
        self.utmCentralMeridian = utmCentralMeridian
    }
}

/// The geographic extent of a point set, aware of the antimeridian.
public struct GeographicExtent: Sendable, Equatable {
    /// Westernmost longitude of the smallest arc holding every point, in [-180, 180).
    public var west: Double
    /// Width of that arc in degrees (0...360); it may cross the antimeridian.
    public var width: Double
    public var south: Double
    public var north: Double

    /// Centre of the longitude arc, in [-180, 180).
    var centerLongitude: Double { normalizeLongitude(west + width / 2) }
    var centerLatitude: Double { (south + north) / 2 }

    /// Computes the extent; the longitude arc is the complement of the largest empty gap between
    /// consecutive longitudes (found with a 0.01° histogram, then refined to exact values).
    public init(lon: UnsafeBufferPointer<Double>, lat: UnsafeBufferPointer<Double>) {
        precondition(!lon.isEmpty)
        let bins = 36_000
        var occupied = [Bool](repeating: false, count: bins)
        var binMin = [Double](repeating: .infinity, count: bins)
        var binMax = [Double](repeating: -.infinity, count: bins)
        var s = Double.infinity
        var nth = -Double.infinity
        for i in 0..<lon.count {
            let l = normalizeLongitude(lon[i])
            var b = Int((l + 180) / 360 * Double(bins))
            b = min(max(b, 0), bins - 1)
            occupied[b] = true
            binMin[b] = min(binMin[b], l)
            binMax[b] = max(binMax[b], l)
            s = min(s, lat[i])
            nth = max(nth, lat[i])
        }
        let used = (0..<bins).filter { occupied[$0] }
        // Largest gap between consecutive occupied bins, cyclically, measured on exact values.
        var bestGap = -1.0
        var bestEast = 0  // index into `used` of the bin after the gap
        for (k, b) in used.enumerated() {
            let prev = used[(k + used.count - 1) % used.count]
            // k == 0 pairs the first bin with the last one across the antimeridian.
            let gap = binMin[b] - binMax[prev] + (k == 0 ? 360 : 0)
            if gap > bestGap {
                bestGap = gap
                bestEast = k
            }
        }
        west = binMin[used[bestEast]]
        width = max(0, 360 - bestGap)
        south = s
        north = nth
    }

    /// The extent of the central part of the data: the arc and latitude range between the
    /// `share`/2 and 1 − `share`/2 quantiles, so a handful of stray points (a mistyped coordinate,
    /// one branch office abroad) do not decide the projection of a city.
    public func trimmed(lon: UnsafeBufferPointer<Double>, lat: UnsafeBufferPointer<Double>, share: Double)
        -> GeographicExtent
    {
        let n = lon.count
        guard n > 0, share > 0 else { return self }
        var offsets = [Double](unsafeUninitializedCapacity: n) { b, c in
            for i in 0..<n {
                var o = normalizeLongitude(lon[i]) - west
                if o < 0 { o += 360 }
                b[i] = o
            }
            c = n
        }
        var lats = Array(lat)
        let lo = Int((Double(n - 1) * share / 2).rounded(.down))
        let hi = n - 1 - lo
        // Two order statistics each (the values a full sort would put there, without sorting).
        let offsetLo = Selection.kthSmallest(&offsets, lo)
        let offsetHi = Selection.kthSmallest(&offsets, hi)
        let latLo = Selection.kthSmallest(&lats, lo)
        let latHi = Selection.kthSmallest(&lats, hi)
        return GeographicExtent(
            west: normalizeLongitude(west + offsetLo), width: offsetHi - offsetLo, south: latLo, north: latHi)
    }

    public init(west: Double, width: Double, south: Double, north: Double) {
        self.west = west
        self.width = width
        self.south = south
        self.north = north
    }
}

/// Wraps a longitude into [-180, 180).
public func normalizeLongitude(_ l: Double) -> Double {
    // Already in range (nearly always): the remainder would return it unchanged.
    if l >= -180 && l < 180 { return l }
    var x = l.truncatingRemainder(dividingBy: 360)
    if x < -180 { x += 360 }
    if x >= 180 { x -= 360 }
    return x
}

extension CRSChoice {
    /// Greatest distance in degrees of longitude from a UTM zone's central meridian that `auto`
    /// still accepts: at 4.5° the UTM scale error is under 0.3 % (areas under 0.6 %).
    static let utmHalfWidth = 4.5

    /// Share of points `auto` may leave out when it measures the data's extent (0.5 %).
    static let outlierShare = 0.005

    /// Chooses a metric CRS for data with this extent.
    ///
    /// - Inside one UTM zone's reach (every point within 4.5° of the central meridian of the zone
    ///   of the data's centre, latitudes 80°S–84°N): that UTM zone (WGS84, EPSG:326zz/327zz).
    /// - Around a pole (all points beyond 60° of latitude on one side, and either spanning more
    ///   than 90° of longitude or reaching past UTM's limits): a polar Lambert azimuthal
    ///   equal-area projection.
    /// - Up to continental size (longitude arc ≤ 120°, latitude span ≤ 90°): Lambert azimuthal
    ///   equal-area centred on the data, so areas stay true and distances near-true over the area.
    /// - Otherwise (worldwide): the Equal Earth projection, with its central meridian opposite the
    ///   largest empty longitude gap so the map's cut falls where there are fewest points.
    public static func automatic(for e: GeographicExtent) -> CRSChoice {
        let lon0 = e.centerLongitude
        let zone = min(60, max(1, Int(floor((lon0 + 180) / 6)) + 1))
        let cm = Double(zone) * 6 - 183
        let westOffset = normalizeLongitude(e.west - cm)
        let eastOffset = westOffset + e.width
        let span = String(format: "%.2f° of longitude × %.2f° of latitude", e.width, e.north - e.south)
        if westOffset >= -utmHalfWidth && eastOffset <= utmHalfWidth && e.south >= -80 && e.north <= 84 {
            let north = e.centerLatitude >= 0
            let code = (north ? 32600 : 32700) + zone
            return CRSChoice(
                definition: "EPSG:\(code)",
                explanation:
                    "UTM zone \(zone)\(north ? "N" : "S") (EPSG:\(code)): the data spans \(span), all within "
                    + "\(utmHalfWidth)° of the zone's central meridian \(Int(cm))°",
                isLocal: true, utmCentralMeridian: cm)
        }
        let fmt = { (x: Double) in String(format: "%.4f", x) }
        if e.south >= 60 && (e.width > 90 || e.north > 84) {
            return CRSChoice(
                definition: "+proj=laea +lat_0=90 +lon_0=\(fmt(lon0)) +datum=WGS84 +units=m +no_defs +type=crs",
                explanation:
                    "north polar Lambert azimuthal equal-area: the data spans \(span) around the North Pole, beyond "
                    + "UTM's reach",
                isLocal: false)
        }
        if e.north <= -60 && (e.width > 90 || e.south < -80) {
            return CRSChoice(
                definition: "+proj=laea +lat_0=-90 +lon_0=\(fmt(lon0)) +datum=WGS84 +units=m +no_defs +type=crs",
                explanation:
                    "south polar Lambert azimuthal equal-area: the data spans \(span) around the South Pole, beyond "
                    + "UTM's reach",
                isLocal: false)
        }
        if e.width <= 120 && e.north - e.south <= 90 {
            return CRSChoice(
                definition:
                    "+proj=laea +lat_0=\(fmt(e.centerLatitude)) +lon_0=\(fmt(lon0)) +datum=WGS84 "
                    + "+units=m +no_defs +type=crs",
                explanation:
                    "Lambert azimuthal equal-area centred on the data (\(fmt(lon0)), \(fmt(e.centerLatitude))): the "
                    + "data spans \(span), wider than one UTM zone; areas stay true",
                isLocal: false)
        }
        return CRSChoice(
            definition: "+proj=eqearth +lon_0=\(fmt(lon0)) +datum=WGS84 +units=m +no_defs +type=crs",
            explanation:
                "Equal Earth world projection with central meridian \(fmt(lon0))° (its cut at "
                + "\(fmt(normalizeLongitude(lon0 + 180)))° falls in the largest gap between points): the data "
                + "spans \(span); areas stay true, shapes far from the centre are distorted, so hulls are "
                + "re-projected per region",
            isLocal: false)
    }
}
