import RegionSearchCore

/// One point that stands for a GeoJSON geometry, so that any feature can become a POI.
///
/// The rules (planar in lon/lat degrees, which is adequate at POI scale):
/// - `Point`: itself.
/// - `MultiPoint`: the member nearest to the members' mean (first on ties).
/// - `LineString`: the point half-way along its length (its first point when it has no length).
/// - `MultiLineString`: that point of its longest member.
/// - `Polygon`: the area centroid of the exterior ring when it lies inside the polygon (inside
///   the exterior ring and outside every hole); otherwise the middle of the widest inside
///   interval of the horizontal line through that centroid (through the middle of the bounding
///   box when the first line meets no interior); the first vertex for a polygon without area.
/// - `MultiPolygon`: that point of the member whose exterior ring has the largest area.
/// - `GeometryCollection`: that point of the member of highest dimension (polygon > line >
///   point), the largest by area or length among those.
///
/// Rejected (with the reason): a missing or null geometry, an unknown type, empty coordinates,
/// positions that are not arrays of at least two numbers.
enum RepresentativePoint {
    public enum Outcome: Equatable {
        case point(lon: Double, lat: Double)
        case failure(String)
    }

    public typealias Position = (x: Double, y: Double)

    private struct Failure: Error {
        var reason: String
    }

    /// A geometry's positions, checked: what the rules need, without the JSON tree (a 200 MB
    /// polygon as JSON values takes gigabytes; as positions, 16 bytes each).
    enum Shape {
        case point(Position)
        /// Not empty.
        case multiPoint([Position])
        /// Not empty.
        case lineString([Position])
        /// At least one line is not empty.
        case multiLineString([[Position]])
        /// The rings; the exterior is not empty.
        case polygon([[Position]])
        /// Not empty; each member as ``polygon``.
        case multiPolygon([[[Position]]])
        /// Not empty.
        case collection([Shape])
    }

    /// The representative point of a GeoJSON geometry object.
    public static func of(_ geometry: JSONValue) -> Outcome {
        do {
            return of(try shape(geometry, depth: 0))
        } catch {
            return .failure(error.reason)
        }
    }

    /// The representative point of a checked shape.
    static func of(_ shape: Shape) -> Outcome {
        let (p, _, _) = candidate(shape)
        return .point(lon: p.x, lat: p.y)
    }

    /// The point, the geometry's dimension and its size (area or length) for choosing among
    /// the members of collections.
    private static func candidate(_ shape: Shape) -> (Position, Int, Double) {
        switch shape {
        case .collection(let members):
            var best: (Position, Int, Double)?
            for m in members {
                let c = candidate(m)
                if let b = best, (c.1, c.2) <= (b.1, b.2) { continue }
                best = c
            }
            return best!
        case .point(let p):
            return (p, 0, 0)
        case .multiPoint(let points):
            return (nearestToMean(points), 0, 0)
        case .lineString(let line):
            let (p, length) = halfway(line)
            return (p, 1, length)
        case .multiLineString(let lines):
            var best: (Position, Double)?
            for line in lines {
                if line.isEmpty { continue }
                let c = halfway(line)
                if let b = best, c.1 <= b.1 { continue }
                best = c
            }
            return (best!.0, 1, best!.1)
        case .polygon(let rings):
            let (p, area) = polygonPoint(rings)
            return (p, 2, area)
        case .multiPolygon(let polygons):
            var best: [[Position]]?
            var bestArea = -1.0
            for rings in polygons {
                let a = abs(signedArea(rings[0]))
                if a > bestArea {
                    bestArea = a
                    best = rings
                }
            }
            let (p, area) = polygonPoint(best!)
            return (p, 2, area)
        }
    }

    /// The checked shape of a geometry object; the failure names what is wrong.
    private static func shape(_ g: JSONValue, depth: Int) throws(Failure) -> Shape {
        guard g.objectValue != nil else { throw Failure(reason: "geometry is \(g.typeName), expected an object") }
        guard let type = g["type"]?.stringValue else { throw Failure(reason: "geometry has no type") }
        if type == "GeometryCollection" {
            guard depth < 8 else { throw Failure(reason: "GeometryCollection nested too deeply") }
            guard let members = g["geometries"]?.arrayValue else {
                throw Failure(reason: "GeometryCollection without geometries")
            }
            var shapes: [Shape] = []
            for m in members { shapes.append(try shape(m, depth: depth + 1)) }
            guard !shapes.isEmpty else { throw Failure(reason: "empty GeometryCollection") }
            return .collection(shapes)
        }
        guard let coordinates = g["coordinates"] else { throw Failure(reason: "\(type) without coordinates") }
        switch type {
        case "Point":
            return .point(try position(coordinates, type))
        case "MultiPoint":
            let points = try positions(coordinates, type)
            guard !points.isEmpty else { throw Failure(reason: "empty MultiPoint") }
            return .multiPoint(points)
        case "LineString":
            let line = try positions(coordinates, type)
            guard !line.isEmpty else { throw Failure(reason: "empty LineString") }
            return .lineString(line)
        case "MultiLineString":
            guard let lines = coordinates.arrayValue else {
                throw Failure(reason: "invalid MultiLineString coordinates")
            }
            var out: [[Position]] = []
            for l in lines { out.append(try positions(l, type)) }
            guard out.contains(where: { !$0.isEmpty }) else { throw Failure(reason: "empty MultiLineString") }
            return .multiLineString(out)
        case "Polygon":
            return .polygon(try polygonRings(coordinates, type))
        case "MultiPolygon":
            guard let polygons = coordinates.arrayValue else {
                throw Failure(reason: "invalid MultiPolygon coordinates")
            }
            var out: [[[Position]]] = []
            for poly in polygons { out.append(try polygonRings(poly, type)) }
            guard !out.isEmpty else { throw Failure(reason: "empty MultiPolygon") }
            return .multiPolygon(out)
        default:
            throw Failure(reason: "unsupported geometry type \"\(type)\"")
        }
    }

    private static func position(_ v: JSONValue, _ type: String) throws(Failure) -> Position {
        guard let a = v.arrayValue else {
            throw Failure(reason: "invalid \(type) coordinates: expected a position array")
        }
        guard !a.isEmpty else { throw Failure(reason: "empty \(type)") }
        guard a.count >= 2, let x = a[0].doubleValue, let y = a[1].doubleValue else {
            throw Failure(reason: "invalid \(type) coordinates: a position must hold at least two numbers")
        }
        return (x, y)
    }

    private static func positions(_ v: JSONValue, _ type: String) throws(Failure) -> [Position] {
        guard let a = v.arrayValue else {
            throw Failure(reason: "invalid \(type) coordinates: expected an array of positions")
        }
        var out: [Position] = []
        out.reserveCapacity(a.count)
        for p in a { out.append(try position(p, type)) }
        return out
    }

    private static func polygonRings(_ v: JSONValue, _ type: String) throws(Failure) -> [[Position]] {
        guard let a = v.arrayValue else {
            throw Failure(reason: "invalid \(type) coordinates: expected an array of rings")
        }
        var rings: [[Position]] = []
        for r in a { rings.append(try positions(r, type)) }
        guard let exterior = rings.first, !exterior.isEmpty else { throw Failure(reason: "empty \(type)") }
        return rings
    }

    private static func nearestToMean(_ points: [Position]) -> Position {
        var mx = 0.0
        var my = 0.0
        for p in points {
            mx += p.x
            my += p.y
        }
        mx /= Double(points.count)
        my /= Double(points.count)
        var best = points[0]
        var bestD = Double.infinity
        for p in points {
            let d = (p.x - mx) * (p.x - mx) + (p.y - my) * (p.y - my)
            if d < bestD {
                bestD = d
                best = p
            }
        }
        return best
    }

    /// The point half-way along a line, and the line's length.
    static func halfway(_ line: [Position]) -> (Position, Double) {
        var total = 0.0
        for k in 1..<max(1, line.count) { total += hypot(line[k].x - line[k - 1].x, line[k].y - line[k - 1].y) }
        guard total > 0 else { return (line[0], 0) }
        var remaining = total / 2
        for k in 1..<line.count {
            let a = line[k - 1]
            let b = line[k]
            let len = hypot(b.x - a.x, b.y - a.y)
            if len > 0 && remaining <= len {
                let t = remaining / len
                return ((a.x + t * (b.x - a.x), a.y + t * (b.y - a.y)), total)
            }
            remaining -= len
        }
        return (line[line.count - 1], total)
    }

    /// Shoelace area (positive for counter-clockwise rings); the ring may or may not repeat its
    /// first position at the end.
    static func signedArea(_ ring: [Position]) -> Double {
        guard ring.count >= 3 else { return 0 }
        var s = 0.0
        let x0 = ring[0].x
        let y0 = ring[0].y
        for k in 0..<ring.count {
            let a = ring[k]
            let b = ring[(k + 1) % ring.count]
            s += (a.x - x0) * (b.y - y0) - (b.x - x0) * (a.y - y0)
        }
        return s / 2
    }

    /// Area centroid of a ring, or nil when it has no area.
    static func centroid(_ ring: [Position]) -> Position? {
        guard ring.count >= 3 else { return nil }
        // Coordinates relative to the first vertex keep the sums well conditioned.
        let x0 = ring[0].x
        let y0 = ring[0].y
        var a = 0.0
        var cx = 0.0
        var cy = 0.0
        for k in 0..<ring.count {
            let p = ring[k]
            let q = ring[(k + 1) % ring.count]
            let px = p.x - x0
            let py = p.y - y0
            let qx = q.x - x0
            let qy = q.y - y0
            let cross = px * qy - qx * py
            a += cross
            cx += (px + qx) * cross
            cy += (py + qy) * cross
        }
        guard a != 0, a.isFinite else { return nil }
        return (cx / (3 * a) + x0, cy / (3 * a) + y0)
    }

    /// Even-odd point-in-polygon over all rings (exterior and holes).
    static func inside(_ p: Position, _ rings: [[Position]]) -> Bool {
        var odd = false
        for ring in rings where ring.count >= 3 {
            var j = ring.count - 1
            for i in 0..<ring.count {
                let a = ring[i]
                let b = ring[j]
                if (a.y > p.y) != (b.y > p.y) {
                    let x = a.x + (p.y - a.y) / (b.y - a.y) * (b.x - a.x)
                    if p.x < x { odd.toggle() }
                }
                j = i
            }
        }
        return odd
    }

    /// The middle of the widest inside interval of the horizontal line at `y`, if any.
    static func scanline(_ rings: [[Position]], y: Double) -> Position? {
        var xs: [Double] = []
        for ring in rings where ring.count >= 3 {
            var j = ring.count - 1
            for i in 0..<ring.count {
                let a = ring[i]
                let b = ring[j]
                if (a.y > y) != (b.y > y) {
                    xs.append(a.x + (y - a.y) / (b.y - a.y) * (b.x - a.x))
                }
                j = i
            }
        }
        guard xs.count >= 2 else { return nil }
        xs.sort()
        var best: (Double, Double)?
        var k = 0
        while k + 1 < xs.count {
            let w = xs[k + 1] - xs[k]
            if w > 0, best == nil || w > best!.1 - best!.0 { best = (xs[k], xs[k + 1]) }
            k += 2
        }
        guard let best else { return nil }
        return ((best.0 + best.1) / 2, y)
    }

    /// The polygon rule; returns the point and the exterior ring's area.
    static func polygonPoint(_ rings: [[Position]]) -> (Position, Double) {
        let exterior = rings[0]
        let area = abs(signedArea(exterior))
        if let c = centroid(exterior) {
            if inside(c, rings) { return (c, area) }
            if let p = scanline(rings, y: c.y) { return (p, area) }
        }
        var lo = Double.infinity
        var hi = -Double.infinity
        for p in exterior {
            lo = min(lo, p.y)
            hi = max(hi, p.y)
        }
        if hi > lo, let p = scanline(rings, y: (lo + hi) / 2) { return (p, area) }
        return (exterior[0], area)
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
