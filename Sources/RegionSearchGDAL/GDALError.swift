/// A failure reported by GDAL/OGR, with what GDAL said through the error handler.
///
/// Every wrapper call runs inside a ``GDALErrorCollector`` scope, so the messages
/// (`CE_Failure`/`CE_Fatal`) that led to a failed return value are attached to the error instead
/// of being printed to standard error. Callers wrap it in their own typed error (an unreadable
/// input is exit status 3, an unwritable output 6).
public enum GDALError: Error, CustomStringConvertible, Sendable {
    /// `GDALOpenEx` returned NULL.
    case openFailed(path: String, messages: [GDALMessage])
    /// `GDALCreate` (through a driver) returned NULL.
    case createFailed(path: String, driver: String, messages: [GDALMessage])
    /// The named driver is not compiled into this GDAL (`GDALGetDriverByName` returned NULL).
    case driverNotFound(String)
    /// No layer of that name or index in the dataset.
    case layerNotFound(String)
    /// An OGR call returned a non-zero `OGRErr`, or NULL where an object was expected.
    case operationFailed(operation: String, code: Int32, messages: [GDALMessage])
    /// A spatial reference could not be built or a coordinate transformation could not be created.
    case spatialReference(String, messages: [GDALMessage])
    /// A caller-side problem found before calling GDAL (schema mismatch, bad value).
    case invalidArgument(String)
    /// A file-system step of an atomic write (temporary directory, rename) failed.
    case fileSystem(String)
    /// The GDAL library could not be loaded (it is loaded on first use, see the CGDAL target).
    case unavailable(String)
    /// Another session held a lock on a table for longer than the writer waits (PostGIS).
    case tableInUse(String)

    /// The GDAL messages attached to this error (empty for caller-side errors).
    public var messages: [GDALMessage] {
        switch self {
        case .openFailed(_, let m), .createFailed(_, _, let m), .operationFailed(_, _, let m),
            .spatialReference(_, let m):
            return m
        case .driverNotFound, .layerNotFound, .invalidArgument, .fileSystem, .unavailable, .tableInUse:
            return []
        }
    }

    public var description: String {
        let detail = messages.isEmpty ? "" : ": " + messages.map(\.text).joined(separator: "; ")
        switch self {
        case .openFailed(let path, _): return "GDAL cannot open '\(GDALLibrary.redacted(path))' as vector data" + detail
        case .createFailed(let path, let driver, _):
            return "GDAL driver \(driver) cannot create '\(GDALLibrary.redacted(path))'" + detail
        case .driverNotFound(let name): return "this GDAL has no driver named '\(name)'"
        case .layerNotFound(let what): return "no layer \(what)"
        case .operationFailed(let op, let code, _): return "OGR \(op) failed (OGRErr \(code))" + detail
        case .spatialReference(let what, _): return "spatial reference: \(what)" + detail
        case .invalidArgument(let what): return what
        case .fileSystem(let what): return what
        case .unavailable(let why): return why
        case .tableInUse(let what): return what
        }
    }
}
