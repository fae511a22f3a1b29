import XCTest

@testable import RegionSearchLineage

/// The matching rule on regions whose answer is known by construction.
final class RegionMatchingTests: XCTestCase {
    typealias F = LineageFixtures

    func report(_ previous: [TrackedRegion], _ current: [TrackedRegion]) throws -> ChangeReport {
        ChangeReport(
            try RegionMatching(previous: previous, current: current, source: "test"), previousSource: "old",
            currentSource: "new")
    }

    func entry(_ r: ChangeReport, _ id: Int, retired: Bool = false) -> RegionChange? {
        r.entries.first { $0.id == id && ($0.verdict == .retired) == retired }
    }

    func testTheSamePlaceIsUnchangedAndKeepsItsId() throws {
        let old = [F.region(7, members: 1...40, east: 0, north: 0, side: 400)]
        let new = [F.region(1, members: 1...40, east: 5, north: 0, side: 400)]
        let r = try report(old, new)
        XCTAssertEqual(entry(r, 1)?.verdict, .unchanged)
        XCTAssertEqual(entry(r, 1)?.previousID, 7)
        XCTAssertEqual(entry(r, 1)?.membersShared, 40)
        XCTAssertEqual(entry(r, 1)?.shiftM ?? 0, 5, accuracy: 0.01)
        XCTAssertEqual(entry(r, 1)?.iou ?? 0, 395.0 / 405.0, accuracy: 1e-4)
        XCTAssertTrue(r.entries.allSatisfy { $0.verdict != .retired })
    }

    func testGrowthShrinkageAndTheThresholdBetweenThem() throws {
        // 40 → 44 POIs is the 10 % threshold (4 POIs): grown; 40 → 43 is not.
        let old = [
            F.region(1, members: 1...40, east: 0, north: 0, side: 400),
            F.region(2, members: 101...140, east: 5000, north: 0, side: 400),
            F.region(3, members: 201...240, east: 10000, north: 0, side: 400),
        ]
        let new = [
            F.region(1, members: 1...44, east: 0, north: 0, side: 420),
            F.region(2, members: 101...143, east: 5000, north: 0, side: 400),
            F.region(3, members: 201...220, east: 10000, north: 0, side: 300),
        ]
        let r = try report(old, new)
        XCTAssertEqual(entry(r, 1)?.verdict, .grown)
        XCTAssertEqual(entry(r, 2)?.verdict, .unchanged)
        XCTAssertEqual(entry(r, 3)?.verdict, .shrunk)
        XCTAssertEqual(entry(r, 3)?.membersBefore, 40)
        XCTAssertEqual(entry(r, 3)?.membersAfter, 20)
    }

    func testTheSamePOIsFarAwayMoved() throws {
        // Every POI moved 1 km (the same ids): the polygons do not even touch.
        let old = [F.region(4, members: 1...30, east: 0, north: 0, side: 300)]
        let new = [F.region(1, members: 1...30, east: 1000, north: 0, side: 300)]
        let r = try report(old, new)
        XCTAssertEqual(entry(r, 1)?.verdict, .moved)
        XCTAssertEqual(entry(r, 1)?.previousID, 4)
        XCTAssertEqual(entry(r, 1)?.iou, 0)
        XCTAssertEqual(entry(r, 1)?.shiftM ?? 0, 1000, accuracy: 0.1)
    }

    func testUnrelatedRegionsAreNewAndRetired() throws {
        let old = [F.region(3, members: 1...30, east: 0, north: 0, side: 300)]
        let new = [F.region(1, members: 501...530, east: 3000, north: 0, side: 300)]
        let r = try report(old, new)
        XCTAssertEqual(entry(r, 1)?.verdict, .new)
        XCTAssertNil(entry(r, 1)?.previousID)
        XCTAssertEqual(entry(r, 3, retired: true)?.verdict, .retired)
        XCTAssertNil(entry(r, 3, retired: true)?.mergedInto)
        XCTAssertEqual(r.entries.count, 2)
    }

    func testASplitGivesTheLargerPieceTheIdAndNamesEveryPiece() throws {
        let old = [F.region(9, keys: Array(1...100), east: 0, north: 0, side: 1000)]
        let new = [
            F.region(1, keys: Array(61...100), rank: 2, east: 300, north: 0, side: 400),
            F.region(2, keys: Array(1...60), rank: 1, east: -250, north: 0, side: 500),
        ]
        let m = try RegionMatching(previous: old, current: new, source: "test")
        XCTAssertEqual(m.heir, [nil, 0], "the piece holding 60 of the 100 POIs continues region 9")
        let r = ChangeReport(m, previousSource: "old", currentSource: "new")
        XCTAssertEqual(entry(r, 2)?.verdict, .split)
        XCTAssertEqual(entry(r, 2)?.previousID, 9)
        XCTAssertEqual(entry(r, 1)?.verdict, .split)
        XCTAssertNil(entry(r, 1)?.previousID)
        XCTAssertEqual(entry(r, 1)?.splitFrom, 9)
        XCTAssertEqual(entry(r, 1)?.splitInto, [1, 2])
        XCTAssertEqual(entry(r, 1)?.membersShared, 40)
    }

    func testAMergeKeepsTheIdOfThePartItHoldsMostOf() throws {
        let old = [
            F.region(5, keys: Array(1...40), east: -300, north: 0, side: 400),
            F.region(6, keys: Array(41...100), rank: 2, east: 300, north: 0, side: 500),
        ]
        let new = [F.region(1, keys: Array(1...100), east: 0, north: 0, side: 1100)]
        let r = try report(old, new)
        XCTAssertEqual(entry(r, 1)?.verdict, .merged)
        XCTAssertEqual(entry(r, 1)?.previousID, 6, "60 POIs came from 6, 40 from 5")
        XCTAssertEqual(entry(r, 1)?.mergedFrom, [5, 6])
        XCTAssertEqual(entry(r, 5, retired: true)?.mergedInto, 1)
        XCTAssertNil(entry(r, 6, retired: true))
    }

    func testAnEvenSplitGoesToTheFirstPieceInOutputOrder() throws {
        // Equal similarity, shared POIs and area: the rule's last key, the position, decides.
        let old = [F.region(2, keys: Array(1...40), east: 0, north: 0, side: 800)]
        let new = [
            F.region(1, keys: Array(1...20), east: -200, north: 0, side: 400),
            F.region(2, keys: Array(21...40), rank: 2, east: 200, north: 0, side: 400),
        ]
        XCTAssertEqual(try RegionMatching(previous: old, current: new, source: "t").heir, [0, nil])
        XCTAssertEqual(try RegionMatching(previous: old, current: Array(new.reversed()), source: "t").heir, [0, nil])
    }

    func testRegionsOfAnotherLevelOrKeywordNeverMatch() throws {
        let old = [
            F.region(1, level: 0, members: 1...50, east: 0, north: 0, side: 800),
            F.region(2, keyword: "cafe", members: 1...50, east: 0, north: 0, side: 800),
        ]
        let new = [F.region(1, level: 1, members: 1...50, east: 0, north: 0, side: 800)]
        let r = try report(old, new)
        XCTAssertEqual(entry(r, 1)?.verdict, .new)
        XCTAssertEqual(r.entries.filter { $0.verdict == .retired }.count, 2)
    }

    func testWithoutMembersTheAreaDecides() throws {
        // Plain region files: POI ids unknown, the polygons overlap by more than half.
        let old = [F.region(3, members: nil, east: 0, north: 0, side: 400)]
        let new = [
            F.region(1, members: nil, east: 100, north: 0, side: 400),
            F.region(2, rank: 2, members: nil, east: 330, north: 0, side: 400),
        ]
        let m = try RegionMatching(previous: old, current: new, source: "t")
        XCTAssertEqual(m.heir, [0, nil])
        XCTAssertEqual(m.links.count, 1, "a quarter of the area shared is no link")
        let r = ChangeReport(m, previousSource: "old", currentSource: "new")
        XCTAssertEqual(r.basis, "area")
        XCTAssertNil(entry(r, 1)?.membersShared)
        XCTAssertEqual(entry(r, 1)?.iou ?? 0, 300.0 / 500.0, accuracy: 1e-3)
        XCTAssertEqual(entry(r, 2)?.verdict, .new)
    }

    func testChurnedIdsStillLinkByArea() throws {
        // Every POI got a new id, the place is the same: the area links them.
        let old = [F.region(8, members: 1...30, east: 0, north: 0, side: 300)]
        let new = [F.region(1, members: 1001...1030, east: 10, north: 0, side: 300)]
        let r = try report(old, new)
        XCTAssertEqual(entry(r, 1)?.previousID, 8)
        XCTAssertEqual(entry(r, 1)?.membersShared, 0)
        XCTAssertEqual(entry(r, 1)?.verdict, .unchanged)
    }
}
