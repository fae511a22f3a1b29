import XCTest

@testable import RegionSearchRegions

final class SignificanceTests: XCTestCase {
    /// P(X ≥ k) by direct summation of binomial terms (exact enough for n ≤ 60).
    private func bruteTail(k: Int, n: Int, p: Double) -> Double {
        var total = 0.0
        for j in k...n {
            var c = 1.0
            for t in 0..<j { c = c * Double(n - t) / Double(t + 1) }
            total += c * pow(p, Double(j)) * pow(1 - p, Double(n - j))
        }
        return total
    }

    func testBinomialTailAgainstDirectSum() {
        for (n, p) in [(10, 0.03), (40, 0.11), (60, 0.5), (25, 0.9)] {
            for k in 1...n {
                let exact = bruteTail(k: k, n: n, p: p)
                let got = exp(Significance.logUpperTail(k: k, n: n, p: p))
                XCTAssertEqual(got, exact, accuracy: max(1e-12, exact * 1e-9), "n \(n) p \(p) k \(k)")
            }
        }
    }

    func testTinyTailsDoNotUnderflowInLogSpace() {
        let l = Significance.logUpperTail(k: 900, n: 1000, p: 0.03)
        XCTAssertTrue(l.isFinite)
        XCTAssertLessThan(l, -2000)
    }

    func testWindowsCorrectionAndCap() {
        XCTAssertEqual(Significance.pValue(k: 0, n: 10, p: 0.1, windows: 100), 1)
        let raw = exp(Significance.logUpperTail(k: 5, n: 10, p: 0.1))
        XCTAssertEqual(
            Significance.pValue(k: 5, n: 10, p: 0.001, windows: 10),
            exp(Significance.logUpperTail(k: 5, n: 10, p: 0.001)) * 10 * Significance.shapesPerWindow, accuracy: 1e-15)
        XCTAssertEqual(
            Significance.pValue(k: 5, n: 10, p: 0.1, windows: 10), min(1, raw * 10 * Significance.shapesPerWindow))
    }

    func testBenjaminiHochbergMatchesReferenceValues() {
        // R: p.adjust(c(0.01, 0.04, 0.03, 0.005, 0.5), "BH") = 0.025 0.05 0.05 0.025 0.5
        let q = Significance.benjaminiHochberg([0.01, 0.04, 0.03, 0.005, 0.5])
        let expected = [0.025, 0.05, 0.05, 0.025, 0.5]
        for (a, b) in zip(q, expected) { XCTAssertEqual(a, b, accuracy: 1e-12) }
    }
}
