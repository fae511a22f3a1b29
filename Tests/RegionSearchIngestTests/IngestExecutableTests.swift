import Foundation
import XCTest

@testable import RegionSearchCore
@testable import RegionSearchModel
@testable import RegionSearchTestSupport

/// The built `regionsearch-ingest` executable: exit codes, stderr counts, outputs.
final class IngestExecutableTests: XCTestCase {
    let scratch = IngestScratch()

    /// The executable beside the test bundle (both are products of the same build).
    private func executable() throws -> String {
        let bundle = Bundle(for: Self.self).bundleURL
        let candidates = [
            bundle, bundle.deletingLastPathComponent(),
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
        ]
        for dir in candidates {
            let path = dir.appendingPathComponent("regionsearch-ingest").path
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        XCTFail(
            "regionsearch-ingest is not built next to the "
                + "tests (\(candidates.map { $0.path })); run 'swift build' first"
        )
        throw XCTSkip("executable missing")
    }

    private func run(_ arguments: [String]) throws -> (status: Int32, stderr: String) {
        try TestSupport.run(try executable(), arguments)
    }

    func testExitCodesAndOutputs() throws {
        let good = scratch.write(
            "id,name,category,lon,lat\n1,a,cafe,10,20\n2,b,bank,0,0\n3,c,bar,11,21\n4,d,x,12,22\n5,e,y,13,23\n",
            name: "good.csv")
        let out = scratch.path("pois.rsa")
        let rejects = scratch.path("rejects.csv")
        let summary = scratch.path("summary.json")
        var r = try run([
            good, "--output", out, "--rejects", rejects, "--summary", summary, "--max-reject-ratio", "0.25",
        ])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("read 5, accepted 4, rejected 1 (null island 1)"), r.stderr)
        XCTAssertEqual(try POITable(artifact: ArtifactFile(path: out, expected: .pois)).count, 4)
        XCTAssertEqual(
            scratch.text(rejects),
            "source_file,line,byte_offset,reason,id,name,category,lon,lat\n\(good),3,40,null island: lon = "
                + "lat = 0,2,b,bank,0,0\n"
        )
        let s = StageSummary(json: try JSONParser.parse(scratch.text(summary)))
        XCTAssertEqual(s.count(.accepted), 4)
        XCTAssertEqual(s.count(.read), 5)

        // An output that cannot be written is refused before any input is read: exit 6.
        for (output, rejectsPath) in [(scratch.directory, rejects), (out, scratch.directory)] {
            r = try run([good, "--output", output, "--rejects", rejectsPath])
            XCTAssertEqual(r.status, 6, r.stderr)
            XCTAssertTrue(r.stderr.contains("\(scratch.directory): cannot write: is a directory"), r.stderr)
            XCTAssertFalse(r.stderr.contains("read 5"), "the input was read first: \(r.stderr)")
        }

        // Usage errors: exit 2.
        r = try run([good, "--output", out, "--rejects", rejects, "--duplicate", "merge"])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("unknown option '--duplicate' (did you mean '--duplicates'?)"), r.stderr)
        r = try run([
            "--input-spec", #"{"path": "\#(good)", "columns": {"lonn": "lon"}}"#, "--output", out, "--rejects", rejects,
        ])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("inputs[0].columns.lonn: unknown key (did you mean 'lon'?)"), r.stderr)
        r = try run([good, "--lon-column", "longitude", "--lat-column", "lat", "--output", out, "--rejects", rejects])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("no column named 'longitude'"), r.stderr)

        // No usable rows, too many rejects, empty input: exit 3.
        let bad = scratch.write("id,lon,lat\n1,0,0\n2,x,1\n", name: "bad.csv")
        r = try run([bad, "--output", out, "--rejects", rejects, "--max-reject-ratio", "1"])
        XCTAssertEqual(r.status, 3)
        XCTAssertTrue(r.stderr.contains("no usable rows"), r.stderr)
        r = try run([bad, "--output", out, "--rejects", rejects])
        XCTAssertEqual(r.status, 3)
        XCTAssertTrue(r.stderr.contains("more than max_reject_ratio 0.1"), r.stderr)
        XCTAssertEqual(scratch.text(rejects).split(separator: "\n").count, 3, "rejects written before failing")
        r = try run([scratch.write("", name: "empty.csv"), "--output", out, "--rejects", rejects])
        XCTAssertEqual(r.status, 3)
        XCTAssertTrue(r.stderr.contains("no records (the input is empty)"), r.stderr)
        r = try run([scratch.path("missing.csv"), "--output", out, "--rejects", rejects])
        XCTAssertEqual(r.status, 3)
        XCTAssertTrue(r.stderr.contains("cannot open input"), r.stderr)
        XCTAssertTrue(r.stderr.contains("check the path"), r.stderr)
        // A folder that is no GDAL dataset: said in words, not only GDAL's.
        let folder = scratch.path("folder")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        r = try run([folder, "--output", out, "--rejects", rejects])
        XCTAssertEqual(r.status, 3)
        XCTAssertTrue(r.stderr.contains("is a folder, which GDAL reads as one dataset"), r.stderr)

        // --help lists the parameters with their manifest keys.
        r = try run(["--help"])
        XCTAssertEqual(r.status, 0)
    }

    /// A file whose first record cannot be read — one 50 MiB line with no line feed (a minified
    /// blob or binary text given as CSV), or a quote never closed — is refused with exit 3, and the
    /// record is kept in the rejects file like every other reject (bounded: its line, byte offset,
    /// length and first 1,000 bytes, with the reason) and counted in the summary; the message says
    /// where. It used to leave no rejects file at all.
    func testAFirstRecordThatCannotBeReadIsKeptInTheRejectsFile() throws {
        let head = "id,name,category,lon,lat,"
        var blob = Array("\n\n\(head)".utf8)
        blob += [UInt8](repeating: UInt8(ascii: "x"), count: 50 << 20)
        let input = scratch.write(blob, name: "blob.csv")
        let out = scratch.path("blob.rsa")
        let rejects = scratch.path("blob-rejects.txt")
        let summary = scratch.path("blob-summary.json")
        let r = try run([input, "--output", out, "--rejects", rejects, "--summary", summary])
        XCTAssertEqual(r.status, 3, r.stderr)
        let length = groupedCount(blob.count - 2)
        XCTAssertTrue(r.stderr.contains("\(input): cannot read the first record (line 3, byte 2)"), r.stderr)
        XCTAssertTrue(r.stderr.contains(length), r.stderr)
        XCTAssertTrue(r.stderr.contains("kept in \(rejects)"), r.stderr)
        XCTAssertTrue(r.stderr.contains("raise max_record_bytes"), r.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out))
        let text = scratch.text(rejects)
        XCTAssertLessThan(text.utf8.count, 4096, "the rejects file holds a bounded excerpt")
        let lines = text.split(separator: "\n")
        XCTAssertEqual(lines.count, 1, text)
        let reject = try JSONParser.parse(String(lines.first ?? ""))
        XCTAssertEqual(reject["source_file"]?.stringValue, input)
        XCTAssertEqual(reject["line"]?.intValue, 3)
        XCTAssertEqual(reject["byte_offset"]?.intValue, 2)
        let reason = reject["reason"]?.stringValue ?? ""
        XCTAssertTrue(reason.hasPrefix("record too long: "), reason)
        XCTAssertTrue(reason.contains("\(length) bytes"), reason)
        XCTAssertTrue(reason.contains("max_record_bytes (1048576)"), reason)
        let raw = reject["raw"]?.stringValue ?? ""
        XCTAssertTrue(raw.hasPrefix(head + "xxxx"), raw)
        XCTAssertLessThanOrEqual(raw.count, 1001, "the first 1,000 bytes and an ellipsis")
        let s = StageSummary(json: try JSONParser.parse(scratch.text(summary)))
        XCTAssertEqual(s.count(.read), 1)
        XCTAssertEqual(s.count(.rejected), 1)

        // A quote opened in the first record and never closed: the same, with its own reason.
        let quoted = scratch.write("\"id,name,category,lon,lat\n1,a,cafe,10,20\n", name: "quote.csv")
        let q = try run([quoted, "--output", out, "--rejects", rejects])
        XCTAssertEqual(q.status, 3, q.stderr)
        XCTAssertTrue(q.stderr.contains("\(quoted): cannot read the first record (line 1, byte 0)"), q.stderr)
        let qReject = try JSONParser.parse(String(scratch.text(rejects).split(separator: "\n").first ?? ""))
        XCTAssertTrue(qReject["reason"]?.stringValue?.hasPrefix("unterminated quote: ") ?? false, "\(qReject)")
        XCTAssertEqual(qReject["raw"]?.stringValue, "\"id,name,category,lon,lat\n1,a,cafe,10,20\n")
    }

    /// An output naming the file ingest reads (directly, through a symbolic link, or as
    /// `--rejects` / `--summary`) is refused with exit 2 and the input left as it was; two
    /// outputs on one path are refused too, while two on `/dev/null` are fine.
    func testOutputsThatWouldReplaceTheInputAreRefused() throws {
        let text = "id,name,category,lon,lat\n1,a,cafe,10,20\n2,b,cafe,11,21\n"
        let input = scratch.write(text, name: "in.csv")
        let link = scratch.path("link.csv")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: input)
        let (out, rejects) = (scratch.path("o.rsa"), scratch.path("r.csv"))
        for (arguments, says) in [
            ([input, "--output", input, "--rejects", rejects], "--output \(input) is input 1"),
            ([input, "--output", link, "--rejects", rejects], "--output \(link) is input 1"),
            ([link, "--output", out, "--rejects", input], "--rejects \(input) is input 1"),
            ([input, "--output", out, "--rejects", rejects, "--summary", input], "--summary \(input) is input 1"),
            ([input, "--output", out, "--rejects", out], "--rejects and --output both name \(out)"),
        ] {
            let r = try run(arguments)
            XCTAssertEqual(r.status, 2, "\(arguments): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(says), r.stderr)
            XCTAssertEqual(scratch.text(input), text, "\(arguments) changed the input")
        }
        let r = try run([input, "--output", out, "--rejects", "/dev/null", "--summary", "/dev/null"])
        XCTAssertEqual(r.status, 0, r.stderr)
    }
}
