import XCTest

@testable import RegionSearchIngest

/// The lookup against a dictionary of positions, on ascending, descending and random queries.
final class OSMNodeLookupTests: XCTestCase {
    func testMatchesBinarySearch() {
        var state: UInt64 = 42
        func random(_ n: Int64) -> Int64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int64((state >> 33) % UInt64(n))
        }
        let ids = Array(Set((0..<2_000).map { _ in random(10_000) })).sorted()
        let queries: [[Int64]] = [
            Array(-5...10_005),
            Array((-5...10_005).reversed()),
            (0..<20_000).map { _ in random(10_010) - 5 },
            [9_999, 3, 5_000, 5_001, 5_002, 0, 10_000],
        ]
        let position = Dictionary(uniqueKeysWithValues: ids.enumerated().map { ($0.element, $0.offset) })
        for list in queries {
            var lookup = OSMNodeLookup(ids: ids)
            for q in list {
                let expected = position[q]
                XCTAssertEqual(lookup.index(of: q), expected, "query \(q)")
            }
        }
        let empty = OSMNodeLookup(ids: [])
        var copy = empty
        XCTAssertNil(copy.index(of: 1))
        XCTAssertFalse(empty.containsAny(.min, .max))
        let lookup = OSMNodeLookup(ids: [10, 20, 30])
        XCTAssertTrue(lookup.containsAny(15, 20))
        XCTAssertFalse(lookup.containsAny(21, 29))
        XCTAssertTrue(lookup.containsAny(.min, 10))
    }
}
