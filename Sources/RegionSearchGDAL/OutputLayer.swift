/// A layer to write: its schema and its features, made one at a time so that a layer of
/// millions of POIs is never held in memory as OGR features.
public struct OutputLayer {
    public var schema: LayerSchema
    public var count: Int
    /// Feature `i` (0 ≤ i < count), in write order.
    public var feature: (Int) -> OutputFeature
    /// A QGIS style to store with the layer where the format keeps styles (GeoPackage).
    public var style: QGISLayerStyle?

    public init(
        schema: LayerSchema, count: Int, style: QGISLayerStyle? = nil, feature: @escaping (Int) -> OutputFeature
    ) {
        self.schema = schema
        self.count = count
        self.style = style
        self.feature = feature
    }

    /// Writes every feature to `layer`.
    func write(to layer: GDALLayer) throws(GDALError) {
        for i in 0..<count { try layer.write(feature(i)) }
    }
}
