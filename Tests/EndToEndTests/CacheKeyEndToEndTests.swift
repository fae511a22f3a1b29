import Foundation
import XCTest

@testable import RegionSearchStages

/// What the stage keys must cover beyond content and parameters: the build that computed a
/// result, and the input file name that the result records.
final class CacheKeyEndToEndTests: XCTestCase {
    func testAnotherBuildOfAStageIsNotUpToDate() throws {
        let f = try PipelineFixture()
        defer { f.remove() }
        XCTAssertEqual(try f.run().status, 0)
        // The same executables in another directory: the same build, everything up to date.
        let tools = f.root + "/tools"
        try FileManager.default.createDirectory(atPath: tools, withIntermediateDirectories: true)
        for name in ["regionsearch"] + Pipeline.stages.map(\.executable) {
            try FileManager.default.copyItem(
                atPath: PipelineFixture.toolDirectory + "/" + name, toPath: tools + "/" + name)
        }
        let same = try f.tool(["run", f.manifestPath], executable: tools + "/regionsearch")
        XCTAssertEqual(same.status, 0, same.output)
        XCTAssertEqual(try f.ranStages(), [], "a copied build is the same build")
        // A different hulls executable (one byte appended: it still runs) is another build.
        let hulls = FileHandle(forWritingAtPath: tools + "/regionsearch-hulls")!
        hulls.seekToEndOfFile()
        hulls.write(Data([0]))
        hulls.closeFile()
        let status = try f.tool(["status", f.manifestPath], executable: tools + "/regionsearch")
        XCTAssertTrue(status.output.contains("another build of regionsearch-hulls"), status.output)
        let other = try f.tool(["run", f.manifestPath], executable: tools + "/regionsearch")
        XCTAssertEqual(other.status, 0, other.output)
        XCTAssertEqual(try f.ranStages(), ["hulls"])
    }

    func testTheSameBytesUnderAnotherNameGiveThatNamesProvenance() throws {
        let f = try PipelineFixture()
        defer { f.remove() }
        XCTAssertEqual(try f.run().status, 0)
        let renamed = f.root + "/data/tonight.csv"
        try FileManager.default.copyItem(atPath: f.csvPath, toPath: renamed)
        try f.writeManifest(input: .object([("path", .string("../data/tonight.csv")), ("format", .string("csv"))]))
        let status = try f.tool(["status", f.manifestPath])
        XCTAssertTrue(status.output.contains("is named tonight.csv (was city.csv)"), status.output)
        XCTAssertEqual(try f.run().status, 0)
        XCTAssertTrue(try f.ranStages().contains("ingest"))
        let reused = try f.output()
        XCTAssertTrue(String(decoding: reused, as: UTF8.self).contains("\"tonight.csv\""))
        // A fresh work directory gives the same bytes.
        try FileManager.default.removeItem(atPath: f.workPath)
        try FileManager.default.removeItem(atPath: f.outputPath)
        XCTAssertEqual(try f.run().status, 0)
        XCTAssertEqual(try f.output(), reused)
    }
}
