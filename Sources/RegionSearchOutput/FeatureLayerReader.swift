import RegionSearchCore
import RegionSearchGDAL

/// Reads a FeatureCollection this project wrote back into a typed ``FeatureLayer``: each
/// property by its field's type, the geometry as the layer's type. Used to convert the hulls
/// stage's verified GeoJSON artifact into the other output formats, so every format carries the
/// same features and values.
public enum FeatureLayerReader {
    /// Why the document does not fit the schema (an artifact of another schema version).
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// The layer `name` with `fields` from GeoJSON text. Properties missing from a feature are
    /// null; properties the schema does not list are an error (the schema and the writer must
    /// agree).
    public static func read(
        geoJSON bytes: [UInt8], name: String, geometryType: FeatureLayer.GeometryType, fields: [FeatureLayer.Field]
    ) throws(Failure) -> FeatureLayer {
        let document: JSONValue
        do {
            document = try bytes.withUnsafeBufferPointer { (b) throws(JSONParseError) -> JSONValue in
                try JSONParser.parse(bytes: b)
            }
        } catch {
            throw Failure(description: "not valid JSON at line \(error.line): \(error.reason)")
        }
        guard document["type"]?.stringValue == "FeatureCollection", let items = document["features"]?.arrayValue else {
            throw Failure(description: "not a GeoJSON FeatureCollection")
        }
        var features: [FeatureLayer.Feature] = []
        features.reserveCapacity(items.count)
        for (i, item) in items.enumerated() {
            let at = "feature \(i + 1)"
            let properties = item["properties"]?.objectValue ?? []
            for (key, _) in properties where !fields.contains(where: { $0.name == key }) {
                throw Failure(description: "\(at): property '\(key)' is not a field of the \(name) layer")
            }
            var values: [FieldValue] = []
            for field in fields {
                values.append(try value(item["properties"]?[field.name], field, at: at))
            }
            features.append(.init(geometry: try geometry(item["geometry"], geometryType, at: at), values: values))
        }
        return FeatureLayer(name: name, geometryType: geometryType, fields: fields, features: features)
    }

    private static func value(_ v: JSONValue?, _ field: FeatureLayer.Field, at: String) throws(Failure) -> FieldValue {
        guard let v, v != .null else { return .null }
        switch (field.type, v) {
        case (.string, .string(let s)): return .string(s)
        case (.real, .number(let d)): return .real(d)
        case (.integer, .number(let d)) where d == d.rounded() && abs(d) < 9.007_199_254_740_992e15:
            return .integer(Int64(d))
        default:
            throw Failure(description: "\(at): '\(field.name)' is \(v.typeName), expected \(field.type.rawValue)")
        }
    }

    private static func geometry(_ g: JSONValue?, _ type: FeatureLayer.GeometryType, at: String) throws(Failure)
        -> FeatureLayer.Geometry
    {
        func positions(_ v: JSONValue?) throws(Failure) -> GeoJSONWriter.Ring {
            guard let list = v?.arrayValue else { throw Failure(description: "\(at): a ring is not an array") }
            var lon: [Double] = []
            var lat: [Double] = []
            for p in list {
                guard let a = p.arrayValue, a.count >= 2, let x = a[0].doubleValue, let y = a[1].doubleValue else {
                    throw Failure(description: "\(at): a position is not two numbers")
                }
                lon.append(x)
                lat.append(y)
            }
            return GeoJSONWriter.Ring(lon: lon, lat: lat)
        }
        func rings(_ v: JSONValue?) throws(Failure) -> [GeoJSONWriter.Ring] {
            guard let list = v?.arrayValue else { throw Failure(description: "\(at): polygon rings are not an array") }
            var out: [GeoJSONWriter.Ring] = []
            for r in list { out.append(try positions(r)) }
            return out
        }
        let kind = g?["type"]?.stringValue
        switch (type, kind) {
        case (.multiPolygon, "Polygon"):
            return .multiPolygon([try rings(g?["coordinates"])])
        case (.multiPolygon, "MultiPolygon"):
            guard let list = g?["coordinates"]?.arrayValue else {
                throw Failure(description: "\(at): MultiPolygon coordinates are not an array")
            }
            var polygons: [[GeoJSONWriter.Ring]] = []
            for p in list { polygons.append(try rings(p)) }
            return .multiPolygon(polygons)
        case (.point, "Point"):
            let c = g?["coordinates"]?.arrayValue ?? []
            guard c.count >= 2, let x = c[0].doubleValue, let y = c[1].doubleValue else {
                throw Failure(description: "\(at): Point coordinates are not two numbers")
            }
            return .point(lon: x, lat: y)
        default:
            throw Failure(description: "\(at): geometry \(kind ?? "missing") does not fit a \(type) layer")
        }
    }
}
