import Foundation
import XCTest

@testable import RegionSearchIngest
@testable import RegionSearchTestSupport

/// ``DelimitedFieldReader``: ingest's delimited tokenizer without the POI column mapping.
final class DelimitedFieldReaderTests: XCTestCase {
    let scratch = IngestScratch()

    /// The records as "line:field|field", rejections as "line:!reason".
    private func records(_ bytes: [UInt8], delimiter: UInt8 = 0x2C, quote: UInt8? = 0x22) throws -> [String] {
        try records(DelimitedFieldReader(contents: bytes, path: "t.csv", delimiter: delimiter, quote: quote))
    }

    private func records(_ text: String, delimiter: UInt8 = 0x2C, quote: UInt8? = 0x22) throws -> [String] {
        try records(Array(text.utf8), delimiter: delimiter, quote: quote)
    }

    private func records(_ reader: DelimitedFieldReader) throws -> [String] {
        var out: [String] = []
        while let r = try reader.next() {
            switch r {
            case .fields(let line, let fields): out.append("\(line):" + fields.joined(separator: "|"))
            case .rejected(let r): out.append("\(r.line):!" + r.reason)
            }
        }
        return out
    }

    func testQuotedFieldsKeepDelimitersQuotesAndLineBreaks() throws {
        XCTAssertEqual(
            try records("a,\"b,c\",\"say \"\"hi\"\"\"\n\"two\nlines\",x\n\"\",\"ab\"c,d\"e\n"),
            ["1:a|b,c|say \"hi\"", "2:two\nlines|x", "4:|abc|d\"e"])
    }

    func testRecordEndsAndByteOrderMark() throws {
        XCTAssertEqual(
            try records("\u{FEFF}h1,h2\r\n1,2\r\n3,4\r5,6\n7,8"), ["1:h1|h2", "2:1|2", "3:3|4", "4:5|6", "5:7|8"])
        XCTAssertEqual(try records("a\r\n\"x\r\ny\",z\r\n"), ["1:a", "2:x\r\ny|z"], "CRLF inside quotes is kept")
        XCTAssertEqual(try records("\u{FEFF}"), [])
        XCTAssertEqual(try records(""), [])
    }

    /// Empty lines are skipped (and counted in the line numbers); blanks are field text, not trimmed.
    func testEmptyLinesSkippedAndFieldsNotTrimmed() throws {
        XCTAssertEqual(try records("\na\n\r\n\n b , c \n \n"), ["2:a", "5: b | c ", "6: "])
    }

    func testAnyNumberOfFieldsPerRecord() throws {
        XCTAssertEqual(try records("a\nb,c,d\n,\n"), ["1:a", "2:b|c|d", "3:|"])
    }

    /// A quote that is never closed costs its line; reading goes on after it. Invalid UTF-8 is a
    /// rejection with the offset of the first bad byte.
    func testBadRecordsAreRejectedAndReadingGoesOn() throws {
        XCTAssertEqual(
            try records("a,b\n\"open,c\nd,e"),
            ["1:a|b", "2:!unterminated quote: the quoted field opened at byte 4 is not closed", "3:d|e"])
        XCTAssertEqual(
            try records(Array("ok\n".utf8) + [0x61, 0xFF, 0x0A] + Array("z\n".utf8)),
            ["1:ok", "2:!invalid UTF-8: first bad byte at offset 4", "3:z"])
    }

    func testOtherDelimiterAndNoQuoting() throws {
        XCTAssertEqual(try records("a;\"b;c\"\n", delimiter: 0x3B), ["1:a|b;c"])
        XCTAssertEqual(try records("a,\"b,c\"\n", quote: nil), ["1:a|\"b|c\""])
    }

    /// Streaming from a file (here gzip-compressed, across many refills) gives the same records.
    func testFileAndMemoryAgree() throws {
        var text = "id,cluster_id\n"
        for i in 0..<60_000 { text += i % 7 == 0 ? "\"p \(i)\nx\",\(i % 13)\r\n" : "p\(i),\(i % 13)\n" }
        let bytes = Array(text.utf8)
        let path = scratch.write(bytes)
        let gz = try scratch.gzip(path)
        let fromMemory = try records(bytes)
        XCTAssertEqual(fromMemory.count, 60_001)
        XCTAssertEqual(fromMemory[8], "10:p 7\nx|7")
        XCTAssertEqual(try records(DelimitedFieldReader(reader: ByteReader(path: path))), fromMemory)
        XCTAssertEqual(try records(DelimitedFieldReader(reader: ByteReader(path: gz))), fromMemory)
    }
}
