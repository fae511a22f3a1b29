import Foundation
import XCTest

@testable import RegionSearchCore
@testable import RegionSearchGraph

/// ``SubsetGeometry/nearestLocations(_:)`` searches the subset's own triangulation; its lists are
/// the k-d tree's, list for list, ties by index included.
final class SubsetNearestTests: XCTestCase {
    private func treeLists(_ g: SubsetGeometry, _ k: Int) -> [UInt32] {
        g.x.withUnsafeBufferPointer { bx in
            g.y.withUnsafeBufferPointer { by in
                g.locations.withUnsafeBufferPointer {
                    NearestNeighbors(x: bx, y: by, subset: $0, k: min(k, g.locations.count - 1)).neighbors
                }
            }
        }
    }

    func testListsAreTheKDTreesOnRandomStackedGridAndCollinearPoints() {
        var rng = SeededRandom(seed: 23)
        var cases: [[(Double, Double)]] = []
        // Random, with POIs stacked at a few addresses.
        var random = (0..<500).map { _ in (rng.uniform(0, 2_000), rng.uniform(0, 2_000)) }
        random += [random[3], random[3], random[90], random[200]]
        cases.append(random)
        // A grid: ties in distance everywhere, decided by index.
        var grid: [(Double, Double)] = []
        for i in 0..<400 { grid.append((Double(i % 20) * 10, Double(i / 20) * 10)) }
        cases.append(grid)
        // Collinear: the triangulation is the chain.
        var line: [(Double, Double)] = []
        for i in 0..<60 { line.append((Double(i) * 3, Double(i) * 4)) }
        cases.append(line)
        // Few points: k above the locations.
        cases.append([(0, 0), (1, 0), (0, 1), (5, 5)])
        for (c, points) in cases.enumerated() {
            let g = SubsetBandTests.geometry(points)
            for k in [1, 5, 10, 40] {
                let lists = g.nearestLocations(k).lists
                XCTAssertNotNil(lists, "case \(c), k \(k)")
                XCTAssertEqual(lists?.k, min(k, g.locations.count - 1), "case \(c), k \(k)")
                XCTAssertEqual(lists?.neighbors, treeLists(g, k), "case \(c), k \(k)")
            }
        }
    }

    /// Rounding against the proof: the search ranks by the rounded dx² + dy², and two points a
    /// few ulps apart can round to one value (a), or the other way round (b), where the nearer
    /// one is reached only through the other. The lists are still the tree's.
    func testNearTiesThatRoundingReversesAreRankedAsTheTreeRanksThem() {
        let a = 7.169841449548583
        let b = a.nextUp
        // (a) Collinear, a·a + (2a)² == b·b + (2b)² after rounding.
        let tie = SubsetBandTests.geometry([(b, 2 * b), (a, 2 * a), (0, 0)])
        XCTAssertEqual(a * a + (2 * a) * (2 * a), b * b + (2 * b) * (2 * b))
        XCTAssertEqual(tie.nearestLocations(2).lists?.neighbors, treeLists(tie, 2))
        // (b) r is exactly nearer (0, 0) than q but rounds farther, and the edge from (0, 0) to q
        // is flipped away by the fourth point.
        let reversed = SubsetBandTests.geometry([
            (0, 0), (0.7761927261407826, 0.607118740587942), (0.7761927261407825, 0.6071187405879421), (0.85, 0.51),
        ])
        for k in 1...3 {
            XCTAssertEqual(reversed.nearestLocations(k).lists?.neighbors, treeLists(reversed, k), "k \(k)")
        }
    }
}
