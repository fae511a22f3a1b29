/// A QGIS layer style (a `.qml` document) for a GeoPackage's `layer_styles` table.
public struct QGISLayerStyle: Sendable, Equatable {
    /// The layer (table) the style is for.
    public var table: String
    public var geometryColumn: String
    public var name: String
    /// The `.qml` document (what QGIS reads).
    public var qml: String
    public var description: String

    public init(table: String, geometryColumn: String = "geom", name: String, qml: String, description: String = "") {
        self.table = table
        self.geometryColumn = geometryColumn
        self.name = name
        self.qml = qml
        self.description = description
    }
}
