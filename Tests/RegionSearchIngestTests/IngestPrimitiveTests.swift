import Foundation
import XCTest

@testable import RegionSearchCore
@testable import RegionSearchIngest
@testable import RegionSearchModel

/// The byte-level building blocks against their String-based references.
final class IngestPrimitiveTests: XCTestCase {
    /// The keyword cache (ASCII fast path and byte-keyed table) gives exactly
    /// `KeywordText.normalize` for random values, repeated and not.
    func testKeywordCacheMatchesKeywordTextNormalize() {
        var rng = SeededRandom(seed: 9)
        let pieces = [
            "Cafe", "CAFÉ", " bar ", "a  b", "x\ty", "\u{1}", "咖啡", "ＡＢＣ", "Straße", "ﬁ", "\u{3000}", "z", "Z", " ",
            "Кафе", "\u{7F}",
        ]
        var cache = KeywordCache(limit: 50)
        var out = GrowableBytes(capacity: 16)
        for k in 0..<5000 {
            let value = (0..<Int.random(in: 0...4, using: &rng)).map { _ in pieces.randomElement(using: &rng)! }
                .joined()
            out.truncate(to: 0)
            var v = value
            v.withUTF8 { cache.appendNormalized($0, to: &out, cache: k % 3 != 0) }
            XCTAssertEqual(
                String(decoding: out.bytes, as: UTF8.self), KeywordText.normalize(value), "\(value.debugDescription)")
        }
        // Random printable ASCII, including upper case, blanks and control characters.
        for _ in 0..<5000 {
            let bytes = (0..<Int.random(in: 0...20, using: &rng)).map { _ in UInt8.random(in: 0...127, using: &rng) }
            out.truncate(to: 0)
            bytes.withUnsafeBufferPointer { cache.appendNormalized($0, to: &out) }
            XCTAssertEqual(
                String(decoding: out.bytes, as: UTF8.self),
                KeywordText.normalize(String(decoding: bytes, as: UTF8.self)))
        }
    }

    /// The first invalid byte found by UTF8Check is where Swift's own decoder first fails.
    func testUTF8CheckAgreesWithTheStandardLibrary() {
        var rng = SeededRandom(seed: 13)
        let valid = Array("aé咖😀Кz".utf8)
        for _ in 0..<20_000 {
            var bytes = (0..<Int.random(in: 0...24, using: &rng)).map { _ in valid.randomElement(using: &rng)! }
            if Bool.random(using: &rng), !bytes.isEmpty {
                bytes[Int.random(in: 0..<bytes.count, using: &rng)] = UInt8.random(in: 0x80...0xFF, using: &rng)
            }
            let mine = bytes.withUnsafeBufferPointer {
                UTF8Check.firstInvalid($0.baseAddress ?? UnsafePointer(bitPattern: 1)!, count: $0.count)
            }
            // Reference: decode scalar by scalar; the first error's position.
            var reference: Int?
            var decoder = UTF8()
            var iterator = bytes.makeIterator()
            var offset = 0
            loop: while true {
                switch decoder.decode(&iterator) {
                case .scalarValue(let s): offset += UTF8.width(s)
                case .emptyInput: break loop
                case .error:
                    reference = offset
                    break loop
                }
            }
            XCTAssertEqual(mine, reference, "\(bytes)")
        }
    }

    func testMissingValuesAndTrimming() {
        let m = MissingValues(["Нет", "-999", "N/A"])
        func has(_ s: String) -> Bool {
            var s = s
            return s.withUTF8 { m.contains($0) }
        }
        XCTAssertTrue(has(""))
        XCTAssertTrue(has("Нет"))
        XCTAssertTrue(has("-999"))
        XCTAssertFalse(has("-998"))
        XCTAssertFalse(has("нет"))
        XCTAssertFalse(has("N/"))
        XCTAssertFalse(has(String(repeating: "x", count: 70)))
        let s = "  \t a b \r\n"
        Array(s.utf8).withUnsafeBufferPointer {
            XCTAssertEqual(String(decoding: $0.trimmingASCIIWhitespace(), as: UTF8.self), "a b")
        }
    }

    func testGrowableBytesAppendsAnySize() {
        var g = GrowableBytes(capacity: 1)
        var reference: [UInt8] = []
        var rng = SeededRandom(seed: 1)
        for _ in 0..<2000 {
            let chunk = (0..<Int.random(in: 0...40, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            chunk.withUnsafeBufferPointer { g.append($0) }
            reference += chunk
        }
        XCTAssertEqual(g.array(), reference)
    }
}

/// JSONParser's strings now go through UTF8Check: still strict.
final class JSONStringUTF8Tests: XCTestCase {
    func testInvalidUTF8InStringsIsStillAnError() {
        for bytes: [UInt8] in [
            [0x22, 0xC3, 0x28, 0x22], [0x22, 0x5C, 0x6E, 0xED, 0xA0, 0x80, 0x22], [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22],
        ] {
            XCTAssertThrowsError(try bytes.withUnsafeBufferPointer { try JSONParser.parse(bytes: $0) }) { error in
                XCTAssertEqual((error as? JSONParseError)?.reason, "invalid UTF-8 in string", "\(bytes)")
            }
        }
        XCTAssertEqual(try JSONParser.parse("\"héllo \\u00e9 咖啡 😀\""), .string("héllo é 咖啡 😀"))
        XCTAssertEqual(try JSONParser.parse("\"\""), .string(""))
    }
}
