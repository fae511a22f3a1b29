import Foundation
import XCTest

@testable import RegionSearchCore
@testable import RegionSearchIngest
@testable import RegionSearchTestSupport

/// An input written, truncated, grown or replaced between its hash and the end of its parse is
/// refused (exit 1) instead of ingested: the stage run by hand read 612,915 of a 3M-row file
/// that was truncated while it was read, exited 0, and recorded the whole file's hash and size.
final class InputChangeTests: XCTestCase {
    let scratch = IngestScratch()
    let csv = "id,name,category,lon,lat\n1,a,cafe,24.94,60.17\n2,b,cafe,24.95,60.171\n"

    private func ingest(_ input: OpenedInput) throws -> Int {
        let rejects = try RejectsWriter(
            path: scratch.path("r-\(UUID().uuidString).csv"), style: .delimited(delimiter: 44, header: nil))
        defer { rejects.discard() }
        return try IngestDriver(settings: IngestSettings()).run([input], rejects: rejects).table.count
    }

    private func assertChanged(_ change: (String) throws -> Void, _ what: String) throws {
        let path = scratch.write(csv)
        let input = try OpenedInput.open(InputSpec(path: path))
        try change(path)
        XCTAssertThrowsError(try ingest(input), what) { error in
            XCTAssertEqual((error as? ExitCoded)?.exitStatus, .failure, what)
            XCTAssertTrue("\(error)".contains("\(path): the file changed while it was read"), "\(error)")
        }
    }

    func testAFileThatChangesAfterItIsOpenedIsRefused() throws {
        try assertChanged(
            { path in
                let h = try XCTUnwrap(FileHandle(forWritingAtPath: path))
                h.seekToEndOfFile()
                h.write(Data("3,c,cafe,24.96,60.172\n".utf8))
                try h.close()
            }, "grown")
        try assertChanged({ path in XCTAssertEqual(truncate(path, 30), 0) }, "truncated")
        try assertChanged(
            { path in
                let other = path + ".new"
                try self.csv.write(toFile: other, atomically: false, encoding: .utf8)
                XCTAssertEqual(rename(other, path), 0)
            }, "replaced by rename (the same bytes, another file)")
    }

    /// A gzip file cut short while it was read fails as changed (exit 1), not as damaged data to
    /// download again (exit 3).
    func testAGzipFileCutWhileReadIsSaidToHaveChanged() throws {
        var text = "id,name,category,lon,lat\n"
        for i in 0..<20_000 {
            text += "\(i),n\(i),cafe,\(24.9 + Double(i % 100) * 1e-4),\(60.1 + Double(i / 100) * 1e-4)\n"
        }
        let plain = scratch.write(text, name: "cut.csv")
        let gz = plain + ".gz"
        let zip = try ChildProcess(executable: "/bin/sh", arguments: ["-c", "gzip -c \"$0\" > \"$1\"", plain, gz])
            .wait()
        XCTAssertTrue(zip.succeeded)
        let input = try OpenedInput.open(InputSpec(path: gz))
        let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: gz)[.size] as? Int)
        XCTAssertEqual(truncate(gz, off_t(size / 2)), 0)
        XCTAssertThrowsError(try ingest(input)) { error in
            XCTAssertEqual((error as? ExitCoded)?.exitStatus, .failure, "\(error)")
            XCTAssertTrue("\(error)".contains("the file changed while it was read"), "\(error)")
        }
    }

    func testAnUnchangedFileIsIngested() throws {
        let input = try OpenedInput.open(InputSpec(path: scratch.write(csv)))
        XCTAssertEqual(try ingest(input), 2)
    }
}
