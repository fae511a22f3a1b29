import Foundation
import XCTest

@testable import RegionSearchCore
@testable import RegionSearchTestSupport

/// SIGTERM to the runner alone (`kill PID`, as a service manager signals a job's main process)
/// ends the stage it waits for too, instead of leaving it to run on, orphaned. The runner is a
/// copy of the built driver beside a stand-in ingest stage that sleeps, so the stage surely
/// outlives the signal.
final class SignalForwardingTests: XCTestCase {
    func testATerminatedRunnerTakesItsStageWithIt() throws {
        guard FileManager.default.fileExists(atPath: "/proc/self/task") else {
            throw XCTSkip("finds the runner's child in /proc (Linux)")
        }
        let f = try PipelineFixture()
        defer { f.remove() }
        try f.writeManifest()
        let tools = f.root + "/tools"
        try FileManager.default.createDirectory(atPath: tools, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: PipelineFixture.regionsearch, toPath: tools + "/regionsearch")
        try "#!/bin/sh\nexec sleep 60\n".write(
            toFile: tools + "/regionsearch-ingest", atomically: true, encoding: .utf8)
        XCTAssertEqual(chmod(tools + "/regionsearch-ingest", 0o755), 0)
        let runner = try ChildProcess(
            executable: tools + "/regionsearch", arguments: ["run", f.manifestPath, "--quiet"], newProcessGroup: true,
            output: .file(f.root + "/run.log"))
        // The stage: the runner's child, once it has started it.
        var stage: pid_t = 0
        for _ in 0..<400 where stage == 0 {
            let children =
                (try? String(contentsOfFile: "/proc/\(runner.pid)/task/\(runner.pid)/children", encoding: .utf8))
            stage = children?.split(separator: " ").first.flatMap { pid_t(String($0)) } ?? 0
            if stage == 0 { usleep(50_000) }
        }
        XCTAssertGreaterThan(stage, 0, "the runner started its ingest stage")
        defer { if stage > 0 { kill(stage, SIGKILL) } }
        kill(runner.pid, SIGTERM)
        XCTAssertEqual(runner.wait(), .signaled(SIGTERM), "the runner ends by the signal, as without a handler")
        // Gone (or a zombie waiting for init to reap it) within 5 s, not after its 60 s.
        var ended = false
        for _ in 0..<100 where !ended {
            let stat = try? String(contentsOfFile: "/proc/\(stage)/stat", encoding: .utf8)
            ended = stat == nil || stat!.split(separator: " ").dropFirst(2).first == "Z"
            if !ended { usleep(50_000) }
        }
        XCTAssertTrue(ended, "the stage \(stage) still runs after its runner was terminated")
    }
}
