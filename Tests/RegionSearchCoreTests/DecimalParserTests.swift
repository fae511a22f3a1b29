import Foundation
import XCTest

@testable import RegionSearchCore

/// ``DecimalParser`` — the one decimal parser (JSON, CSV, OSM, WKT) — against `Double(String)`
/// and known answers.
final class DecimalParserTests: XCTestCase {
    private func parse(_ s: [UInt8]) -> Double? { s.withUnsafeBufferPointer { DecimalParser.parse($0) } }
    private func parse(_ s: String) -> Double? { parse(Array(s.utf8)) }

    /// Random texts of the decimal shape (sign, integer digits with leading zeros, fraction,
    /// exponent), coordinate-like values, shortest round-trip forms of random doubles and random
    /// junk; 15-digit values sit on both sides of the one-pass tier's limits.
    private func randomTexts(count: Int, seed: UInt64) -> [[UInt8]] {
        var rng = SeededRandom(seed: seed)
        func digits(_ n: Int) -> [UInt8] { (0..<n).map { _ in UInt8.random(in: 48...57, using: &rng) } }
        let junk = Array("0123456789.-+eE x".utf8)
        var out: [[UInt8]] = []
        for k in 0..<count {
            var s: [UInt8] = []
            switch k % 4 {
            case 0:
                s += [[], [UInt8(ascii: "-")], [UInt8(ascii: "+")]][Int.random(in: 0...2, using: &rng)]
                if Int.random(in: 0...3, using: &rng) == 0 {
                    s += Array(repeating: 48, count: Int.random(in: 1...4, using: &rng))
                }
                s += digits(Int.random(in: 0...20, using: &rng))
                if Bool.random(using: &rng) { s += [UInt8(ascii: ".")] + digits(Int.random(in: 0...24, using: &rng)) }
                if Int.random(in: 0...2, using: &rng) == 0 {
                    s += [Bool.random(using: &rng) ? UInt8(ascii: "e") : UInt8(ascii: "E")]
                    s += [[], [UInt8(ascii: "-")], [UInt8(ascii: "+")]][Int.random(in: 0...2, using: &rng)]
                    s += digits(Int.random(in: 0...3, using: &rng))
                }
            case 1:
                let value =
                    Double(Int64.random(in: -1_800_000_000_000_000...1_800_000_000_000_000, using: &rng))
                    / pow(10, Double(Int.random(in: 0...18, using: &rng)))
                s = Array(String(format: "%.\(Int.random(in: 0...16, using: &rng))f", value).utf8)
            case 2:
                let d = Double(bitPattern: UInt64.random(in: 0...UInt64.max, using: &rng))
                s = Array((d.isFinite ? "\(d)" : "1e308").utf8)
            default:
                s = (0..<Int.random(in: 0...19, using: &rng)).map { _ in junk.randomElement(using: &rng)! }
            }
            out.append(s)
        }
        return out
    }

    /// Where `Double(String)` reads the text as a decimal number, the parser gives the same bits;
    /// it accepts nothing that `Double(String)` rejects, and rejects no decimal text it reads.
    func testAgreesWithDoubleFromString() {
        let decimalCharacters = Set("0123456789+-.eE".utf8)
        for s in randomTexts(count: 60_000, seed: 7) {
            let text = String(decoding: s, as: UTF8.self)
            let got = parse(s)
            if let got {
                XCTAssertEqual(got.bitPattern, Double(text)?.bitPattern, text.debugDescription)
            } else if s.allSatisfy({ decimalCharacters.contains($0) }) {
                // Made of a decimal number's characters but not read: not one for Double either.
                XCTAssertNil(Double(text), text.debugDescription)
            }
        }
    }

    func testKnownAnswers() {
        let cases: [(String, Double)] = [
            ("0", 0), ("-0", -0.0), ("+5", 5), ("7.", 7), (".5", 0.5), ("-.5", -0.5), ("0.1", 0.1),
            ("120.186413", 120.186413), ("-30.247994", -30.247994), ("1e-7", 1e-7), ("1E+2", 100),
            ("123456789012345678", 123_456_789_012_345_680), ("000000000000000000001.5", 1.5),
            ("2.2250738585072014e-308", 2.2250738585072014e-308), ("1e-400", 0), ("1e400", .infinity),
            // Halfway cases that a naive digit-by-digit parser rounds wrongly.
            ("9007199254740993", 9_007_199_254_740_992), ("0.30000000000000004", 0.30000000000000004),
            ("17976931348623157" + String(repeating: "0", count: 292), .greatestFiniteMagnitude),
        ]
        for (text, expected) in cases {
            XCTAssertEqual(parse(text)?.bitPattern, expected.bitPattern, text)
        }
        XCTAssertEqual(parse("-0")?.sign, .minus)
        for bad in [
            "", "-", "+", ".", "-.", "1e", "1e+", "e5", "abc", "1.2.3", "1..2", "nan", "inf", "-inf", "infinity",
            "0x10", " 1", "1 ", "1,5", "1e5x", "١٢",
        ] {
            XCTAssertNil(parse(bad), bad)
        }
    }
}
