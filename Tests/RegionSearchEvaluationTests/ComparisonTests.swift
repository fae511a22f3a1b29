import XCTest

@testable import RegionSearchCore
@testable import RegionSearchEvaluation

/// Compare mode against closed-form answers.
final class ComparisonTests: XCTestCase {
    typealias F = EvaluateFixtures

    private let regions = [
        F.feature(0, "bank", F.square(0, 0)), F.feature(1, "bank", F.square(3000, 0)),
        F.feature(2, "咖啡", F.disc(0, 5000, radius: 400)),
    ]
    private var pois: EvaluationPOIs {
        F.pois([
            ("a", "bank", 100, 100), ("b", "bank", 3500, 500), ("c", "咖啡", 0, 5000), ("d", "cafe", 9000, 9000),
            ("e", "bank", 200, 900),
        ])
    }

    func testAFileComparedWithItselfIsIdentical() throws {
        let a = F.file("a", regions)
        let c = try F.evaluator.compare(a, a, pois: pois)
        XCTAssertEqual(c.keywords.map(\.label), ["bank", "咖啡"])
        for k in c.keywords {
            XCTAssertEqual(k.areaIoU, 1, accuracy: 1e-12)
            XCTAssertEqual(k.meanBestIoUAInB, 1, accuracy: 1e-12)
            XCTAssertEqual(k.meanBestIoUBInA, 1, accuracy: 1e-12)
            XCTAssertEqual(k.matches.count, k.countA)
            XCTAssertEqual(k.poi?.jaccard, 1)
        }
        XCTAssertEqual(c.keywords[0].areaA, 2e6, accuracy: 1e-3)
        // Every POI in a bank region is counted, whatever its category.
        XCTAssertEqual(c.keywords[0].poi, Comparison.POIOverlap(insideA: 3, insideB: 3, insideBoth: 3))
    }

    func testAgainstAnEmptyFile() throws {
        let c = try F.evaluator.compare(F.file("a", regions), F.file("empty", []), pois: pois)
        XCTAssertEqual(c.keywords.map(\.label), ["bank", "咖啡"])
        for k in c.keywords {
            XCTAssertEqual(k.countB, 0)
            XCTAssertEqual(k.areaIoU, 0)
            XCTAssertEqual(k.meanBestIoUAInB, 0)
            XCTAssertEqual(k.meanBestIoUBInA, 0)
            XCTAssertEqual(k.poi?.jaccard, 0)
            XCTAssertTrue(k.matches.isEmpty)
        }
        XCTAssertTrue(c.notes.contains { $0.contains("B has no features") })
        // Both empty: nothing to compare, no CRS needed.
        let none = try F.evaluator.compare(F.file("a", []), F.file("b", []))
        XCTAssertTrue(none.keywords.isEmpty)
    }

    func testOffsetUnionsAndGreedyOneToOneMatching() throws {
        let a = F.file("a", [F.feature(0, "bank", F.square(0, 0)), F.feature(1, "bank", F.square(250, 0))])
        let b = F.file("b", [F.feature(10, "bank", F.square(100, 0)), F.feature(11, "bank", F.square(8000, 0))])
        let c = try F.evaluator.compare(a, b)
        let k = c.keywords[0]
        // Unions: A = [0,1250]×[0,1000], B = [100,1100]×[0,1000] ∪ far square.
        XCTAssertEqual(k.areaIoU, 1e6 / (1.25e6 + 1e6), accuracy: 1e-9)
        // IoU(a0,b10) = 900/1100, IoU(a1,b10) = 850/1150: a0 wins b10; a1 is left unmatched.
        XCTAssertEqual(k.matches.count, 1)
        XCTAssertEqual(k.matches[0].aID, .number(0))
        XCTAssertEqual(k.matches[0].bID, .number(10))
        XCTAssertEqual(k.matches[0].iou, 900.0 / 1100.0, accuracy: 1e-9)
        XCTAssertEqual(k.meanBestIoUAInB, (900.0 / 1100.0 + 850.0 / 1150.0) / 2, accuracy: 1e-9)
        XCTAssertEqual(k.meanBestIoUBInA, (900.0 / 1100.0) / 2, accuracy: 1e-9)
    }

    func testWildcardFileIsComparedWithEachKeyword() throws {
        let wild = F.file(
            "w",
            regions.map {
                var f = $0
                f.keyword = nil
                return f
            })
        let c = try F.evaluator.compare(wild, F.file("a", regions))
        XCTAssertEqual(c.keywords.map(\.label), ["*|bank", "*|咖啡"])
        XCTAssertEqual(c.keywords[0].countA, 3)
        XCTAssertEqual(c.keywords[0].countB, 2)
        XCTAssertEqual(c.keywords[0].meanBestIoUBInA, 1, accuracy: 1e-12)
    }

    func testJSONIsDeterministicAndRounded() throws {
        let a = F.file("a", [F.feature(0, "bank", F.square(0, 0))])
        let b = F.file("b", [F.feature(0, "bank", F.square(500, 0))])
        let j1 = try F.evaluator.compare(a, b).json.serialized(pretty: true)
        let j2 = try F.evaluator.compare(a, b).json.serialized(pretty: true)
        XCTAssertEqual(j1, j2)
        let v = try JSONParser.parse(j1)
        XCTAssertEqual(v["keywords"]?["bank"]?["area_iou"], .number(0.3333))
        XCTAssertEqual(v["keywords"]?["bank"]?["n_matched"], .number(0))
    }
}
