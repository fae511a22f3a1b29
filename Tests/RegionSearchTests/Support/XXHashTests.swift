import XCTest
@testable import RegionSearchCore
@testable import RegionSearchModel
@testable import RegionSearchIngest
@testable import RegionSearchProjection
@testable import RegionSearchGraph
@testable import RegionSearchPropagation
@testable import RegionSearchRegions
@testable import RegionSearchOutput
@testable import RegionSearchEvaluation
@testable import RegionSearchSynthetic
@testable import RegionSearchStages
@testable import RegionSearchPipeline
@testable import RegionSearchCLI

final class SupportTests: XCTestCase {
    func testXXH64KnownVectors() {
        // Reference values from the xxHash specification test vectors.
        XCTAssertEqual(XXHash64.hash(UnsafeRawBufferPointer(start: nil, count: 0)), 0xEF46_DB37_51D8_E999)
        let abc = Array("abc".utf8)
        XCTAssertEqual(abc.withUnsafeBytes { XXHash64.hash($0) }, 0x44BC_2CF5_AD77_0999)
    }
}
