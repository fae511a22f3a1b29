import XCTest

@testable import RegionSearchCore
@testable import RegionSearchModel
@testable import RegionSearchRegions

/// ``PointBuckets`` against a brute-force scan of every point: the same POIs, in index order,
/// for random points, points stacked at one place, points along one line (a box of no area) and
/// a disc reaching beyond the data.
final class PointBucketsTests: XCTestCase {
    static func bruteForce(_ x: [Double], _ y: [Double], _ r: Double, _ cx: Double, _ cy: Double) -> [UInt32] {
        x.indices.filter { (x[$0] - cx) * (x[$0] - cx) + (y[$0] - cy) * (y[$0] - cy) <= r * r }.map { UInt32($0) }
    }

    func check(_ x: [Double], _ y: [Double], queries: [(r: Double, cx: Double, cy: Double)]) {
        let (cx, cy) = (Column(x), Column(y))
        let grid = PointBuckets(x: cx, y: cy)
        for q in queries {
            XCTAssertEqual(
                grid.within(q.r, of: q.cx, q.cy, x: cx, y: cy), Self.bruteForce(x, y, q.r, q.cx, q.cy),
                "radius \(q.r) at (\(q.cx), \(q.cy)) among \(x.count) points")
        }
    }

    func testTheGridFindsWhatAScanOfEveryPointFinds() {
        var rng = SeededRandom(seed: 21)
        // Clustered: a town of 3,000 points in 2 km, 1,000 over 50 km around it.
        var x = (0..<3_000).map { _ in rng.uniform(-1_000, 1_000) }
        var y = (0..<3_000).map { _ in rng.uniform(-1_000, 1_000) }
        x += (0..<1_000).map { _ in rng.uniform(-25_000, 25_000) }
        y += (0..<1_000).map { _ in rng.uniform(-25_000, 25_000) }
        var queries: [(r: Double, cx: Double, cy: Double)] = (0..<200).map { _ in
            (rng.uniform(0, 3_000), rng.uniform(-30_000, 30_000), rng.uniform(-30_000, 30_000))
        }
        queries += (0..<200).map { _ in (rng.uniform(0, 400), rng.uniform(-1_200, 1_200), rng.uniform(-1_200, 1_200)) }
        queries += [(0, x[5], y[5]), (100_000, 0, 0), (10, 1e6, 1e6)]
        check(x, y, queries: queries)
    }

    func testStackedPointsAndALineAndNoPoints() {
        // 50 points at one place: a box of no area.
        check(
            [Double](repeating: 3, count: 50), [Double](repeating: -7, count: 50),
            queries: [(0, 3, -7), (1, 3.5, -7), (0.4, 3.5, -7), (5, 0, 0)])
        // 100 points along y = 0, 10 m apart, and one far off it.
        let x = (0..<100).map { Double($0) * 10 } + [500]
        let y = [Double](repeating: 0, count: 100) + [2_000]
        check(x, y, queries: [(25, 500, 0), (25, 500, 10), (1_999, 500, 0), (2_000, 500, 0), (15, -10, 0)])
        check([], [], queries: [(100, 0, 0)])
    }
}
