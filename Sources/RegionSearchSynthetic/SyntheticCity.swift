import Foundation
import RegionSearchCore
import RegionSearchOutput
import RegionSearchProjection

/// A deterministic synthetic city: background POIs of many categories with city-like density
/// (dense downtowns, sparse suburbs) and planted keyword clusters whose true extent is known.
///
/// The defaults follow the reference generator's design so results are comparable: 60 % of the
/// background is uniform over an `extent × extent` km square, 40 % comes from five Gaussian
/// downtowns (σ 1.5–4 km at 30 km extent), so raw density varies about 10×; 21 categories in
/// English and Chinese. Each planted cluster is a truncated Gaussian (σ = r/2, cut at r) of
/// U(0.5, 1.5) × max(20, n/1000) POIs carrying its keyword; clusters can be stretched into
/// ellipses (`aspect`), background keyword rates can be set (`backgroundRates`) and empty bands
/// (rivers, parks) can be kept free of POIs. Everything is a function of the seed.
///
/// Other ``SyntheticScenario``s (strips, a sparse periphery, rivers, ellipses in downtowns, a
/// uniform null city) plant other truth; each writes its truth polygons and members the same way,
/// and the scenarios with areas regions must avoid also write them (``mustNotGeoJSON()``).
public struct SyntheticCity {
    /// A planted cluster in the local plane (metres from the centre).
    public struct Cluster: Sendable {
        public var keyword: String
        public var x: Double
        public var y: Double
        /// Semi-major axis in metres (the disc radius when aspect = 1).
        public var radius: Double
        /// Semi-major / semi-minor axis ratio.
        public var aspect: Double
        /// Orientation of the major axis, radians.
        public var angle: Double
        public var count: Int

        public init(
            keyword: String, x: Double, y: Double, radius: Double, aspect: Double = 1, angle: Double = 0, count: Int
        ) {
            self.keyword = keyword
            self.x = x
            self.y = y
            self.radius = radius
            self.aspect = aspect
            self.angle = angle
            self.count = count
        }
    }

    /// An axis-aligned rectangle (local metres) kept free of POIs.
    public struct Band: Sendable {
        public var minX, minY, maxX, maxY: Double
        public init(minX: Double, minY: Double, maxX: Double, maxY: Double) {
            self.minX = minX
            self.minY = minY
            self.maxX = maxX
            self.maxY = maxY
        }
        func contains(_ x: Double, _ y: Double) -> Bool { x >= minX && x <= maxX && y >= minY && y <= maxY }
    }

    /// A truth or must-not area in the local plane: polygons of rings (exterior first, then
    /// holes; open, the first vertex not repeated), the planted keyword (`*` for any) and kind.
    public struct Area: Sendable {
        public typealias Ring = (x: [Double], y: [Double])
        public var keyword: String
        /// `cluster`, `strip`, `block`, `frontage`, `town` (truth) or `void`, `sparse`, `river`,
        /// `downtown` (must-not).
        public var kind: String
        public var polygons: [[Ring]]
        /// Planted POIs (truth) or 0.
        public var count: Int
        /// Further properties, after the common ones.
        public var properties: [(String, JSONValue)]
    }

    public struct Config: Sendable {
        public var scenario = SyntheticScenario.clusters
        public var n = 100_000
        public var clusters = 20
        public var keywords = ["咖啡", "bank"]
        public var centerLon = 116.40
        public var centerLat = 39.90
        public var extentKm = 30.0
        public var seed: UInt64 = 42
        public var minRadius = 150.0
        public var maxRadius = 800.0
        public var aspect = 1.0
        public var emptyBands: [Band] = []
        /// Share of background POIs that carry a keyword (overrides the category weights for it).
        public var backgroundRates: [String: Double] = [:]
        /// Planted clusters given explicitly (then `clusters` is ignored).
        var explicitClusters: [Cluster]?
        /// Share of background POIs that sit downtown (the rest is uniform).
        var downtownShare = 0.4
        /// `towns`: the number of towns around the metro.
        public var towns = 8
        public init() {}

        /// The defaults of a scenario (its keywords, cluster count, extent, shapes); options the
        /// user gives are set afterwards.
        public init(scenario: SyntheticScenario) {
            self.scenario = scenario
            switch scenario {
            case .clusters: break
            case .strips:
                keywords = ["restaurant"]
                clusters = 12
            case .periphery:
                keywords = ["cafe"]
                clusters = 12
                extentKm = 40
            case .rivers:
                keywords = ["cafe"]
                clusters = 3
            case .ellipses:
                aspect = 5
                minRadius = 400
                maxRadius = 1200
                extentKm = 20
            case .uniform:
                clusters = 0
                downtownShare = 0
            case .riversDowntown:
                keywords = ["cafe"]
                clusters = 4
            case .blocks:
                keywords = ["restaurant"]
                clusters = 12
            case .towns:
                keywords = ["restaurant"]
                clusters = 10
            case .downtowns:
                clusters = 0
            }
        }
    }

    /// Category → (background weight, name stems); some stems contain commas and quotes on
    /// purpose, and "Bank Street Inn" is a hotel whose name contains "Bank".
    public static let categories: [(String, Double, [String])] = [
        ("restaurant", 12, ["Golden Dragon", "Noodle House", "Wang's \"Best\" Dumplings, Sanlitun", "Pizza Place"]),
        ("美食", 10, ["老北京炸酱面", "海底捞火锅", "庆丰包子铺", "美食城"]),
        ("cafe", 4, ["Starbucks", "Costa Coffee", "Blue Bottle Coffee", "Corner Cafe"]),
        ("咖啡", 3, ["瑞幸咖啡", "星巴克咖啡", "Manner咖啡", "漫咖啡"]),
        ("bank", 3, ["ICBC", "Bank of China", "China Construction Bank", "HSBC"]),
        ("银行", 2, ["工商银行", "中国银行", "建设银行", "招商银行"]),
        ("hotel", 4, ["Hilton", "Bank Street Inn", "Home Inn", "Marriott"]),
        ("酒店", 3, ["如家酒店", "汉庭酒店", "全季酒店", "锦江之星"]),
        ("school", 3, ["No. 4 High School", "Primary School", "Language Academy"]),
        ("学校", 2, ["第一中学", "实验小学", "外国语学校"]),
        ("shop", 12, ["Mobile Store", "Bookshop", "Flower Shop", "Shoe Store"]),
        ("supermarket", 3, ["Walmart", "Carrefour", "Wumart"]),
        ("超市", 3, ["物美超市", "华联超市", "永辉超市"]),
        ("便利店", 4, ["7-Eleven", "全家", "好邻居"]),
        ("pharmacy", 3, ["Tongrentang", "金象大药房"]),
        ("hospital", 1, ["General Hospital", "协和医院"]),
        ("gym", 2, ["Fitness First", "乐刻健身"]),
        ("bar", 3, ["Pub 1", "Jazz Bar", "Craft Beer Bar"]),
        ("park", 1, ["Chaoyang Park", "公园"]),
        ("office", 8, ["Tower A", "SOHO", "科技大厦"]),
        ("residential", 8, ["小区", "Garden Court", "家园"]),
    ]

    /// The generated city.
    public var ids: [Int] = []
    public var names: [String] = []
    var categoryOf: [String] = []
    public var lon: [Double] = []
    public var lat: [Double] = []
    /// Cluster index per POI (-1 for background), in output order.
    public var clusterOf: [Int] = []
    public var clusters: [Cluster] = []
    /// Truth areas (cluster i is truth i), in the local plane.
    public var truths: [Area] = []
    /// Areas regions must avoid (voids, water, sparse peripheries), in the local plane.
    public var mustNot: [Area] = []
    /// The truth and must-not polygons in WGS84: area → polygon → ring.
    var truthRings: [[[GeoJSONWriter.Ring]]] = []
    var mustNotRings: [[[GeoJSONWriter.Ring]]] = []
    /// The exterior ring of each truth area's first polygon (the whole truth of a cluster), WGS84.
    var truthLon: [[Double]] { truthRings.map { $0[0][0].lon } }
    var truthLat: [[Double]] { truthRings.map { $0[0][0].lat } }
    public let config: Config

    /// Generates a city.
    public init(_ config: Config) throws {
        self.config = config
        var rng = SeededRandom(seed: config.seed)
        let layout: SyntheticLayout
        switch config.scenario {
        case .clusters, .ellipses, .uniform, .downtowns:
            layout = try Self.clusterCity(config, &rng, clusters: &clusters)
        case .strips: layout = try Self.stripCity(config, &rng)
        case .periphery: layout = try Self.peripheryCity(config, &rng)
        case .rivers: layout = try Self.riverCity(config, &rng)
        case .riversDowntown: layout = try Self.riversDowntownCity(config, &rng)
        case .blocks: layout = try Self.blockCity(config, &rng)
        case .towns: layout = try Self.townCity(config, &rng, clusters: &clusters)
        }
        try finish(layout, &rng)
    }

    /// The cluster scenarios: planted clusters (anywhere, or in the downtowns for `ellipses`),
    /// then the background.
    static func clusterCity(_ config: Config, _ rng: inout SeededRandom, clusters: inout [Cluster]) throws
        -> SyntheticLayout
    {
        let half = config.extentKm * 500
        let bands = config.emptyBands
        func free(_ x: Double, _ y: Double) -> Bool { !bands.contains { $0.contains(x, y) } }
        // Ellipses sit in the downtowns, so those are drawn first; otherwise after the clusters
        // (the original order, which keeps the clusters scenario's output as it was).
        var downtowns = config.scenario == .ellipses ? Self.downtowns(config, &rng) : []

        // Planted clusters.
        if let explicit = config.explicitClusters {
            clusters = explicit
        } else {
            let base = max(20, config.n / 1000)
            var attempts = 0
            while clusters.count < config.clusters {
                attempts += 1
                if attempts > 100_000 {
                    throw ToolFailure(
                        "cannot place \(config.clusters) non-overlapping clusters in \(config.extentKm) km",
                        status: .usage)
                }
                let r = rng.uniform(config.minRadius, config.maxRadius)
                var cx = rng.uniform(-half + 1000, half - 1000)
                var cy = rng.uniform(-half + 1000, half - 1000)
                if !downtowns.isEmpty {
                    // Within 1.5 σ of a downtown centre: the densest background.
                    let d = downtowns[rng.below(downtowns.count)]
                    cx = d.0 + 1.5 * (cx / half) * d.2
                    cy = d.1 + 1.5 * (cy / half) * d.2
                    if abs(cx) > half - r || abs(cy) > half - r { continue }
                }
                let angle = rng.uniform(0, .pi)
                let count = Int((rng.uniform(0.5, 1.5) * Double(base)).rounded())
                let candidate = Cluster(
                    keyword: config.keywords[clusters.count % max(config.keywords.count, 1)], x: cx, y: cy,
                    radius: r, aspect: config.aspect, angle: angle, count: count)
                if config.scenario == .ellipses {
                    // Thin ellipses pack closer than their discs: 200 m apart as ellipses.
                    if clusters.contains(where: { Self.ellipsesMeet($0, candidate, gap: 200) }) { continue }
                } else if clusters.contains(where: { hypot(cx - $0.x, cy - $0.y) <= r + $0.radius + 500 }) {
                    continue
                }
                if bands.contains(where: {
                    cx + r >= $0.minX && cx - r <= $0.maxX && cy + r >= $0.minY && cy - r <= $0.maxY
                }) {
                    continue
                }
                clusters.append(candidate)
            }
        }
        var layout = SyntheticLayout()
        for (ci, c) in clusters.enumerated() {
            let minor = c.radius / c.aspect
            var placed = 0
            while placed < c.count {
                let u = rng.normal() * c.radius / 2
                let v = rng.normal() * minor / 2
                guard (u / c.radius) * (u / c.radius) + (v / minor) * (v / minor) <= 1 else { continue }
                let x = c.x + u * cos(c.angle) - v * sin(c.angle)
                let y = c.y + u * sin(c.angle) + v * cos(c.angle)
                guard free(x, y) else { continue }
                layout.append(x: x, y: y, category: c.keyword, name: Self.name(c.keyword, &rng), cluster: ci)
                placed += 1
            }
        }
        // Background.
        if downtowns.isEmpty { downtowns = Self.downtowns(config, &rng) }
        Self.addBackground(
            max(0, config.n - layout.count), to: &layout, config, &rng, downtowns: downtowns, free: free)
        if config.scenario == .downtowns {
            // Each downtown as the disc of 2 σ around its centre (86 % of its POIs), for the count of
            // regions per downtown; not an area regions must avoid.
            let t = (0..<128).map { 2 * Double.pi * Double($0) / 128 }
            for (i, d) in downtowns.enumerated() {
                layout.mustNot.append(
                    Area(
                        keyword: "*", kind: "downtown",
                        polygons: [[(t.map { d.0 + 2 * d.2 * cos($0) }, t.map { d.1 + 2 * d.2 * sin($0) })]], count: 0,
                        properties: [
                            ("name", .string("downtown \(i)")), ("sigma_m", .number((d.2 * 10).rounded() / 10)),
                            ("radius_m", .number((2 * d.2 * 10).rounded() / 10)),
                            ("pois_share", .number(rounded4(config.downtownShare / Double(downtowns.count)))),
                        ]))
            }
        }
        for c in clusters {
            var rx: [Double] = []
            var ry: [Double] = []
            for s in 0..<128 {
                let a = 2 * Double.pi * Double(s) / 128
                let u = c.radius * cos(a)
                let v = c.radius / c.aspect * sin(a)
                rx.append(c.x + u * cos(c.angle) - v * sin(c.angle))
                ry.append(c.y + u * sin(c.angle) + v * cos(c.angle))
            }
            layout.truths.append(
                Area(
                    keyword: c.keyword, kind: "cluster", polygons: [[(rx, ry)]], count: c.count,
                    properties: [("radius_m", .number((c.radius * 10).rounded() / 10)), ("aspect", .number(c.aspect))]))
        }
        return layout
    }

    /// Whether two elliptic clusters come within `gap` of each other: a point of either's
    /// boundary, grown by `gap`, inside the other grown by `gap` (64 points each; exact enough at 200 m).
    static func ellipsesMeet(_ a: Cluster, _ b: Cluster, gap: Double) -> Bool {
        func inside(_ x: Double, _ y: Double, _ c: Cluster) -> Bool {
            let dx = x - c.x
            let dy = y - c.y
            let u = (dx * cos(c.angle) + dy * sin(c.angle)) / (c.radius + gap)
            let v = (-dx * sin(c.angle) + dy * cos(c.angle)) / (c.radius / c.aspect + gap)
            return u * u + v * v <= 1
        }
        if hypot(a.x - b.x, a.y - b.y) > a.radius + b.radius + 2 * gap { return false }
        for (p, q) in [(a, b), (b, a)] {
            for s in 0..<64 {
                let t = 2 * Double.pi * Double(s) / 64
                let u = (p.radius + gap) * cos(t)
                let v = (p.radius / p.aspect + gap) * sin(t)
                if inside(p.x + u * cos(p.angle) - v * sin(p.angle), p.y + u * sin(p.angle) + v * cos(p.angle), q) {
                    return true
                }
            }
        }
        return inside(a.x, a.y, b) || inside(b.x, b.y, a)
    }

    /// Shuffles the POIs (so planted ones are spread through the file), projects them and the
    /// areas from the local plane (azimuthal equidistant about the centre) to WGS84.
    mutating func finish(_ layout: SyntheticLayout, _ rng: inout SeededRandom) throws {
        // Fisher–Yates.
        let total = layout.count
        var perm = Array(0..<total)
        if total > 1 {
            for i in stride(from: total - 1, to: 0, by: -1) { perm.swapAt(i, rng.below(i + 1)) }
        }
        var px = perm.map { layout.x[$0] }
        var py = perm.map { layout.y[$0] }
        let aeqd = "+proj=aeqd +lat_0=\(config.centerLat) +lon_0=\(config.centerLon) +datum=WGS84 +units=m +no_defs"
        let context = PROJContext()
        let t = try context.transformation(from: "EPSG:4326", to: aeqd)
        _ = try t.transform(x: &px, y: &py, inverse: true)
        ids = (1...max(total, 1)).prefix(total).map { $0 }
        names = perm.map { layout.name[$0] }
        categoryOf = perm.map { layout.category[$0] }
        lon = px
        lat = py
        clusterOf = perm.map { layout.cluster[$0] }
        truths = layout.truths
        mustNot = layout.mustNot
        func project(_ areas: [Area]) throws -> [[[GeoJSONWriter.Ring]]] {
            try areas.map { area in
                try area.polygons.map { polygon in
                    try polygon.map { ring in
                        var rx = ring.x
                        var ry = ring.y
                        _ = try t.transform(x: &rx, y: &ry, inverse: true)
                        return GeoJSONWriter.Ring(lon: rx + [rx[0]], lat: ry + [ry[0]])
                    }
                }
            }
        }
        truthRings = try project(truths)
        mustNotRings = try project(mustNot)
    }

    public var count: Int { lon.count }

    static func csvField(_ s: String) -> String {
        if s.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) {
            return "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        }
        return s
    }

    static func fixed7(_ v: Double) -> String { String(format: "%.7f", v) }

    /// Writes `id,name,category,lon,lat` with a header, RFC 4180 quoting, 7-decimal coordinates.
    public func writeCSV(to path: String) throws {
        let file = try AtomicFile(path: path)
        try writeCSV(into: file)
        try file.commit()
    }

    /// Writes the CSV into `file` without committing it.
    public func writeCSV(into file: AtomicFile) throws {
        var out = "id,name,category,lon,lat\n"
        for i in 0..<count {
            out +=
                "\(ids[i]),\(Self.csvField(names[i])),\(Self.csvField(categoryOf[i])),\(Self.fixed7(lon[i])),\(Self.fixed7(lat[i]))\n"
            if out.utf8.count > 1 << 20 {
                try file.write(out)
                out = ""
            }
        }
        try file.write(out)
    }

    /// Writes a GeoJSON FeatureCollection of Point features with id, name and category properties.
    public func writeGeoJSON(to path: String) throws {
        let file = try AtomicFile(path: path)
        try writeGeoJSON(into: file)
        try file.commit()
    }

    /// Writes the GeoJSON into `file` without committing it.
    public func writeGeoJSON(into file: AtomicFile) throws {
        var out = "{\"type\":\"FeatureCollection\",\"features\":["
        for i in 0..<count {
            out += i == 0 ? "\n" : ",\n"
            var name = ""
            JSONValue.writeString(names[i], to: &name)
            var cat = ""
            JSONValue.writeString(categoryOf[i], to: &cat)
            out +=
                "{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[\(Self.fixed7(lon[i])),\(Self.fixed7(lat[i]))]},\"properties\":{\"id\":\(ids[i]),\"name\":\(name),\"category\":\(cat)}}"
            if out.utf8.count > 1 << 20 {
                try file.write(out)
                out = ""
            }
        }
        out += "\n]}\n"
        try file.write(out)
    }

    /// Truth polygons as GeoJSON: `cluster_id` (the members' cluster id), `keyword`, `kind`
    /// (not in the clusters scenario, whose files stay as they were), `n_pois`, and the
    /// scenario's own properties (clusters: `radius_m`, `aspect`).
    public func truthGeoJSON() -> String {
        var features: [GeoJSONWriter.Feature] = []
        for (i, area) in truths.enumerated() {
            var properties: [(String, JSONValue)] = [
                ("cluster_id", .number(Double(i))), ("keyword", .string(area.keyword)),
            ]
            if config.scenario != .clusters { properties.append(("kind", .string(area.kind))) }
            properties.append(("n_pois", .number(Double(area.count))))
            features.append(Self.feature(truthRings[i], properties: properties + area.properties))
        }
        var generator: [(String, JSONValue)] = [
            ("n", .number(Double(config.n))), ("seed", .number(Double(config.seed))),
            ("clusters", .number(Double(truths.count))),
            ("keywords", .array(config.keywords.map { .string($0) })),
        ]
        if config.scenario != .clusters { generator.append(("scenario", .string(config.scenario.rawValue))) }
        return GeoJSONWriter.document(features: features, foreignMembers: [("generator", .object(generator))])
    }

    /// The areas regions must avoid as GeoJSON (`truth_id`, `kind` void or sparse, `keyword`, `*`
    /// for any, `name`), the format `regionsearch-evaluate truth --must-not` reads; nil when the
    /// scenario has none.
    public func mustNotGeoJSON() -> String? {
        guard !mustNot.isEmpty else { return nil }
        let features = mustNot.enumerated().map { i, area in
            Self.feature(
                mustNotRings[i],
                properties: [
                    ("truth_id", .string("\(area.kind)-\(i)")), ("kind", .string(area.kind)),
                    ("keyword", .string(area.keyword)),
                ] + area.properties)
        }
        return GeoJSONWriter.document(
            features: features,
            foreignMembers: [
                (
                    "generator",
                    .object([
                        ("n", .number(Double(config.n))), ("seed", .number(Double(config.seed))),
                        ("scenario", .string(config.scenario.rawValue)),
                    ])
                )
            ])
    }

    /// A feature of polygons with holes, rings normalised (rounded, oriented, closed).
    static func feature(_ polygons: [[GeoJSONWriter.Ring]], properties: [(String, JSONValue)]) -> GeoJSONWriter.Feature
    {
        let rings = polygons.map { polygon in
            polygon.enumerated().compactMap { k, r in GeoJSONWriter.normalizedRing(lon: r.lon, lat: r.lat, hole: k > 0)
            }
        }
        return GeoJSONWriter.Feature(polygons: rings.filter { !$0.isEmpty }, properties: properties)
    }

    /// `id,cluster_id` for every planted POI.
    public func truthMembersCSV() -> String {
        var out = "id,cluster_id\n"
        for i in 0..<count where clusterOf[i] >= 0 { out += "\(ids[i]),\(clusterOf[i])\n" }
        return out
    }
}
