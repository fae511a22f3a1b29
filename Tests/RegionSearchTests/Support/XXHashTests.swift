import XCTest
@testable import RegionSearch

final class SupportTests: XCTestCase {
    func testXXH64KnownVectors() {
        // Reference values from the xxHash specification test vectors.
        XCTAssertEqual(XXHash64.hash(UnsafeRawBufferPointer(start: nil, count: 0)), 0xEF46_DB37_51D8_E999)
        let abc = Array("abc".utf8)
        XCTAssertEqual(abc.withUnsafeBytes { XXHash64.hash($0) }, 0x44BC_2CF5_AD77_0999)
    }
}

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
