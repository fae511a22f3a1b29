import RegionSearchCore
import RegionSearchEvaluation
import RegionSearchModel
import RegionSearchOutput
import RegionSearchProjection

/// Everything a map shows: the keywords (one panel or layer each), their region polygons with
/// the density that colours them, and the POIs with which of them match each keyword.
///
/// Built by ``load(regions:pois:keywords:only:)`` from a region GeoJSON (a run's output, or any
/// polygon GeoJSON with a `keyword` property) and, optionally, the POIs (`pois.rsa` or any input
/// ingest reads); the keyword match is ``RegionSearchModel/KeywordMatcher`` on the POIs' keyword
/// text, exactly as the pipeline matches.
public struct MapData {
    public var keywords: [MapKeyword]
    public var regions: [MapRegion]
    /// POI positions, WGS84 degrees (empty when no POIs were given).
    public var lon: [Double] = []
    public var lat: [Double] = []
    /// POI names, aligned with ``lon`` when known (empty otherwise).
    public var names = StringColumn()
    /// Per keyword (``keywords`` order): whether each POI matches it.
    public var matches: [[Bool]] = []
    /// The CRS the run projected into (`regionsearch.crs` of the GeoJSON), if known.
    public var crs: String?
    /// Short title (the manifest's name or the file's stem).
    public var title: String
    /// Data attribution shown on every map ("© OpenStreetMap contributors, ODbL"); empty if none.
    public var attribution: String
    /// Notes worth a warning (features left out, densities that could not be computed).
    public var notes: [String] = []

    public init(keywords: [MapKeyword], regions: [MapRegion], title: String, attribution: String) {
        self.keywords = keywords
        self.regions = regions
        self.title = title
        self.attribution = attribution
    }

    /// Number of POIs.
    public var poiCount: Int { lon.count }

    /// POIs matching keyword `k`.
    func keywordPOICount(_ k: Int) -> Int { k < matches.count ? matches[k].lazy.filter { $0 }.count : 0 }

    /// The number of nesting levels among the regions (1 when none nest).
    var levelCount: Int { (regions.map(\.level).max() ?? 0) + 1 }

    /// Keyword `k`'s regions in drawing order: coarsest level first, then by rank (then file
    /// order), so that a finer region is drawn over the one holding it.
    func drawingOrder(keyword k: Int) -> [Int] {
        regions.indices.filter { regions[$0].keyword == k }.sorted {
            let (a, b) = (regions[$0], regions[$1])
            if a.level != b.level { return a.level < b.level }
            if a.rank != b.rank { return (a.rank ?? .max) < (b.rank ?? .max) }
            return $0 < $1
        }
    }

    /// Sets the POIs and computes each keyword's matches.
    public mutating func setPOIs(lon: [Double], lat: [Double], names: StringColumn, keywordText: StringColumn) {
        precondition(lon.count == lat.count && keywordText.count == lon.count)
        self.lon = lon
        self.lat = lat
        self.names = names.count == lon.count ? names : StringColumn()
        matches = keywords.map { k in
            let matcher = KeywordMatcher(k.name)
            return (0..<lon.count).map { i in keywordText.withUTF8(i) { matcher.matches($0) } }
        }
    }

    // MARK: - Loading

    /// Reads a region GeoJSON and (optionally) POIs.
    ///
    /// - Parameters:
    ///   - keywords: the run's keyword order (it picks each keyword's ramp); nil = the order the
    ///     GeoJSON's provenance records, else the order keywords first appear in it.
    ///   - only: show just these keywords (in this order); nil = all of them.
    public static func load(
        regions path: String, pois poisPath: String?, keywords: [String]? = nil, only: [String]? = nil,
        title: String? = nil, attribution: String = ""
    ) throws -> MapData {
        let file = try RegionFeatureFile.read(path: path)
        let pois = try poisPath.map { try EvaluationPOIs.load(path: $0) }
        var data = try MapData(
            file: file, keywords: keywords, only: only, title: title ?? Self.stem(of: path), attribution: attribution,
            pois: pois)
        if let pois, pois.skipped > 0 {
            data.notes.append("\(groupedCount(pois.skipped)) record(s) of \(poisPath!) could not be used as POIs")
        }
        return data
    }

    /// The map of a parsed region file; see ``load(regions:pois:keywords:only:title:attribution:)``.
    init(
        file: RegionFeatureFile, keywords given: [String]?, only: [String]?, title: String, attribution: String,
        pois: EvaluationPOIs?
    ) throws {
        let recorded = file.metadata?["provenance"]?["propagate"]?["parameters"]?["keywords"]?.arrayValue?
            .compactMap(\.stringValue)
        var order = given ?? recorded ?? []
        for f in file.features { if let k = f.keyword, !order.contains(k) { order.append(k) } }
        let shown = only ?? order
        var keywords: [MapKeyword] = []
        for name in shown where !keywords.contains(where: { $0.name == name }) {
            // A keyword outside the run's list keeps a colour of its own after the run's keywords.
            let index = order.firstIndex(of: name) ?? (order.count + keywords.count)
            keywords.append(MapKeyword(name: name, colorIndex: index))
        }
        self.init(keywords: keywords, regions: [], title: title, attribution: attribution)
        crs = file.metadata?["crs"]?.stringValue
        if let pois {
            setPOIs(lon: pois.lon, lat: pois.lat, names: pois.names, keywordText: pois.keywordText)
        }
        let index = pois.map { _ in PointIndex(lon: lon) }
        var wildcard = 0
        var sources: [MapRegion.DensitySource: Int] = [:]
        var ids: [Int?] = []
        var parentIDs: [Int?] = []
        for f in file.features {
            guard let name = f.keyword else {
                wildcard += 1
                continue
            }
            guard let k = keywords.firstIndex(where: { $0.name == name }) else { continue }
            let properties = f.properties.objectValue ?? []
            let (density, source) = Self.density(
                polygons: f.polygons, properties: f.properties, matches: index.map { ($0, matches[k]) }, lon: lon,
                lat: lat)
            sources[source, default: 0] += 1
            regions.append(
                MapRegion(
                    keyword: k, rank: f.properties["rank"]?.intValue,
                    level: max(0, f.properties["level"]?.intValue ?? 0),
                    polygons: f.polygons, properties: properties, density: density, densitySource: source))
            ids.append(f.properties["region_id"]?.intValue)
            parentIDs.append(f.properties["parent_id"]?.intValue)
        }
        // Parents by region_id, within the keyword; a parent of a lower level only (so that a
        // damaged file cannot make a cycle).
        var byID: [Int: Int] = [:]
        for (i, id) in ids.enumerated() { if let id, byID[id] == nil { byID[id] = i } }
        for i in regions.indices {
            guard let pid = parentIDs[i], let p = byID[pid], regions[p].keyword == regions[i].keyword,
                regions[p].level < regions[i].level
            else { continue }
            regions[i].parent = p
        }
        // Said as what it is, before the map finds "nothing to draw" (the polygons are there).
        if regions.isEmpty && pois == nil && !file.features.isEmpty {
            if wildcard == file.features.count {
                throw ToolFailure(
                    "no feature of the regions file has a keyword property, so none is drawn; give a RegionSearch "
                        + "regions output (or --pois to draw the POIs)", status: .inputData)
            }
            if let only {
                let known = order.filter { k in file.features.contains { $0.keyword == k } }
                throw ToolFailure(
                    "--keyword \(only.joined(separator: ", ")): no region of the file has it; its keywords: "
                        + known.joined(separator: ", "), status: .usage)
            }
        }
        if wildcard > 0 {
            notes.append("\(wildcard) feature(s) without a keyword property are not drawn")
        }
        if let unknown = sources[.unknown] {
            notes.append(
                "\(unknown) region(s) have no keyword_density_per_km2 property and no POIs were given to count it; "
                    + "they are drawn in the lowest density bin"
            )
        }
    }

    static func stem(of path: String) -> String {
        let base = AtomicFile.baseName(of: path)
        guard let dot = base.firstIndex(of: "."), dot != base.startIndex else { return base }
        return String(base[..<dot])
    }

    // MARK: - Density

    /// Keyword POIs per km² inside the polygon: the property when the file has it, else counted
    /// from the POIs, else from the footprint properties.
    static func density(
        polygons: [[GeoJSONWriter.Ring]], properties: JSONValue, matches: (PointIndex, [Bool])?, lon: [Double],
        lat: [Double]
    ) -> (Double, MapRegion.DensitySource) {
        if let d = properties["keyword_density_per_km2"]?.doubleValue, d.isFinite { return (d, .property) }
        if let (index, flags) = matches {
            let km2 = area(polygons) / 1e6
            var inside = 0
            for polygon in polygons {
                let box = bounds(polygon)
                index.forEach(west: box.west, east: box.east) { i in
                    if flags[i] && lat[i] >= box.south && lat[i] <= box.north
                        && contains(polygon, lon: lon[i], lat: lat[i])
                    {
                        inside += 1
                    }
                }
            }
            return (km2 > 0 ? Double(inside) / km2 : 0, .counted)
        }
        if let n = properties["n_footprint"]?.doubleValue, let share = properties["share"]?.doubleValue,
            let m2 = properties["area_m2"]?.doubleValue, m2 > 0
        {
            return (n * share / (m2 / 1e6), .footprint)
        }
        return (0, .unknown)
    }

    /// Geodesic area in m² of polygons (exterior minus holes).
    static func area(_ polygons: [[GeoJSONWriter.Ring]]) -> Double {
        var total = 0.0
        for polygon in polygons {
            for (r, ring) in polygon.enumerated() {
                let a = Geodesic.area(lon: ring.lon, lat: ring.lat)
                total += r == 0 ? a : -a
            }
        }
        return max(0, total)
    }

    static func bounds(_ polygon: [GeoJSONWriter.Ring]) -> (west: Double, east: Double, south: Double, north: Double) {
        let ring = polygon[0]
        return (ring.lon.min() ?? 0, ring.lon.max() ?? 0, ring.lat.min() ?? 0, ring.lat.max() ?? 0)
    }

    /// Even-odd point-in-polygon over all rings (holes excluded).
    static func contains(_ polygon: [GeoJSONWriter.Ring], lon x: Double, lat y: Double) -> Bool {
        var inside = false
        for ring in polygon {
            let n = ring.lon.count
            var j = n - 1
            for i in 0..<n {
                let (xi, yi, xj, yj) = (ring.lon[i], ring.lat[i], ring.lon[j], ring.lat[j])
                if (yi > y) != (yj > y) && x < (xj - xi) * (y - yi) / (yj - yi) + xi { inside.toggle() }
                j = i
            }
        }
        return inside
    }
}
