import Foundation
import XCTest

@testable import RegionSearchCore
@testable import RegionSearchRunner

/// Two runs on one work directory: one fails clearly (exit 5, naming the holder) or waits with
/// --wait; the output is never corrupt.
final class ConcurrencyTests: XCTestCase {
    func testSecondRunFailsWithTheHoldersPidOrWaits() throws {
        let f = try PipelineFixture()
        defer { f.remove() }
        // This test process holds the lock, exactly as a running `regionsearch run` would.
        let lock = try WorkLock.acquire(f.work, wait: false)
        let busy = try f.run()
        XCTAssertEqual(busy.status, 5, busy.output)
        XCTAssertTrue(
            busy.output.contains(
                "regionsearch: error: work directory \(f.workPath) is in use by another run (pid \(getpid()), "
                    + "started "),
            busy.output)
        XCTAssertTrue(busy.output.contains("pass --wait"), busy.output)
        XCTAssertEqual(
            WorkLock.state(of: f.work), .held(WorkLock.Holder(pid: getpid(), started: try XCTUnwrap(self.started(f)))))
        let clean = try f.tool(["clean", f.manifestPath])
        XCTAssertEqual(clean.status, 5, clean.output)
        let status = try f.tool(["status", f.manifestPath])
        XCTAssertTrue(status.output.contains("last run: running now (pid \(getpid())"), status.output)

        let waiting = try ChildProcess(
            executable: PipelineFixture.regionsearch, arguments: ["run", f.manifestPath, "--wait"],
            environment: PipelineFixture.environment(adding: [:]), newProcessGroup: true,
            output: .file(f.root + "/wait.log"))
        // Until the lock is released the waiting run has done nothing: it has not even written run.json.
        var sawWaiting = false
        for _ in 0..<200 where !sawWaiting {
            usleep(20_000)
            sawWaiting =
                (try? String(contentsOfFile: f.root + "/wait.log", encoding: .utf8))?.contains(
                    "waiting for it to finish") ?? false
        }
        XCTAssertTrue(sawWaiting)
        XCTAssertFalse(FileManager.default.fileExists(atPath: f.work.runState))
        lock.release()
        XCTAssertEqual(waiting.wait(), .exited(0))
        XCTAssertEqual(try f.ranStages().count, 6)
        XCTAssertEqual(WorkLock.state(of: f.work), .free)
    }

    private func started(_ f: PipelineFixture) -> String? {
        let text = try? String(contentsOfFile: f.work.lockFile, encoding: .utf8)
        return text?.split(separator: "\n").first { $0.hasPrefix("started ") }.map { String($0.dropFirst(8)) }
    }

    /// Three runs started at once with --wait: they run one after another, every stage runs
    /// exactly once, and all see the same output.
    func testConcurrentWaitingRunsComputeEachStageOnce() throws {
        let f = try PipelineFixture()
        defer { f.remove() }
        let runs = try (0..<3).map { i in
            try ChildProcess(
                executable: PipelineFixture.regionsearch, arguments: ["run", f.manifestPath, "--wait"],
                environment: PipelineFixture.environment(adding: [:]), newProcessGroup: true,
                output: .file(f.root + "/run\(i).log"))
        }
        for run in runs { XCTAssertEqual(run.wait(), .exited(0)) }
        let logs = try (0..<3).map { try String(contentsOfFile: f.root + "/run\($0).log", encoding: .utf8) }
        let executed = logs.map { log in log.components(separatedBy: ": done in ").count - 1 }
        XCTAssertEqual(executed.reduce(0, +), 6, logs.joined(separator: "\n---\n"))
        XCTAssertEqual(FileSystem.list(f.work.objects).count, 6)
        XCTAssertEqual(f.temporaries(), [])
        let output = try f.output()
        XCTAssertEqual(try f.run().status, 0)
        XCTAssertEqual(try f.ranStages(), [])
        XCTAssertEqual(try f.output(), output)
    }

    /// Two runs started at once without --wait: each either completes or exits 5 naming the
    /// other; the result is complete and valid either way.
    func testConcurrentRunsWithoutWaitNeverCorruptTheOutput() throws {
        let f = try PipelineFixture()
        defer { f.remove() }
        for round in 0..<3 {
            try? FileManager.default.removeItem(atPath: f.workPath)
            let runs = try (0..<2).map { i in
                try ChildProcess(
                    executable: PipelineFixture.regionsearch, arguments: ["run", f.manifestPath],
                    environment: PipelineFixture.environment(adding: [:]), newProcessGroup: true,
                    output: .file(f.root + "/r\(i).log"))
            }
            let ends = runs.map { $0.wait() }
            XCTAssertTrue(ends.contains(.exited(0)), "round \(round): \(ends)")
            for (i, end) in ends.enumerated() where end != .exited(0) {
                XCTAssertEqual(end, .exited(5))
                let log = try String(contentsOfFile: f.root + "/r\(i).log", encoding: .utf8)
                XCTAssertTrue(log.contains("is in use by another run (pid \(runs[1 - i].pid)"), log)
            }
            let check = try f.run()
            XCTAssertEqual(check.status, 0, check.output)
            XCTAssertEqual(try f.ranStages(), [], "round \(round): the completed run left everything up to date")
        }
    }
}
