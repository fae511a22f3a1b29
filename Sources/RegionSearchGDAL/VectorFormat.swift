/// An output vector format written through GDAL: the driver and the creation options this
/// project settles on (each chosen for a reason given below).
public struct VectorFormat: Sendable, Equatable {
    /// GDAL driver short name.
    public var driver: String
    /// Dataset creation options (`GDALCreate`).
    public var datasetOptions: [String]
    /// Layer creation options (`GDALDatasetCreateLayer`), applied to every layer.
    public var layerOptions: [String]
    /// Whether one dataset can hold several layers.
    public var multiLayer: Bool
    /// Whether writes are much faster inside one transaction (SQLite-based formats).
    public var batchInTransaction: Bool
    /// Whether field names are limited to 10 bytes (dBASE).
    public var shortFieldNames: Bool
    /// Whether the format keeps a schema for a layer without features.
    public var keepsEmptySchema: Bool
    /// Whether text goes into XML, which cannot carry the control characters other than tab,
    /// line feed and carriage return (XML 1.0 §2.2; GDAL writes them raw, and the file would not
    /// parse): they are written as U+FFFD.
    public var xmlText = false

    public init(
        driver: String, datasetOptions: [String] = [], layerOptions: [String] = [], multiLayer: Bool = false,
        batchInTransaction: Bool = false, shortFieldNames: Bool = false, keepsEmptySchema: Bool = true
    ) {
        self.driver = driver
        self.datasetOptions = datasetOptions
        self.layerOptions = layerOptions
        self.multiLayer = multiLayer
        self.batchInTransaction = batchInTransaction
        self.shortFieldNames = shortFieldNames
        self.keepsEmptySchema = keepsEmptySchema
    }

    /// GeoPackage: an R-tree spatial index per layer (`SPATIAL_INDEX=YES`, GDAL's default,
    /// stated), geometry column `geom`, FID column `fid`; written in one transaction.
    public static let geoPackage = VectorFormat(
        driver: "GPKG", layerOptions: ["SPATIAL_INDEX=YES", "GEOMETRY_NAME=geom", "FID=fid"], multiLayer: true,
        batchInTransaction: true)
    /// FlatGeobuf with its packed Hilbert R-tree (`SPATIAL_INDEX=YES`): features are reordered
    /// by the index when the file is closed.
    public static let flatGeobuf = VectorFormat(driver: "FlatGeobuf", layerOptions: ["SPATIAL_INDEX=YES"])
    /// ESRI Shapefile: UTF-8 attributes (a `.cpg` holding "UTF-8"), and a fixed DBF date so
    /// the bytes do not depend on the day of the run.
    public static let shapefile = VectorFormat(
        driver: "ESRI Shapefile", layerOptions: ["ENCODING=UTF-8", "DBF_DATE_LAST_UPDATE=2000-01-01"],
        shortFieldNames: true)
    /// KML through the LIBKML driver: it turns OGR style strings into `<Style>` with
    /// `<LineStyle>` (PEN) and `<PolyStyle>` (BRUSH). The plain "KML" driver writes only the
    /// outline and `<PolyStyle><fill>0</fill>`, so the fill colours would be lost.
    public static let kml: VectorFormat = {
        var f = VectorFormat(driver: "LIBKML", multiLayer: true)
        f.xmlText = true
        return f
    }()
    /// KML of points (the POI layer) through the plain "KML" driver: LIBKML takes time quadratic
    /// in the placemarks (4,000 points: 12 s against 0.08 s; a 12,000-POI layer took 9 minutes),
    /// and points have no fill to lose.
    public static let kmlPoints: VectorFormat = {
        var f = VectorFormat(driver: "KML", multiLayer: true)
        f.xmlText = true
        return f
    }()

    /// `text` as XML can hold it: C0 controls other than tab, LF and CR become U+FFFD.
    public static func xmlSafe(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 < 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }) else { return text }
        var out = String.UnicodeScalarView()
        for s in text.unicodeScalars {
            out.append(s.value < 0x20 && s.value != 0x09 && s.value != 0x0A && s.value != 0x0D ? "\u{FFFD}" : s)
        }
        return String(out)
    }
}
