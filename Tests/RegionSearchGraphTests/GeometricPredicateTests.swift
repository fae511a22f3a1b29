import XCTest

@testable import RegionSearchGraph
@testable import RegionSearchTestSupport

/// The adaptive predicates against exact big-integer evaluation on inputs built to defeat plain
/// floating point: nearly collinear and nearly cocircular points, near and far from the origin.
final class GeometricPredicateTests: XCTestCase {
    private func sign(_ v: Double) -> Int { v > 0 ? 1 : (v < 0 ? -1 : 0) }

    private func naiveOrient(_ ax: Double, _ ay: Double, _ bx: Double, _ by: Double, _ cx: Double, _ cy: Double)
        -> Double
    {
        (ax - cx) * (by - cy) - (ay - cy) * (bx - cx)
    }

    /// Kettner et al.'s classroom example: a 256×256 ulp grid of points p around (0.5, 0.5)
    /// against the line through (12, 12) and (24, 24).
    func testOrientOnUlpGridNearALine() {
        var naiveWrong = 0
        for base in [(0.5, 0.5), (500_000.5, 500_000.5)] {
            let (bx, by) = base
            let q = (bx + 11.5, by + 11.5)
            let r = (bx + 23.5, by + 23.5)
            var px = bx
            for _ in 0..<256 {
                var py = by
                for _ in 0..<256 {
                    let exact = ExactPredicates.orient(px, py, q.0, q.1, r.0, r.1)
                    XCTAssertEqual(
                        sign(GeometricPredicates.orient2d(px, py, q.0, q.1, r.0, r.1)), exact, "p = (\(px), \(py))")
                    // Every rotation of the arguments has the same sign, and swapping flips it.
                    XCTAssertEqual(sign(GeometricPredicates.orient2d(q.0, q.1, r.0, r.1, px, py)), exact)
                    XCTAssertEqual(sign(GeometricPredicates.orient2d(q.0, q.1, px, py, r.0, r.1)), -exact)
                    if sign(naiveOrient(px, py, q.0, q.1, r.0, r.1)) != exact { naiveWrong += 1 }
                    py = py.nextUp
                }
                px = px.nextUp
            }
        }
        // The inputs are adversarial: plain evaluation gets many of them wrong.
        XCTAssertGreaterThan(naiveWrong, 1000)
    }

    /// Points on random lines with inexact slopes (rounded to doubles), and on dyadic lines
    /// (exactly collinear), perturbed by a few ulps or not at all.
    func testOrientNearlyCollinearRandom() {
        var r = GraphTestRandom(seed: 11)
        var zero = 0
        for trial in 0..<20_000 {
            let scale = [1.0, 1e3, 1e6][r.below(3)]
            var ax = (r.uniform() - 0.5) * scale
            var ay = (r.uniform() - 0.5) * scale
            var bx = (r.uniform() - 0.5) * scale
            var by = (r.uniform() - 0.5) * scale
            var cx: Double
            var cy: Double
            if trial % 4 == 0 {
                // Multiples of 1/64 and an integer step: c is exactly on the line ab.
                (ax, ay, bx, by) = (
                    (ax * 64).rounded() / 64, (ay * 64).rounded() / 64, (bx * 64).rounded() / 64,
                    (by * 64).rounded() / 64
                )
                let step = Double(r.below(5)) - 2
                (cx, cy) = (ax + step * (bx - ax), ay + step * (by - ay))
            } else {
                let t = r.uniform() * 3 - 1
                (cx, cy) = (ax + t * (bx - ax), ay + t * (by - ay))
            }
            // (Zero stays zero: the predicates' domain excludes subnormal numbers.)
            for _ in 0..<r.below(3) where cx != 0 { cx = r.below(2) == 0 ? cx.nextUp : cx.nextDown }
            for _ in 0..<r.below(3) where cy != 0 { cy = r.below(2) == 0 ? cy.nextUp : cy.nextDown }
            let exact = ExactPredicates.orient(ax, ay, bx, by, cx, cy)
            if exact == 0 { zero += 1 }
            XCTAssertEqual(sign(GeometricPredicates.orient2d(ax, ay, bx, by, cx, cy)), exact)
        }
        XCTAssertGreaterThan(zero, 100, "exactly collinear cases should occur")
    }

    /// Exactly cocircular integer points (on circles of radius 5, 25, 65 and 1105), shifted by
    /// offsets that keep them exact or not, with the fourth point moved by a few ulps.
    func testIncircleNearlyCocircular() {
        let circles: [[(Double, Double)]] = [
            [(3, 4), (-4, 3), (-3, -4), (5, 0), (0, -5), (4, -3)],
            [(7, 24), (-24, 7), (-15, -20), (20, -15), (25, 0), (0, 25)],
            [(16, 63), (-63, 16), (-33, -56), (56, -33), (39, 52), (-52, -39)],
            [(47, 1104), (-1104, 47), (-744, -817), (817, -744), (1105, 0), (-468, 1001)],
        ]
        var r = GraphTestRandom(seed: 5)
        var naiveWrong = 0
        var zeros = 0
        var total = 0
        for circle in circles {
            for offset in [(0.0, 0.0), (500_000.0, 6_600_000.0), (0.1, 0.7), (123_456.789, 9_876_543.21)] {
                for _ in 0..<600 {
                    var pts = (0..<4).map { _ in circle[r.below(circle.count)] }
                    if Set(pts.map { "\($0)" }).count < 4 { continue }
                    pts = pts.map { ($0.0 + offset.0, $0.1 + offset.1) }
                    var (dx, dy) = pts[3]
                    // (Zero stays zero: the predicates' domain excludes subnormal numbers.)
                    for _ in 0..<r.below(3) where dx != 0 { dx = r.below(2) == 0 ? dx.nextUp : dx.nextDown }
                    for _ in 0..<r.below(3) where dy != 0 { dy = r.below(2) == 0 ? dy.nextUp : dy.nextDown }
                    let exact = ExactPredicates.incircle(
                        pts[0].0, pts[0].1, pts[1].0, pts[1].1, pts[2].0, pts[2].1, dx, dy)
                    let adaptive = GeometricPredicates.incircle(
                        pts[0].0, pts[0].1, pts[1].0, pts[1].1, pts[2].0, pts[2].1, dx, dy)
                    XCTAssertEqual(sign(adaptive), exact, "\(pts) d = (\(dx), \(dy))")
                    let naive = naiveIncircle(pts[0], pts[1], pts[2], (dx, dy))
                    if sign(naive) != exact { naiveWrong += 1 }
                    if exact == 0 { zeros += 1 }
                    total += 1
                }
            }
        }
        XCTAssertGreaterThan(zeros, 100)
        XCTAssertGreaterThan(naiveWrong, 50, "inputs should defeat plain floating point")
        XCTAssertGreaterThan(total, 2000)
    }

    /// Exercises the fully exact in-circle path: inexact differences (coordinates with many
    /// significant bits far from the origin) and near-cocircular configurations.
    func testIncircleExactPathAgreesWithBigIntegers() {
        var r = GraphTestRandom(seed: 77)
        for _ in 0..<3000 {
            let cx = 500_000 + r.uniform()
            let cy = 6_600_000 + r.uniform()
            let radius = 0.001 + r.uniform() * 10
            var pts: [(Double, Double)] = []
            for _ in 0..<4 {
                let a = r.uniform() * 2 * Double.pi
                pts.append((cx + radius * cos(a), cy + radius * sin(a)))
            }
            let exact = ExactPredicates.incircle(
                pts[0].0, pts[0].1, pts[1].0, pts[1].1, pts[2].0, pts[2].1, pts[3].0, pts[3].1)
            XCTAssertEqual(
                sign(
                    GeometricPredicates.incircle(
                        pts[0].0, pts[0].1, pts[1].0, pts[1].1, pts[2].0, pts[2].1, pts[3].0, pts[3].1)),
                exact)
            XCTAssertEqual(
                sign(
                    GeometricPredicates.incircleExact(
                        pts[0].0, pts[0].1, pts[1].0, pts[1].1, pts[2].0, pts[2].1, pts[3].0, pts[3].1)),
                exact)
        }
    }

    /// General-position random inputs: the fast path must agree too.
    func testRandomInputsAgree() {
        var r = GraphTestRandom(seed: 3)
        for _ in 0..<5000 {
            let p = (0..<8).map { _ in r.uniform() * 1000 }
            XCTAssertEqual(
                sign(GeometricPredicates.orient2d(p[0], p[1], p[2], p[3], p[4], p[5])),
                ExactPredicates.orient(p[0], p[1], p[2], p[3], p[4], p[5]))
            XCTAssertEqual(
                sign(GeometricPredicates.incircle(p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7])),
                ExactPredicates.incircle(p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7]))
        }
    }

    /// two-sum, two-product and expansion products against big-integer arithmetic.
    func testExpansionPrimitivesAreExact() {
        var r = GraphTestRandom(seed: 9)
        for _ in 0..<3000 {
            let a = (r.uniform() - 0.5) * pow(2, Double(r.below(60)) - 30)
            let b = (r.uniform() - 0.5) * pow(2, Double(r.below(60)) - 30)
            let (s, t) = ExpansionArithmetic.twoSum(a, b)
            let v = ExactInteger.scaled([a, b, s, t])
            XCTAssertEqual(v[0] + v[1], v[2] + v[3], "twoSum(\(a), \(b))")
            let (x, y) = ExpansionArithmetic.twoProduct(a, b)
            let (w, e) = ExactInteger.scaledWithUnit([a, b, x, y])
            // a·b = A·B·2^(2e) and x + y = (X + Y)·2^e, with e < 0 here.
            XCTAssertLessThan(e, 0)
            XCTAssertEqual(w[0] * w[1], (w[2] + w[3]).shifted(left: -e), "twoProduct(\(a), \(b))")
            // A three-term expansion product, summed back exactly, equals the big-integer product.
            let c = r.uniform() * 1e6
            let p = ExpansionArithmetic.product(
                ExpansionArithmetic.difference(c, a), ExpansionArithmetic.difference(b, c))
            let exact = ExactInteger.scaled([c, a, b])
            let expected = (exact[0] - exact[1]) * (exact[2] - exact[0])
            XCTAssertEqual(
                ExpansionArithmetic.sign(p) > 0 ? 1 : (ExpansionArithmetic.sign(p) < 0 ? -1 : 0), expected.signum)
        }
    }
}

private func naiveIncircle(_ a: (Double, Double), _ b: (Double, Double), _ c: (Double, Double), _ d: (Double, Double))
    -> Double
{
    let adx = a.0 - d.0
    let ady = a.1 - d.1
    let bdx = b.0 - d.0
    let bdy = b.1 - d.1
    let cdx = c.0 - d.0
    let cdy = c.1 - d.1
    return (adx * adx + ady * ady) * (bdx * cdy - cdx * bdy) + (bdx * bdx + bdy * bdy) * (cdx * ady - adx * cdy)
        + (cdx * cdx + cdy * cdy) * (adx * bdy - bdx * ady)
}
