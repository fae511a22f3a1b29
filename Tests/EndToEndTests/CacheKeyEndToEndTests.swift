import Foundation
import RegionSearchCore
import RegionSearchGDAL
import XCTest

@testable import RegionSearchStages
@testable import RegionSearchTestSupport

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

/// A GeoPackage being edited in WAL mode (QGIS, a script that keeps it open) holds its latest
/// commits in `<file>-wal`, not in the main file.
final class WriteAheadLogInputTests: XCTestCase {
    func testAnEditHeldInAGeoPackagesWriteAheadLogRerunsIngest() throws {
        let f = try PipelineFixture()
        defer { f.remove() }
        let gpkg = f.root + "/data/city.gpkg"
        try GIS.ogr2ogr([
            "-f", "GPKG", gpkg, f.csvPath, "-oo", "X_POSSIBLE_NAMES=lon", "-oo", "Y_POSSIBLE_NAMES=lat", "-a_srs",
            "EPSG:4326", "-nln", "pois",
        ])
        // WAL mode is a property of the file (its header), kept after the writer closes.
        try GDALDataset(openingVector: gpkg, update: true, allowedDrivers: ["GPKG"]).executeSQL(
            "PRAGMA journal_mode = WAL")
        try f.writeManifest(input: .object([("path", .string("../data/city.gpkg"))]))
        let first = try f.run()
        XCTAssertEqual(first.status, 0, first.output)
        let before = try f.output()
        let mainFile = try Data(contentsOf: URL(fileURLWithPath: gpkg))

        // A writer deletes every other cafe and stays open: the edit is committed, in the log,
        // and the main file's bytes are as they were.
        let writer = try GDALDataset(openingVector: gpkg, update: true, allowedDrivers: ["GPKG"])
        try writer.executeSQL("PRAGMA wal_autocheckpoint = 0")
        try writer.executeSQL("DELETE FROM pois WHERE category = 'cafe' AND fid % 2 = 0")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: gpkg)), mainFile, "the edit went to the main file")
        let log = try FileManager.default.attributesOfItem(atPath: gpkg + "-wal")[.size] as? Int
        XCTAssertGreaterThan(log ?? 0, 0, "no write-ahead log")

        // The copy it is read from needs room: without a folder for it, a clear refusal.
        let noRoom = try f.run(environment: ["TMPDIR": f.root + "/no-such-folder"])
        XCTAssertEqual(noRoom.status, 3, noRoom.output)
        XCTAssertTrue(noRoom.output.contains("set TMPDIR to a writable folder"), noRoom.output)

        let status = try f.tool(["status", f.manifestPath])
        XCTAssertTrue(status.output.contains("ingest"), status.output)
        let second = try f.run()
        XCTAssertEqual(second.status, 0, second.output)
        XCTAssertTrue(try f.ranStages().contains("ingest"), "the edit in the log was not seen")
        let after = try f.output()
        XCTAssertNotEqual(after, before, "half the cafes gone, the same regions")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: gpkg)), mainFile, "reading checkpointed the log")
        try writer.close()

        // Closed, the writer folds the log into the main file: other bytes (the provenance names
        // their hash), the same POIs and regions.
        let third = try f.run()
        XCTAssertEqual(third.status, 0, third.output)
        XCTAssertFalse(FileManager.default.fileExists(atPath: gpkg + "-wal"))
        func features(_ data: Data) throws -> JSONValue? {
            try JSONParser.parse(String(decoding: data, as: UTF8.self))["features"]
        }
        XCTAssertEqual(try features(f.output()), try features(after))
        XCTAssertNotNil(try features(after))
    }
}
