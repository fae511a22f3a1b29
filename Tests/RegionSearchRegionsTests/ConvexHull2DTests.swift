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
