import Foundation
import RegionSearchCore
import RegionSearchGDAL
import RegionSearchIngest
import RegionSearchOutput

/// Where a result layer goes: a manifest's `output` (the regions) or `poi_output` (the scored
/// POI layer), as a path string or an object.
///
/// ```json
/// "output": "../out/helsinki.gpkg"
/// "output": { "path": "PG:dbname=gis host=/run/postgresql", "layer": "regions", "mode": "overwrite" }
/// "poi_output": { "path": "../out/helsinki.gpkg", "layer": "pois", "select": "in_regions" }
/// ```
///
/// - `path`: a file (relative to the manifest), `-` for standard output, or a `PG:` connection
///   string (a PostGIS database).
/// - `format`: one of ``OutputFormat``; by default from the path's extension (no extension:
///   GeoJSON; `PG:`: PostGIS).
/// - `layer`: the layer (GeoPackage) or table (PostGIS) name; default `regions` / `pois`.
/// - `mode`: PostGIS only: `overwrite` (default: the table is replaced atomically) or `append`.
/// - `select` (`poi_output` only): `all` POIs (default) or those `in_regions`.
///
/// A GeoPackage or a database can take both layers: give `poi_output` the same path.
public struct OutputTarget: Sendable {
    /// Which layer the target receives.
    public enum Role: String, Sendable {
        case regions = "output"
        case pois = "poi_output"

        var defaultLayer: String {
            self == .regions ? RegionFeatureSchema.layerName : POIFeatureSchema.layerName
        }
    }

    public var role: Role
    /// An absolute file path, `-`, or a `PG:` connection string.
    public var path: String
    public var format: OutputFormat
    public var layer: String
    public var mode: PostGISTableWriter.Mode
    public var selection: POIFeatureSchema.Selection
    /// Whether a `.qml` QGIS style is written beside a single-layer file (not for an
    /// experiment's GeoJSON per combination).
    public var styleSidecar: Bool
    /// Why the format could not be told from the path (reported after the check that the
    /// output is not an input, which says more).
    var formatProblem: (key: String, reason: String)?

    static let keys = ["path", "format", "layer", "mode", "select"]

    /// A plain GeoJSON file without a style beside it (an experiment combination's output).
    init(geoJSON path: String) {
        role = .regions
        self.path = path
        format = .geojson
        layer = RegionFeatureSchema.layerName
        mode = .overwrite
        selection = .all
        styleSidecar = false
    }

    /// The target for messages: the path, a connection string's password replaced by `***`,
    /// and the table for PostGIS.
    public var display: String {
        format == .postgis ? "\(GDALLibrary.redacted(path)) table \(layer)" : path
    }

    /// Whether this is standard output.
    public var isStandardOutput: Bool { path == "-" }

    /// The files this target writes (none for a database or standard output): the output, a
    /// Shapefile's sidecars, and the `.qml` style beside single-layer files.
    public var files: [String] {
        guard format != .postgis, !isStandardOutput else { return [] }
        var out = format == .shapefile ? AtomicVectorFile.fileSet(of: path) : [path]
        if format.hasStyleSidecar && styleSidecar { out.append(VectorOutput.styleSidecar(of: path)) }
        return out
    }

    /// Parses a manifest value (a path string or an object); `invalid(key, reason)` builds the
    /// error for a key.
    static func parse(
        _ value: JSONValue, role: Role, directory: String, invalid: (String, String) -> ManifestError
    ) throws(ManifestError) -> OutputTarget {
        let key = role.rawValue
        var members: [(String, JSONValue)]
        if let s = value.stringValue {
            members = [("path", .string(s))]
        } else if let object = value.objectValue {
            members = object
            for (k, _) in object where !keys.contains(k) || (k == "select" && role == .regions) {
                let known = keys.filter { role == .pois || $0 != "select" }
                let hint = closestMatch(k, in: known).map { " (did you mean '\($0)'?)" } ?? ""
                throw invalid("\(key).\(k)", "unknown key\(hint); known keys: \(known.joined(separator: ", "))")
            }
        } else {
            throw invalid(key, "expected a path or an object with \"path\", got \(value.typeName)")
        }
        func string(_ k: String) throws(ManifestError) -> String? {
            guard let v = members.first(where: { $0.0 == k })?.1, v != .null else { return nil }
            guard let s = v.stringValue, !s.isEmpty else {
                throw invalid("\(key).\(k)", "expected a non-empty string, got \(v.typeName)")
            }
            return s
        }
        guard let raw = try string("path") else {
            throw invalid(key, "\"path\" is required (a file, \"-\" for standard output, or a PG: connection string)")
        }
        let at = value.stringValue != nil ? key : "\(key).path"
        var target = OutputTarget(geoJSON: raw)
        target.role = role
        target.styleSidecar = true
        target.layer = role.defaultLayer
        if raw == "-" || InputSpec.isConnectionString(raw) {
            target.path = raw
        } else if raw.hasSuffix("/") {
            // Normalised, "out/" would become a file named out.
            throw invalid(
                at, "\"\(raw)\" names a folder; give a file in it, such as \"\(raw)regions.geojson\"")
        } else {
            target.path = PathResolver.absolute(raw, relativeTo: directory)
        }
        let fromPath = OutputFormat(path: raw)
        if let f = try string("format") {
            guard let given = OutputFormat(rawValue: f) else {
                let hint = closestMatch(f, in: OutputFormat.allCases.map(\.rawValue)).map {
                    " (did you mean \"\($0)\"?)"
                }
                throw invalid("\(key).format", "expected one of \(OutputFormat.names), got \"\(f)\"\(hint ?? "")")
            }
            if let fromPath, fromPath != given {
                throw invalid(
                    "\(key).format",
                    "\"\(f)\" does not fit the path '\(GDALLibrary.redacted(raw))', which names \(fromPath.rawValue)")
            }
            target.format = given
        } else if let fromPath {
            target.format = fromPath
        } else if raw == "-" || !AtomicFile.baseName(of: raw).contains(".") {
            target.format = .geojson
        } else {
            target.formatProblem = (
                at,
                "cannot tell the format of '\(raw)' from its extension; give \"format\" (one of \(OutputFormat.names))"
            )
        }
        if target.format == .postgis && !InputSpec.isConnectionString(raw) {
            throw invalid(at, "PostGIS output needs a PG: connection string, e.g. \"PG:dbname=gis\"")
        }
        if let layer = try string("layer") {
            if target.format == .postgis {
                do {
                    try PostGISTableWriter.validate(layer)
                } catch {
                    throw invalid("\(key).layer", "\(error)")
                }
            }
            target.layer = layer
        }
        if let m = try string("mode") {
            guard let mode = PostGISTableWriter.Mode(rawValue: m) else {
                throw invalid("\(key).mode", "expected \"overwrite\" or \"append\", got \"\(m)\"")
            }
            guard target.format == .postgis || mode == .overwrite else {
                throw invalid("\(key).mode", "append is for PostGIS tables; a file is always replaced")
            }
            target.mode = mode
        }
        if let s = try string("select") {
            guard let selection = POIFeatureSchema.Selection(rawValue: s) else {
                throw invalid("\(key).select", "expected \"all\" or \"in_regions\", got \"\(s)\"")
            }
            target.selection = selection
        }
        if target.isStandardOutput && target.format == .shapefile && !raw.lowercased().hasSuffix(".zip") {
            throw invalid("\(key).format", "a Shapefile is several files and cannot go to standard output")
        }
        return target
    }

    /// Whether two targets write into the same file or database.
    func sharesDestination(with other: OutputTarget) -> Bool {
        if format == .postgis || other.format == .postgis {
            return format == other.format && Self.connectionKey(path) == Self.connectionKey(other.path)
        }
        return !isStandardOutput && path == other.path
    }

    /// A `PG:` string's parameters in one order: `PG:host=/s dbname=d` and `PG:dbname=d host=/s`
    /// name one database, whose tables are then written in one transaction (as spelt apart, the
    /// regions table was committed and the POI table's failure left yesterday's beside it). A
    /// `port` that is libpq's default (`PGPORT`, else 5432) is the port left out, so
    /// `host=/s port=5432 dbname=d` is that database too.
    static func connectionKey(_ connection: String, environment: [String: String] = ProcessInfo.processInfo.environment)
        -> String
    {
        let text = connection.hasPrefix("PG:") ? connection.dropFirst(3) : Substring(connection)
        let items = ConnectionParameters(text).items
        // A URI (`postgresql://…`) is compared as written.
        guard !items.isEmpty, !text.contains("://") else { return connection }
        let defaultPort = environment["PGPORT"].flatMap { $0.isEmpty ? nil : $0 } ?? "5432"
        return items.filter { !($0.key == "port" && $0.value == defaultPort) }.map { "\($0.key)=\($0.value)" }
            .sorted().joined(separator: "\n")
    }
}
