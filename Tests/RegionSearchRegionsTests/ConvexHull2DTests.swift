import CGEOS
import XCTest

@testable import RegionSearchCore
@testable import RegionSearchOutput
@testable import RegionSearchRegions

final class ConvexHull2DTests: XCTestCase {
    func testHullMatchesGEOSOnRandomSets() throws {
        var rng = SeededRandom(seed: 4)
        let geos = GEOSContext()
        for _ in 0..<50 {
            let n = 3 + rng.below(60)
            let x = (0..<n).map { _ in rng.uniform(0, 100) }
            let y = (0..<n).map { _ in rng.uniform(0, 100) }
            let h = ConvexHull2D(x: x, y: y)
            let g = try geos.multiPoint(x: x, y: y).convexHull()
            XCTAssertEqual(h.area, g.area, accuracy: 1e-9)
            for i in 0..<n { XCTAssertTrue(h.contains(x[i], y[i]), "point \(i) outside its own hull") }
            // Counter-clockwise.
            var signed = 0.0
            for i in 0..<h.count { signed += h.x[i] * h.y[(i + 1) % h.count] - h.x[(i + 1) % h.count] * h.y[i] }
            XCTAssertGreaterThan(signed, 0)
        }
    }

    func testDegenerateInputs() {
        XCTAssertEqual(ConvexHull2D(x: [1, 1, 1], y: [2, 2, 2]).count, 1)
        let line = ConvexHull2D(x: [0, 1, 2, 3], y: [0, 1, 2, 3])
        XCTAssertEqual(line.count, 2)
        XCTAssertEqual(line.area, 0)
        XCTAssertTrue(line.contains(1.5, 1.5, tolerance: 1e-9))
    }

    func testCornerSharesAreTheInteriorAnglesAsShareOfATurn() {
        XCTAssertEqual(ConvexHull2D(x: [0, 10, 10, 0], y: [0, 0, 10, 10]).cornerShares, [0.25, 0.25, 0.25, 0.25])
        let hexagon = ConvexHull2D(
            x: (0..<6).map { cos(Double($0) * .pi / 3) * 50 }, y: (0..<6).map { sin(Double($0) * .pi / 3) * 50 })
        for share in hexagon.cornerShares { XCTAssertEqual(share, 1.0 / 3, accuracy: 1e-12) }
        XCTAssertEqual(ConvexHull2D(x: [0, 1, 2, 3], y: [0, 1, 2, 3]).cornerShares, [0.5, 0.5])
        XCTAssertEqual(ConvexHull2D(x: [4], y: [4]).cornerShares, [0.5])
        // Random hulls: each share is the angle between the edges at the vertex (by acos), and they
        // sum to (n − 2) / 2, as a convex polygon's interior angles sum to (n − 2) π.
        var rng = SeededRandom(seed: 9)
        for _ in 0..<50 {
            let n = 3 + rng.below(40)
            let h = ConvexHull2D(
                x: (0..<n).map { _ in rng.uniform(0, 100) }, y: (0..<n).map { _ in rng.uniform(0, 30) })
            let shares = h.cornerShares
            XCTAssertEqual(shares.reduce(0, +), Double(h.count - 2) / 2, accuracy: 1e-9)
            for i in 0..<h.count {
                let (b, a) = ((i + h.count - 1) % h.count, (i + 1) % h.count)
                let (ux, uy, vx, vy) = (h.x[b] - h.x[i], h.y[b] - h.y[i], h.x[a] - h.x[i], h.y[a] - h.y[i])
                let angle = acos((ux * vx + uy * vy) / (hypot(ux, uy) * hypot(vx, vy)))
                XCTAssertEqual(shares[i], angle / (2 * .pi), accuracy: 1e-9)
            }
        }
    }

    func testDistanceBetweenHulls() {
        let a = ConvexHull2D(x: [0, 10, 10, 0], y: [0, 0, 10, 10])
        let b = ConvexHull2D(x: [13, 20, 20, 13], y: [4, 4, 6, 6])
        XCTAssertEqual(a.distance(to: b), 3, accuracy: 1e-12)
        // A cross: no vertex inside the other, but they overlap.
        let h = ConvexHull2D(x: [-10, 10, 10, -10], y: [-1, -1, 1, 1])
        let v = ConvexHull2D(x: [-1, 1, 1, -1], y: [-10, -10, 10, 10])
        XCTAssertEqual(h.distance(to: v), 0)
    }
}
