import Foundation
import XCTest

@testable import RegionSearchCore

/// No region spans a river (issue 22: "water and empty bands are never crossed at any level"), on
/// the generator's river scenarios at seeds the method was not tuned on, run by the built
/// executables with the default parameters and scored by `regionsearch evaluate --must-not` (a
/// region spans a river when it covers land on both banks). Before regions stage version 16 the
/// keyword graph bridged any gap the keyword's own spacing spans, and a café cluster on each bank
/// became one region on rivers seed 99 and rivers-downtown seeds 3 and 123 (one region each).
final class RiverScenarioTests: XCTestCase {
    private static let cases: [(scenario: String, seed: Int)] = [
        ("rivers", 99), ("rivers-downtown", 3), ("rivers-downtown", 123),
    ]

    func testNoRegionSpansARiverOnSeedsNotTunedOn() throws {
        for (scenario, seed) in Self.cases {
            let f = try PipelineFixture()
            defer { f.remove() }
            let prefix = try f.useScenario(scenario, n: 100000, seed: seed, keywords: ["cafe"])
            let run = try f.run(["--quiet"])
            XCTAssertEqual(run.status, 0, "\(scenario) \(seed): run: \(run.output)")
            guard run.status == 0 else { continue }
            let report = f.root + "/out/evaluate.json"
            let evaluated = try f.tool([
                "evaluate", "truth", f.outputPath, prefix + ".truth.geojson", "--pois", prefix + ".csv",
                "--must-not", prefix + ".must_not.geojson", "--json", report,
            ])
            XCTAssertEqual(evaluated.status, 0, "\(scenario) \(seed): evaluate: \(evaluated.output)")
            let document = try JSONParser.parse(String(contentsOfFile: report, encoding: .utf8))
            let rivers = try XCTUnwrap(document["rivers"], "\(scenario) \(seed): no rivers section")
            // The must-not file names its rivers, and the regions are found at all.
            XCTAssertGreaterThanOrEqual(rivers["n_rivers"]?.doubleValue ?? 0, 2, "\(scenario) \(seed)")
            XCTAssertGreaterThan(document["n_regions"]?.doubleValue ?? 0, 10, "\(scenario) \(seed)")
            XCTAssertEqual(
                rivers["n_regions_spanning"]?.doubleValue, 0,
                "\(scenario) \(seed): regions across a river: \(rivers["spans"].map { "\($0)" } ?? "?")")
        }
    }
}
