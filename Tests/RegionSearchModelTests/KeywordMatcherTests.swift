import XCTest

@testable import RegionSearchModel
@testable import RegionSearchTestSupport

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
        XCTAssertFalse(KeywordMatcher("food").matches(text("fast_food")), "_ joins the words of a tag value")
    }

    /// The case: `parking` is not `bicycle_parking` (on a held-out city all 23 "parking"
    /// regions were bike racks).
    func testUnderscoreJoinsTokens() {
        let parking = KeywordMatcher("parking")
        for value in ["parking", "Parking", "Parking garage", "P+R parking", "parking-garage", "car park; parking"] {
            XCTAssertTrue(parking.matches(text(value)), value)
        }
        for value in ["bicycle_parking", "parking_entrance", "motorcycle_parking", "parking_space", "parkings"] {
            XCTAssertFalse(parking.matches(text(value)), value)
        }
        XCTAssertTrue(parking.matches(text("bicycle_parking", "parking")), "one value that is parking is enough")
        XCTAssertFalse(parking.matches(text("bicycle_parking", "parking_entrance")))
        XCTAssertTrue(KeywordMatcher("bicycle_parking").matches(text("bicycle_parking")))
        XCTAssertFalse(KeywordMatcher("bicycle").matches(text("bicycle_parking")))
        XCTAssertTrue(KeywordMatcher("bank of china").matches(text("Bank of China (Xidan)")))
        XCTAssertFalse(KeywordMatcher("bank of china").matches(text("bank", "of china")), "a query stays in one value")
        // The same text, matched by a brute-force token split (a second implementation).
        let values = [
            "parking", "bicycle_parking", "Parking garage", "parking_entrance", "Bank of China", "banking",
            "embankment", "fast_food", "cafe-bar", "cafe_bar", "a.parking.b", "(bank)",
        ]
        for q in ["parking", "bank", "cafe", "food", "fast_food", "cafe_bar"] {
            for v in values {
                let tokens = KeywordText.normalize(v).split { !($0.isLetter || $0.isNumber || $0 == "_") }
                XCTAssertEqual(KeywordMatcher(q).matches(text(v)), tokens.contains(Substring(q)), "\(q) in \(v)")
            }
        }
    }

    func testStars() {
        XCTAssertTrue(KeywordMatcher("cafe*").matches(text("Cafeteria")))
        XCTAssertTrue(KeywordMatcher("cafe*").matches(text("cafe")))
        XCTAssertFalse(KeywordMatcher("cafe*").matches(text("internet_cafe")))
        XCTAssertTrue(KeywordMatcher("parking*").matches(text("parking_entrance")))
        XCTAssertTrue(KeywordMatcher("*_parking").matches(text("bicycle_parking")))
        XCTAssertTrue(KeywordMatcher("*_parking").matches(text("motorcycle_parking")))
        XCTAssertFalse(KeywordMatcher("*_parking").matches(text("parking")))
        XCTAssertTrue(KeywordMatcher("*park*").matches(text("bicycle_parking")))
        XCTAssertTrue(KeywordMatcher("ＣＡＦＥ＊").matches(text("cafeteria")), "a full-width star is a star")
        XCTAssertFalse(KeywordMatcher("*").matches(text("anything")))
        XCTAssertEqual(KeywordMatcher("*").canonical, "")
    }

    func testQueryParsing() throws {
        XCTAssertEqual(try KeywordQuery("  Cafe* ").canonical, "cafe*")
        XCTAssertEqual(try KeywordQuery("ａｍｅｎｉｔｙ＝ｐａｒｋｉｎｇ").canonical, "amenity=parking")
        XCTAssertEqual(try KeywordQuery("Amenity = Parking").canonical, "amenity=parking")
        XCTAssertEqual(try KeywordQuery("shop=*").canonical, "shop=*")
        XCTAssertEqual(try KeywordQuery("shop=**").canonical, "shop=*")
        XCTAssertEqual(try KeywordQuery("cuisine=*coffee*").canonical, "cuisine=*coffee*")
        XCTAssertEqual(try KeywordQuery("a=b=c").key, "a", "the key ends at the first =")
        XCTAssertEqual(try KeywordQuery("a=b=c").text, "b=c")
        XCTAssertEqual(try KeywordQuery("咖啡").canonical, "咖啡")
        XCTAssertEqual(try KeywordQuery("BANK"), try KeywordQuery("ｂａｎｋ"))
        XCTAssertNotEqual(try KeywordQuery("bank"), try KeywordQuery("bank*"))
        XCTAssertNotEqual(try KeywordQuery("parking"), try KeywordQuery("amenity=parking"))
        let bad: [(String, KeywordQueryError)] = [
            ("", .empty("")), ("  \t", .empty("  \t")), ("*", .onlyWildcard("*")), ("**", .onlyWildcard("**")),
            (" * ", .onlyWildcard(" * ")), ("=parking", .noKey("=parking")), ("amenity=", .noValue("amenity=")),
            ("amenity= ", .noValue("amenity= ")), ("a*=b", .wildcardKey("a*=b")),
        ]
        for (q, error) in bad {
            XCTAssertThrowsError(try KeywordQuery(q), q) { XCTAssertEqual($0 as? KeywordQueryError, error, q) }
        }
        XCTAssertEqual(
            KeywordQueryError.onlyWildcard("*").description,
            "\"*\" is only a wildcard, which would match every POI; give a word (cafe* matches words that start "
                + "with cafe)"
        )
    }

    func testKeyCodes() {
        XCTAssertEqual(KeywordText.keyCode(0), [0x01])
        XCTAssertEqual(KeywordText.keyCode(8), [0x09])
        XCTAssertEqual(KeywordText.keyCode(9), [0x0B], "0x0A separates values and is no digit")
        XCTAssertEqual(KeywordText.keyCode(29), [0x1F])
        XCTAssertEqual(KeywordText.keyCode(30), [0x02, 0x01])
        var seen = Set<[UInt8]>()
        for i in 0..<3000 {
            let code = KeywordText.keyCode(i)
            XCTAssertTrue(code.allSatisfy(KeywordText.isKeyCodeByte))
            XCTAssertEqual(KeywordText.keyIndex(code), i)
            XCTAssertTrue(seen.insert(code).inserted)
        }
    }

    /// Keyword text with keys, as ingest writes it: `(key index, value)`, nil for no key.
    private func keyed(_ items: (Int?, String)...) -> String {
        items.map { (k, v) in
            (k.map { String(decoding: KeywordText.keyCode($0), as: UTF8.self) } ?? "") + KeywordText.normalize(v)
        }.joined(separator: "\n")
    }

    func testKeyValueQueries() {
        let keys = ["amenity", "parking", "shop", "cuisine", "name"]
        let lot = keyed((0, "parking"), (1, "surface"))
        let racks = keyed((0, "bicycle_parking"))
        let shop = keyed((2, "shop"))
        let food = keyed((0, "restaurant"), (3, "pizza"), (3, "burger"), (4, "Parking Pizza"))
        func m(_ q: String, _ t: String) -> Bool { KeywordMatcher(q, keys: keys).matches(t) }
        XCTAssertTrue(m("amenity=parking", lot))
        XCTAssertTrue(m("parking=surface", lot))
        XCTAssertFalse(m("amenity=surface", lot))
        XCTAssertFalse(m("parking=parking", lot))
        XCTAssertFalse(m("amenity=parking", racks), "exact value")
        XCTAssertTrue(m("amenity=bicycle_parking", racks))
        XCTAssertTrue(m("amenity=*parking", racks))
        XCTAssertTrue(m("amenity=*", racks))
        XCTAssertFalse(m("shop=*", racks))
        XCTAssertTrue(m("shop=yes", shop), "OSM's yes is stored as the key")
        XCTAssertTrue(m("shop=shop", shop))
        XCTAssertTrue(m("cuisine=burger", food))
        XCTAssertFalse(m("cuisine=pizza;burger", food))
        XCTAssertTrue(m("name=parking pizza", food))
        XCTAssertFalse(m("name=parking", food))
        XCTAssertTrue(m("ＡＭＥＮＩＴＹ=Restaurant", food))
        // Plain queries see values, never keys.
        XCTAssertTrue(m("parking", lot))
        XCTAssertTrue(m("surface", lot))
        XCTAssertFalse(m("amenity", lot))
        XCTAssertFalse(m("parking", racks))
        XCTAssertTrue(m("parking", food), "free-text token match in the name")
        // A key not in the table matches nothing, and says so.
        XCTAssertFalse(m("fclass=parking", lot))
        XCTAssertFalse(KeywordMatcher("fclass=parking", keys: keys).isKeyKnown)
        XCTAssertTrue(KeywordMatcher("amenity=parking", keys: keys).isKeyKnown)
        XCTAssertTrue(KeywordMatcher("parking").isKeyKnown)
        XCTAssertEqual(
            KeywordText.readable(food, keys: keys),
            "amenity=restaurant\ncuisine=pizza\ncuisine=burger\nname=parking pizza")
        XCTAssertEqual(KeywordText.values(lot), ["parking", "surface"])
    }

    /// Codes of several bytes: a key's code is anchored at the start of its value, so key 0
    /// (one byte, 0x01) does not match inside the code of key 30 (0x02 0x01).
    func testMultiByteKeyCodes() {
        let keys = (0...40).map { "k\($0)" }
        let t = keyed((30, "parking"), (nil, "x"))
        XCTAssertTrue(KeywordMatcher("k30=parking", keys: keys).matches(t))
        XCTAssertFalse(KeywordMatcher("k0=parking", keys: keys).matches(t))
        XCTAssertFalse(KeywordMatcher("k1=parking", keys: keys).matches(t))
        XCTAssertTrue(KeywordMatcher("parking", keys: keys).matches(t))
        XCTAssertFalse(KeywordMatcher("k0=x", keys: keys).matches(t))
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

    func testCompatibilityAndCaseInQueriesAndText() {
        XCTAssertTrue(KeywordMatcher("ＣＡＦＥ").matches(text("Cafe")))
        XCTAssertTrue(KeywordMatcher("cafe").matches(text("ＣＡＦＥ ｂａｒ")))
        XCTAssertTrue(KeywordMatcher("⽕锅").matches(text("火锅店")))
        XCTAssertTrue(KeywordMatcher("火锅").matches(text("⽕锅")))
        XCTAssertTrue(KeywordMatcher("STRASSE").matches(text("Straße")))
        XCTAssertTrue(KeywordMatcher("火锅").matches(text("餐饮服务;中餐厅;火锅店")))
        XCTAssertTrue(KeywordMatcher("咖啡").matches(text("瑞幸咖啡")))
        XCTAssertTrue(KeywordMatcher("咖啡").matches(text("咖啡_shop")))
    }

    func testEmptyTextAndQuery() {
        XCTAssertFalse(KeywordMatcher("cafe").matches(""))
        XCTAssertFalse(KeywordMatcher("").matches("cafe"))
    }
}
