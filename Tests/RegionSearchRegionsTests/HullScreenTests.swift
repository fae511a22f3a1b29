import XCTest

@testable import RegionSearchCore
@testable import RegionSearchRegions

/// The quick answers of ``HullScreen`` are the edge tests' answers, wherever it gives one.
final class HullScreenTests: XCTestCase {
    /// Random hulls (round, long, needle-thin, with edges under a metre, at UTM magnitudes) and
    /// points all round them, near their edges and corners included: every answer the screen gives
    /// equals `contains` and `distance <= width`, and it answers most points.
    func testAnswersAreTheEdgeTestsAnswers() {
        var rng = SeededRandom(seed: 17)
        var answered = 0
        var asked = 0
        for shape in 0..<60 {
            let (ox, oy) = shape % 2 == 0 ? (0.0, 0.0) : (500_000.0, 4_400_000.0)
            let n = 3 + rng.below(40)
            let stretch = [1.0, 8.0, 2_000.0][shape % 3]
            let size = [0.5, 30.0, 800.0][(shape / 3) % 3]
            let angle = rng.uniform(0, Double.pi)
            var px: [Double] = []
            var py: [Double] = []
            for _ in 0..<n {
                let u = rng.uniform(-1, 1) * size * stretch.squareRoot()
                let v = rng.uniform(-1, 1) * size / stretch.squareRoot()
                px.append(ox + u * cos(angle) - v * sin(angle))
                py.append(oy + u * sin(angle) + v * cos(angle))
            }
            let hull = ConvexHull2D(x: px, y: py)
            let screen = HullScreen(hull)
            let width = 2 * max((hull.area / Double.pi).squareRoot(), size * 0.1)
            let reach = size * stretch.squareRoot() + 2 * width
            var probes: [(Double, Double)] = []
            for _ in 0..<400 {
                probes.append((ox + rng.uniform(-reach, reach), oy + rng.uniform(-reach, reach)))
            }
            // Points on and just off the corners and edges, and just off the width's band.
            for i in 0..<hull.count {
                let j = (i + 1) % hull.count
                for t in [0.0, 0.5, 1.0] {
                    let (ex, ey) = (hull.x[i] + t * (hull.x[j] - hull.x[i]), hull.y[i] + t * (hull.y[j] - hull.y[i]))
                    for d in [-1e-4, 0, 1e-7, 1e-4, 1e-2] {
                        probes.append((ex + d, ey + d))
                        probes.append((ex - d, ey + d))
                    }
                }
            }
            for (x, y) in probes {
                asked += 1
                if let inside = screen.inside(x, y, tolerance: 1e-6) {
                    answered += 1
                    XCTAssertEqual(inside, hull.contains(x, y, tolerance: 1e-6), "shape \(shape) at \(x), \(y)")
                }
                if let near = screen.within(width, x, y) {
                    XCTAssertEqual(near, hull.distance(x, y) <= width, "shape \(shape) at \(x), \(y)")
                }
            }
        }
        XCTAssertGreaterThan(
            Double(answered), 0.4 * Double(asked),
            "the screen answers most points (a third of the probes lie at the edges on purpose)")
    }

    /// A needle 1 km long and 1 m wide: 1.5 mm beyond its sharp tip a point is outside it but
    /// within `contains`' tolerance of both long edges' lines (7.5e-7 m from each), so `contains`
    /// says inside; the screen must leave it to the edges although it is beyond the outer disc.
    func testNeedleTipIsLeftToTheEdges() {
        let hull = ConvexHull2D(x: [0, 1_000, 1_000], y: [0, -0.5, 0.5])
        let screen = HullScreen(hull)
        let (x, y) = (-0.0015, 0.0)
        XCTAssertTrue(hull.contains(x, y, tolerance: 1e-6))
        XCTAssertNil(screen.inside(x, y, tolerance: 1e-6))
        // Far beyond the tip the screen knows.
        XCTAssertEqual(screen.inside(-10, 0, tolerance: 1e-6), false)
        // Degenerate hulls get no screen.
        XCTAssertNil(HullScreen(ConvexHull2D(x: [0, 1], y: [0, 1])).inside(0.5, 0.5, tolerance: 1e-6))
        XCTAssertNil(HullScreen(ConvexHull2D(x: [0, 1], y: [0, 1])).within(1, 5, 5))
    }

    /// A needle of four corners, every edge about 1 km, tips of about 5e-13 rad: 1 − cos θ rounds
    /// to a few ulps there, which read as an angle of 1e-8. 167 km beyond the tip a point is
    /// within the edge test's tolerance of every edge's line, so `contains` says inside; the
    /// screen must not say outside.
    func testANeedleWithLongEdgesIsLeftToTheEdges() {
        let hull = ConvexHull2D(
            x: [-1999.3704655618017, -999.6852327808945, 0.0, -999.6852327809072],
            y: [-50.17710074510767, -25.088550372808534, 0.0, -25.088550372299142])
        let (px, py) = (167504.07374849528, 4203.757596935651)
        let inside = HullScreen(hull).inside(px, py, tolerance: 1e-6)
        XCTAssertTrue(inside == nil || inside == hull.contains(px, py, tolerance: 1e-6))
        XCTAssertTrue(hull.contains(px, py, tolerance: 1e-6))
        // The half-angle bound: right for a right angle, and 0 (unknown) for a needle's tip.
        XCTAssertEqual(HullScreen.halfAngleSine(1, 0, 0, 1, 1, 1, scale: 0), (0.5).squareRoot(), accuracy: 1e-12)
        XCTAssertEqual(HullScreen.halfAngleSine(1_000, 0, 1_000, 1e-10, 1_000, 1_000, scale: 0), 0)
    }
}
