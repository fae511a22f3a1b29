import Foundation
import XCTest

@testable import RegionSearchCore

/// A region's `kind` says what a person sees in it: `street` for a dining street drawn as a band
/// along it, `area` for a district, a cluster or a block. Checked against the generator's planted
/// truth, run by the built executables with the default parameters and matched by
/// `regionsearch evaluate` (each truth's best region at IoU ≥ 0.5): the regions that found the
/// strips scenario's dining streets are streets, those that found the clusters scenario's round
/// clusters are areas.
final class RegionKindTests: XCTestCase {
    /// The kinds of the regions that match a truth of the scenario at IoU ≥ 0.5, one per matched truth.
    private func matchedKinds(scenario: String, keywords: [String], seed: Int) throws -> [String] {
        let f = try PipelineFixture()
        defer { f.remove() }
        let prefix = try f.useScenario(scenario, n: 20000, seed: seed, keywords: keywords)
        let run = try f.run(["--quiet"])
        XCTAssertEqual(run.status, 0, "\(scenario): run: \(run.output)")
        let report = f.root + "/out/evaluate.json"
        let evaluated = try f.tool([
            "evaluate", "truth", f.outputPath, prefix + ".truth.geojson", "--json", report,
        ])
        XCTAssertEqual(evaluated.status, 0, "\(scenario): evaluate: \(evaluated.output)")
        let regions = try JSONParser.parse(String(contentsOfFile: f.outputPath, encoding: .utf8))
        var kindOf: [Int: String] = [:]
        for feature in regions["features"]?.arrayValue ?? [] {
            let p = try XCTUnwrap(feature["properties"])
            let kind = try XCTUnwrap(p["kind"]?.stringValue, "\(scenario): every region has a kind")
            XCTAssertTrue(["street", "area"].contains(kind), "\(scenario): kind \(kind)")
            kindOf[try XCTUnwrap(p["region_id"]?.intValue)] = kind
        }
        let scores = try JSONParser.parse(String(contentsOfFile: report, encoding: .utf8))
        return try (scores["truths"]?.arrayValue ?? []).compactMap { truth in
            guard let iou = truth["best_iou"]?.doubleValue, iou >= 0.5 else { return nil }
            let id = try XCTUnwrap(truth["region_id"]?.intValue)
            return try XCTUnwrap(kindOf[id], "\(scenario): truth matched by region \(id), which is not in the output")
        }
    }

    func testTheRegionsThatFindDiningStreetsAreStreets() throws {
        let kinds = try matchedKinds(scenario: "strips", keywords: ["restaurant"], seed: 7)
        // The generator plants strips bent up to twice by 20–60°: a bent one found whole is drawn
        // as its grown skeleton, an area (5 of 46 matched strips on the quality report's tuning seeds).
        XCTAssertGreaterThanOrEqual(kinds.count, 4, "strips are found: \(kinds)")
        let streets = kinds.filter { $0 == "street" }.count
        XCTAssertGreaterThanOrEqual(Double(streets), 0.75 * Double(kinds.count), "\(kinds)")
    }

    func testTheRegionsThatFindRoundClustersAreAreas() throws {
        let kinds = try matchedKinds(scenario: "clusters", keywords: ["咖啡", "bank"], seed: 7)
        XCTAssertGreaterThanOrEqual(kinds.count, 10, "clusters are found: \(kinds)")
        XCTAssertEqual(kinds.filter { $0 == "street" }, [], "a round cluster is no street")
    }
}
