import Foundation
import XCTest

@testable import RegionSearchCore
@testable import RegionSearchRunner
@testable import RegionSearchTestSupport

/// Issue 21, finding 12: outputs on a nearly full file system (a 5 MB tmpfs, mounted by the test:
/// root only). Yesterday's output (A) is published, the disk is filled up to a few kilobytes,
/// today's run (B) must fail with exit 6 and leave A exactly — a KML that GDAL's LIBKML driver
/// truncated without an error is refused by the read-back — and, once space is freed, publish B.
final class DiskFullTests: XCTestCase {
    private var mountPoint = ""

    override func setUpWithError() throws {
        guard getuid() == 0 else { throw XCTSkip("mounting a tmpfs needs root") }
        mountPoint = NSTemporaryDirectory() + "rs-diskfull-\(getpid())-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        let t = try ChildProcess.run("/bin/mount", ["-t", "tmpfs", "-o", "size=5m", "tmpfs", mountPoint])
        guard t.succeeded else { throw XCTSkip("cannot mount a tmpfs here (\(t))") }
    }

    override func tearDown() {
        guard !mountPoint.isEmpty else { return }
        _ = try? ChildProcess.run("/bin/umount", [mountPoint])
        try? FileManager.default.removeItem(atPath: mountPoint)
    }

    /// Fills the file system until `free` bytes are left.
    private func fill(leaving free: Int) throws -> String {
        let filler = mountPoint + "/filler"
        let fd = open(filler, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        XCTAssertGreaterThanOrEqual(fd, 0)
        let block = [UInt8](repeating: 0, count: 4096)
        while block.withUnsafeBytes({ write(fd, $0.baseAddress, 4096) }) == 4096 {}
        close(fd)
        var st = stat()
        XCTAssertEqual(stat(filler, &st), 0)
        XCTAssertEqual(truncate(filler, max(0, Int(st.st_size) - free)), 0)
        return filler
    }

    private func digests(_ names: [String]) -> [String] {
        names.map { (try? FileDigest.of(path: mountPoint + "/" + $0)).map { "\($0.hash)" } ?? "missing" }
    }

    func testAFullDiskKeepsYesterdaysOutputsAndFailsWithStatus6() throws {
        let f = try PipelineFixture()
        defer { f.remove() }
        // KML regions and POIs (the POI layer, 3,000 placemarks, does not fit), then GeoJSON and
        // the maps.
        for (output, names, maps) in [
            ("r.kml", ["r.kml", "r.qml", "p.kml", "p.qml"], false),
            ("r.geojson", ["r.geojson", "r.qml", "r.png", "r.svg", "r.html"], true),
        ] {
            // Each case starts with an empty file system.
            for name in FileSystem.list(mountPoint) {
                try FileManager.default.removeItem(atPath: mountPoint + "/" + name)
            }
            try f.writeManifest(
                output: .string(mountPoint + "/" + output), poiOutput: maps ? nil : .string(mountPoint + "/p.kml"),
                sections: maps ? [] : [("maps", .bool(false))])
            try f.runOK(["--set", "regions.min_keyword_pois=100000"])
            let b = digests(names)
            // Another set in between, so that B is no longer on disk (a set still kept would be
            // linked, needing no space) and A is current.
            try f.runOK(["--set", "regions.core_ratio=8"])
            try f.runOK()
            let a = digests(names)
            XCTAssertNotEqual(a, b, output)
            let filler = try fill(leaving: 24 << 10)
            let today = try f.run(["--set", "regions.min_keyword_pois=100000"])
            XCTAssertEqual(today.status, 6, "\(output): \(today.output)")
            XCTAssertEqual(digests(names), a, "\(output): yesterday's files, exactly")
            if output == "r.kml" {
                for kml in ["r.kml", "p.kml"] {
                    let back = try f.tool(["-ro", "-so", mountPoint + "/" + kml], executable: "/usr/bin/ogrinfo")
                    XCTAssertEqual(back.status, 0, back.output)
                }
            }
            unlink(filler)
            let again = try f.runOK(["--set", "regions.min_keyword_pois=100000"])
            XCTAssertFalse(again.output.contains("is up to date"), again.output)
            XCTAssertEqual(digests(names), b, "\(output): today's files once there is room")
            XCTAssertEqual(
                FileSystem.list(mountPoint + "/." + output + ".published").filter { $0.contains(".tmp-") }, [],
                "no half-built set left")
        }
    }

    /// The exit status says what is published: across the free space at which tonight's run
    /// goes from failing to succeeding (where a write after the flip, the run's record, was the
    /// one to fail), a run that exits non-zero leaves yesterday's regions and one that exits 0
    /// has published tonight's. The work directory is on the full file system too.
    func testTheExitStatusSaysWhetherTonightsRegionsArePublished() throws {
        let f = try PipelineFixture()
        defer { f.remove() }
        let output = mountPoint + "/r.geojson"
        try JSONValue.object([
            ("inputs", .array([.object([("path", .string(f.root + "/data/city.csv")), ("format", .string("csv"))])])),
            ("work_dir", .string(mountPoint + "/work")), ("output", .string(output)),
            ("keywords", .array([.string("cafe")])), ("maps", .bool(false)),
        ]).serialized().write(toFile: f.manifestPath, atomically: true, encoding: .utf8)
        let tonight = ["--set", "regions.core_ratio=8"]
        func yesterday() throws -> String {
            for name in FileSystem.list(mountPoint) {
                try FileManager.default.removeItem(atPath: mountPoint + "/" + name)
            }
            try f.runOK()
            return try FileDigest.of(path: output).hash.description
        }
        let a = try yesterday()
        try f.runOK(tonight)
        let b = try FileDigest.of(path: output).hash.description
        XCTAssertNotEqual(a, b)
        // The least free space (in 4 KB steps) at which tonight's run succeeds, by bisection.
        func tonightSucceeds(leaving free: Int) throws -> (status: Int32, digest: String, output: String) {
            _ = try yesterday()
            let filler = try fill(leaving: free)
            defer { unlink(filler) }
            let r = try f.run(tonight)
            return (r.status, try FileDigest.of(path: output).hash.description, r.output)
        }
        var (low, high) = (0, 1024)  // in 4 KB: fails at low, succeeds at high
        XCTAssertEqual(try tonightSucceeds(leaving: high << 12).status, 0)
        while high - low > 1 {
            let mid = (low + high) / 2
            if try tonightSucceeds(leaving: mid << 12).status == 0 { high = mid } else { low = mid }
        }
        for step in max(0, high - 24)...high {
            let r = try tonightSucceeds(leaving: step << 12)
            XCTAssertEqual(r.digest, r.status == 0 ? b : a, "\(step * 4) KB free: exit \(r.status): \(r.output)")
        }
    }
}
