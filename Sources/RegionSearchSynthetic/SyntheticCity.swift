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

    public struct Config: Sendable {
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
        public init() {}
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
    /// Truth polygons (128-gons) per cluster, WGS84.
    var truthLon: [[Double]] = []
    var truthLat: [[Double]] = []
    public let config: Config

    /// Generates a city.
    public init(_ config: Config) throws {
        self.config = config
        var rng = SeededRandom(seed: config.seed)
        let half = config.extentKm * 500
        let bands = config.emptyBands
        func free(_ x: Double, _ y: Double) -> Bool { !bands.contains { $0.contains(x, y) } }

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
                let cx = rng.uniform(-half + 1000, half - 1000)
                let cy = rng.uniform(-half + 1000, half - 1000)
                let angle = rng.uniform(0, .pi)
                let count = Int((rng.uniform(0.5, 1.5) * Double(base)).rounded())
                if clusters.contains(where: { hypot(cx - $0.x, cy - $0.y) <= r + $0.radius + 500 }) { continue }
                if bands.contains(where: {
                    cx + r >= $0.minX && cx - r <= $0.maxX && cy + r >= $0.minY && cy - r <= $0.maxY
                }) {
                    continue
                }
                clusters.append(
                    Cluster(
                        keyword: config.keywords[clusters.count % max(config.keywords.count, 1)], x: cx, y: cy,
                        radius: r,
                        aspect: config.aspect, angle: angle, count: count))
            }
        }
        var xs: [Double] = []
        var ys: [Double] = []
        var cats: [String] = []
        var nms: [String] = []
        var cid: [Int] = []
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
                xs.append(x)
                ys.append(y)
                cats.append(c.keyword)
                let stems = Self.categories.first { $0.0 == c.keyword }?.2 ?? [c.keyword]
                nms.append("\(stems[rng.below(stems.count)]) \(1 + rng.below(998))")
                cid.append(ci)
                placed += 1
            }
        }
        // Background.
        let background = max(0, config.n - xs.count)
        let downtown = (0..<5).map { _ in
            (
                rng.uniform(-half * 0.6, half * 0.6), rng.uniform(-half * 0.6, half * 0.6),
                rng.uniform(0.05, 0.1333) * config.extentKm * 1000
            )
        }
        let overridden = config.backgroundRates.keys.sorted()
        let weights = Self.categories.filter { !overridden.contains($0.0) }
        let totalWeight = weights.reduce(0) { $0 + $1.1 }
        for k in 0..<background {
            var x = 0.0
            var y = 0.0
            repeat {
                if Double(k) < Double(background) * (1 - config.downtownShare) {
                    x = rng.uniform(-half, half)
                    y = rng.uniform(-half, half)
                } else {
                    let d = downtown[rng.below(5)]
                    x = d.0 + rng.normal() * d.2
                    y = d.1 + rng.normal() * d.2
                }
            } while abs(x) > half || abs(y) > half || !free(x, y)
            var category = ""
            var u = rng.uniform()
            for kw in overridden {
                let r = config.backgroundRates[kw] ?? 0
                if u < r {
                    category = kw
                    break
                }
                u -= r
            }
            if category.isEmpty {
                var w = rng.uniform() * totalWeight
                category = weights.last!.0
                for (name, weight, _) in weights {
                    if w < weight {
                        category = name
                        break
                    }
                    w -= weight
                }
            }
            let stems = Self.categories.first { $0.0 == category }?.2 ?? [category]
            xs.append(x)
            ys.append(y)
            cats.append(category)
            nms.append("\(stems[rng.below(stems.count)]) \(1 + rng.below(998))")
            cid.append(-1)
        }
        // Shuffle (Fisher–Yates) so planted POIs are spread through the file.
        let total = xs.count
        var perm = Array(0..<total)
        if total > 1 {
            for i in stride(from: total - 1, to: 0, by: -1) { perm.swapAt(i, rng.below(i + 1)) }
        }
        var px = perm.map { xs[$0] }
        var py = perm.map { ys[$0] }
        let aeqd = "+proj=aeqd +lat_0=\(config.centerLat) +lon_0=\(config.centerLon) +datum=WGS84 +units=m +no_defs"
        let context = PROJContext()
        let t = try context.transformation(from: "EPSG:4326", to: aeqd)
        _ = try t.transform(x: &px, y: &py, inverse: true)
        ids = (1...max(total, 1)).prefix(total).map { $0 }
        names = perm.map { nms[$0] }
        categoryOf = perm.map { cats[$0] }
        lon = px
        lat = py
        clusterOf = perm.map { cid[$0] }
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
            _ = try t.transform(x: &rx, y: &ry, inverse: true)
            truthLon.append(rx + [rx[0]])
            truthLat.append(ry + [ry[0]])
        }
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
        try file.commit()
    }

    /// Writes a GeoJSON FeatureCollection of Point features with id, name and category properties.
    public func writeGeoJSON(to path: String) throws {
        let file = try AtomicFile(path: path)
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
        try file.commit()
    }

    /// Truth polygons as GeoJSON (keyword, cluster_id, n_pois, radius_m, aspect).
    public func truthGeoJSON() -> String {
        var features: [GeoJSONWriter.Feature] = []
        for (i, c) in clusters.enumerated() {
            let ring = GeoJSONWriter.normalizedRing(lon: truthLon[i], lat: truthLat[i])!
            features.append(
                GeoJSONWriter.Feature(
                    rings: [ring],
                    properties: [
                        ("cluster_id", .number(Double(i))),
                        ("keyword", .string(c.keyword)),
                        ("n_pois", .number(Double(c.count))),
                        ("radius_m", .number((c.radius * 10).rounded() / 10)),
                        ("aspect", .number(c.aspect)),
                    ]))
        }
        return GeoJSONWriter.document(
            features: features,
            foreignMembers: [
                (
                    "generator",
                    .object([
                        ("n", .number(Double(config.n))), ("seed", .number(Double(config.seed))),
                        ("clusters", .number(Double(clusters.count))),
                        ("keywords", .array(config.keywords.map { .string($0) })),
                    ])
                )
            ])
    }

    /// `id,cluster_id` for every planted POI.
    public func truthMembersCSV() -> String {
        var out = "id,cluster_id\n"
        for i in 0..<count where clusterOf[i] >= 0 { out += "\(ids[i]),\(clusterOf[i])\n" }
        return out
    }
}
