import RegionSearchCore
import RegionSearchGDAL

/// Writes RFC 7946 GeoJSON deterministically: members in a fixed order, coordinates as lon, lat
/// with at most 7 decimals (about 1 cm), shortest round-trip numbers elsewhere, no `crs` member.
/// Result layers are written from a ``FeatureLayer`` (typed properties, one geometry type).
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

    /// A feature of an untyped polygon file (``document(features:foreignMembers:)``).
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

    /// A typed layer as a whole FeatureCollection (see ``write(_:foreignMembers:to:)``).
    public static func document(_ layer: FeatureLayer, foreignMembers: [(String, JSONValue)]) -> String {
        var out = ""
        write(layer, foreignMembers: foreignMembers) { out += $0 }
        return out
    }

    /// Streams a typed layer as an RFC 7946 FeatureCollection: `{"type":"FeatureCollection"`,
    /// the foreign members, then one feature per line; each feature's properties in field order,
    /// integers as integers, reals always with a decimal point or exponent (so GDAL types a real
    /// field as Real even when every value is whole), strings as strings, null for none.
    public static func write(
        _ layer: FeatureLayer, foreignMembers: [(String, JSONValue)], to sink: (String) throws -> Void
    ) rethrows {
        var head = "{\"type\":\"FeatureCollection\""
        for (k, v) in foreignMembers {
            head += ","
            JSONValue.writeString(k, to: &head)
            head += ":" + v.serialized()
        }
        head += ",\"features\":["
        try sink(head)
        var chunk = ""
        for i in 0..<layer.count {
            chunk += i == 0 ? "\n" : ",\n"
            writeFeature(layer.feature(i), fields: layer.fields, to: &chunk)
            if chunk.utf8.count >= 1 << 16 {
                try sink(chunk)
                chunk = ""
            }
        }
        chunk += "\n]}\n"
        try sink(chunk)
    }

    /// Streams a typed layer as a GeoJSON text sequence: one feature per line, each preceded by
    /// the record separator (RS, 0x1E) when `recordSeparator` (RFC 8142, `.geojsons`), else
    /// newline-delimited (`.geojsonl`). Features are written as in ``write(_:foreignMembers:to:)``.
    public static func writeSequence(_ layer: FeatureLayer, recordSeparator: Bool, to sink: (String) throws -> Void)
        rethrows
    {
        var chunk = ""
        for i in 0..<layer.count {
            if recordSeparator { chunk += "\u{1E}" }
            writeFeature(layer.feature(i), fields: layer.fields, to: &chunk)
            chunk += "\n"
            if chunk.utf8.count >= 1 << 16 {
                try sink(chunk)
                chunk = ""
            }
        }
        try sink(chunk)
    }

    static func writeFeature(_ f: FeatureLayer.Feature, fields: [FeatureLayer.Field], to out: inout String) {
        out += "{\"type\":\"Feature\",\"geometry\":"
        switch f.geometry {
        case .point(let lon, let lat):
            out += "{\"type\":\"Point\",\"coordinates\":[" + coordinate(lon) + "," + coordinate(lat) + "]}"
        case .multiPolygon(let polygons):
            out += "{\"type\":\"MultiPolygon\",\"coordinates\":["
            for (k, rings) in polygons.enumerated() {
                out += k > 0 ? ",[" : "["
                for (j, r) in rings.enumerated() {
                    if j > 0 { out += "," }
                    writeRing(r, to: &out)
                }
                out += "]"
            }
            out += "]}"
        }
        out += ",\"properties\":{"
        for (i, (field, value)) in zip(fields, f.values).enumerated() {
            if i > 0 { out += "," }
            JSONValue.writeString(field.name, to: &out)
            out += ":"
            switch value {
            case .null: out += "null"
            case .integer(let v): out += String(v)
            case .real(let v): out += real(v)
            case .string(let s): JSONValue.writeString(s, to: &out)
            }
        }
        out += "}}"
    }

    /// A real as JSON text that reads back as a real: the shortest round-trip digits, with
    /// ".0" for whole numbers ("2.0", "1e-06", "1e+16"); null for NaN and infinities.
    public static func real(_ v: Double) -> String {
        guard v.isFinite else { return "null" }
        return "\(v)"
    }

    /// An untyped FeatureCollection of polygons with JSON properties, for files that are not
    /// result layers (the synthetic generator's truth polygons): one ring → a Polygon, several →
    /// a MultiPolygon of one-ring polygons.
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

    /// The vertex an open ring starts at when written: the least by (lon, lat), a tie (a ring that
    /// touches itself there) broken by the vertices that follow each.
    static func leastRotation(lon: [Double], lat: [Double]) -> Int {
        let n = lon.count
        func less(_ a: Int, _ b: Int) -> Bool {
            for k in 0..<n {
                let i = (a + k) % n
                let j = (b + k) % n
                if lon[i] != lon[j] { return lon[i] < lon[j] }
                if lat[i] != lat[j] { return lat[i] < lat[j] }
            }
            return false
        }
        var best = 0
        for i in 1..<max(n, 1) where less(i, best) { best = i }
        return best
    }

    /// Whether ring `a` is written before ring `b` among the holes of a polygon or the parts of a
    /// region: by their first vertex (their least, see ``normalizedRing(lon:lat:hole:)``).
    public static func ringPrecedes(_ a: Ring, _ b: Ring) -> Bool {
        for k in 0..<min(a.lon.count, b.lon.count) {
            if a.lon[k] != b.lon[k] { return a.lon[k] < b.lon[k] }
            if a.lat[k] != b.lat[k] { return a.lat[k] < b.lat[k] }
        }
        return a.lon.count < b.lon.count
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

    /// Rounds a ring to written precision, drops repeated vertices, closes it, makes it
    /// counter-clockwise (clockwise for a hole) and starts it at its least vertex (by longitude,
    /// then latitude, then the vertices after it), so the same ring is written the same way
    /// wherever GEOS began it. Returns nil if fewer than 3 distinct vertices remain.
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
        let start = leastRotation(lon: xs, lat: ys)
        if start > 0 {
            xs = Array(xs[start...] + xs[..<start])
            ys = Array(ys[start...] + ys[..<start])
        }
        xs.append(xs[0])
        ys.append(ys[0])
        return Ring(lon: xs, lat: ys)
    }
}
