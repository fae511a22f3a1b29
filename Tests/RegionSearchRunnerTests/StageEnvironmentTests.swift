import Foundation
import XCTest

@testable import RegionSearchCore
@testable import RegionSearchRunner
@testable import RegionSearchStages

/// Which stages get malloc's huge pages, and that the runner's launcher starts them so.
final class StageEnvironmentTests: XCTestCase {
    func testEveryStageButPropagateGetsTheHugePagesTunable() {
        let base = ["PATH": "/usr/bin", "GLIBC_TUNABLES": "glibc.malloc.arena_max=2"]
        for stage in ["ingest", "project", "graph", "regions", "hulls"] {
            let env = StageEnvironment.forStage(stage, base)
            XCTAssertEqual(env["GLIBC_TUNABLES"], "glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1", stage)
            XCTAssertEqual(env["PATH"], "/usr/bin", stage)
        }
        XCTAssertEqual(StageEnvironment.forStage("propagate", base), base)
        XCTAssertEqual(StageEnvironment.forStage("graph", [:])["GLIBC_TUNABLES"], "glibc.malloc.hugetlb=1")
        XCTAssertNil(StageEnvironment.forStage("propagate", [:])["GLIBC_TUNABLES"])
        // A user's own choice is kept for every stage.
        let own = ["GLIBC_TUNABLES": "glibc.malloc.hugetlb=0"]
        for stage in ["ingest", "graph", "propagate"] { XCTAssertEqual(StageEnvironment.forStage(stage, own), own) }
    }

    /// The launcher `regionsearch run` uses starts each stage in its own environment: a stand-in
    /// executable writes the `GLIBC_TUNABLES` it was given.
    func testTheRunnersLauncherStartsEachStageInItsEnvironment() throws {
        guard ProcessInfo.processInfo.environment["GLIBC_TUNABLES"] == nil else {
            throw XCTSkip("GLIBC_TUNABLES is set for the tests; the runner keeps it as it is")
        }
        let dir = NSTemporaryDirectory() + "/rs-stage-env-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let script = dir + "/stage"
        try "#!/bin/sh\nprintf '%s' \"${GLIBC_TUNABLES-unset}\" > \"$1\"\n".write(
            toFile: script, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script)
        for (definition, expected) in [
            (GraphStage.definition, "glibc.malloc.hugetlb=1"), (PropagateStage.definition, "unset"),
            (RegionsStage.definition, "glibc.malloc.hugetlb=1"),
        ] {
            let out = dir + "/" + definition.name
            let launch = try ProcessStageLauncher().launch(stage: definition, executable: script, arguments: [out])
            XCTAssertEqual(launch.termination, .exited(0))
            XCTAssertEqual(try String(contentsOfFile: out, encoding: .utf8), expected, definition.name)
        }
    }
}
