import XCTest
@testable import RegionSearch

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
    static func runPipeline(city: SyntheticCity, keywords: [String], graph method: GraphMethod = .delaunay,
        regions overrides: [(String, JSONValue)] = [], hull overrides2: RegionPolygonBuilder.Options = .init()) throws -> Outcome
    {
        var normalizer = KeywordNormalizer()
        let text = StringColumn(city.categoryOf.map { normalizer.join([$0]) })
        let projected = try city.lon.withUnsafeBufferPointer { a in
            try city.lat.withUnsafeBufferPointer { b in try Projector.project(lon: a, lat: b, crs: "auto") }
        }
        let p = projected.points
        let (graph, _) = try p.x.withUnsafeBufferPointer { bx in
            try p.y.withUnsafeBufferPointer { by in try GraphBuilder.build(x: bx, y: by, options: GraphOptions(method: method)) }
        }
        var labels: [[Double]] = []
        var matches: [[UInt8]] = []
        for q in keywords {
            let m = KeywordMatcher(q)
            let y = p.row.map { UInt8(m.matches(text[Int($0)]) ? 1 : 0) }
            matches.append(y)
            labels.append(y.map { Double($0) })
        }
        labels.append([Double](repeating: 1, count: p.count))
        let (scores, _) = LabelPropagation(graph: graph).run(labels: labels, options: .init())
        let table = ScoreTable(keywords: keywords, scores: Array(scores.prefix(keywords.count)), matches: matches, ones: scores.last!)
        var params = try Parameters.resolve(nil, specs: RegionsStage.parameters, context: "regions")
        for (k, v) in overrides { params.set(k, v) }
        let result = RegionExtraction.run(points: p, graph: graph, table: table, parameters: params)
        if ProcessInfo.processInfo.environment["DEBUG_CANDIDATES"] != nil {
            var all = params
            all.set("fdr", .number(1))
            for r in RegionExtraction.run(points: p, graph: graph, table: table, parameters: all).table.regions.sorted(by: { $0.pValue < $1.pValue }) {
                print("CAND kw \(r.keyword) n \(r.nPOIs) k \(r.nKeyword) p \(r.pValue) q \(r.qValue)")
            }
        }
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

    static func insideShare(_ a: GeoJSONWriter.Ring, _ bLon: [Double], _ bLat: [Double], geos: GEOSContext) throws -> Double {
        let pa = try geos.polygon(x: a.lon, y: a.lat)
        let pb = try geos.polygon(x: bLon, y: bLat)
        return try pa.intersection(pb).area / pa.area
    }

    func testEveryBlobIsFoundAndNothingElse() throws {
        var config = SyntheticCity.Config()
        config.n = 20_000
        config.clusters = 8
        config.seed = 1234
        config.extentKm = 12
        config.minRadius = 200
        config.maxRadius = 500
        config.explicitClusters = nil
        let city = try SyntheticCity(config)
        let out = try Self.runPipeline(city: city, keywords: ["咖啡", "bank"])
        let geos = GEOSContext()
        for (ci, c) in city.clusters.enumerated() {
            var best = 0.0
            for p in out.polygons where out.keywords[out.table.regions[p.region].keyword] == c.keyword {
                best = max(best, try Self.iou(p.rings[0], city.truthLon[ci], city.truthLat[ci], geos: geos))
            }
            XCTAssertGreaterThan(best, 0.3, "cluster \(ci) (\(c.keyword), r \(Int(c.radius)) m, \(c.count) POIs) not found")
        }
        for p in out.polygons {
            let r = out.table.regions[p.region]
            print("DEBUG region \(p.region) kw \(r.keyword) n \(r.nPOIs) k \(r.nKeyword) foot \(r.nFootprint)/\(r.nFootprintKeyword) p \(r.pValue) q \(r.qValue) share \(r.share) area \(p.areaM2)")
            let kw = out.keywords[out.table.regions[p.region].keyword]
            var inside = 0.0
            for (ci, c) in city.clusters.enumerated() where c.keyword == kw {
                inside = max(inside, try Self.insideShare(p.rings[0], city.truthLon[ci], city.truthLat[ci], geos: geos))
            }
            XCTAssertGreaterThan(inside, 0.5, "region \(p.region) (\(kw)) lies outside every planted blob")
        }
        XCTAssertEqual(out.polygons.count, city.clusters.count, "one region per blob")
    }
}
