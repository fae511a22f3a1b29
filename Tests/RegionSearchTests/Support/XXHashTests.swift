import XCTest

@testable import RegionSearchCLI
@testable import RegionSearchCore
@testable import RegionSearchEvaluation
@testable import RegionSearchGraph
@testable import RegionSearchIngest
@testable import RegionSearchModel
@testable import RegionSearchOutput
@testable import RegionSearchPipeline
@testable import RegionSearchProjection
@testable import RegionSearchPropagation
@testable import RegionSearchRegions
@testable import RegionSearchStages
@testable import RegionSearchSynthetic

final class SupportTests: XCTestCase {
    func testXXH64KnownVectors() {
        // Reference values from the xxHash specification test vectors.
        XCTAssertEqual(XXHash64.hash(UnsafeRawBufferPointer(start: nil, count: 0)), 0xEF46_DB37_51D8_E999)
        let abc = Array("abc".utf8)
        XCTAssertEqual(abc.withUnsafeBytes { XXHash64.hash($0) }, 0x44BC_2CF5_AD77_0999)
    }
}
