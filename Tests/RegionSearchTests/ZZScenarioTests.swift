import XCTest
@testable import RegionSearch

// Local exploration only; not committed.
final class ZZScenarioTests: XCTestCase {
    func score(_ city: SyntheticCity, _ out: PlantedClusterTests.Outcome) throws -> String {
        let geos = GEOSContext()
        var found = 0, ious: [Double] = []
        for (ci, c) in city.clusters.enumerated() {
            var best = 0.0
            for p in out.polygons where out.keywords[out.table.regions[p.region].keyword] == c.keyword {
                best = max(best, try PlantedClusterTests.iou(p.rings[0], city.truthLon[ci], city.truthLat[ci], geos: geos))
            }
            ious.append(best)
            if best >= 0.5 { found += 1 }
        }
        var good = 0, inside = 0
        for p in out.polygons {
            var ins = 0.0
            for (ci, c) in city.clusters.enumerated() where c.keyword == out.keywords[out.table.regions[p.region].keyword] {
                ins = max(ins, try PlantedClusterTests.insideShare(p.rings[0], city.truthLon[ci], city.truthLat[ci], geos: geos))
            }
            if ins >= 0.5 { inside += 1 }
            let kw = out.keywords[out.table.regions[p.region].keyword]
            var b = 0.0
            for (ci, c) in city.clusters.enumerated() where c.keyword == kw {
                b = max(b, try PlantedClusterTests.iou(p.rings[0], city.truthLon[ci], city.truthLat[ci], geos: geos))
            }
            if b >= 0.5 { good += 1 }
        }
        let r = Double(found) / Double(max(1, city.clusters.count)), pr = Double(good) / Double(max(1, out.polygons.count))
        let f1 = r + pr > 0 ? 2 * r * pr / (r + pr) : 0
        return String(format: "truths %d regions %d R@.5 %.2f P@.5 %.2f F1 %.2f meanIoU %.3f Pin %.2f ious %@", city.clusters.count, out.polygons.count, r, pr, f1, ious.reduce(0, +) / Double(max(1, ious.count)), Double(inside) / Double(max(1, out.polygons.count)), ious.map { String(format: "%.2f", $0) }.joined(separator: ","))
    }

    func testScenarios() throws {
        guard let which = ProcessInfo.processInfo.environment["SCEN"] else { return }
        let n = Int(ProcessInfo.processInfo.environment["SCEN_N"] ?? "100000")!
        for seed in [11, 12, 13] {
            var config = SyntheticCity.Config()
            config.n = n
            config.seed = UInt64(seed)
            config.extentKm = n >= 1_000_000 ? 30 : (n >= 100_000 ? 20 : 10)
            var keywords = ["咖啡", "bank"]
            var hull = RegionPolygonBuilder.Options()
            var regionArgs: [(String, JSONValue)] = []
            switch which {
            case "half":
                config.backgroundRates = ["half": 0.5]; config.keywords = ["half"]; keywords = ["half"]; config.clusters = 10
            case "rare":
                config.backgroundRates = ["rare": 0.005]; config.keywords = ["rare"]; keywords = ["rare"]; config.clusters = 10
            case "long":
                config.aspect = 5; config.minRadius = 400; config.maxRadius = 1200
                if ProcessInfo.processInfo.environment["CONCAVE"] != nil { hull.concave = true; hull.concaveRatio = Double(ProcessInfo.processInfo.environment["CONCAVE"]!)! }
            default: break
            }
            if let z = ProcessInfo.processInfo.environment["ZC"] { regionArgs.append(("z_core", .number(Double(z)!))) }
            if let z = ProcessInfo.processInfo.environment["ZE"] { regionArgs.append(("z_extend", .number(Double(z)!))) }
            let city = try SyntheticCity(config)
            let out = try PlantedClusterTests.runPipeline(city: city, keywords: keywords, regions: regionArgs, hull: hull)
            print("SCEN \(which) n \(n) seed \(seed): \(try score(city, out))")
        }
    }
}
