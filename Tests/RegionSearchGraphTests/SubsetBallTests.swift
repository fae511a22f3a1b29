import Foundation
import XCTest

@testable import RegionSearchCore
@testable import RegionSearchGraph

/// ``SubsetGeometry/inBalls(of:radius:nearest:accept:)`` against a brute-force search over every
/// pair, on random points with POIs stacked at one location.
final class SubsetBallTests: XCTestCase {
    func testTheBallsAgreeWithABruteForceSearch() throws {
        var rng = SeededRandom(seed: 17)
        var points = (0..<300).map { _ in (rng.uniform(0, 1_000), rng.uniform(0, 1_000)) }
        // Three POIs at one address, and one more at another.
        points += [points[7], points[7], points[40]]
        let g = SubsetBandTests.geometry(points)
        let k = 5
        let nearest = g.nearestLocations(2 * k)
        let radius = g.kthNeighbourDistance(k, nearest: nearest)
        var centre = points.indices.map { _ in rng.uniform() < 0.1 }
        // A stacked POI as a centre (not its location's first), and the other stack's first not.
        centre[301] = true
        centre[7] = false
        centre[300] = false
        centre[40] = true
        // Only ball members east of their centre, to check that `accept` narrows a ball.
        for eastOnly in [false, true] {
            let accept: (Int, Int) -> Bool = { c, o in !eastOnly || points[o].0 >= points[c].0 }
            let inside = g.inBalls(of: centre, radius: radius, nearest: nearest, accept: accept)
            for p in points.indices {
                let expected = points.indices.contains { c in
                    guard centre[c] else { return false }
                    // The k-th neighbour's distance as the geometry measures it, so that the
                    // k-th neighbour itself is in the ball to the last bit.
                    let (dx, dy) = (points[c].0 - points[p].0, points[c].1 - points[p].1)
                    let d = (dx * dx + dy * dy).squareRoot()
                    // `accept` sees the location's first position.
                    let first = points.indices.first { points[$0] == points[p] }!
                    return d <= radius[c] && accept(c, first)
                }
                XCTAssertEqual(inside[p], expected, "point \(p), east only \(eastOnly)")
            }
        }
        // Some are in a ball without being a centre, and not everything is; the stack of three at
        // point 7's address is in, through its one centre.
        let inside = g.inBalls(of: centre, radius: radius, nearest: nearest)
        XCTAssertGreaterThan(inside.indices.filter { inside[$0] && !centre[$0] }.count, 20)
        XCTAssertLessThan(inside.filter { $0 }.count, points.count)
        XCTAssertTrue(inside[7] && inside[300] && inside[301])
    }

    func testNearFindsThePositionsThatListAChangedOne() throws {
        var rng = SeededRandom(seed: 19)
        var points = (0..<200).map { _ in (rng.uniform(0, 1_000), rng.uniform(0, 1_000)) }
        points += [points[3], points[3]]
        let g = SubsetBandTests.geometry(points)
        let k = 6
        let nearest = g.nearestLocations(k)
        var changed = [Bool](repeating: false, count: points.count)
        for p in [3, 50, 120] { changed[p] = true }
        let near = g.near(changed, nearest: nearest)
        // Brute force: a position is near when its location is a changed one's, or when one of
        // its k nearest other locations is (distinct addresses: the stack at point 3 is one).
        let distinct = points.indices.filter { p in !points[..<p].contains { $0 == points[p] } }
        for p in points.indices {
            let others = distinct.filter { points[$0] != points[p] }.sorted {
                let a = hypot(points[$0].0 - points[p].0, points[$0].1 - points[p].1)
                let b = hypot(points[$1].0 - points[p].0, points[$1].1 - points[p].1)
                return a != b ? a < b : $0 < $1
            }.prefix(k)
            let expected = points.indices.contains { c in
                changed[c] && (points[c] == points[p] || others.contains { points[$0] == points[c] })
            }
            XCTAssertEqual(near[p], expected, "point \(p)")
        }
        XCTAssertTrue(near[200] && near[201], "the stack at point 3")
    }
}
