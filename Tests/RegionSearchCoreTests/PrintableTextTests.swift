import XCTest

@testable import RegionSearchCore

/// Issue 21 ("plan echoes CR in its messages"): a log line shows a path's control characters
/// escaped, so a CR, an escape sequence or a C1 control in a path or a field cannot rewrite the
/// terminal or split a log line; line feeds and tabs of a message that has several lines stay.
final class PrintableTextTests: XCTestCase {
    func testMessagesEscapeControlsButKeepLinesAndTabs() {
        XCTAssertEqual(PrintableText.message("plain — 美食"), "plain — 美食")
        XCTAssertEqual(PrintableText.message("a\nb\tc"), "a\nb\tc")
        XCTAssertEqual(PrintableText.message("/x/m\\\rimport os#/m.json"), "/x/m\\\\rimport os#/m.json")
        XCTAssertEqual(PrintableText.message("\u{1B}[2J\u{85}\u{7F}"), "\\x1b[2J\\x85\\x7f")
        // No length limit: a long message is not cut.
        XCTAssertEqual(PrintableText.message(String(repeating: "x", count: 5000) + "\r").count, 5002)
    }

    /// A keyword of U+200B alone was printed as `""`; a right-to-left override makes a path read
    /// backwards. The joiners that shape scripts and emoji stay.
    func testInvisibleAndDirectionCharactersAreShown() {
        XCTAssertEqual(
            PrintableText.message("keyword \"\u{200B}\" matches no POI"), "keyword \"\\u{200b}\" matches no POI")
        XCTAssertEqual(PrintableText.of("a\u{202E}fdp.exe"), "a\\u{202e}fdp.exe")
        XCTAssertEqual(PrintableText.of("\u{FEFF}id"), "\\u{feff}id")
        XCTAssertEqual(PrintableText.of("می\u{200C}خواهم 👨\u{200D}👩"), "می\u{200C}خواهم 👨\u{200D}👩")
    }

    func testOneLineJoinsLines() {
        XCTAssertEqual(PrintableText.oneLine("first\n  second\r\nthird\n"), "first second third")
        XCTAssertEqual(PrintableText.oneLine("a\u{07}"), "a\\x07")
    }
}
