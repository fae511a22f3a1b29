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
        let centre = points.indices.map { _ in rng.uniform() < 0.1 }
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
                    if d == 0 { return true }
                    // `accept` sees the location's first position.
                    let first = points.indices.first { points[$0] == points[p] }!
                    return d <= radius[c] && accept(c, first)
                }
                XCTAssertEqual(inside[p], expected, "point \(p), east only \(eastOnly)")
            }
        }
        // Some are in a ball without being a centre, and not everything is.
        let inside = g.inBalls(of: centre, radius: radius, nearest: nearest)
        XCTAssertGreaterThan(inside.indices.filter { inside[$0] && !centre[$0] }.count, 20)
        XCTAssertLessThan(inside.filter { $0 }.count, points.count)
    }
}
