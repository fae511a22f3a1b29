import XCTest

@testable import RegionSearchCore
@testable import RegionSearchModel
@testable import RegionSearchRegions

/// The counts the `lift` measure's significance test reads (``RegionFinder/testFootprint(_:match:)``):
/// the POIs inside the hull of the region's matching members, less one matching POI per corner of
/// that hull. The hull is drawn through matching POIs, so its corners match whatever the keyword's
/// spread; counting them made chance clumps of a null city significant.
final class LiftFootprintTests: XCTestCase {
    /// A region of matching POIs scattered over a 100 m square with other POIs among them, all
    /// linked to each other: the counts are the brute-force count of every POI in the hull of the
    /// matching members, less the hull's corners (which match).
    func testTheHullsCornersAreNotCounted() {
        var rng = SeededRandom(seed: 5)
        var x: [Double] = []
        var y: [Double] = []
        var match: [UInt8] = []
        for k in 0..<60 {
            x.append(rng.uniform() * 100)
            y.append(rng.uniform() * 100)
            match.append(k % 3 == 0 ? 1 : 0)
        }
        // Far away and unlinked: never in the footprint.
        for k in 0..<20 {
            x.append(5000 + Double(k) * 10)
            y.append(5000)
            match.append(k % 2 == 0 ? 1 : 0)
        }
        var edges: [(UInt32, UInt32)] = []
        for a in 0..<UInt32(60) { for b in (a + 1)..<60 { edges.append((a, b)) } }
        let graph = AdjacencyGraph(nodeCount: x.count, edges: edges, x: x, y: y)
        let finder = RegionFinder(x: x, y: y, graph: graph)
        let matching = (0..<60).filter { match[$0] == 1 }.map { UInt32($0) }
        let region = RegionTable.Region(
            keyword: 0, members: matching,
            memberMatch: [UInt8](repeating: RegionTable.Region.matchesFlag, count: matching.count))

        let hull = ConvexHull2D(x: matching.map { x[Int($0)] }, y: matching.map { y[Int($0)] })
        // Brute force: every POI on or inside the hull (a point is inside a counter-clockwise
        // convex polygon when it is left of or on every edge).
        var n = 0
        var k = 0
        for i in 0..<x.count {
            var inside = true
            for e in 0..<hull.x.count {
                let (ax, ay) = (hull.x[e], hull.y[e])
                let (bx, by) = (hull.x[(e + 1) % hull.x.count], hull.y[(e + 1) % hull.x.count])
                if (bx - ax) * (y[i] - ay) - (by - ay) * (x[i] - ax) < -1e-9 { inside = false }
            }
            if inside {
                n += 1
                k += Int(match[i])
            }
        }
        let corners = hull.x.count
        XCTAssertGreaterThanOrEqual(corners, 4)
        let counted = finder.testFootprint(region, match: match)
        XCTAssertEqual(counted.n, n - corners)
        XCTAssertEqual(counted.k, k - corners)
        XCTAssertEqual(k, matching.count, "every matching member lies in its own hull")
    }

    /// A small clump: seven matching POIs on a ring (every one a corner) around five other POIs.
    /// Counting the corners read 7 of 12 at a base rate of 1 in 100 (p about 10⁻¹¹ before the
    /// bound); without them nothing is left to test (0 of 5) and the region is not significant.
    func testARingOfMatchingPOIsIsNoEvidence() {
        var x: [Double] = []
        var y: [Double] = []
        var match: [UInt8] = []
        for a in 0..<7 {
            let t = Double(a) * 2 * Double.pi / 7
            x.append(50 * cos(t))
            y.append(50 * sin(t))
            match.append(1)
        }
        for a in 0..<5 {
            x.append(Double(a) * 8 - 16)
            y.append(Double(a % 2) * 6 - 3)
            match.append(0)
        }
        var edges: [(UInt32, UInt32)] = []
        for a in 0..<UInt32(12) { for b in (a + 1)..<12 { edges.append((a, b)) } }
        let graph = AdjacencyGraph(nodeCount: x.count, edges: edges, x: x, y: y)
        let finder = RegionFinder(x: x, y: y, graph: graph)
        let members = (0..<UInt32(7)).map { $0 }
        let region = RegionTable.Region(
            keyword: 0, members: members, memberMatch: [UInt8](repeating: RegionTable.Region.matchesFlag, count: 7))
        let counted = finder.testFootprint(region, match: match)
        XCTAssertEqual(counted.n, 5)
        XCTAssertEqual(counted.k, 0)
        let p = Significance.pValue(
            k: counted.k, n: counted.n, p: 0.01, windows: 1000, shapes: Significance.liftShapes)
        XCTAssertEqual(p, 1)
    }
}
