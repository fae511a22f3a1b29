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

final class KeywordMatcherTests: XCTestCase {
    private func text(_ values: String...) -> String {
        var n = KeywordNormalizer()
        return n.join(values)
    }

    func testNormalisationIsNFKCAndCaseFolding() {
        XCTAssertEqual(KeywordText.normalize("ＣＡＦＥ"), "cafe")
        XCTAssertEqual(KeywordText.normalize("⽕锅"), "火锅")
        XCTAssertEqual(KeywordText.normalize("Straße"), "strasse")
        XCTAssertEqual(KeywordText.normalize("  Fast\tFood\n "), "fast food")
        XCTAssertEqual(KeywordText.normalize("Кофейни"), "кофейни")
        XCTAssertEqual(KeywordText.normalize("ﬁsh"), "fish")
    }

    func testLatinWordBoundaries() {
        let bank = KeywordMatcher("bank")
        XCTAssertTrue(bank.matches(text("Bank")))
        XCTAssertTrue(bank.matches(text("Bank of China")))
        XCTAssertTrue(bank.matches(text("shop", "bank")))
        XCTAssertFalse(bank.matches(text("embankment")))
        XCTAssertFalse(bank.matches(text("banking")))
        XCTAssertTrue(KeywordMatcher("bank*").matches(text("banking")))
        XCTAssertTrue(
            KeywordMatcher("*food").matches(text("fast_food")) || KeywordMatcher("*food").matches(text("seafood")))
        XCTAssertTrue(KeywordMatcher("fast_food").matches(text("fast_food")))
        XCTAssertFalse(KeywordMatcher("cafe").matches(text("cafeteria")))
    }

    func testCompatibilityFormsMatch() {
        XCTAssertTrue(KeywordMatcher("cafe").matches(text("ＣＡＦＥ")))
        XCTAssertTrue(KeywordMatcher("ＣＡＦＥ").matches(text("cafe")))
        XCTAssertTrue(KeywordMatcher("火锅").matches(text("⽕锅店")))
        XCTAssertTrue(KeywordMatcher("⽕锅").matches(text("餐饮服务", "中餐厅", "火锅店")))
    }

    func testCJKHasNoWordBoundaries() {
        XCTAssertTrue(KeywordMatcher("咖啡").matches(text("瑞幸咖啡")))
        XCTAssertTrue(KeywordMatcher("咖啡").matches(text("manner咖啡")))
        XCTAssertTrue(KeywordMatcher("美食").matches(text("美食城")))
        XCTAssertFalse(KeywordMatcher("银行").matches(text("bank")))
        // A CJK query edge next to Latin letters still matches (no boundary in CJK).
        XCTAssertTrue(KeywordMatcher("咖啡").matches(text("coffee咖啡house")))
    }

    func testCyrillicWords() {
        XCTAssertTrue(KeywordMatcher("Кофейни").matches(text("Пекарни", "Кофейни")))
        XCTAssertFalse(KeywordMatcher("кафе").matches(text("кафетерий")))
        XCTAssertTrue(KeywordMatcher("кафе").matches(text("кафе быстрого питания")))
    }

    func testEmptyTextAndQuery() {
        XCTAssertFalse(KeywordMatcher("cafe").matches(""))
        XCTAssertFalse(KeywordMatcher("").matches("cafe"))
    }
}
