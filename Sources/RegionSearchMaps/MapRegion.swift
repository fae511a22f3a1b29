import RegionSearchCore
import RegionSearchOutput

/// One region polygon of a map, in WGS84 degrees, with the numbers its colour and label show.
public struct MapRegion {
    /// Index into ``MapData/keywords``.
    public var keyword: Int
    /// Rank within the keyword and level (1 = best), when the file has it.
    public var rank: Int?
    /// Nesting level (0 = coarsest; `level` of the file, 0 when it has none). A region of level
    /// n + 1 lies inside its parent of level n.
    public var level: Int = 0
    /// Index into ``MapData/regions`` of the region holding this one (the file's `parent_id`),
    /// nil at level 0 or when the parent is not in the file.
    public var parent: Int?
    /// Polygons, each as rings (exterior first, then holes), lon/lat.
    public var polygons: [[GeoJSONWriter.Ring]]
    /// The feature's properties as written (shown in the web map's popup).
    public var properties: [(String, JSONValue)]
    /// Keyword POIs per km² inside the polygon: the colour's bin.
    public var density: Double
    /// Where ``density`` came from, for the legend and tests.
    public var densitySource: DensitySource

    /// How a region's keyword density was obtained.
    public enum DensitySource: String, Sendable {
        /// The feature's `keyword_density_per_km2` property.
        case property
        /// Keyword POIs inside the polygon, counted here, over its geodesic area.
        case counted
        /// `n_footprint × share` over `area_m2` (no POIs given).
        case footprint
        /// Nothing to compute it from: drawn in the lowest bin.
        case unknown
    }

    public init(
        keyword: Int, rank: Int?, level: Int = 0, polygons: [[GeoJSONWriter.Ring]], properties: [(String, JSONValue)],
        density: Double, densitySource: DensitySource
    ) {
        self.keyword = keyword
        self.rank = rank
        self.level = level
        self.polygons = polygons
        self.properties = properties
        self.density = density
        self.densitySource = densitySource
    }

    /// The region's `label` (a place, street or common name; `regionsearch run` writes it), or nil.
    public var label: String? { properties.first { $0.0 == "label" }?.1.stringValue }

    /// What the map writes on the region: its rank, and its label beside it when it has one.
    var caption: String? { rank.map { r in label.map { "\(r) \($0)" } ?? String(r) } }

    /// The bin of ``density`` in ``RegionSearchOutput/ColorScale/binLowerBounds``.
    var bin: Int { ColorScale.bin(density: density) }

    /// Indices of the regions holding this one, nearest first (`regions` is the map's list).
    func ancestors(in regions: [MapRegion]) -> [Int] {
        var out: [Int] = []
        var p = parent
        while let i = p, !out.contains(i) {
            out.append(i)
            p = regions[i].parent
        }
        return out
    }
}
