import XCTest

@testable import RegionSearchCore
@testable import RegionSearchModel
@testable import RegionSearchRegions

/// ``DBSCAN`` (grid-accelerated) against a brute-force O(n²) DBSCAN on random point sets.
final class DBSCANTests: XCTestCase {
    /// The documented result, computed the slow way: a point is core when at least `minSamples`
    /// points (itself included) lie within `eps` (distance ≤ eps); clusters are the connected
    /// components of core points under "within eps"; a border point (not core, within eps of a
    /// core point) joins the earliest cluster it touches, clusters being numbered by their
    /// first core point in the order of `points`; the rest is noise.
    ///
    /// Also returns how many border points touched more than one cluster (where the order decides).
    private func bruteForce(points: [Int], x: [Double], y: [Double], eps: Double, minSamples: Int) -> (
        [[UInt32]], contested: Int
    ) {
        let n = points.count
        guard n > 0, eps > 0 else { return ([], 0) }
        func near(_ a: Int, _ b: Int) -> Bool {
            let dx = x[points[a]] - x[points[b]]
            let dy = y[points[a]] - y[points[b]]
            return dx * dx + dy * dy <= eps * eps
        }
        let isCore = (0..<n).map { a in (0..<n).filter { near(a, $0) }.count >= minSamples }
        // Components of core points (union-find), each named by its smallest position.
        var parent = Array(0..<n)
        func find(_ a: Int) -> Int {
            var a = a
            while parent[a] != a { a = parent[a] }
            return a
        }
        for a in 0..<n where isCore[a] {
            for b in 0..<a where isCore[b] && near(a, b) {
                let (ra, rb) = (find(a), find(b))
                if ra != rb { parent[max(ra, rb)] = min(ra, rb) }
            }
        }
        let seeds = (0..<n).filter { isCore[$0] && find($0) == $0 }  // in order of positions
        var members = [[Int]](repeating: [], count: seeds.count)
        var contested = 0
        for a in 0..<n {
            if isCore[a] {
                members[seeds.firstIndex(of: find(a))!].append(a)
                continue
            }
            let touched = (0..<seeds.count).filter { c in
                (0..<n).contains { isCore[$0] && find($0) == seeds[c] && near(a, $0) }
            }
            if let first = touched.first { members[first].append(a) }
            if touched.count > 1 { contested += 1 }
        }
        return (members.map { $0.map { UInt32(points[$0]) }.sorted() }, contested)
    }

    private func dbscan(points: [Int], x: [Double], y: [Double], eps: Double, minSamples: Int) -> [[UInt32]] {
        DBSCAN.clusters(points: points, x: Column(x), y: Column(y), eps: eps, minSamples: minSamples)
    }

    /// Random sets of clumps and background on an integer grid (so that distances of exactly eps
    /// and coincident points occur), random subsets in random order, several eps and minSamples.
    func testAgreesWithBruteForceOnRandomPointSets() {
        var rng = SeededRandom(seed: 21)
        var clustersSeen = 0
        var contested = 0
        for trial in 0..<300 {
            let total = Int.random(in: 1...220, using: &rng)
            var x: [Double] = []
            var y: [Double] = []
            let clumps = (0..<Int.random(in: 0...5, using: &rng)).map { _ in
                (Double(Int.random(in: 0...60, using: &rng)), Double(Int.random(in: 0...60, using: &rng)))
            }
            for _ in 0..<total {
                if let c = clumps.randomElement(using: &rng), Bool.random(using: &rng) {
                    x.append(c.0 + Double(Int.random(in: -4...4, using: &rng)))
                    y.append(c.1 + Double(Int.random(in: -4...4, using: &rng)))
                } else {
                    x.append(Double(Int.random(in: -10...70, using: &rng)))
                    y.append(Double(Int.random(in: -10...70, using: &rng)))
                }
            }
            var points = (0..<total).filter { _ in Int.random(in: 0...4, using: &rng) > 0 }
            if trial % 3 == 0 { points.shuffle(using: &rng) }
            let eps = [0.5, 1, 2, 2.5, 3, 5, 8][Int.random(in: 0...6, using: &rng)]
            let minSamples = Int.random(in: 1...8, using: &rng)
            let got = dbscan(points: points, x: x, y: y, eps: eps, minSamples: minSamples)
            let (expected, c) = bruteForce(points: points, x: x, y: y, eps: eps, minSamples: minSamples)
            XCTAssertEqual(
                got, expected, "trial \(trial): \(points.count) points, eps \(eps), minSamples \(minSamples)")
            clustersSeen += expected.count
            contested += c
        }
        XCTAssertGreaterThan(clustersSeen, 300, "the random sets make clusters")
        XCTAssertGreaterThan(contested, 10, "and border points that two clusters reach")
    }

    /// A border point within eps of two clusters joins the one whose first core point comes first.
    func testBorderPointJoinsTheEarliestCluster() {
        // Clusters at x = 4…6 (points 0–3) and x = −2…0 (points 5–8); point 4 at x = 2 is within
        // eps = 2 of one point of each, so it has 3 neighbours (itself included): a border point
        // for minSamples 4.
        let x: [Double] = [4, 5, 5, 6, 2, -2, -1, -1, 0]
        let y = [Double](repeating: 0, count: 9)
        XCTAssertEqual(
            dbscan(points: Array(0..<9), x: x, y: y, eps: 2, minSamples: 4), [[0, 1, 2, 3, 4], [5, 6, 7, 8]])
        XCTAssertEqual(
            dbscan(points: [5, 6, 7, 8, 4, 0, 1, 2, 3], x: x, y: y, eps: 2, minSamples: 4),
            [[4, 5, 6, 7, 8], [0, 1, 2, 3]])
        // With minSamples 3 the middle point is core and links them into one cluster.
        XCTAssertEqual(dbscan(points: Array(0..<9), x: x, y: y, eps: 2, minSamples: 3), [Array(0...8)])
        // Just out of reach it is noise (and the clusters keep their own border points).
        XCTAssertEqual(
            dbscan(points: Array(0..<9), x: x, y: y, eps: 1.999, minSamples: 4), [[0, 1, 2, 3], [5, 6, 7, 8]])
    }

    func testDegenerateInputs() {
        XCTAssertEqual(dbscan(points: [], x: [], y: [], eps: 1, minSamples: 1), [])
        XCTAssertEqual(
            dbscan(points: [0, 1], x: [0, 0], y: [0, 0], eps: 0, minSamples: 1), [], "eps must be positive")
        XCTAssertEqual(
            dbscan(points: [0, 1], x: [0, 5], y: [0, 0], eps: 1, minSamples: 1), [[0], [1]],
            "minSamples 1: every point is core")
        XCTAssertEqual(dbscan(points: [0, 1], x: [0, 0.5], y: [0, 0], eps: 1, minSamples: 3), [], "all noise")
        // Only the given points count: an unlisted point between two others does not link them.
        XCTAssertEqual(dbscan(points: [0, 2], x: [0, 1, 2], y: [0, 0, 0], eps: 1, minSamples: 1), [[0], [2]])
        // Far from the origin and negative coordinates: the grid is relative to the points.
        XCTAssertEqual(
            dbscan(points: [0, 1, 2], x: [-1e7, -1e7 + 3, -1e7 + 9], y: [5e6, 5e6, 5e6], eps: 3, minSamples: 2),
            [[0, 1]])
    }
}
