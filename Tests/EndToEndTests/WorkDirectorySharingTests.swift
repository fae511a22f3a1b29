import Foundation
import XCTest

@testable import RegionSearchCore
@testable import RegionSearchRunner
@testable import RegionSearchTestSupport

/// Two manifests sharing one work directory, and inputs that are not files.
final class WorkDirectorySharingTests: XCTestCase {
    func testCleanUnusedKeepsWhatEveryManifestOfASharedWorkDirectoryUses() throws {
        let f = try PipelineFixture()
        defer { f.remove() }
        // A second manifest in the same work directory, differing from graph on.
        let other = f.root + "/pipelines/other.json"
        let text = try String(contentsOfFile: f.manifestPath, encoding: .utf8)
            .replacingOccurrences(of: "test.geojson", with: "other.geojson")
            .replacingOccurrences(of: "\"keywords\"", with: "\"graph\": {\"prune_factor\": 3},\n  \"keywords\"")
        try text.write(toFile: other, atomically: true, encoding: .utf8)
        XCTAssertEqual(try f.run().status, 0)
        let b = try f.tool(["run", other])
        XCTAssertEqual(b.status, 0, b.output)
        XCTAssertEqual(try f.ranStages(), ["graph", "propagate", "regions", "hulls"])
        let objectsBefore = FileSystem.list(f.work.objects).count
        for manifest in [f.manifestPath, other] {
            let clean = try f.tool(["clean", manifest, "--unused"])
            XCTAssertEqual(clean.status, 0, clean.output)
        }
        XCTAssertEqual(FileSystem.list(f.work.objects).count, objectsBefore, "both manifests' runs are live")
        for manifest in [f.manifestPath, other] {
            let report = StatusReport(manifest: try Manifest.load(path: manifest))
            XCTAssertEqual(report.stages.map(\.state), Array(repeating: .upToDate, count: 6), manifest)
        }
        // A full clean forgets both.
        XCTAssertEqual(try f.tool(["clean", f.manifestPath]).status, 0)
        XCTAssertFalse(FileSystem.exists(f.work.manifestStates))
    }

    func testADeviceAsInputFailsAtOnceWithStatus3() throws {
        let f = try PipelineFixture()
        defer { f.remove() }
        try f.writeManifest(input: .object([("path", .string("/dev/zero")), ("format", .string("csv"))]))
        let t0 = monotonicSeconds()
        let result = try f.run()
        XCTAssertLessThan(monotonicSeconds() - t0, 30)
        XCTAssertEqual(result.status, 3, result.output)
        XCTAssertTrue(result.output.contains("/dev/zero: is not a regular file"), result.output)
    }
}
