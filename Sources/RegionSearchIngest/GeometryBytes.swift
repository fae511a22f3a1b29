import RegionSearchCore

/// Reads a GeoJSON geometry object straight from its bytes into a
/// ``RepresentativePoint/Shape``, without building a ``JSONValue`` tree: a polygon of 10 million
/// positions takes 160 MB as positions, against gigabytes as JSON values (a 406 KB gzip holding
/// one 200 MB polygon peaked at 2.7 GB).
///
/// It is only the fast path for geometries that are valid: numbers are read by the same
/// ``JSONParser`` (so the positions are bit for bit the same), and anything it does not expect
/// — invalid JSON, a duplicate member, a position holding a non-number, an empty geometry, an
/// unknown type — returns nil, so that the caller parses the bytes as JSON and
/// ``RepresentativePoint/of(_:)`` reports exactly what is wrong, as before.
struct GeometryBytes {
    private let b: UnsafeBufferPointer<UInt8>
    private var i: Int

    private init(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int) {
        b = bytes
        i = offset
    }

    /// The shape of the geometry object starting at `offset` (white space allowed before it)
    /// and the offset just past it; nil when the fast path does not apply.
    static func shape(_ bytes: UnsafeBufferPointer<UInt8>, from offset: Int) -> (RepresentativePoint.Shape, Int)? {
        var r = GeometryBytes(bytes, at: offset)
        guard let s = r.geometry(depth: 0) else { return nil }
        return (s, r.i)
    }

    /// Whole bytes that are one geometry object (white space around it allowed).
    static func shape(_ bytes: UnsafeBufferPointer<UInt8>) -> RepresentativePoint.Shape? {
        var r = GeometryBytes(bytes, at: 0)
        guard let s = r.geometry(depth: 0) else { return nil }
        r.skipSpace()
        return r.i == bytes.count ? s : nil
    }

    private mutating func skipSpace() {
        while i < b.count {
            let c = b[i]
            guard c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 else { return }
            i += 1
        }
    }

    private mutating func take(_ c: UInt8) -> Bool {
        skipSpace()
        guard i < b.count, b[i] == c else { return false }
        i += 1
        return true
    }

    /// Any JSON value, parsed (small members: `type`, `bbox`, keys).
    private mutating func value() -> JSONValue? {
        guard let (v, end) = try? JSONParser.parsePrefix(bytes: b, from: i) else { return nil }
        i = end
        return v
    }

    private mutating func number() -> Double? {
        skipSpace()
        guard i < b.count, b[i] == UInt8(ascii: "-") || (b[i] >= 0x30 && b[i] <= 0x39) else { return nil }
        return value()?.doubleValue
    }

    private mutating func geometry(depth: Int) -> RepresentativePoint.Shape? {
        guard take(UInt8(ascii: "{")) else { return nil }
        var type: String?
        var coordinates: Int?
        var geometries: Int?
        var keys: Set<String> = []
        if !take(UInt8(ascii: "}")) {
            repeat {
                skipSpace()
                guard i < b.count, b[i] == UInt8(ascii: "\""), let key = value()?.stringValue,
                    keys.insert(key).inserted, take(UInt8(ascii: ":"))
                else { return nil }
                skipSpace()
                switch key {
                case "type":
                    guard let t = value()?.stringValue else { return nil }
                    type = t
                case "coordinates", "geometries":
                    if key == "coordinates" { coordinates = i } else { geometries = i }
                    guard skipValue() else { return nil }
                default:
                    guard value() != nil else { return nil }
                }
            } while take(UInt8(ascii: ","))
            guard take(UInt8(ascii: "}")) else { return nil }
        }
        let end = i
        defer { i = end }
        guard let type else { return nil }
        if type == "GeometryCollection" {
            guard depth < 8, let start = geometries else { return nil }
            i = start
            guard take(UInt8(ascii: "[")) else { return nil }
            var members: [RepresentativePoint.Shape] = []
            if !take(UInt8(ascii: "]")) {
                repeat {
                    guard let m = geometry(depth: depth + 1) else { return nil }
                    members.append(m)
                } while take(UInt8(ascii: ","))
                guard take(UInt8(ascii: "]")) else { return nil }
            }
            return members.isEmpty ? nil : .collection(members)
        }
        guard let start = coordinates else { return nil }
        i = start
        switch type {
        case "Point":
            return position().map { .point($0) }
        case "MultiPoint":
            guard let points = list({ $0.position() }), !points.isEmpty else { return nil }
            return .multiPoint(points)
        case "LineString":
            guard let line = list({ $0.position() }), !line.isEmpty else { return nil }
            return .lineString(line)
        case "MultiLineString":
            guard let lines = list({ $0.list { $0.position() } }), lines.contains(where: { !$0.isEmpty }) else {
                return nil
            }
            return .multiLineString(lines)
        case "Polygon":
            return rings().map { .polygon($0) }
        case "MultiPolygon":
            guard let polygons = list({ $0.rings() }), !polygons.isEmpty else { return nil }
            return .multiPolygon(polygons)
        default:
            return nil
        }
    }

    /// `[x, y, …]`: at least two numbers, further elements numbers too.
    private mutating func position() -> RepresentativePoint.Position? {
        guard take(UInt8(ascii: "[")), let x = number(), take(UInt8(ascii: ",")), let y = number() else { return nil }
        while take(UInt8(ascii: ",")) {
            guard number() != nil else { return nil }
        }
        guard take(UInt8(ascii: "]")) else { return nil }
        return (x, y)
    }

    /// Polygon rings; the exterior is not empty.
    private mutating func rings() -> [[RepresentativePoint.Position]]? {
        guard let rings = list({ $0.list { $0.position() } }), let exterior = rings.first, !exterior.isEmpty else {
            return nil
        }
        return rings
    }

    /// `[e, e, …]` (possibly empty).
    private mutating func list<T>(_ element: (inout GeometryBytes) -> T?) -> [T]? {
        guard take(UInt8(ascii: "[")) else { return nil }
        var out: [T] = []
        if take(UInt8(ascii: "]")) { return out }
        repeat {
            guard let e = element(&self) else { return nil }
            out.append(e)
        } while take(UInt8(ascii: ","))
        return take(UInt8(ascii: "]")) ? out : nil
    }

    /// Skips the value at `i` (only arrays of numbers and the objects of a collection are
    /// expected; they are read properly on the second pass). Checks bracket balance and strings
    /// only; whatever is wrong inside is found when the value is read.
    private mutating func skipValue() -> Bool {
        var scanner = JSONExtentScanner()
        guard let base = b.baseAddress else { return false }
        switch scanner.scan(base, from: i, to: b.count, atEOF: true) {
        case .complete(let end):
            i = end
            return true
        default:
            return false
        }
    }
}
