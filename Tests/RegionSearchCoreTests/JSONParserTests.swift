import XCTest

@testable import RegionSearchCore

final class JSONParserTests: XCTestCase {
    func testRoundTripIsDeterministic() throws {
        let text = #"{"b":[1,2.5,-3e-7,true,null],"a":{"s":"x\"y\\z\n","u":"ünï 咖啡"}}"#
        let v = try JSONParser.parse(text)
        XCTAssertEqual(
            v.serialized(sortedKeys: true), #"{"a":{"s":"x\"y\\z\n","u":"ünï 咖啡"},"b":[1,2.5,-3e-07,true,null]}"#)
        XCTAssertEqual(try JSONParser.parse(v.serialized()), v)
    }

    func testErrorsNameLineAndColumn() {
        XCTAssertThrowsError(try JSONParser.parse("{\n  \"a\": 1,\n  \"b\": tru\n}")) { error in
            let e = error as! JSONParseError
            XCTAssertEqual(e.line, 3)
            XCTAssertEqual(e.column, 8)
        }
        XCTAssertThrowsError(try JSONParser.parse(#"{"a":1,"a":2}"#)) { XCTAssertTrue("\($0)".contains("duplicate")) }
        XCTAssertThrowsError(try JSONParser.parse("[1,]"))
        XCTAssertThrowsError(try JSONParser.parse(String(repeating: "[", count: 1000)))
    }
}
