import CGEOS
import RegionSearchCore

/// A GEOS failure, with the messages GEOS reported through the context's error handler.
public struct GEOSError: ExitCoded {
    public var message: String
    public var exitStatus: ExitStatus { .failure }
    public var description: String { message }
    public init(message: String) { self.message = message }
}

/// Owns one reentrant GEOS context handle (one per thread), in the style of GEOSwift: created
/// in `init`, finished in `deinit`, with an error handler that collects GEOS's messages.
public final class GEOSContext {
    public let handle: GEOSContextHandle_t
    fileprivate var messages: [String] = []

    public init() {
        guard let h = GEOS_init_r() else { fatalError("GEOS_init_r returned NULL (out of memory)") }
        handle = h
        GEOSContext_setErrorMessageHandler_r(
            h,
            { message, userData in
                guard let message, let userData else { return }
                let context = Unmanaged<GEOSContext>.fromOpaque(userData).takeUnretainedValue()
                if context.messages.count < 20 { context.messages.append(String(cString: message)) }
            }, Unmanaged.passUnretained(self).toOpaque())
    }

    deinit { GEOS_finish_r(handle) }

    /// The GEOS release linked, e.g. "3.11.1-CAPI-1.17.1".
    public static var version: String { String(cString: GEOSversion()) }

    /// An error carrying the collected messages (which are cleared).
    func error(_ what: String) -> GEOSError {
        defer { messages.removeAll() }
        return GEOSError(message: what + (messages.isEmpty ? "" : ": " + messages.joined(separator: "; ")))
    }

    /// Takes ownership of a geometry pointer returned by GEOS (nil means GEOS failed).
    func wrap(_ pointer: OpaquePointer?, _ what: String) throws(GEOSError) -> GEOSGeometry {
        guard let pointer else { throw error("GEOS \(what) failed") }
        return GEOSGeometry(context: self, pointer: pointer)
    }

    /// A coordinate sequence from parallel arrays.
    func sequence(x: [Double], y: [Double]) throws(GEOSError) -> OpaquePointer {
        precondition(x.count == y.count)
        guard let seq = GEOSCoordSeq_create_r(handle, UInt32(x.count), 2) else {
            throw error("GEOS coordinate sequence")
        }
        for i in 0..<x.count { GEOSCoordSeq_setXY_r(handle, seq, UInt32(i), x[i], y[i]) }
        return seq
    }

    /// A MultiPoint of the given points.
    func multiPoint(x: [Double], y: [Double]) throws(GEOSError) -> GEOSGeometry {
        var points: [OpaquePointer?] = []
        points.reserveCapacity(x.count)
        for i in 0..<x.count {
            guard let p = GEOSGeom_createPointFromXY_r(handle, x[i], y[i]) else {
                for q in points { GEOSGeom_destroy_r(handle, q) }
                throw error("GEOS point")
            }
            points.append(p)
        }
        let g = points.withUnsafeMutableBufferPointer { buf in
            GEOSGeom_createCollection_r(handle, Int32(GEOS_MULTIPOINT.rawValue), buf.baseAddress, UInt32(buf.count))
        }
        return try wrap(g, "multipoint")
    }

    /// A polygon from one exterior ring (closed automatically).
    public func polygon(x: [Double], y: [Double]) throws(GEOSError) -> GEOSGeometry {
        var xs = x
        var ys = y
        if let fx = xs.first, let fy = ys.first, fx != xs.last || fy != ys.last {
            xs.append(fx)
            ys.append(fy)
        }
        let seq = try sequence(x: xs, y: ys)
        guard let ring = GEOSGeom_createLinearRing_r(handle, seq) else { throw error("GEOS linear ring") }
        return try wrap(GEOSGeom_createPolygon_r(handle, ring, nil, 0), "polygon")
    }
}

/// A geometry owned by a ``GEOSContext``; destroyed with it.
public final class GEOSGeometry {
    public let context: GEOSContext
    public let pointer: OpaquePointer

    init(context: GEOSContext, pointer: OpaquePointer) {
        self.context = context
        self.pointer = pointer
    }

    deinit { GEOSGeom_destroy_r(context.handle, pointer) }

    private var h: GEOSContextHandle_t { context.handle }

    var typeID: Int32 { GEOSGeomTypeId_r(h, pointer) }
    public var isPolygon: Bool { typeID == Int32(GEOS_POLYGON.rawValue) }
    public var isEmpty: Bool { GEOSisEmpty_r(h, pointer) == 1 }

    func convexHull() throws(GEOSError) -> GEOSGeometry {
        try context.wrap(GEOSConvexHull_r(h, pointer), "convex hull")
    }

    /// GEOS's concave hull (ratio 1 = convex hull, smaller = tighter), without holes.
    func concaveHull(ratio: Double) throws(GEOSError) -> GEOSGeometry {
        try context.wrap(GEOSConcaveHull_r(h, pointer, ratio, 0), "concave hull")
    }

    public func buffer(_ distance: Double, quadrantSegments: Int32 = 8) throws(GEOSError) -> GEOSGeometry {
        try context.wrap(GEOSBuffer_r(h, pointer, distance, quadrantSegments), "buffer")
    }

    public func difference(_ other: GEOSGeometry) throws(GEOSError) -> GEOSGeometry {
        try context.wrap(GEOSDifference_r(h, pointer, other.pointer), "difference")
    }

    public func union(_ other: GEOSGeometry) throws(GEOSError) -> GEOSGeometry {
        try context.wrap(GEOSUnion_r(h, pointer, other.pointer), "union")
    }

    public func intersection(_ other: GEOSGeometry) throws(GEOSError) -> GEOSGeometry {
        try context.wrap(GEOSIntersection_r(h, pointer, other.pointer), "intersection")
    }

    public func makeValid() throws(GEOSError) -> GEOSGeometry {
        try context.wrap(GEOSMakeValid_r(h, pointer), "make valid")
    }

    /// The geometry snapped to a grid of `gridSize` (GEOS snap-rounding: the result is valid on
    /// the grid, so rounding the written coordinates to it cannot fold a ring onto itself).
    public func reducedPrecision(gridSize: Double) throws(GEOSError) -> GEOSGeometry {
        try context.wrap(GEOSGeom_setPrecision_r(h, pointer, gridSize, 0), "reduce precision")
    }

    /// ``difference(_:)`` computed on a grid of `gridSize`: vertices on the grid, valid there.
    public func difference(_ other: GEOSGeometry, gridSize: Double) throws(GEOSError) -> GEOSGeometry {
        try context.wrap(GEOSDifferencePrec_r(h, pointer, other.pointer, gridSize), "difference")
    }

    /// The geometry cut to the box (GEOS's fast clip by rectangle; the result may be invalid only
    /// where the input was): a large polygon cut down before an overlay with a small one.
    public func clipped(to box: GEOSEnvelope) throws(GEOSError) -> GEOSGeometry {
        try context.wrap(GEOSClipByRect_r(h, pointer, box.minX, box.minY, box.maxX, box.maxY), "clip by rectangle")
    }

    /// ``intersection(_:)`` computed on a grid of `gridSize`: vertices on the grid, valid there.
    public func intersection(_ other: GEOSGeometry, gridSize: Double) throws(GEOSError) -> GEOSGeometry {
        try context.wrap(GEOSIntersectionPrec_r(h, pointer, other.pointer, gridSize), "intersection")
    }

    public func intersects(_ other: GEOSGeometry) -> Bool { GEOSIntersects_r(h, pointer, other.pointer) == 1 }

    public var isValid: Bool { GEOSisValid_r(h, pointer) == 1 }

    /// GEOS's reason for invalidity (freed with GEOSFree_r).
    public var validityReason: String {
        guard let c = GEOSisValidReason_r(h, pointer) else { return "unknown" }
        defer { GEOSFree_r(h, c) }
        return String(cString: c)
    }

    public var area: Double {
        var a = 0.0
        GEOSArea_r(h, pointer, &a)
        return a
    }

    public var geometryCount: Int { Int(GEOSGetNumGeometries_r(h, pointer)) }

    /// Part `i` of a collection, cloned so it owns its memory.
    public func part(_ i: Int) throws(GEOSError) -> GEOSGeometry {
        guard let p = GEOSGetGeometryN_r(h, pointer, Int32(i)) else { throw context.error("GEOS geometry part") }
        return try context.wrap(GEOSGeom_clone_r(h, p), "clone")
    }

    /// The largest polygon of a (multi)polygon or collection, or nil when there is none.
    func largestPolygon() throws(GEOSError) -> GEOSGeometry? {
        if isPolygon { return isEmpty ? nil : self }
        var best: GEOSGeometry?
        for i in 0..<geometryCount {
            let g = try part(i)
            if let p = try g.largestPolygon(), p.area > (best?.area ?? -1) { best = p }
        }
        return best
    }

    /// Exterior ring coordinates of a polygon (closed: first == last).
    func exteriorRing() throws(GEOSError) -> (x: [Double], y: [Double]) {
        guard isPolygon, let ring = GEOSGetExteriorRing_r(h, pointer), let seq = GEOSGeom_getCoordSeq_r(h, ring) else {
            throw context.error("GEOS exterior ring")
        }
        var size: UInt32 = 0
        GEOSCoordSeq_getSize_r(h, seq, &size)
        var xs = [Double](repeating: 0, count: Int(size))
        var ys = [Double](repeating: 0, count: Int(size))
        for i in 0..<Int(size) {
            GEOSCoordSeq_getXY_r(h, seq, UInt32(i), &xs[i], &ys[i])
        }
        return (xs, ys)
    }

    /// Well-known text (for messages and tests); freed with GEOSFree_r.
    public var wkt: String {
        guard let writer = GEOSWKTWriter_create_r(h) else { return "" }
        defer { GEOSWKTWriter_destroy_r(h, writer) }
        guard let c = GEOSWKTWriter_write_r(h, writer, pointer) else { return "" }
        defer { GEOSFree_r(h, c) }
        return String(cString: c)
    }
}
