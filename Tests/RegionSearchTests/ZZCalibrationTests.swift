import XCTest
@testable import RegionSearch

// Local exploration only; not committed.
final class ZZCalibrationTests: XCTestCase {
    func testScratchCalibration() throws {
        guard let sizes = ProcessInfo.processInfo.environment["CAL_N"] else { return }
        for nText in sizes.split(separator: ",") {
            let n = Int(nText)!
            for seed in 1...(n >= 1_000_000 ? 2 : (n >= 100_000 ? 6 : 12)) {
                var config = SyntheticCity.Config()
                config.n = n
                config.seed = UInt64(100 + seed)
                config.clusters = 0
                config.extentKm = n < 10000 ? 3 : (n < 200_000 ? 10 : 30)
                config.backgroundRates = ["kfive": 0.005, "kfifty": 0.5]
                let city = try SyntheticCity(config)
                let out = try PlantedClusterTests.runPipeline(city: city, keywords: ["kfive", "咖啡", "kfifty"], regions: [("fdr", .number(1))])
                let final = try PlantedClusterTests.runPipeline(city: city, keywords: ["kfive", "咖啡", "kfifty"])
                print("NULLREGIONS n \(n) seed \(seed): \(final.polygons.count) \(final.table.regions.map { "kw\($0.keyword) n\($0.nPOIs) k\($0.nKeyword) p\($0.pValue) q\($0.qValue)" })")
                for c in 0..<3 {
                    let pp = Double(city.categoryOf.filter { KeywordMatcher(out.keywords[c]).matches(KeywordText.normalize($0)) }.count) / Double(n)
                    let regs = out.table.regions.filter { $0.keyword == c }.sorted { $0.pValue < $1.pValue }
                    let desc = regs.prefix(3).map { String(format: "%.3g(n%d k%d)", exp(Significance.logUpperTail(k: $0.nKeyword, n: $0.nPOIs, p: pp)) * Double(n), $0.nPOIs, $0.nKeyword) }.joined(separator: " ")
                    let base = Double(out.table.regions.first { $0.keyword == c }.map { _ in 1 } ?? 0)
                    _ = base
                    let p = Double(city.categoryOf.filter { KeywordMatcher(out.keywords[c]).matches(KeywordText.normalize($0)) }.count) / Double(n)
                    let foot = regs.map { exp(Significance.logUpperTail(k: $0.nFootprintKeyword, n: $0.nFootprint, p: p)) * Double(n) }.sorted()
                    let finder = RegionFinder(x: out.points.x, y: out.points.y, graph: out.graph)
                    let matchArr = out.points.row.map { UInt8(KeywordMatcher(out.keywords[c]).matches(KeywordText.normalize(city.categoryOf[Int($0)])) ? 1 : 0) }
                    let iu = regs.map { r -> Double in
                        let a = finder.testFootprint(r, match: matchArr)
                        let lm = Significance.logUpperTail(k: r.nKeyword, n: r.nPOIs, p: pp)
                        let lf = Significance.logUpperTail(k: a.k, n: a.n, p: pp)
                        return exp(max(lm, lf)) * Double(n)
                    }.sorted()
                    if !regs.isEmpty { print("IU n \(n) seed \(seed) kw \(out.keywords[c]) min \(String(format: "%.3g", iu[0]))") }
                    print("CAL n \(n) seed \(seed) kw \(out.keywords[c]) candidates \(regs.count) best p(c=1): \(desc) | footprint best: \(foot.prefix(3).map { String(format: "%.3g", $0) })")
                }
            }
        }
    }
}
