import Foundation
import XCTest

@testable import RegionSearchCore

/// The shape check (`shape_ok`: at most 5 % of a polygon empty, at least 90 % of its members
/// inside) on every scenario of `regionsearch generate`, run with the default parameters by the
/// built executables: issue 22 asks for it on every shared dataset (``GeoJSONOutputTests``) and
/// every scenario. Seed 7, the tuning seed; 20,000 POIs (the rivers scenario makes at least
/// 40,000), each scenario with the keywords the quality report runs it with.
final class ScenarioShapeCheckTests: XCTestCase {
    /// Scenario, keywords, extra generator options, and whether it plants anything to find (the
    /// null cities must give no region at all here, as in the quality report).
    private static let scenarios: [(String, [String], [String], Bool)] = [
        ("clusters", ["咖啡", "bank"], [], true),
        ("strips", ["restaurant"], [], true),
        ("periphery", ["cafe"], [], true),
        ("rivers", ["cafe"], [], true),
        ("ellipses", ["咖啡", "bank"], [], true),
        ("rivers-downtown", ["cafe"], [], true),
        ("blocks", ["restaurant"], [], true),
        ("towns", ["restaurant"], [], true),
        ("uniform", ["rare", "咖啡", "common"], nullRates, false),
        ("downtowns", ["rare", "咖啡", "common"], nullRates + ["--extent-km", "10"], false),
    ]

    /// The null cities' keywords: one at 0.5 % of all POIs, one at the generator's own rate, one
    /// at half of all POIs.
    private static let nullRates = [
        "--keywords", "rare,咖啡,common", "--background-rate", "rare=0.005", "--background-rate", "common=0.5",
    ]

    func testEveryRegionOfEveryScenarioPassesTheShapeCheck() throws {
        for (scenario, keywords, options, planted) in Self.scenarios {
            let f = try PipelineFixture()
            defer { f.remove() }
            try f.useScenario(scenario, n: 20000, seed: 7, keywords: keywords, options: options)
            let run = try f.run(["--quiet"])
            XCTAssertEqual(run.status, 0, "\(scenario): run: \(run.output)")
            guard run.status == 0 else { continue }
            let document = try JSONParser.parse(String(contentsOfFile: f.outputPath, encoding: .utf8))
            let features = document["features"]?.arrayValue ?? []
            if planted {
                XCTAssertFalse(features.isEmpty, "\(scenario): regions are found")
            } else {
                XCTAssertEqual(features.count, 0, "\(scenario): a null city")
            }
            for feature in features {
                let p = try XCTUnwrap(feature["properties"])
                let id = p["region_id"]?.doubleValue ?? -1
                let empty = try XCTUnwrap(p["empty_share"]?.doubleValue)
                let inside = try XCTUnwrap(p["members_inside"]?.doubleValue)
                XCTAssertEqual(
                    p["shape_ok"]?.doubleValue, empty <= 0.05 && inside >= 0.9 ? 1 : 0,
                    "\(scenario) region \(id): shape_ok is the check of its own figures")
                XCTAssertEqual(
                    p["shape_ok"]?.doubleValue, 1,
                    "\(scenario) region \(id) (\(p["keyword"]?.stringValue ?? "?"), level "
                        + "\(p["level"]?.doubleValue ?? -1)): empty_share \(empty), members_inside \(inside)")
            }
        }
    }
}
