import RegionSearchCore

/// Writes RFC 7946 GeoJSON deterministically: members in a fixed order, coordinates as lon, lat
/// with at most 7 decimals (about 1 cm), shortest round-trip numbers elsewhere, no `crs` member.
public struct GeoJSONWriter {
    /// One polygon part: a closed exterior ring, counter-clockwise.
    public struct Ring {
        public var lon: [Double]
        public var lat: [Double]
        public init(lon: [Double], lat: [Double]) {
            self.lon = lon
            self.lat = lat
        }
    }

    public struct Feature {
        /// The polygons, each an exterior ring (counter-clockwise) and its holes (clockwise). One
        /// → a Polygon; several → a MultiPolygon (only for regions split at the antimeridian).
        public var polygons: [[Ring]]
        /// Properties in output order.
        public var properties: [(String, JSONValue)]

        public init(polygons: [[Ring]], properties: [(String, JSONValue)]) {
            self.polygons = polygons
            self.properties = properties
        }

        /// Polygons without holes, one per ring.
        public init(rings: [Ring], properties: [(String, JSONValue)]) {
            self.init(polygons: rings.map { [$0] }, properties: properties)
        }

        /// The exterior rings.
        public var rings: [Ring] { polygons.map { $0[0] } }
    }

    /// Formats a coordinate with at most 7 decimals (trailing zeros trimmed): 24.9400000 → "24.94".
    public static func coordinate(_ v: Double) -> String {
        let scaled = (v * 1e7).rounded()
        guard scaled.isFinite, abs(scaled) < 9e18 else { return "0" }
        let i = Int64(scaled)
        let negative = i < 0
        let a = negative ? -i : i
        let whole = a / 10_000_000
        var frac = a % 10_000_000
        var s = (negative && a != 0 ? "-" : "") + String(whole)
        if frac != 0 {
            var digits = 7
            while frac % 10 == 0 {
                frac /= 10
                digits -= 1
            }
            let f = String(frac)
            s += "." + String(repeating: "0", count: digits - f.count) + f
        }
        return s
    }

    /// Rounds a coordinate to the 7 decimals that are written.
    public static func rounded(_ v: Double) -> Double { (v * 1e7).rounded() / 1e7 }

    /// The whole document.
    public static func document(features: [Feature], foreignMembers: [(String, JSONValue)]) -> String {
        var out = "{\"type\":\"FeatureCollection\""
        for (k, v) in foreignMembers {
            out += ","
            JSONValue.writeString(k, to: &out)
            out += ":" + v.serialized()
        }
        out += ",\"features\":["
        for (i, f) in features.enumerated() {
            out += i == 0 ? "\n" : ",\n"
            out += "{\"type\":\"Feature\",\"geometry\":"
            func writePolygon(_ rings: [Ring]) {
                for (k, r) in rings.enumerated() {
                    if k > 0 { out += "," }
                    writeRing(r, to: &out)
                }
            }
            if f.polygons.count == 1 {
                out += "{\"type\":\"Polygon\",\"coordinates\":["
                writePolygon(f.polygons[0])
                out += "]}"
            } else {
                out += "{\"type\":\"MultiPolygon\",\"coordinates\":["
                for (k, p) in f.polygons.enumerated() {
                    if k > 0 { out += "," }
                    out += "["
                    writePolygon(p)
                    out += "]"
                }
                out += "]}"
            }
            out += ",\"properties\":" + JSONValue.object(f.properties).serialized() + "}"
        }
        out += "\n]}\n"
        return out
    }

    static func writeRing(_ r: Ring, to out: inout String) {
        out += "["
        for i in 0..<r.lon.count {
            if i > 0 { out += "," }
            out += "[" + coordinate(r.lon[i]) + "," + coordinate(r.lat[i]) + "]"
        }
        out += "]"
    }

    /// Signed area of a ring in the lon/lat plane (positive = counter-clockwise).
    public static func signedArea(lon: [Double], lat: [Double]) -> Double {
        var a = 0.0
        let n = lon.count
        guard n >= 3 else { return 0 }
        for i in 0..<n {
            let j = (i + 1) % n
            a += lon[i] * lat[j] - lon[j] * lat[i]
        }
        return a / 2
    }

    /// Rounds a ring to written precision, drops repeated vertices, closes it and makes it
    /// counter-clockwise (clockwise for a hole). Returns nil if fewer than 3 distinct vertices remain.
    public static func normalizedRing(lon: [Double], lat: [Double], hole: Bool = false) -> Ring? {
        var xs: [Double] = []
        var ys: [Double] = []
        for i in 0..<lon.count {
            let x = rounded(lon[i])
            let y = rounded(lat[i])
            if let lx = xs.last, let ly = ys.last, lx == x, ly == y { continue }
            xs.append(x)
            ys.append(y)
        }
        while xs.count > 1, xs.first == xs.last, ys.first == ys.last {
            xs.removeLast()
            ys.removeLast()
        }
        guard xs.count >= 3 else { return nil }
        if (signedArea(lon: xs, lat: ys) < 0) != hole {
            xs.reverse()
            ys.reverse()
        }
        xs.append(xs[0])
        ys.append(ys[0])
        return Ring(lon: xs, lat: ys)
    }
}
