import Foundation
import XCTest

@testable import RegionSearchCore
@testable import RegionSearchModel
@testable import RegionSearchPropagation

/// The keyword labels matched once per distinct text (``DistinctTexts``) against the matcher run
/// on every row's own text: the same Y for every query, point order and text.
final class KeywordLabelsTests: XCTestCase {
    /// A keyword text column from `texts` (normalised already, as the pois artifact holds them).
    private func column(_ texts: [[UInt8]]) -> (offsets: Column<UInt64>, bytes: Column<UInt8>) {
        var offsets: [UInt64] = [0]
        var bytes: [UInt8] = []
        for t in texts {
            bytes += t
            offsets.append(UInt64(bytes.count))
        }
        return (Column(offsets), Column(bytes))
    }

    func testDistinctTextsNumberTextsByTheirBytesInRowOrder() {
        // Empty texts, a prefix of another text, the same bytes far apart, one text alone.
        let texts = ["cafe", "", "cafe", "caf", "cafe bar", "", "bar", "caf", "cafe"]
        let c = column(texts.map { Array($0.utf8) })
        let distinct = DistinctTexts(offsets: c.offsets.buffer, bytes: c.bytes.buffer)
        XCTAssertEqual(distinct.firstRow, [0, 1, 3, 4, 6])
        XCTAssertEqual(distinct.textOf, [0, 1, 0, 2, 3, 1, 4, 2, 0])
        // Every row's text is its distinct text's.
        for (r, t) in distinct.textOf.enumerated() { XCTAssertEqual(texts[r], texts[distinct.firstRow[Int(t)]]) }
    }

    func testDistinctTextsWithOneHashAreToldApartByTheirBytes() {
        // Every text hashes alike (and so do texts whose hashes differ only above the table's
        // bits): each lookup probes past the other texts' slots, and only equal bytes are one text.
        let texts = (0..<3_000).map { "text \($0 % 1_500)" } + ["", "text 1", ""]
        let c = column(texts.map { Array($0.utf8) })
        for hash: @Sendable (UnsafeRawBufferPointer) -> UInt64 in [{ _ in 7 }, { UInt64($0.count) << 40 }] {
            let distinct = DistinctTexts(offsets: c.offsets.buffer, bytes: c.bytes.buffer, hash: hash)
            var expected: [String: UInt32] = [:]
            var firstRow: [Int] = []
            let textOf = texts.enumerated().map { r, t -> UInt32 in
                if let i = expected[t] { return i }
                expected[t] = UInt32(firstRow.count)
                firstRow.append(r)
                return UInt32(firstRow.count - 1)
            }
            XCTAssertEqual(distinct.firstRow, firstRow)
            XCTAssertEqual(distinct.textOf, textOf)
        }
    }

    func testLabelsForManyQueriesAreEachRowsOwnMatch() {
        // Seeded texts from a small vocabulary (repeats, as categories do) and some unique ones,
        // in CJK and Latin, with key=value items; the points visit the rows in a shuffled order
        // and some rows twice or not at all (the projected artifact drops rows without coordinates).
        var rng = SeededRandom(seed: 2026)
        let vocabulary = [
            "restaurant", "cafe", "咖啡", "咖啡 馆", "bank", "restaurant;cafe", "fast_food", "美食街", "cafe2", "",
        ]
        var texts: [[UInt8]] = []
        for i in 0..<5_000 {
            let word = vocabulary[rng.below(vocabulary.count)]
            texts.append(Array((i % 3 == 0 ? "\(word) shop \(i)" : word).utf8))
        }
        let keys = ["amenity", "cuisine"]
        texts += [
            KeywordText.keyCode(0) + Array("restaurant".utf8), KeywordText.keyCode(1) + Array("pizza".utf8),
            KeywordText.keyCode(0) + Array("cafe".utf8) + [KeywordText.separatorByte] + KeywordText.keyCode(1)
                + Array("coffee".utf8),
        ]
        let c = column(texts)
        var order = (0..<UInt32(texts.count)).map { $0 }
        for i in stride(from: order.count - 1, to: 0, by: -1) {
            order.swapAt(i, rng.below(i + 1))
        }
        order = Array(order.dropLast(50)) + order.prefix(20)
        let rows = Column(order)
        let queries = ["cafe", "咖啡", "restaurant", "bank", "shop", "amenity=cafe", "cuisine=pizza", "nothing"]
        // More distinct texts (about 1,700) than the table starts with: it grows on the way.
        XCTAssertGreaterThan(DistinctTexts(offsets: c.offsets.buffer, bytes: c.bytes.buffer).firstRow.count, 1_024)
        let labels = KeywordPropagation.labels(queries: queries, keywordText: c, rows: rows, keys: keys)
        XCTAssertEqual(labels.map(\.query), queries)
        for (q, l) in zip(queries, labels) {
            let matcher = KeywordMatcher(q, keys: keys)
            let expected = order.map { r in
                UInt8(texts[Int(r)].withUnsafeBufferPointer { matcher.matches($0) } ? 1 : 0)
            }
            XCTAssertEqual(l.match, expected, q)
            XCTAssertEqual(l.count, expected.reduce(0) { $0 + Int($1) }, q)
            XCTAssertEqual(l.normalized, matcher.canonical)
        }
        // Not a test that cannot fail: every query but the last matches some points.
        XCTAssertEqual(labels.map { $0.count > 0 }, queries.map { $0 != "nothing" })
    }
}
