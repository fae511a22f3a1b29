import XCTest

@testable import RegionSearchCore

/// ``JSONParser`` on RFC 8259's edge cases, in the manner of JSONTestSuite: `y_` inputs must
/// parse (to the value given), `n_` inputs must be rejected (with the reason given). Where the
/// RFC leaves a choice to the parser (`i_` in JSONTestSuite), the test records this parser's.
final class JSONConformanceTests: XCTestCase {
    private func parse(_ bytes: [UInt8]) throws(JSONParseError) -> JSONValue {
        try bytes.withUnsafeBufferPointer { b throws(JSONParseError) in try JSONParser.parse(bytes: b) }
    }

    private func accepts(_ text: String, _ expected: JSONValue, file: StaticString = #filePath, line: UInt = #line) {
        accepts(Array(text.utf8), expected, file: file, line: line)
    }

    private func accepts(_ bytes: [UInt8], _ expected: JSONValue, file: StaticString = #filePath, line: UInt = #line) {
        do {
            let value = try parse(bytes)
            XCTAssertEqual(value, expected, "\(bytes)", file: file, line: line)
        } catch {
            XCTFail(
                "y_ \(String(decoding: bytes, as: UTF8.self).debugDescription) rejected: \(error)", file: file,
                line: line)
        }
    }

    /// The error `bytes` give (nil, and a test failure, when they parse).
    private func rejection(_ bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line) -> JSONParseError? {
        do {
            let v = try parse(bytes)
            XCTFail(
                "n_ \(String(decoding: bytes, as: UTF8.self).debugDescription) accepted as \(v)", file: file, line: line
            )
            return nil
        } catch {
            return error
        }
    }

    private func rejects(_ text: String, _ reason: String, file: StaticString = #filePath, line: UInt = #line) {
        rejects(Array(text.utf8), reason, file: file, line: line)
    }

    private func rejects(_ bytes: [UInt8], _ reason: String, file: StaticString = #filePath, line: UInt = #line) {
        guard let e = rejection(bytes, file: file, line: line) else { return }
        XCTAssertEqual(
            e.reason, reason, String(decoding: bytes, as: UTF8.self).debugDescription, file: file, line: line)
    }

    func testNumbers() throws {
        accepts("0", .number(0))
        accepts("-0", .number(-0.0))
        XCTAssertEqual(try JSONParser.parse("-0").doubleValue?.sign, .minus, "y_number_negative_zero keeps its sign")
        XCTAssertEqual(try JSONParser.parse("[-0.0e0]").arrayValue?[0].doubleValue?.sign, .minus)
        accepts("-1", .number(-1))
        accepts("1.5", .number(1.5))
        accepts("1E2", .number(100))
        accepts("1e+2", .number(100))
        accepts("1E-2", .number(0.01))
        accepts("0e1", .number(0))
        accepts("123456789012345678901234567890", .number(1.2345678901234568e29))
        accepts("[123e-10000000]", .array([.number(0)]))
        // i_number_real_underflow: too small is zero; i_number_huge_exp / real_pos_overflow: too
        // large is an error, since a Double cannot hold it and JSON has no infinity.
        accepts("1e-400", .number(0))
        rejects("1E400", "number out of range")
        rejects("-1e400", "number out of range")
        rejects("[1.5e999]", "number out of range")
        // n_number_*
        rejects("01", "unexpected text after the JSON value")
        rejects("[-01]", "expected ',' or ']' in array")
        rejects("[00]", "expected ',' or ']' in array")
        rejects(".5", "unexpected character '.', expected a value")
        rejects("[-.5]", "invalid number")
        rejects("1.", "expected digits after '.' in number")
        rejects("[1.e3]", "expected digits after '.' in number")
        rejects("1e", "expected digits in exponent")
        rejects("1e+", "expected digits in exponent")
        rejects("+1", "unexpected character '+', expected a value")
        rejects("-", "truncated number")
        rejects("[-a]", "invalid number")
        rejects("0x10", "unexpected text after the JSON value")
        rejects("NaN", "unexpected character 'N', expected a value")
        rejects("[Infinity]", "unexpected character 'I', expected a value")
        rejects("[-Infinity]", "invalid number")
        rejects("1 000", "unexpected text after the JSON value")
    }

    func testStrings() throws {
        accepts(#""""#, .string(""))
        accepts(#""\"\\\/\b\f\n\r\t""#, .string("\"\\/\u{8}\u{C}\n\r\t"))
        accepts(#""\u00e9\u4E2D""#, .string("é中"))
        accepts(#""\u0000""#, .string("\u{0}"))
        accepts("\"\u{7F}\"", .string("\u{7F}"))  // DEL is not a control character for JSON
        accepts("\"咖啡 😀\"", .string("咖啡 😀"))
        // Escaped surrogate pairs (y_string_surrogates_U+1D11E_MUSICAL_SYMBOL_G_CLEF and friends).
        accepts(#""\uD834\uDD1E""#, .string("𝄞"))
        accepts(#""\ud83d\ude00x""#, .string("😀x"))
        // Lone or broken surrogates (JSONTestSuite's i_string_1st_surrogate_but_2nd_missing, …):
        // rejected, since a Swift String cannot hold them.
        rejects(#""\ud800""#, "unpaired surrogate in \\u escape")
        rejects(#""\uDC00""#, "unpaired surrogate in \\u escape")
        rejects(#""\ud800abcdef""#, "unpaired surrogate in \\u escape")
        rejects(#""\ud800\u0041""#, "invalid low surrogate in \\u escape")
        rejects(#""\uDBFF\uDBFF""#, "invalid low surrogate in \\u escape")
        // n_string_*
        for c: UInt8 in [0x00, 0x01, 0x09, 0x0A, 0x0D, 0x1F] {
            rejects([0x22, 0x61, c, 0x22], "control character in string (must be escaped)")
        }
        rejects(#""\x41""#, "invalid escape '\\x'")
        rejects(#""\'""#, "invalid escape '\\''")
        rejects(#"["\u12"]"#, "invalid hex digit in \\u escape")
        rejects(#""\u00G0""#, "invalid hex digit in \\u escape")
        rejects(#""\u12"#, "truncated \\u escape")
        rejects(#""abc"#, "unterminated string")
        rejects(#""abc\"#, "unterminated escape")
        rejects("'single'", "unexpected character ''', expected a value")
        rejects([0x22, 0xC3, 0x28, 0x22], "invalid UTF-8 in string")
        rejects([0x22, 0xED, 0xA0, 0x80, 0x22], "invalid UTF-8 in string")  // a surrogate in UTF-8
        rejects([0x22, 0xFF, 0x22], "invalid UTF-8 in string")
    }

    /// Only U+0020, tab, LF and CR separate tokens.
    func testWhitespaceSet() throws {
        accepts(
            " \t\n\r[ \t\n\r1 \t\n\r, \t\n\r{ \t\n\r\"a\" \t\n\r: \t\n\rnull \t\n\r} \t\n\r] \t\n\r",
            .array([.number(1), .object([("a", .null)])]))
        rejects("[\u{C}1]", "unexpected character '\\xc', expected a value")
        rejects("[1\u{B}]", "expected ',' or ']' in array")
        rejects([0x5B, 0xC2, 0xA0, 0x31, 0x5D], "unexpected character '\\xc2', expected a value")  // NBSP
        rejects("[1]\u{2028}", "unexpected text after the JSON value")
        rejects("", "unexpected end of input, expected a value")
        rejects(" \n ", "unexpected end of input, expected a value")
    }

    /// A UTF-8 byte-order mark before the value is skipped (i_structure_UTF-8_BOM_empty_object);
    /// anywhere else it is text.
    func testByteOrderMark() throws {
        accepts([0xEF, 0xBB, 0xBF] + Array("{}".utf8), .object([]))
        accepts([0xEF, 0xBB, 0xBF] + Array(" [1]".utf8), .array([.number(1)]))
        accepts("\u{FEFF}true", .bool(true))
        rejects([0xEF, 0xBB, 0xBF], "unexpected end of input, expected a value")
        rejects(
            Array(" ".utf8) + [0xEF, 0xBB, 0xBF] + Array("{}".utf8), "unexpected character '\\xef', expected a value")
        rejects(
            [0xEF, 0xBB, 0xBF, 0xEF, 0xBB, 0xBF] + Array("{}".utf8), "unexpected character '\\xef', expected a value")
    }

    /// RFC 8259 allows any value at the top level.
    func testTopLevelScalars() throws {
        accepts("1", .number(1))
        accepts(" \"s\" ", .string("s"))
        accepts("true", .bool(true))
        accepts("false", .bool(false))
        accepts("null", .null)
        rejects("tru", "unexpected end of input in literal")
        rejects("nul", "unexpected end of input in literal")
        rejects("nulx", "invalid literal, expected 'null'")
        rejects("True", "unexpected character 'T', expected a value")
        rejects("true false", "unexpected text after the JSON value")
        rejects("1 2", "unexpected text after the JSON value")
        rejects("{}}", "unexpected text after the JSON value")
    }

    func testTrailingCommasAndOtherStructureErrors() throws {
        accepts("[[],{},[{}]]", .array([.array([]), .object([]), .array([.object([])])]))
        rejects("[1,]", "unexpected character ']', expected a value")
        rejects("[,1]", "unexpected character ',', expected a value")
        rejects("[1,,2]", "unexpected character ',', expected a value")
        rejects(#"{"a":1,}"#, "expected a quoted member name")
        rejects(#"{,"a":1}"#, "expected a quoted member name")
        rejects("[1 2]", "expected ',' or ']' in array")
        rejects(#"{"a" 1}"#, "expected ':' after member name \"a\"")
        rejects(#"{"a":1 "b":2}"#, "expected ',' or '}' in object")
        rejects("{1:2}", "expected a quoted member name")
        rejects("{a:1}", "expected a quoted member name")
        rejects("[1", "unexpected end of input in array")
        rejects(#"{"a":1"#, "unexpected end of input in object")
        rejects(#"{"a":"#, "unexpected end of input, expected a value")
        rejects("[1]]", "unexpected text after the JSON value")
    }

    /// RFC 8259 leaves repeated names to the parser; this one rejects them (naming the name, at
    /// the repeat), so a manifest cannot say two things about one key.
    func testDuplicateKeysAreRejected() throws {
        guard let e = rejection(Array(#"{"a":1,"b":2,"a":3}"#.utf8)) else { return }
        XCTAssertEqual(e.reason, "duplicate member name \"a\"")
        XCTAssertEqual(e.byteOffset, 13, "at the repeated name")
        rejects(#"{"x":{"k":1,"k":1}}"#, "duplicate member name \"k\"")
        // The same name in different objects, and names equal only after escapes are decoded.
        accepts(#"[{"a":1},{"a":2}]"#, .array([.object([("a", .number(1))]), .object([("a", .number(2))])]))
        rejects(#"{"a":1,"\u0061":2}"#, "duplicate member name \"a\"")
        // Members keep the document's order.
        XCTAssertEqual(try JSONParser.parse(#"{"b":1,"a":2}"#).objectValue?.map { $0.0 }, ["b", "a"])
    }

    /// Nesting is limited to ``JSONParser/maxDepth`` (512) levels, so a hostile document cannot
    /// overflow the stack.
    func testDeepNestingLimit() throws {
        let depth = JSONParser.maxDepth
        XCTAssertEqual(depth, 512)
        var v = try JSONParser.parse(String(repeating: "[", count: depth) + String(repeating: "]", count: depth))
        var levels = 0
        while let inner = v.arrayValue {
            levels += 1
            guard let first = inner.first else { break }
            v = first
        }
        XCTAssertEqual(levels, depth)
        rejects(
            String(repeating: "[", count: depth + 1) + String(repeating: "]", count: depth + 1),
            "nesting deeper than 512 levels")
        let objects = String(repeating: #"{"a":"#, count: depth) + "1" + String(repeating: "}", count: depth)
        XCTAssertNotNil(try JSONParser.parse(objects).objectValue)
        rejects(
            String(repeating: #"{"a":["#, count: 257) + "1" + String(repeating: "]}", count: 257),
            "nesting deeper than 512 levels")
        rejects(String(repeating: "[", count: 100_000), "nesting deeper than 512 levels")
    }

    /// Errors name the line and the column (in characters) of the offending byte.
    func testErrorPositions() throws {
        guard let e = rejection(Array("{\n  \"咖啡\": [1,\n    2,]\n}".utf8)) else { return }
        XCTAssertEqual(e.reason, "unexpected character ']', expected a value")
        XCTAssertEqual(e.line, 3)
        XCTAssertEqual(e.column, 7)
        guard let s = rejection(Array("[\"é\u{1}\"]".utf8)) else { return }
        XCTAssertEqual(s.line, 1)
        XCTAssertEqual(s.column, 4, "the control character, after a two-byte é")
    }
}
