import Foundation
import XCTest

@testable import RegionSearchEvaluation

/// Truth mode against closed-form answers (shapes drawn in UTM metres, measured in that CRS).
final class TruthScoreTests: XCTestCase {
    typealias F = EvaluateFixtures

    private func score(
        regions: [RegionFeature], truth: [RegionFeature], pois: EvaluationPOIs? = nil, members: PlantedMembers? = nil,
        thresholds: [Double] = [0.3, 0.5]
    ) throws -> TruthScore {
        var e = F.evaluator
        e.thresholds = thresholds
        return try e.scoreTruth(
            regions: F.file("regions", regions), truth: F.file("truth", truth), pois: pois, members: members)
    }

    func testSquaresOffsetByHalfHaveIoUOneThird() throws {
        let s = try score(
            regions: [F.feature(0, "bank", F.square(500, 0))], truth: [F.feature(0, "bank", F.square(0, 0))])
        XCTAssertEqual(s.truths[0].bestIoU, 1.0 / 3.0, accuracy: 1e-9)
        XCTAssertEqual(s.overall.meanBestIoU!, 1.0 / 3.0, accuracy: 1e-9)
        XCTAssertEqual(s.overall.recall, [1, 0])
        XCTAssertEqual(s.overall.precision, [1, 0])
        XCTAssertEqual(s.overall.f1, [1, 0])
        XCTAssertEqual(s.truths[0].regionID, .number(0))
        XCTAssertEqual(s.truths[0].area, 1e6, accuracy: 1e-3)
    }

    func testDisjointScoresZeroAndIdenticalScoresOne() throws {
        let disjoint = try score(
            regions: [F.feature(0, "bank", F.square(2000, 0))], truth: [F.feature(0, "bank", F.square(0, 0))])
        XCTAssertEqual(disjoint.truths[0].bestIoU, 0)
        XCTAssertNil(disjoint.truths[0].regionID)
        XCTAssertEqual(disjoint.overall.recall, [0, 0])
        XCTAssertEqual(disjoint.overall.precision, [0, 0])
        XCTAssertEqual(disjoint.overall.precisionInside, 0)
        // Touching along an edge: intersection has no area.
        let touching = try score(
            regions: [F.feature(0, "bank", F.square(1000, 0))], truth: [F.feature(0, "bank", F.square(0, 0))])
        XCTAssertEqual(touching.truths[0].bestIoU, 0)
        let identical = try score(
            regions: [F.feature(0, "bank", F.square(0, 0))], truth: [F.feature(0, "bank", F.square(0, 0))])
        XCTAssertEqual(identical.truths[0].bestIoU, 1, accuracy: 1e-12)
        XCTAssertEqual(identical.overall.f1, [1, 1])
    }

    /// A truth file scored against itself with `--thresholds 1` had recall 0.65: the IoU of a
    /// polygon with itself came out a rounding error below 1 for 7 of the generator's 20 discs.
    func testAPolygonMatchesItselfAtThresholdOne() throws {
        let discs = (0..<20).map { k in
            F.feature(
                k, "bank", F.disc(Double(k) * 1700.3 + 0.123, Double(k % 7) * 913.7, radius: 150 + Double(k) * 33.1))
        }
        let s = try score(regions: discs, truth: discs, thresholds: [1])
        XCTAssertEqual(s.truths.map(\.bestIoU), Array(repeating: 1, count: 20))
        XCTAssertEqual(s.overall.recall, [1])
        XCTAssertEqual(s.overall.precision, [1])
    }

    /// 10,000 regions against 10,000 truths took 57 s: each region was intersected with the union
    /// of every truth, and every pair of items was visited with its geometries retained, though
    /// each region overlaps one truth. Now only pairs whose envelopes meet are measured: 1.2 s.
    func testManyRegionsAgainstManyTruthsAreMeasuredOnlyWhereTheyMeet() throws {
        func grid(shift: Double) -> RegionFeatureFile {
            var features: [String] = []
            for row in 0..<75 {
                for column in 0..<80 {
                    let x = 13 + Double(column) * 0.002 + shift
                    let y = 52 + Double(row) * 0.002
                    let ring = [(x, y), (x + 0.001, y), (x + 0.001, y + 0.001), (x, y + 0.001), (x, y)]
                    features.append(
                        "{\"type\":\"Feature\",\"properties\":{\"keyword\":\"bank\"},\"geometry\":{\"type\":\"Polygon\","
                            + "\"coordinates\":[[" + ring.map { "[\($0.0),\($0.1)]" }.joined(separator: ",") + "]]}}")
                }
            }
            return try! RegionFeatureFile(
                path: "grid",
                text: "{\"type\":\"FeatureCollection\",\"features\":[" + features.joined(separator: ",") + "]}")
        }
        let truth = grid(shift: 0)
        let regions = grid(shift: 0.0004)  // each region: 60 % of its area in one truth, IoU 0.6 / 1.4
        let start = Date()
        let s = try Evaluator(thresholds: [0.3, 0.5]).scoreTruth(regions: regions, truth: truth)
        let seconds = Date().timeIntervalSince(start)
        XCTAssertEqual(s.truths.count, 6000)
        XCTAssertEqual(s.overall.recall, [1, 0])
        XCTAssertEqual(s.overall.precisionInside, 1)
        XCTAssertEqual(try XCTUnwrap(s.overall.meanBestIoU), 0.6 / 1.4, accuracy: 0.01)
        XCTAssertLessThan(seconds, 10, "6,000 regions against 6,000 truths")
    }

    func testRegionCoveringHalfATruthDisc() throws {
        // The upper half of the same 128-gon: exactly half its area, entirely inside it.
        let truth = [F.feature(7, "咖啡", F.disc(0, 0, radius: 500))]
        let half = [F.feature(3, "咖啡", F.disc(0, 0, radius: 500, steps: 0...64))]
        let s = try score(regions: half, truth: truth, thresholds: [0.45, 0.55])
        XCTAssertEqual(s.truths[0].bestIoU, 0.5, accuracy: 1e-9)
        XCTAssertEqual(s.truths[0].truthID, .number(7))
        XCTAssertEqual(s.truths[0].regionID, .number(3))
        // 128-gon area = (n/2) r² sin(2π/n).
        XCTAssertEqual(s.truths[0].area, 64 * 500 * 500 * sin(2 * .pi / 128), accuracy: 1e-3)
        XCTAssertEqual(s.overall.recall, [1, 0])
        XCTAssertEqual(s.overall.precisionInside, 1)
    }

    func testARegionOfAnotherKeywordNeverMatches() throws {
        let truth = [F.feature(0, "bank", F.square(0, 0))]
        let s = try score(
            regions: [F.feature(0, "咖啡", F.square(0, 0)), F.feature(1, "bank", F.square(3000, 0))], truth: truth)
        XCTAssertEqual(s.truths[0].bestIoU, 0)
        XCTAssertEqual(s.overall.regionCount, 2)
        // The 咖啡 region has no 咖啡 truth: not scored; the bank region is a false positive.
        XCTAssertEqual(s.overall.scoredRegionCount, 1)
        XCTAssertEqual(s.overall.precision, [0, 0])
        XCTAssertTrue(s.notes.contains { $0.contains("no truth (咖啡)") }, "\(s.notes)")
        let coffee = s.byKeyword.first { $0.keyword == "咖啡" }!.metrics
        XCTAssertEqual(coffee.regionCount, 1)
        XCTAssertEqual(coffee.scoredRegionCount, 0)
    }

    func testFeaturesWithoutKeywordPairWithEveryKeyword() throws {
        let truth = [F.feature(0, "bank", F.square(0, 0)), F.feature(1, "咖啡", F.square(3000, 0))]
        // Regions without keyword: each one counts once, against the truths of any keyword.
        let wildRegions = [F.feature(0, nil, F.square(0, 0)), F.feature(1, nil, F.square(3000, 0))]
        let s = try score(regions: wildRegions, truth: truth)
        XCTAssertEqual(s.truths.map(\.bestIoU), [1, 1])
        XCTAssertEqual(s.overall.scoredRegionCount, 2)
        XCTAssertEqual(s.overall.precision, [1, 1])
        XCTAssertEqual(s.overall.precisionInside, 1)
        // And a truth without keyword pairs with regions of any keyword.
        let wildTruth = try score(
            regions: [F.feature(0, "bank", F.square(500, 0))], truth: [F.feature(0, nil, F.square(0, 0))])
        XCTAssertEqual(wildTruth.truths[0].bestIoU, 1.0 / 3.0, accuracy: 1e-9)
        XCTAssertEqual(wildTruth.truths[0].keyword, "*")
        XCTAssertTrue(wildTruth.notes.contains { $0.contains("wildcards") })
    }

    func testPrecisionInsideCountsRegionsAtLeastHalfInsideATruth() throws {
        let truth = [F.feature(0, "bank", F.square(0, 0))]
        let regions = [
            F.feature(0, "bank", F.rectangle(400, 0, 1400, 1000)),  // 60 % inside
            F.feature(1, "bank", F.rectangle(600, 0, 1600, 1000)),  // 40 % inside
            F.feature(2, "bank", F.rectangle(100, 100, 300, 300)),  // fragment, fully inside
            F.feature(3, "bank", F.square(5000, 0)),  // outside
        ]
        let s = try score(regions: regions, truth: truth)
        XCTAssertEqual(s.overall.precisionInside, 0.5)
        // IoUs: 600/1400, 400/1600, 0.04, 0 → only the first reaches 0.3.
        XCTAssertEqual(s.truths[0].bestIoU, 600.0 / 1400.0, accuracy: 1e-9)
        XCTAssertEqual(s.overall.precision, [0.25, 0])
    }

    func testF1IsTheHarmonicMeanOfRecallAndPrecision() throws {
        let truth = [F.feature(0, "bank", F.square(0, 0)), F.feature(1, "bank", F.square(3000, 0))]
        let regions = [
            F.feature(0, "bank", F.square(0, 0)), F.feature(1, "bank", F.square(6000, 0)),
            F.feature(2, "bank", F.square(9000, 0)),
        ]
        let s = try score(regions: regions, truth: truth)
        XCTAssertEqual(s.overall.recall[1], 0.5)
        XCTAssertEqual(s.overall.precision[1], 1.0 / 3.0, accuracy: 1e-12)
        XCTAssertEqual(s.overall.f1[1], 0.4, accuracy: 1e-12)
        XCTAssertEqual(s.overall.meanBestIoU!, 0.5, accuracy: 1e-12)
    }

    func testPOILevelCountsOnAHandMadeSet() throws {
        let truth = [F.feature(0, "bank", F.square(0, 0))]
        let region = [F.feature(0, "bank", F.rectangle(0, 0, 1000, 500))]
        let pois = F.pois([
            ("p1", "bank", 100, 100), ("p2", "Bank", 900, 400),  // planted, inside (case folded)
            ("p3", "bank", 100, 900), ("p4", "bank", 900, 900),  // planted, outside the region
            ("p5", "bank", 1000, 500),  // planted, on the region's corner: covered
            ("b1", "bank", 500, 250),  // keyword POI inside, not planted
            ("b2", "bank", 500, 800), ("b3", "bank", 5000, 0), ("b4", "bank", -200, 100),  // keyword POIs outside
            ("n1", "banking", 300, 300),  // no word-boundary match: not a keyword POI
            ("n2", "cafe", 300, 200), ("n3", "restaurant", 600, 300), ("n4", "咖啡", 700, 100),
        ])
        let members = PlantedMembers(
            path: "members", ids: ["p1", "p2", "p3", "p4", "p5", "zz"], clusterIDs: ["0", "0", "0", "0", "0", "0"])
        let s = try score(regions: region, truth: truth, pois: pois, members: members)
        let p = try XCTUnwrap(s.overall.poi)
        XCTAssertEqual(p, TruthScore.POICounts(plantedInside: 3, planted: 5, keywordInside: 4))
        XCTAssertEqual(p.recall, 0.6, accuracy: 1e-12)
        XCTAssertEqual(p.precision, 0.75, accuracy: 1e-12)
        // The member id without a POI is reported, not dropped silently.
        let m = try XCTUnwrap(s.inputs.first { $0.role == "members" })
        XCTAssertEqual(m.skipped, 1)
        XCTAssertEqual(s.json["poi_recall"], .number(0.6))
        XCTAssertEqual(s.json["poi_precision"], .number(0.75))
    }

    func testInvalidPolygonsAreRepairedAndCounted() throws {
        // A bow tie: two triangles of 250 000 m² each, crossing at the square's centre.
        let bowTie: F.Ring = (
            [0, 1000, 1000, 0, 0].map { $0 + F.originX }, [0, 1000, 0, 1000, 0].map { $0 + F.originY }
        )
        let s = try score(regions: [F.feature(0, "bank", bowTie)], truth: [F.feature(0, "bank", F.square(0, 0))])
        XCTAssertEqual(s.truths[0].bestIoU, 0.5, accuracy: 1e-9)
        let r = try XCTUnwrap(s.inputs.first { $0.role == "regions" })
        XCTAssertEqual(r.repaired, 1)
        XCTAssertTrue(r.notes.first?.contains("Self-intersection") ?? false, "\(r.notes)")
    }

    func testEmptyFilesScoreZeroAndSaySo() throws {
        let truth = [F.feature(0, "bank", F.square(0, 0))]
        let noRegions = try score(regions: [], truth: truth)
        XCTAssertEqual(noRegions.overall.recall, [0, 0])
        XCTAssertEqual(noRegions.overall.precision, [0, 0])
        XCTAssertEqual(noRegions.overall.meanBestIoU, 0)
        XCTAssertTrue(noRegions.notes.contains { $0.contains("undefined and reported as 0") })
        let noTruth = try score(regions: truth, truth: [])
        XCTAssertNil(noTruth.overall.meanBestIoU)
        XCTAssertEqual(noTruth.json["mean_best_iou"], .null)
        XCTAssertEqual(noTruth.overall.recall, [0, 0])
        let nothing = try Evaluator().scoreTruth(regions: F.file("r", []), truth: F.file("t", []))
        XCTAssertNil(nothing.crs)
        XCTAssertEqual(nothing.overall.truthCount, 0)
    }

    func testJSONHasReferenceKeysInOrderAndFourDecimals() throws {
        let s = try score(
            regions: [F.feature(0, "bank", F.square(500, 0))], truth: [F.feature(0, "bank", F.square(0, 0))])
        let keys = s.json.objectValue!.map(\.0)
        XCTAssertEqual(
            Array(keys.prefix(10)),
            [
                "n_truth", "n_regions", "mean_best_iou", "precision_inside", "recall@0.3", "precision@0.3", "f1@0.3",
                "recall@0.5",
                "precision@0.5", "f1@0.5",
            ])
        XCTAssertEqual(s.json["mean_best_iou"], .number(0.3333))
        XCTAssertEqual(s.json.serialized(pretty: true), s.json.serialized(pretty: true))
    }

    func testRoundingMatchesPythonRound() {
        XCTAssertEqual(roundedTo4(1.0 / 3.0), 0.3333)
        XCTAssertEqual(roundedTo4(2.0 / 3.0), 0.6667)
        XCTAssertEqual(roundedTo4(0.03125), 0.0312)  // exact tie: to even, as Python's round
        XCTAssertEqual(roundedTo4(0.00015), 0.0001)  // 0.00015 is stored just below the tie
        XCTAssertEqual(roundedTo4(1), 1)
    }
}
