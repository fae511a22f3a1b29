import Foundation
import RegionSearchCore
import RegionSearchGDAL

/// Writes typed layers in an ``OutputFormat``: to a file (atomically, or written through a
/// pipe or device — see ``AtomicFile/Target``) or to PostGIS tables (in one transaction).
///
/// GeoJSON and GeoJSON sequences go through ``GeoJSONWriter``; the other files through GDAL
/// (``AtomicVectorFile``) in WGS 84 (EPSG:4326, longitude first), with `OGR_CURRENT_DATE` fixed
/// during the write so that a GeoPackage's `last_change` does not depend on the clock. A QGIS
/// style goes into a GeoPackage's `layer_styles`, and for other files beside the output as
/// `<name>.qml` (QGIS loads a same-named `.qml` with the layer).
public enum VectorOutput {
    /// An output that could not be written (exit status 6).
    public struct Failure: ExitCoded {
        public var message: String
        public var description: String { message }
        public var exitStatus: ExitStatus { .output }
        public init(_ message: String) { self.message = message }
    }

    /// The date written where a format stores one (`gpkg_contents.last_change`).
    public static let fixedDate = "2000-01-01T00:00:00Z"

    /// Writes `layers` (one, or several for a GeoPackage) to `path` as `format`.
    /// - Parameters:
    ///   - foreignMembers: top-level members of a GeoJSON FeatureCollection.
    ///   - styleSidecar: whether to write the layer's QGIS style beside a single-layer file.
    /// - Returns: the files written (the output last, after its style sidecar).
    @discardableResult
    public static func writeFile(
        _ layers: [FeatureLayer], format: OutputFormat, to path: String, foreignMembers: [(String, JSONValue)] = [],
        styleSidecar: Bool = true
    ) throws -> [String] {
        guard format != .postgis else { throw Failure("\(path): PostGIS output is written with writePostGIS") }
        guard layers.count == 1 || format.holdsSeveralLayers else {
            throw Failure("\(path): \(format.rawValue) holds one layer, not \(layers.count)")
        }
        let target = try AtomicFile.Target(path)
        var written: [String] = []
        if styleSidecar, format.hasStyleSidecar, case .replace(let real) = target, let qml = layers[0].qgisStyle {
            let sidecar = Self.styleSidecar(of: real)
            try AtomicFile.write(qml, to: sidecar)
            written.append(sidecar)
        }
        switch format {
        case .geojson, .geojsonseq:
            let file = try AtomicFile(path: path)
            if format == .geojson {
                try GeoJSONWriter.write(layers[0], foreignMembers: foreignMembers) { try file.write($0) }
            } else {
                let rs = path.lowercased().hasSuffix(".geojsons")
                try GeoJSONWriter.writeSequence(layers[0], recordSeparator: rs) { try file.write($0) }
            }
            try file.commit()
            written.append(target.path)
        default:
            written += try writeWithGDAL(layers, format: format, target: target, path: path)
        }
        return written
    }

    private static func writeWithGDAL(
        _ layers: [FeatureLayer], format: OutputFormat, target: AtomicFile.Target, path: String
    )
        throws -> [String]
    {
        guard var vector = format.vectorFormat else {
            throw Failure("\(path): \(format.rawValue) is not a GDAL format")
        }
        if format == .kml && layers.allSatisfy({ $0.geometryType == .point }) { vector = .kmlPoints }
        let srs: SpatialReference
        do {
            srs = try SpatialReference.wgs84()
        } catch {
            throw Failure("\(path): \(error)")
        }
        return try GDALLibrary.withThreadLocalConfig([("OGR_CURRENT_DATE", fixedDate)]) { () throws -> [String] in
            switch target {
            case .replace(let real):
                do {
                    let file = try AtomicVectorFile(real, format: vector)
                    for layer in layers { try file.write(outputLayer(layer, format: vector), srs: srs) }
                    return try file.commit()
                } catch {
                    throw Failure("\(path): cannot write \(format.rawValue): \(error)")
                }
            case .writeThrough:
                // A pipe or device has no directory to rename in: make the file in a temporary
                // directory, then stream its bytes through.
                let name = "output." + (path.lowercased().hasSuffix(".shp.zip") ? "shp.zip" : ext(path))
                let file: AtomicVectorFile
                let produced: String
                do {
                    file = try AtomicVectorFile(
                        NSTemporaryDirectory() + "/" + name, format: vector, temporaryParent: NSTemporaryDirectory())
                    for layer in layers { try file.write(outputLayer(layer, format: vector), srs: srs) }
                    produced = try file.finishInPlace()
                } catch {
                    throw Failure("\(path): cannot write \(format.rawValue): \(error)")
                }
                defer { file.discard() }
                let siblings = FileManager.default.enumerator(atPath: AtomicFile.directory(of: produced))?.allObjects
                if (siblings?.count ?? 1) > 1 {
                    throw Failure(
                        "\(path): a \(format.rawValue) output is several files and cannot be written to a pipe or "
                            + "device; write name.shp.zip (one file) or a file path")
                }
                let out = try AtomicFile(path: path)
                try out.write(try Data(contentsOf: URL(fileURLWithPath: produced)).map { $0 })
                try out.commit()
                return [path]
            }
        }
    }

    /// Writes `tables` to the PostGIS database `connection` in one transaction, each replaced
    /// (`overwrite`) or added to (`append`).
    /// Writes the tables in one transaction; `append` tables get the history columns and rows of
    /// `history` when it is given (``PostGISTableWriter/History``, ``FeatureLayer/withHistory(_:)``).
    public static func writePostGIS(
        _ tables: [(table: String, layer: FeatureLayer, mode: PostGISTableWriter.Mode)], connection: String,
        history: PostGISTableWriter.History? = nil
    ) throws(Failure) -> [Int] {
        do {
            let writer = PostGISTableWriter(connection: connection)
            return try writer.write(
                tables.map { t in
                    let layer =
                        t.mode == .append
                        ? history.map { t.layer.withHistory($0.forTable(t.table)) } ?? t.layer : t.layer
                    return (t.table, outputLayer(layer, format: nil), t.mode)
                }, srs: try .wgs84(), history: history)
        } catch {
            throw Failure(
                "\(GDALLibrary.redacted(connection)): cannot write PostGIS table(s) \(tables.map(\.table)): \(error)")
        }
    }

    /// The GDAL form of a layer for `format` (nil: PostGIS): field names as the format allows,
    /// features made one at a time.
    static func outputLayer(_ layer: FeatureLayer, format: VectorFormat?) -> OutputLayer {
        let short = format?.shortFieldNames ?? false
        let fields = layer.fields.map { f -> LayerSchema.Field in
            let kind: FieldKind
            switch f.type {
            case .integer: kind = .integer64
            case .real: kind = .real
            case .string: kind = .string
            }
            return .init(short ? f.shapefileName : f.name, kind)
        }
        let schema = LayerSchema(
            name: layer.name, geometry: layer.geometryType == .point ? .point : .multiPolygon, fields: fields)
        let style = layer.qgisStyle.map { QGISLayerStyle(table: layer.name, name: layer.name, qml: $0) }
        return OutputLayer(schema: schema, count: layer.count, style: style) { i in
            let f = layer.feature(i)
            let geometry: OutputGeometry
            switch f.geometry {
            case .point(let lon, let lat): geometry = .point(x: lon, y: lat)
            case .multiPolygon(let polygons):
                geometry = .multiPolygon(polygons.map { rings in rings.map { (x: $0.lon, y: $0.lat) } })
            }
            // XML formats cannot hold control characters a name may have brought from the input.
            let values =
                format?.xmlText == true
                ? f.values.map { v -> FieldValue in
                    if case .string(let text) = v { return .string(VectorFormat.xmlSafe(text)) }
                    return v
                } : f.values
            return OutputFeature(geometry: geometry, values: values, style: f.style)
        }
    }

    /// `<directory>/<name without its extension>.qml` (`x.shp.zip` → `x.qml`).
    public static func styleSidecar(of path: String) -> String {
        var p = path
        if p.lowercased().hasSuffix(".shp.zip") { p = String(p.dropLast(4)) }
        let dir = AtomicFile.directory(of: p)
        var name = String(p.split(separator: "/", omittingEmptySubsequences: false).last ?? "")
        if let dot = name.lastIndex(of: "."), dot != name.startIndex { name = String(name[..<dot]) }
        return (dir == "." && !p.hasPrefix("./") ? "" : dir + "/") + name + ".qml"
    }

    private static func ext(_ path: String) -> String {
        guard let dot = path.lastIndex(of: ".") else { return "out" }
        return String(path[path.index(after: dot)...]).lowercased()
    }
}
