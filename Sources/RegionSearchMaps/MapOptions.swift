import RegionSearchCore
import RegionSearchIngest

/// What map files to write and how: the same for `regionsearch run` (the manifest's `maps`)
/// and `regionsearch preview` (its options).
public struct MapOptions: Equatable, Sendable {
    /// The files written by default: the PNG, the SVG and the web map (PDF on request).
    public static let defaultFormats: [MapFormat] = [.png, .svg, .html]
    public static let defaultWidth = 1600
    /// Page widths accepted (a 1600 px page is the reference layout).
    public static let widthRange = 400...8000

    /// In ``MapFormat`` order, no repeats.
    public var formats: [MapFormat]
    public var width: Int
    /// The extent to show; nil = the POIs' central 99 % and every region.
    public var bbox: GeoBox?
    /// A tile URL template for the web map (`https://tile.openstreetmap.org/{z}/{x}/{y}.png`).
    public var basemap: String?
    public var basemapAttribution: String?

    public init(
        formats: [MapFormat] = MapOptions.defaultFormats, width: Int = MapOptions.defaultWidth, bbox: GeoBox? = nil,
        basemap: String? = nil, basemapAttribution: String? = nil
    ) {
        self.formats = Array(Set(formats)).sorted()
        self.width = width
        self.bbox = bbox
        self.basemap = basemap
        self.basemapAttribution = basemapAttribution
    }

    /// Canonical form, part of the maps' cache key.
    public var json: JSONValue {
        .object([
            ("formats", .array(formats.map { .string($0.rawValue) })),
            ("width", .number(Double(width))),
            ("bbox", bbox.map { b in .array([b.west, b.south, b.east, b.north].map { .number($0) }) } ?? .null),
            ("basemap", basemap.map { .string($0) } ?? .null),
            ("basemap_attribution", basemapAttribution.map { .string($0) } ?? .null),
        ])
    }
}
