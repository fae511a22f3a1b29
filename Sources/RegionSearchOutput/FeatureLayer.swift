import RegionSearchGDAL

/// A typed layer of features, the one thing every output format writes: a name, fields with a
/// type and a description, and features with a geometry and one value per field.
///
/// The fields are fixed before any feature exists, so a layer without features still has its
/// full schema (GeoPackage, FlatGeobuf, Shapefile and PostGIS keep it; GeoJSON has no place for
/// a schema outside its features). Every feature of a layer has the layer's geometry type.
/// Features are made on demand (``feature(_:)``), so a layer of millions of POIs is never held
/// as objects.
public struct FeatureLayer {
    /// The type of a field's values: written as that type by every format, reals always as reals.
    public enum FieldType: String, Sendable, Equatable {
        case integer, real, string
    }

    public struct Field: Sendable, Equatable {
        public var name: String
        public var type: FieldType
        /// What the field holds (README, docs, QGIS aliases).
        public var description: String
        /// The field's name in a Shapefile's dBASE table, at most 10 bytes: the name itself when
        /// it fits, otherwise the documented abbreviation.
        public var shapefileName: String

        public init(_ name: String, _ type: FieldType, _ description: String, shapefileName: String? = nil) {
            self.name = name
            self.type = type
            self.description = description
            self.shapefileName = shapefileName ?? name
        }
    }

    /// The layer's one geometry type.
    public enum GeometryType: Sendable, Equatable {
        case point
        /// Every feature a MultiPolygon, also those with one part, so that GIS tools see one
        /// type (`Multi Polygon`) for the layer and a database table keeps one geometry type.
        case multiPolygon
    }

    /// A feature's geometry, in WGS 84 longitude/latitude.
    public enum Geometry {
        case point(lon: Double, lat: Double)
        /// Polygons → rings (the exterior first, counter-clockwise, then holes) → closed vertices.
        case multiPolygon([[GeoJSONWriter.Ring]])
    }

    public struct Feature {
        public var geometry: Geometry
        /// One value per field, in field order (`.null` for none).
        public var values: [FieldValue]
        /// OGR style string (`BRUSH(fc:…);PEN(c:…,w:2px)`): KML keeps it as the placemark's style.
        public var style: String?

        public init(geometry: Geometry, values: [FieldValue], style: String? = nil) {
            self.geometry = geometry
            self.values = values
            self.style = style
        }
    }

    public var name: String
    public var geometryType: GeometryType
    public var fields: [Field]
    /// The QGIS style (`.qml` text) for the layer, when it has one.
    public var qgisStyle: String?
    public let count: Int
    private let make: (Int) -> Feature

    /// A layer of the given features.
    public init(name: String, geometryType: GeometryType, fields: [Field], features: [Feature]) {
        self.init(name: name, geometryType: geometryType, fields: fields, count: features.count) { features[$0] }
    }

    /// A layer whose feature `i` is made by `feature(i)` when a writer asks for it.
    public init(
        name: String, geometryType: GeometryType, fields: [Field], count: Int, feature: @escaping (Int) -> Feature
    ) {
        self.name = name
        self.geometryType = geometryType
        self.fields = fields
        self.count = count
        make = feature
    }

    /// Feature `i`, 0 ≤ i < ``count``.
    public func feature(_ i: Int) -> Feature {
        let f = make(i)
        precondition(f.values.count == fields.count, "feature \(i) of \(name) has \(f.values.count) values")
        return f
    }

    /// The same layer with a different name.
    public func renamed(_ newName: String) -> FeatureLayer {
        var copy = self
        copy.name = newName
        return copy
    }

    /// The same features with a style string computed from each (the layer's other properties kept).
    public func styled(_ style: @escaping (Feature) -> String?) -> FeatureLayer {
        let make = self.make
        var copy = FeatureLayer(name: name, geometryType: geometryType, fields: fields, count: count) { i in
            var f = make(i)
            f.style = style(f)
            return f
        }
        copy.qgisStyle = qgisStyle
        return copy
    }
}

extension FeatureLayer {
    /// The layer with one more field holding `value` on every feature.
    public func withConstant(_ field: Field, _ value: String) -> FeatureLayer {
        let base = self
        var copy = FeatureLayer(name: name, geometryType: geometryType, fields: fields + [field], count: count) { i in
            var f = base.feature(i)
            f.values.append(.string(value))
            return f
        }
        copy.qgisStyle = qgisStyle
        return copy
    }

    /// The layer with the history columns of an appended PostGIS table after its own fields:
    /// `run_id` and `valid_from` of this run, `valid_to` null (closed by the next run).
    public func withHistory(_ history: PostGISTableWriter.History) -> FeatureLayer {
        let extra: [Field] = [
            .init(
                "run_id", .string,
                "the run that wrote the row (the content hash of what it published: the regions; for a POI table, "
                    + "what its layer is made from)"),
            .init("valid_from", .string, "when that run published (ISO 8601, UTC)"),
            .init("valid_to", .string, "when the next run replaced the row (ISO 8601, UTC); null while current"),
        ]
        let base = self
        var copy = FeatureLayer(name: name, geometryType: geometryType, fields: fields + extra, count: count) { i in
            var f = base.feature(i)
            f.values += [.string(history.runID), .string(history.time), .null]
            return f
        }
        copy.qgisStyle = qgisStyle
        return copy
    }
}
