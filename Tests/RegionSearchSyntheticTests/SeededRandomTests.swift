import XCTest

@testable import RegionSearchCore

final class SeededRandomTests: XCTestCase {
    func testMatchesReferenceXoshiro256StarStar() {
        // Reference C implementation (Blackman & Vigna) from state {1, 2, 3, 4}.
        var r = SeededRandom(state: (1, 2, 3, 4))
        XCTAssertEqual([r.next(), r.next(), r.next(), r.next()], [11520, 0, 1_509_978_240, 1_215_971_899_390_074_240])
    }

    func testUniformAndNormalMoments() {
        var r = SeededRandom(seed: 42)
        var sum = 0.0
        var sumSq = 0.0
        var nsum = 0.0
        var nsq = 0.0
        let n = 200_000
        for _ in 0..<n {
            let u = r.uniform()
            XCTAssertTrue(u >= 0 && u < 1)
            sum += u
            sumSq += u * u
            let z = r.normal()
            nsum += z
            nsq += z * z
        }
        XCTAssertEqual(sum / Double(n), 0.5, accuracy: 0.005)
        XCTAssertEqual(sumSq / Double(n) - 0.25, 1.0 / 12, accuracy: 0.005)
        XCTAssertEqual(nsum / Double(n), 0, accuracy: 0.01)
        XCTAssertEqual(nsq / Double(n), 1, accuracy: 0.01)
    }

    func testConsecutiveDrawsAreUncorrelated() {
        // Lag-1 correlation of a fair generator is ~0 (|r| < 4/√n with overwhelming probability).
        var r = SeededRandom(seed: 7)
        let n = 200_000
        var prev = r.uniform()
        var sxy = 0.0
        var sx = 0.0
        var sy = 0.0
        var sxx = 0.0
        var syy = 0.0
        for _ in 0..<n {
            let cur = r.uniform()
            sxy += prev * cur
            sx += prev
            sy += cur
            sxx += prev * prev
            syy += cur * cur
            prev = cur
        }
        let nn = Double(n)
        let corr =
            (sxy / nn - sx / nn * sy / nn)
            / ((sxx / nn - pow(sx / nn, 2)).squareRoot() * (syy / nn - pow(sy / nn, 2)).squareRoot())
        XCTAssertLessThan(abs(corr), 4 / nn.squareRoot())
    }
}
