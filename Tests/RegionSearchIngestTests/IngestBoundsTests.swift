import Foundation
import XCTest

@testable import RegionSearchCore
@testable import RegionSearchIngest
@testable import RegionSearchModel
@testable import RegionSearchTestSupport

/// Issue 21: what ingest writes and keeps is bounded, and the same POIs are not counted twice.
/// Findings 8 (rejects file), 9 (merged keyword text), 10 (a device as input), 15 (one file named
/// twice; ids shared by inputs), and an unused out-of-range number in a GeoJSON property.
final class IngestBoundsTests: XCTestCase {
    let scratch = IngestScratch()

    private func ingest(_ args: [String], name: String) throws -> (POITable, JSONValue, String, JSONValue) {
        let out = scratch.path(name + ".rsa")
        let rejects = scratch.path(name + ".rejects")
        let summary = scratch.path(name + ".json")
        try runIngest(args + ["--output", out, "--rejects", rejects, "--summary", summary])
        let file = try ArtifactFile(path: out, expected: .pois)
        let json = try JSONParser.parse(scratch.text(summary))
        return (try POITable(artifact: file), file.metadata, scratch.text(rejects), json)
    }

    /// Finding 8: 150,000 rejects write the first 100,000 lines, the rest counted; the byte cap
    /// holds too (whole lines only).
    func testTheRejectsFileIsCappedInRowsAndBytesAndTheRestCounted() throws {
        var text = "id,lon,lat\n1,10,20\n"
        text += String(repeating: "x\n", count: 150_000)
        let path = scratch.write(text)
        let (t, meta, rejects, summary) = try ingest([path, "--max-reject-ratio", "1"], name: "capped")
        XCTAssertEqual(t.count, 1)
        XCTAssertEqual(meta["counts"]?["rejected"], .number(150_000), "every reject counted")
        let lines = rejects.split(separator: "\n")
        XCTAssertEqual(lines.count, 1 + RejectsWriter.maxRows, "header + the first 100,000 rejects")
        XCTAssertTrue(lines.last?.contains(",100002,") ?? false, String(lines.last ?? ""))  // lines 3…100002
        XCTAssertEqual(summary["counts"]?["rejects_not_written"], .number(50_000))

        // The byte cap: whole lines, never more than the cap.
        let small = scratch.path("small.rejects")
        let writer = try RejectsWriter(path: small, style: .ndjson, maxRows: 1_000, maxBytes: 1_000)
        for i in 0..<100 {
            try writer.write(
                sourceFile: "f.csv", RejectedRecord(line: UInt64(i), byteOffset: 0, reason: "bad", raw: "raw \(i)"))
        }
        try writer.commit()
        let written = scratch.read(small)
        XCTAssertLessThanOrEqual(written.count, 1_000)
        XCTAssertEqual(written.last, 0x0A, "whole lines")
        XCTAssertEqual(writer.count + writer.notWritten, 100)
        XCTAssertEqual(writer.count, written.filter { $0 == 0x0A }.count)
        XCTAssertTrue(writer.report.contains("more counted, not written"), writer.report)
    }

    /// Finding 9: 200 repeats of one id with 2 KB values each keep at most 64 KiB of keyword text
    /// in the POI; the values left out are counted (the whole file is 400 KB of keywords).
    func testMergedKeywordTextIsCappedPerPOI() throws {
        var text = "id,lon,lat,kw\n"
        for i in 0..<200 { text += "7,24.94,60.17," + String(repeating: "a", count: 2_000) + "\(i)\n" }
        text += "8,24.95,60.18,cafe\n"
        let path = scratch.write(text)
        let (t, _, _, summary) = try ingest([path, "--keyword-column", "kw"], name: "merged")
        XCTAssertEqual(t.count, 2)
        let kept = t.keywords[0].utf8.count
        XCTAssertLessThanOrEqual(kept, IngestDriver.maxKeywordTextBytes)
        XCTAssertGreaterThan(kept, IngestDriver.maxKeywordTextBytes - 2_100, "filled up to the cap")
        let values = KeywordText.values(t.keywords[0])
        XCTAssertEqual(values.first, String(repeating: "a", count: 2_000) + "0", "in input order")
        XCTAssertEqual(summary["counts"]?["keyword_values_dropped"]?.intValue, 200 - values.count)
        XCTAssertEqual(KeywordText.values(t.keywords[1]), ["cafe"])
    }

    /// Finding 10: the stage run by hand refuses a device or a FIFO at once (exit 3), as the
    /// runner does, instead of reading /dev/zero forever.
    func testDevicesAndFIFOsAreRefusedAtOnce() throws {
        let fifo = scratch.path("fifo")
        XCTAssertEqual(mkfifo(fifo, 0o644), 0)
        for path in ["/dev/zero", fifo] {
            let t0 = monotonicSeconds()
            XCTAssertThrowsError(
                try runIngest([path, "--output", scratch.path("d.rsa"), "--rejects", scratch.path("d.rej")])
            ) { error in
                XCTAssertEqual((error as? ExitCoded)?.exitStatus, .inputData, "\(error)")
                XCTAssertTrue("\(error)".contains("not a regular file"), "\(error)")
            }
            XCTAssertLessThan(monotonicSeconds() - t0, 5)
        }
    }

    /// Finding 15: one file named twice (a path and a link to it) is refused; two files sharing
    /// POIs (overlapping extracts) merge them like repeats in one file, counted and reported;
    /// `id_scope: input` keeps them apart.
    func testTheSamePOIsAreNotCountedTwice() throws {
        let a = scratch.write("id,lon,lat,kw\n1,10,20,cafe\n2,11,21,bank\n", name: "a.csv")
        let link = scratch.path("b.csv")
        XCTAssertEqual(symlink(a, link), 0)
        XCTAssertThrowsError(try ingest([a, link], name: "twice")) { error in
            XCTAssertTrue(error is UsageError, "\(error)")
            XCTAssertTrue("\(error)".contains("is the same file as input 1"), "\(error)")
        }
        let c = scratch.write("id,lon,lat,kw\n2,11.5,21.5,atm\n3,12,22,bar\n", name: "c.csv")
        let (t, meta, _, summary) = try ingest([a, c, "--keyword-column", "kw"], name: "overlap")
        XCTAssertEqual(t.ids, StringColumn(["1", "2", "3"]))
        XCTAssertEqual(KeywordText.values(t.keywords[1]), ["bank", "atm"], "merged into the first record")
        XCTAssertEqual(t.lon[1], 11, "the first input's position wins")
        XCTAssertEqual(meta["counts"]?["cross_input_duplicates"], .number(1))
        XCTAssertEqual(meta["counts"]?["merged_duplicates"], .number(1))
        XCTAssertEqual(summary["counts"]?["cross_input_duplicates"], .number(1))
        let (apart, apartMeta, _, _) = try ingest(
            [a, c, "--keyword-column", "kw", "--id-scope", "input"], name: "apart")
        XCTAssertEqual(apart.count, 4)
        XCTAssertNil(apartMeta["counts"]?["cross_input_duplicates"])
        let (first, _, _, _) = try ingest([a, c, "--duplicates", "keep_first"], name: "first")
        XCTAssertEqual(first.count, 3)
    }

    /// Also: a number beyond a double's range in a property nobody reads does not reject the
    /// record; in the id, a keyword property or a coordinate it does, with the reason.
    func testOutOfRangeNumbersRejectOnlyWhereUsed() throws {
        let text = """
            {"type":"Feature","properties":{"id":"1","kw":"cafe","area":1e400},"geometry":{"type":"Point","coordinates":[24.9,60.1]}}
            {"type":"Feature","properties":{"id":"2","kw":-1e999},"geometry":{"type":"Point","coordinates":[24.9,60.1]}}
            {"type":"Feature","properties":{"id":"3","kw":"bar"},"geometry":{"type":"Point","coordinates":[1e400,60.1]}}
            {"type":"Feature","properties":{"id":1e400,"kw":"bar"},"geometry":{"type":"Point","coordinates":[24.9,60.2]}}

            """
        let path = scratch.write(text, name: "big.geojsonl")
        let (t, _, rejects, _) = try ingest(
            [path, "--id-column", "id", "--keyword-column", "kw", "--max-reject-ratio", "1"], name: "range")
        XCTAssertEqual(t.ids, StringColumn(["1"]))
        XCTAssertEqual(KeywordText.values(t.keywords[0]), ["cafe"])
        XCTAssertTrue(rejects.contains("property \\\"kw\\\" holds a number beyond"), rejects)
        XCTAssertTrue(rejects.contains("property \\\"id\\\" holds a number beyond"), rejects)
        XCTAssertTrue(rejects.contains("longitude out of range"), rejects)
    }
}
