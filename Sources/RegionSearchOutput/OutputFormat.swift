import RegionSearchGDAL

/// The formats results are written in, chosen by the output's extension or an explicit
/// `format`. GeoJSON and GeoJSON sequences are written by this project's own writer
/// (``GeoJSONWriter``); the others through GDAL.
///
/// | format | extensions | layers | byte-deterministic |
/// |---|---|---|---|
/// | `geojson` | `.geojson`, `.json` | one | yes |
/// | `geojsonseq` | `.geojsonl`, `.geojsons` (RFC 8142, RS-prefixed), `.geojsonseq`, `.ndjson` | one | yes |
/// | `gpkg` | `.gpkg` | several, with a spatial index and the QGIS style | yes (`OGR_CURRENT_DATE` fixed) |
/// | `flatgeobuf` | `.fgb` | one | yes |
/// | `shapefile` | `.shp` (a set of files), `.shp.zip` (one file) | one | yes (DBF date fixed) |
/// | `kml` | `.kml` | one | yes |
/// | `postgis` | a `PG:` connection string | a table per layer | — |
public enum OutputFormat: String, CaseIterable, Sendable {
    case geojson
    case geojsonseq
    case gpkg
    case flatgeobuf
    case shapefile
    case kml
    case postgis

    /// The format an output path names: `PG:` for PostGIS, otherwise by extension (case
    /// insensitive); nil for an extension no format has.
    public init?(path: String) {
        if path.hasPrefix("PG:") {
            self = .postgis
            return
        }
        let name = path.lowercased()
        if name.hasSuffix(".shp.zip") {
            self = .shapefile
            return
        }
        guard let dot = name.lastIndex(of: "."), !name[dot...].contains("/") else { return nil }
        switch name[name.index(after: dot)...] {
        case "geojson", "json": self = .geojson
        case "geojsonl", "geojsons", "geojsonseq", "ndjson", "jsonl": self = .geojsonseq
        case "gpkg": self = .gpkg
        case "fgb": self = .flatgeobuf
        case "shp": self = .shapefile
        case "kml": self = .kml
        default: return nil
        }
    }

    /// The GDAL format, for formats written through GDAL files.
    public var vectorFormat: VectorFormat? {
        switch self {
        case .gpkg: return .geoPackage
        case .flatgeobuf: return .flatGeobuf
        case .shapefile: return .shapefile
        case .kml: return .kml
        case .geojson, .geojsonseq, .postgis: return nil
        }
    }

    /// Whether one output can hold the regions and the POIs (a GeoPackage, a database).
    public var holdsSeveralLayers: Bool { self == .gpkg || self == .postgis }

    /// Whether a layer without features keeps its fields (GeoJSON has no schema outside its
    /// features: an empty FeatureCollection has none).
    public var keepsEmptySchema: Bool { self != .geojson && self != .geojsonseq }

    /// Whether the same result always gives the same bytes.
    public var isByteDeterministic: Bool { self != .postgis }

    /// Whether a QGIS style is written beside the output as `<name>.qml` (a GeoPackage keeps it
    /// inside, in `layer_styles`; a database has no file beside it).
    public var hasStyleSidecar: Bool { self != .gpkg && self != .postgis }

    /// The known format names, for messages.
    public static var names: String { allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ") }
}
