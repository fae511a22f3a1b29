import XCTest

@testable import RegionSearchCore
@testable import RegionSearchModel
@testable import RegionSearchOutput

/// The support margin (``RegionPolygonBuilder/supportGap(x:y:)``): a closed form on a square,
/// the degenerate inputs, and Efron's identity by simulation — POIs drawn evenly from a square, a
/// disc and a street-like strip, whose convex hull grown by the gap covers the ground they were
/// drawn from on average (within 4 %), where the hull alone misses more than a tenth of it.
final class SupportGapTests: XCTestCase {
    func testSquareWithFourInnerPointsHasTheClosedFormGap() throws {
        // n = 8 locations, V = 4 on the hull (100 m square): the hull misses 10,000 · 4 / 4 m²,
        // laid around its 400 m perimeter as π g² + 400 g = 10,000.
        let x = [0.0, 100, 100, 0, 30, 70, 40, 60]
        let y = [0.0, 0, 100, 100, 30, 40, 70, 60]
        let expected = (-400 + (400.0 * 400 + 4 * Double.pi * 10_000).squareRoot()) / (2 * Double.pi)
        XCTAssertEqual(try XCTUnwrap(RegionPolygonBuilder.supportGap(x: x, y: y)), expected, accuracy: 1e-9)
        // A point on an edge is not a corner; POIs stacked at one address are one location.
        let gap = RegionPolygonBuilder.supportGap(x: x + [50, 30, 30], y: y + [0, 30, 30])
        let withEdgePoint = (-400 + (400.0 * 400 + 4 * Double.pi * 10_000 * 4 / 5).squareRoot()) / (2 * Double.pi)
        XCTAssertEqual(try XCTUnwrap(gap), withEdgePoint, accuracy: 1e-9)
    }

    func testDegenerateSetsHaveNoGap() {
        XCTAssertNil(RegionPolygonBuilder.supportGap(x: [0, 10, 20], y: [0, 5, 0]), "three locations")
        XCTAssertNil(RegionPolygonBuilder.supportGap(x: [0, 0, 0, 0, 10], y: [0, 0, 0, 0, 0]), "two locations")
        XCTAssertNil(RegionPolygonBuilder.supportGap(x: [0, 10, 20, 30, 40], y: [0, 10, 20, 30, 40]), "collinear")
    }

    func testGrownHullCoversTheGroundThePointsWereDrawnFrom() throws {
        // (name, ground area m², draw one point)
        let shapes: [(String, Double, (inout SeededRandom) -> (Double, Double))] = [
            ("square", 40_000, { ($0.uniform(0, 200), $0.uniform(0, 200)) }),
            ("strip", 12_000, { ($0.uniform(0, 400), $0.uniform(0, 30)) }),
            (
                "disc", Double.pi * 10_000,
                { rng in
                    while true {
                        let (x, y) = (rng.uniform(-100, 100), rng.uniform(-100, 100))
                        if x * x + y * y <= 10_000 { return (x, y) }
                    }
                }
            ),
        ]
        for (name, ground, draw) in shapes {
            for n in [30, 100] {
                var rng = SeededRandom(seed: UInt64(n))
                var grown = 0.0
                var hullOnly = 0.0
                let trials = 400
                for _ in 0..<trials {
                    var x: [Double] = []
                    var y: [Double] = []
                    for _ in 0..<n {
                        let (px, py) = draw(&rng)
                        x.append(px)
                        y.append(py)
                    }
                    let hull = Self.hull(x: x, y: y)
                    let g = try XCTUnwrap(RegionPolygonBuilder.supportGap(x: x, y: y))
                    grown += hull.area + hull.perimeter * g + Double.pi * g * g
                    hullOnly += hull.area
                }
                let share = grown / Double(trials) / ground
                XCTAssertEqual(
                    share, 1, accuracy: 0.04, "\(name), n = \(n): the grown hull's mean area over the ground")
                XCTAssertLessThan(hullOnly / Double(trials) / ground, 0.9, "\(name), n = \(n): the hull alone")
            }
        }
    }

    /// Area and perimeter of the convex hull, by gift wrapping (a second implementation).
    static func hull(x: [Double], y: [Double]) -> (area: Double, perimeter: Double) {
        let n = x.count
        var start = 0
        for i in 1..<n where x[i] < x[start] || (x[i] == x[start] && y[i] < y[start]) { start = i }
        var corners: [Int] = []
        var current = start
        repeat {
            corners.append(current)
            var next = (current + 1) % n
            for i in 0..<n where i != current {
                let cross = (x[next] - x[current]) * (y[i] - y[current]) - (y[next] - y[current]) * (x[i] - x[current])
                if cross < 0 { next = i }
            }
            current = next
        } while current != start && corners.count <= n
        var area = 0.0
        var perimeter = 0.0
        for (k, a) in corners.enumerated() {
            let b = corners[(k + 1) % corners.count]
            area += x[a] * y[b] - x[b] * y[a]
            perimeter += ((x[b] - x[a]) * (x[b] - x[a]) + (y[b] - y[a]) * (y[b] - y[a])).squareRoot()
        }
        return (abs(area) / 2, perimeter)
    }
}
