import RegionSearchCore

/// Why an evaluation could not run; each case names the file and, where known, the position.
public enum EvaluateError: Error, CustomStringConvertible, ExitCoded {
    /// The file cannot be opened or read.
    case unreadable(path: String, reason: String)
    /// The file is not valid JSON (line and column from ``JSONParser``).
    case badJSON(path: String, error: JSONParseError)
    /// The JSON is not usable GeoJSON; `location` says where (e.g. "feature 12, ring 0, position 3").
    case badGeoJSON(path: String, location: String, reason: String)
    /// A POI or members file has a bad record.
    case badRecord(path: String, line: UInt64, reason: String)
    /// Coordinates that the chosen CRS cannot represent.
    case projection(path: String, reason: String)

    public var description: String {
        switch self {
        case .unreadable(let path, let reason): return "\(path): cannot read: \(reason)"
        case .badJSON(let path, let error): return "\(path): not valid JSON: \(error)"
        case .badGeoJSON(let path, let location, let reason):
            return "\(path): not usable GeoJSON: \(location.isEmpty ? "" : location + ": ")\(reason)"
        case .badRecord(let path, let line, let reason): return "\(path): line \(line): \(reason)"
        case .projection(let path, let reason): return "\(path): \(reason)"
        }
    }

    public var exitStatus: ExitStatus { .inputData }
}
