import CPROJ
import Foundation
import RegionSearchCore

/// Why a PROJ operation failed; the text comes from PROJ's log callback, which is where PROJ
/// puts the useful detail.
public struct PROJError: ExitCoded {
    public var message: String
    public var exitStatus: ExitStatus { .failure }
    public var description: String { message }
}

/// Owns one `PJ_CONTEXT` (PROJ contexts are not thread-safe: use one per thread) and collects the
/// messages PROJ logs through it.
public final class PROJContext {
    public let handle: OpaquePointer
    fileprivate var messages: [String] = []

    public init() {
        handle = proj_context_create()
        proj_log_level(handle, PJ_LOG_ERROR)
        proj_log_func(handle, Unmanaged.passUnretained(self).toOpaque()) { appData, _, message in
            guard let appData, let message else { return }
            let context = Unmanaged<PROJContext>.fromOpaque(appData).takeUnretainedValue()
            if context.messages.count < 50 { context.messages.append(String(cString: message)) }
        }
    }

    deinit { proj_context_destroy(handle) }

    /// The PROJ release linked, e.g. "9.1.1".
    public static var release: String { String(cString: proj_info().release) }

    /// Returns and clears the collected log messages.
    func drainMessages() -> [String] {
        defer { messages.removeAll() }
        return messages
    }

    /// The current error of the context as text (errno string plus logged messages).
    func errorText(_ what: String) -> String {
        let code = proj_context_errno(handle)
        var parts: [String] = []
        if code != 0, let s = proj_context_errno_string(handle, code) { parts.append(String(cString: s)) }
        parts += drainMessages()
        return what + (parts.isEmpty ? "" : ": " + parts.joined(separator: "; "))
    }

    /// A transformation between two CRS definitions, with traditional GIS axis order
    /// (longitude/easting first) on both sides.
    public func transformation(from source: String, to target: String) throws(PROJError) -> PROJTransform {
        guard let raw = proj_create_crs_to_crs(handle, source, target, nil) else {
            throw PROJError(message: errorText("PROJ cannot create a transformation from '\(source)' to '\(target)'"))
        }
        defer { proj_destroy(raw) }
        guard let normalized = proj_normalize_for_visualization(handle, raw) else {
            throw PROJError(message: errorText("PROJ cannot normalise the axis order of '\(source)' → '\(target)'"))
        }
        return PROJTransform(context: self, pj: normalized, source: source, target: target)
    }

    /// Facts about a CRS definition: its name, whether it is projected, and its linear unit in
    /// metres (nil when it is not a projected CRS with a linear unit).
    public func describe(_ definition: String) throws(PROJError) -> (
        name: String, isProjected: Bool, metresPerUnit: Double?
    ) {
        guard let crs = proj_create(handle, definition) else {
            throw PROJError(message: errorText("PROJ does not recognise the CRS '\(definition)'"))
        }
        defer { proj_destroy(crs) }
        let name = proj_get_name(crs).map { String(cString: $0) } ?? definition
        var type = proj_get_type(crs)
        var target = crs
        var bound: OpaquePointer?
        if type == PJ_TYPE_BOUND_CRS, let base = proj_get_source_crs(handle, crs) {
            bound = base
            target = base
            type = proj_get_type(base)
        }
        defer { if let bound { proj_destroy(bound) } }
        guard type == PJ_TYPE_PROJECTED_CRS else { return (name, false, nil) }
        guard let cs = proj_crs_get_coordinate_system(handle, target) else { return (name, true, nil) }
        defer { proj_destroy(cs) }
        var factor = 0.0
        let ok = proj_cs_get_axis_info(handle, cs, 0, nil, nil, nil, &factor, nil, nil, nil)
        return (name, true, ok != 0 && factor > 0 ? factor : nil)
    }
}

/// A PROJ transformation (`PJ*`) bound to its context.
public final class PROJTransform {
    public let context: PROJContext
    public let pj: OpaquePointer
    public let source: String
    public let target: String

    init(context: PROJContext, pj: OpaquePointer, source: String, target: String) {
        self.context = context
        self.pj = pj
        self.source = source
        self.target = target
    }

    deinit { proj_destroy(pj) }

    /// Transforms coordinates in place in one bulk call (`proj_trans_generic`); returns the
    /// indices of points that failed (non-finite result). Throws only when PROJ reports an error
    /// for the whole call.
    public func transform(
        x: UnsafeMutableBufferPointer<Double>, y: UnsafeMutableBufferPointer<Double>, inverse: Bool = false
    )
        throws(PROJError) -> [Int]
    {
        precondition(x.count == y.count)
        let n = x.count
        if n == 0 { return [] }
        proj_errno_reset(pj)
        let stride = MemoryLayout<Double>.stride
        _ = proj_trans_generic(
            pj, inverse ? PJ_INV : PJ_FWD, x.baseAddress, stride, n, y.baseAddress, stride, n, nil, 0, 0, nil, 0, 0)
        let err = proj_errno(pj)
        var failed: [Int] = []
        for i in 0..<n where !x[i].isFinite || !y[i].isFinite { failed.append(i) }
        // proj_errno is set when some point failed; that is reported per point. It is an error
        // for the whole call only when every point failed.
        if err != 0 && failed.count == n {
            let text = context.errorText("PROJ could not transform any point from '\(source)' to '\(target)'")
            throw PROJError(message: text)
        }
        _ = context.drainMessages()
        return failed
    }

    /// The forward bulk call alone (`proj_trans_generic`), with none of the checks of
    /// ``transform(x:y:inverse:)``: PROJ's own rate, which the benchmark's baseline measures.
    public func transformUnchecked(x: UnsafeMutableBufferPointer<Double>, y: UnsafeMutableBufferPointer<Double>) {
        precondition(x.count == y.count)
        let stride = MemoryLayout<Double>.stride
        _ = proj_trans_generic(
            pj, PJ_FWD, x.baseAddress, stride, x.count, y.baseAddress, stride, y.count, nil, 0, 0, nil, 0, 0)
    }

    /// Transforms arrays in place; convenience over ``transform(x:y:inverse:)``.
    public func transform(x: inout [Double], y: inout [Double], inverse: Bool = false) throws(PROJError) -> [Int] {
        var result: Result<[Int], PROJError> = .success([])
        x.withUnsafeMutableBufferPointer { xb in
            y.withUnsafeMutableBufferPointer { yb in
                do throws(PROJError) {
                    result = .success(try transform(x: xb, y: yb, inverse: inverse))
                } catch {
                    result = .failure(error)
                }
            }
        }
        return try result.get()
    }
}

/// Geodesic computations on the WGS84 ellipsoid (GeographicLib through PROJ's `geodesic.h`).
public enum Geodesic {
    nonisolated(unsafe) private static var wgs84: geod_geodesic = {
        var g = geod_geodesic()
        geod_init(&g, 6_378_137.0, 1 / 298.257_223_563)
        return g
    }()

    /// Area in m² of a polygon ring given in lon/lat degrees (closed or not; orientation ignored).
    public static func area(lon: [Double], lat: [Double]) -> Double {
        var lats = lat
        var lons = lon
        if lons.count > 1, lons.first == lons.last, lats.first == lats.last {
            lons.removeLast()
            lats.removeLast()
        }
        var area = 0.0
        var perimeter = 0.0
        withUnsafePointer(to: &wgs84) { g in
            geod_polygonarea(g, &lats, &lons, Int32(lats.count), &area, &perimeter)
        }
        return abs(area)
    }

    /// The point reached from (lon, lat) going `distance` metres along azimuth `azimuth` (degrees
    /// clockwise from north).
    static func destination(lon: Double, lat: Double, azimuth: Double, distance: Double) -> (lon: Double, lat: Double) {
        var lat2 = 0.0
        var lon2 = 0.0
        withUnsafePointer(to: &wgs84) { g in
            geod_direct(g, lat, lon, azimuth, distance, &lat2, &lon2, nil)
        }
        return (normalizeLongitude(lon2), lat2)
    }

    /// Distance in metres between two lon/lat points.
    public static func distance(lon1: Double, lat1: Double, lon2: Double, lat2: Double) -> Double {
        var s12 = 0.0
        withUnsafePointer(to: &wgs84) { g in
            geod_inverse(g, lat1, lon1, lat2, lon2, &s12, nil, nil)
        }
        return s12
    }
}
