import Foundation
import RegionSearchCore
import XCTest

@testable import RegionSearchGDAL
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
        try checkAnEditHeldInTheLog(input: "city.gpkg")
    }

    /// A GeoPackage is found by its header, not its name, and its log beside the file a link
    /// points to, where SQLite keeps it: `pois.db`, and `current.gpkg` linked to `store/real.db`,
    /// were read without their logs (and written to by GDAL's read).
    func testTheLogIsFoundWhateverTheNameAndThroughALink() throws {
        try checkAnEditHeldInTheLog(input: "city.db")
        try checkAnEditHeldInTheLog(input: "current.gpkg", linkedTo: "store/real.db")
    }

    /// A snapshot folder that a killed run left in TMPDIR is removed by the next snapshot, once
    /// no process of its number runs; a live process's stays.
    func testASnapshotAKilledRunLeftIsRemoved() throws {
        let tmp = NSTemporaryDirectory() + "regionsearch-tmp-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        let finished = try ChildProcess(executable: "/bin/true", arguments: [])
        let deadPID = finished.pid
        _ = finished.wait()
        let abandoned = tmp + "/regionsearch-snapshot-\(deadPID)@\(DatabaseSnapshot.host)-AbCdEf"
        let live = tmp + "/regionsearch-snapshot-\(getpid())@\(DatabaseSnapshot.host)-GhIjKl"
        // Another machine's (a shared TMPDIR), under a process number dead here: not this one's to remove.
        let elsewhere = tmp + "/regionsearch-snapshot-\(deadPID)@another-host.example-MnOpQr"
        for dir in [abandoned, live, elsewhere] {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            try Data(repeating: 1, count: 1000).write(to: URL(fileURLWithPath: dir + "/city.gpkg"))
        }
        try checkAnEditHeldInTheLog(input: "city.gpkg", tmp: tmp)
        XCTAssertFalse(FileManager.default.fileExists(atPath: abandoned))
        XCTAssertTrue(FileManager.default.fileExists(atPath: live + "/city.gpkg"))
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: tmp).sorted(),
            [(elsewhere as NSString).lastPathComponent, (live as NSString).lastPathComponent].sorted())
    }

    /// `regionsearch diff` reads a regions GeoPackage that a killed writer left with commits in
    /// its log as the writer left it (a region deleted: retired), and leaves the user's files
    /// alone: GDAL's read had folded the log into the file and removed it.
    func testDiffReadsAGeoPackageWithItsLogAndWritesNothing() throws {
        let f = try PipelineFixture()
        defer { f.remove() }
        XCTAssertEqual(try f.run().status, 0)
        let regions = f.root + "/regions.gpkg"
        try GIS.ogr2ogr(["-f", "GPKG", regions, f.outputPath, "-nln", "regions"])
        // A writer that commits and dies without closing (no checkpoint): Python's sqlite3.
        let writer = try GIS.run(
            "/usr/bin/python3",
            [
                "-c",
                "import sqlite3, os, sys; c = sqlite3.connect(sys.argv[1]); c.execute('PRAGMA journal_mode=WAL'); "
                    + "c.execute('PRAGMA wal_autocheckpoint=0'); "
                    + "c.execute('DELETE FROM regions WHERE fid = (SELECT min(fid) FROM regions)'); c.commit(); "
                    + "os._exit(0)",
                regions,
            ])
        XCTAssertEqual(writer.status, 0, writer.output)
        let files = try FileManager.default.contentsOfDirectory(atPath: f.root).filter { $0.hasPrefix("regions.") }
        let before = try files.map { try Data(contentsOf: URL(fileURLWithPath: f.root + "/" + $0)) }
        XCTAssertTrue(files.contains("regions.gpkg-wal"), "\(files)")

        let report = f.root + "/diff.json"
        let r = try f.tool(["diff", f.outputPath, regions, "--json", report])
        XCTAssertEqual(r.status, 0, r.output)
        let json = try JSONParser.parse(try String(contentsOfFile: report, encoding: .utf8))
        XCTAssertEqual(json["counts"]?["retired"]?.intValue, 1, "\(json["counts"] ?? .null)")
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: f.root).filter { $0.hasPrefix("regions.") }, files)
        XCTAssertEqual(
            try files.map { try Data(contentsOf: URL(fileURLWithPath: f.root + "/" + $0)) }, before,
            "the diff wrote to the user's files")
    }

    /// Runs a night on `input` (a GeoPackage at `data/input`, or a link there to `data/target`),
    /// then another with a writer's uncommitted-to-the-file edit in the log, then one after the
    /// writer closed; checks each night's stages and output and that the reads wrote nothing.
    private func checkAnEditHeldInTheLog(input: String, linkedTo target: String? = nil, tmp: String? = nil) throws {
        let f = try PipelineFixture()
        defer { f.remove() }
        let gpkg = f.root + "/data/" + (target ?? input)
        try FileManager.default.createDirectory(
            atPath: (gpkg as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        if let target {
            try FileManager.default.createSymbolicLink(atPath: f.root + "/data/" + input, withDestinationPath: target)
        }
        try GIS.ogr2ogr([
            "-f", "GPKG", gpkg, f.csvPath, "-oo", "X_POSSIBLE_NAMES=lon", "-oo", "Y_POSSIBLE_NAMES=lat", "-a_srs",
            "EPSG:4326", "-nln", "pois",
        ])
        // WAL mode is a property of the file (its header), kept after the writer closes.
        try GDALDataset(openingVector: gpkg, update: true, allowedDrivers: ["GPKG"]).executeSQL(
            "PRAGMA journal_mode = WAL")
        try f.writeManifest(input: .object([("path", .string("../data/" + input)), ("format", .string("ogr"))]))
        let environment = tmp.map { ["TMPDIR": $0] }
        let first = try f.run(environment: environment)
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
        let second = try f.run(environment: environment)
        XCTAssertEqual(second.status, 0, second.output)
        if let tmp {
            // The run's own copy is gone when it ends (a stage process runs no deinitialisers).
            let copies = try FileManager.default.contentsOfDirectory(atPath: tmp).filter {
                $0.hasPrefix("regionsearch-snapshot-") && !$0.hasSuffix("-GhIjKl") && !$0.hasSuffix("-MnOpQr")
            }
            XCTAssertEqual(copies, [], "a copy of the database left in TMPDIR")
        }
        XCTAssertTrue(try f.ranStages().contains("ingest"), "the edit in the log was not seen")
        let after = try f.output()
        XCTAssertNotEqual(after, before, "half the cafes gone, the same regions")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: gpkg)), mainFile, "reading checkpointed the log")
        try writer.close()

        // Closed, the writer folds the log into the main file (or leaves it, when its close is
        // not the last): the same POIs and regions either way.
        let third = try f.run()
        XCTAssertEqual(third.status, 0, third.output)
        func features(_ data: Data) throws -> JSONValue? {
            try JSONParser.parse(String(decoding: data, as: UTF8.self))["features"]
        }
        XCTAssertEqual(try features(f.output()), try features(after))
        XCTAssertNotNil(try features(after))
    }
}
