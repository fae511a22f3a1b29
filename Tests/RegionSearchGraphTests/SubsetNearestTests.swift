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
}
