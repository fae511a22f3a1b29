import XCTest

@testable import RegionSearchCore
@testable import RegionSearchGraph
@testable import RegionSearchModel
@testable import RegionSearchOutput
@testable import RegionSearchProjection
@testable import RegionSearchPropagation
@testable import RegionSearchRegions
@testable import RegionSearchStages
@testable import RegionSearchSynthetic
@testable import RegionSearchTestSupport

/// The whole method in process on synthetic cities with known clusters.
final class PlantedClusterTests: XCTestCase {
    struct Outcome {
        var table: RegionTable
        var polygons: [RegionPolygonBuilder.Polygon]
        var keywords: [String]
        var points: ProjectedPoints
        var graph: AdjacencyGraph
    }

    /// ingest-equivalent → project → graph → propagate → regions → hulls, with default parameters.
    static func runPipeline(
        city: SyntheticCity, keywords: [String], graph method: GraphMethod = .delaunay,
        measure: RegionOptions.Measure = .density, regions overrides: [(String, JSONValue)] = [],
        hull overrides2: RegionPolygonBuilder.Options = .init()
    ) throws -> Outcome {
        var normalizer = KeywordNormalizer()
        let text = StringColumn(city.categoryOf.map { normalizer.join([$0]) })
        let projected = try city.lon.withUnsafeBufferPointer { a in
            try city.lat.withUnsafeBufferPointer { b in try Projector.project(lon: a, lat: b, crs: "auto") }
        }
        let p = projected.points
        let (graph, _) = try p.x.withUnsafeBufferPointer { bx in
            try p.y.withUnsafeBufferPointer { by in
                try GraphBuilder.build(x: bx, y: by, options: GraphOptions(method: method))
            }
        }
        var labels: [KeywordPropagation.Labels] = []
        for q in keywords {
            let m = KeywordMatcher(q)
            let y = p.row.map { UInt8(m.matches(text[Int($0)]) ? 1 : 0) }
            labels.append(.init(query: q, normalized: m.canonical, match: y, count: y.reduce(0) { $0 + Int($1) }))
        }
        var params = try Parameters.resolve(nil, specs: RegionsStage.definition.parameters, context: "regions")
        params.set(RegionOptions.measureSpec.key, .string(measure.rawValue))
        for (k, v) in overrides { params.set(k, v) }
        let options = try RegionOptions(params)
        // The densities exactly when the regions cut nested levels from them, as a pipeline runs.
        let table = KeywordPropagation.run(
            labels: labels, graph: graph,
            options: PropagationOptions(keywords: keywords, densities: options.cutsNestedLevels).solvers, scaleK: 5
        ).table
        let result = RegionExtraction.run(points: p, graph: graph, table: table, options: options, scaleK: 5)

        let built = try RegionPolygonBuilder(options: overrides2).build(
            table: result.table, points: p, crs: projected.choice.definition, crsIsLocal: projected.choice.isLocal)
        return Outcome(table: result.table, polygons: built.polygons, keywords: keywords, points: p, graph: graph)
    }

    /// Area IoU of two lon/lat rings (planar in degrees: fine for ratios at city scale).
    static func iou(_ a: GeoJSONWriter.Ring, _ bLon: [Double], _ bLat: [Double], geos: GEOSContext) throws -> Double {
        let pa = try geos.polygon(x: a.lon, y: a.lat)
        let pb = try geos.polygon(x: bLon, y: bLat)
        let inter = try pa.intersection(pb).area
        return inter / (pa.area + pb.area - inter)
    }

    static func insideShare(_ a: GeoJSONWriter.Ring, _ bLon: [Double], _ bLat: [Double], geos: GEOSContext) throws
        -> Double
    {
        let pa = try geos.polygon(x: a.lon, y: a.lat)
        let pb = try geos.polygon(x: bLon, y: bLat)
        return try pa.intersection(pb).area / pa.area
    }

    /// Keywords are worked on by all threads at once (each with its own path-search scratch): the
    /// same regions, ranks, p- and q-values and edges for one thread as for three, both measures.
    func testKeywordsOnAnyThreadCountGiveTheSameRegions() throws {
        var config = SyntheticCity.Config()
        config.n = 12_000
        config.seed = 4321
        config.extentKm = 8
        let keywords = ["咖啡", "bank", "hotel", "school"]
        var clusters: [SyntheticCity.Cluster] = []
        for i in 0..<8 {
            let x = Double(i % 4) * 1500.0 - 2500.0
            let y: Double = i < 4 ? -2000 : 2000
            clusters.append(
                SyntheticCity.Cluster(
                    keyword: keywords[i % 4], x: x, y: y, radius: 200 + Double(i) * 30, count: 40 + i * 5))
        }
        config.explicitClusters = clusters
        let city = try SyntheticCity(config)
        let saved = Parallel.threadCount
        defer { Parallel.threadCount = saved }
        func fingerprint(_ t: RegionTable) -> [String] {
            t.regions.map { r in
                "\(r.keyword) \(r.rank) \(r.members) \(r.pValue.bitPattern) \(r.qValue.bitPattern) \(r.edges.count)"
            }
        }
        for measure in [RegionOptions.Measure.density, .lift] {
            Parallel.threadCount = 1
            let one = try Self.runPipeline(city: city, keywords: keywords, measure: measure)
            Parallel.threadCount = 3
            let three = try Self.runPipeline(city: city, keywords: keywords, measure: measure)
            XCTAssertGreaterThan(Set(one.table.regions.map(\.keyword)).count, 2, "\(measure): several keywords")
            XCTAssertEqual(fingerprint(one.table), fingerprint(three.table), "\(measure)")
        }
    }

    func testEveryBlobIsFoundAndNothingElse() throws {
        // Six dense blobs (40–80 POIs, radius 150–400 m) of two keywords in a 10 km city of 20,000
        // POIs with a 10× density contrast between downtowns and suburbs.
        var config = SyntheticCity.Config()
        config.n = 20_000
        config.seed = 1234
        config.extentKm = 10
        let spots: [(Double, Double)] = [
            (-3000, -3000), (0, -3000), (3000, -3000), (-3000, 2500), (0, 2500), (3000, 2500),
        ]
        config.explicitClusters = spots.enumerated().map { i, c in
            SyntheticCity.Cluster(
                keyword: i % 2 == 0 ? "咖啡" : "bank", x: c.0, y: c.1, radius: 150 + Double(i) * 50, count: 40 + i * 8)
        }
        let city = try SyntheticCity(config)
        let out = try Self.runPipeline(city: city, keywords: ["咖啡", "bank"])
        let geos = GEOSContext()
        for (ci, c) in city.clusters.enumerated() {
            var best = 0.0
            for p in out.polygons where out.keywords[out.table.regions[p.region].keyword] == c.keyword {
                best = max(best, try Self.iou(p.rings[0], city.truthLon[ci], city.truthLat[ci], geos: geos))
            }
            XCTAssertGreaterThan(
                best, 0.5, "cluster \(ci) (\(c.keyword), r \(Int(c.radius)) m, \(c.count) POIs) not found")
        }
        for p in out.polygons {
            let kw = out.keywords[out.table.regions[p.region].keyword]
            var inside = 0.0
            for (ci, c) in city.clusters.enumerated() where c.keyword == kw {
                inside = max(inside, try Self.insideShare(p.rings[0], city.truthLon[ci], city.truthLat[ci], geos: geos))
            }
            XCTAssertGreaterThan(inside, 0.5, "region \(p.region) (\(kw)) lies outside every planted blob")
        }
        // One coarsest region per blob; finer levels (a blob's denser middle: its POIs fall off as a
        // Gaussian) lie inside it, which the check above holds them to.
        XCTAssertEqual(
            out.polygons.filter { out.table.regions[$0.region].level == 0 }.count, city.clusters.count,
            "one level-0 region per blob")
    }
}
