import Foundation
import XCTest

@testable import RegionSearchIngest
@testable import RegionSearchModel
@testable import RegionSearchTestSupport

/// Inputs built to make a reader do quadratic work (one id repeated across a whole file, one
/// line-delimited GeoJSON file whose every line is broken): the work must grow linearly. Each
/// test compares an operation count at two sizes, so it does not depend on the machine's speed.
final class IngestScalingTests: XCTestCase {
    let scratch = IngestScratch()

    /// Ingests `text` as CSV with the merge policy; the builder's keyword comparisons.
    private func comparisons(csv text: String) throws -> (Int, POITable) {
        let path = scratch.write(text)
        let input = try OpenedInput.open(InputSpec(path: path))
        let rejects = try RejectsWriter(
            path: scratch.path("r-\(UUID().uuidString).csv"), style: .delimited(delimiter: 44, header: nil))
        defer { rejects.discard() }
        let result = try IngestDriver(settings: IngestSettings()).run([input], rejects: rejects)
        return (result.keywordComparisons, result.table)
    }

    private func repeatedIdCSV(_ n: Int) -> String {
        var s = "id,name,category,lon,lat\n"
        for i in 0..<n { s += "same,n\(i),kw\(i),24.9,60.1\n" }
        return s
    }

    /// One id on every row, each with a new keyword: the merged row ends with n keywords. Before,
    /// each merge scanned the row's list (and each value of the final row scanned the values
    /// before it): n² / 2 comparisons.
    func testMergingOneRepeatedIdIsLinear() throws {
        let (small, table) = try comparisons(csv: repeatedIdCSV(2_000))
        XCTAssertEqual(table.count, 1)
        let values = KeywordText.readable(table.keywords[0], keys: table.keywordKeys).split(separator: "\n")
        XCTAssertEqual(values.count, 2_000, "every distinct keyword kept once")
        XCTAssertEqual(values.first, "category=kw0")
        XCTAssertEqual(values.last, "category=kw1999", "first-seen order kept")
        let (large, _) = try comparisons(csv: repeatedIdCSV(8_000))
        XCTAssertLessThan(large, 8 * max(small, 1_000), "4× the rows: \(small) → \(large) comparisons")
        XCTAssertLessThan(large, 8_000 * 4, "a few comparisons per value, not one per earlier value")
    }

    /// Repeated values within one row's many values are still dropped (hash path).
    func testRepeatsAmongManyValuesAreDropped() throws {
        var s = "id,name,category,lon,lat\n"
        for i in 0..<100 { s += "same,n,kw\(i % 40),24.9,60.1\n" }
        s += "same,n,\"" + (0..<100).map { "kw\($0 % 50)" }.joined(separator: ";") + "\",24.9,60.1\n"
        let (_, table) = try comparisons(csv: s)
        let values = table.keywords[0].split(separator: KeywordText.separator)
        XCTAssertEqual(values.count, 50)
        XCTAssertEqual(Set(values).count, 50)
    }
}

/// One OSM element with very many keyword tags (or one tag listing very many values).
final class OSMTagScalingTests: XCTestCase {
    private func comparisons(tags n: Int) -> (Int, [String]) {
        var collector = OSMTagCollector()
        let role = OSMKeyRole(isPOI: true, isName: false, keywordRank: 0)
        for i in 0..<n {
            let key = Array("amenity".utf8)
            let value = Array("v\(i % (n / 2 + 1));w\(i)".utf8)
            key.withUnsafeBytes { k in value.withUnsafeBytes { v in collector.add(role: role, key: k, value: v) } }
        }
        var count = 0
        guard case .success(let result) = collector.nameAndKeywords(comparisons: &count) else {
            XCTFail("tags not read")
            return (0, [])
        }
        return (count, result.keywords)
    }

    func testManyTagsOfOneElementAreLinear() {
        let (small, keywords) = comparisons(tags: 2_000)
        XCTAssertEqual(keywords.count, 1_001 + 2_000, "every distinct value once")
        XCTAssertEqual(keywords.prefix(3), ["v0", "w0", "v1"], "file order kept")
        let (large, _) = comparisons(tags: 8_000)
        XCTAssertLessThan(large, 8 * small, "4× the tags: \(small) → \(large) comparisons")
        XCTAssertLessThan(large, 8_000 * 2 * 4)
    }
}

/// Newline-delimited GeoJSON whose lines each leave a `[` (and the feature) open.
final class GeoJSONLinesScalingTests: XCTestCase {
    let scratch = IngestScratch()

    private func read(lines n: Int) throws -> (scanned: UInt64, size: Int, records: [String], rejected: Int) {
        var text = ""
        for i in 0..<n {
            if i % 100 == 50 {
                text +=
                    #"{"type":"Feature","id":"ok\#(i)","geometry":{"type":"Point","coordinates":[1,2]},"properties":{}}"#
                    + "\n"
            } else {
                text +=
                    #"{"type":"Feature","id":"\#(i)","properties":{},"geometry":{"type":"Point","coordinates":[1,2}"#
                    + "\n"
            }
        }
        let path = scratch.write(text, name: "lines-\(n).geojson")
        let reader = try geojson(path)
        let results = try readAll(reader)
        return (
            reader.scannedBytes, text.utf8.count, results.compactMap { $0.record?.id },
            results.filter { $0.rejected != nil }.count
        )
    }

    func testBrokenLinesCostTheirOwnLength() throws {
        let small = try read(lines: 1_000)
        XCTAssertEqual(small.records, (0..<10).map { "ok\($0 * 100 + 50)" }, "valid lines between broken ones are read")
        XCTAssertEqual(small.rejected, 990, "one reject per broken line")
        XCTAssertLessThan(small.scanned, UInt64(3 * small.size), "scanned \(small.scanned) of \(small.size) bytes")
        let large = try read(lines: 4_000)
        XCTAssertEqual(large.rejected, 3_960)
        XCTAssertLessThan(large.scanned, UInt64(3 * large.size), "scanned \(large.scanned) of \(large.size) bytes")
    }
}
