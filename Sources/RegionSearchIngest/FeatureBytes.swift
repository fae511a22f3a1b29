import RegionSearchCore

/// Parses a GeoJSON feature object from its bytes with its geometry read straight into a
/// ``RepresentativePoint/Shape`` (``GeometryBytes``), so a huge polygon never becomes a JSON
/// tree. The other members are parsed as JSON. Returns nil whenever the plain parse must decide
/// (a duplicate member, a syntax error, a geometry the fast path does not take): the caller then
/// parses the bytes with ``JSONParser`` and reports as before.
enum FeatureBytes {
    /// The members (the geometry as ``GeoJSONReader/shapePlaceholder`` when read as a shape) and
    /// the shape.
    static func parse(_ b: UnsafeBufferPointer<UInt8>) -> ([(String, JSONValue)], RepresentativePoint.Shape?)? {
        var i = 0
        func skipSpace() {
            while i < b.count, b[i] == 0x20 || b[i] == 0x0A || b[i] == 0x0D || b[i] == 0x09 { i += 1 }
        }
        func take(_ c: UInt8) -> Bool {
            skipSpace()
            guard i < b.count, b[i] == c else { return false }
            i += 1
            return true
        }
        guard take(UInt8(ascii: "{")) else { return nil }
        var members: [(String, JSONValue)] = []
        var keys: Set<String> = []
        var shape: RepresentativePoint.Shape?
        if !take(UInt8(ascii: "}")) {
            repeat {
                skipSpace()
                guard i < b.count, b[i] == UInt8(ascii: "\""),
                    let (k, afterKey) = try? JSONParser.parsePrefix(bytes: b, from: i), let key = k.stringValue,
                    keys.insert(key).inserted
                else { return nil }
                i = afterKey
                guard take(UInt8(ascii: ":")) else { return nil }
                skipSpace()
                if key == "geometry", i < b.count, b[i] == UInt8(ascii: "{") {
                    guard let (s, end) = GeometryBytes.shape(b, from: i) else { return nil }
                    shape = s
                    i = end
                    members.append((key, GeoJSONReader.shapePlaceholder))
                } else {
                    guard let (v, end) = try? JSONParser.parsePrefix(bytes: b, from: i) else { return nil }
                    i = end
                    members.append((key, v))
                }
            } while take(UInt8(ascii: ","))
            guard take(UInt8(ascii: "}")) else { return nil }
        }
        skipSpace()
        guard i == b.count, shape != nil else { return nil }
        return (members, shape)
    }
}
