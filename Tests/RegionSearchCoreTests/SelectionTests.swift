import XCTest

@testable import RegionSearchCore

final class SelectionTests: XCTestCase {
    func testKthSmallestAndMedianAgreeWithSorting() {
        var rng = SeededRandom(seed: 5)
        for n in [1, 2, 3, 10, 101, 1000] {
            let values = (0..<n).map { _ in (rng.uniform() * 20).rounded() }  // many ties
            let sorted = values.sorted()
            for k in [0, n / 3, n / 2, n - 1] {
                var copy = values
                XCTAssertEqual(Selection.kthSmallest(&copy, k), sorted[k], "n \(n) k \(k)")
            }
            let median = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2
            XCTAssertEqual(Selection.median(values), median, "n \(n)")
        }
        XCTAssertEqual(Selection.median([]), 0)
    }
}
