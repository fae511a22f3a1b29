import Foundation
import XCTest
@testable import RegionSearch

/// Kills `regionsearch run` with SIGKILL at many moments — at deterministic points inside every
/// stage's artifact writes and inside the runner (REGIONSEARCH_CRASH_AT), and at timed moments
/// of the whole process group — and checks that the next `regionsearch run` finishes with output
/// byte-identical to an uninterrupted run, without a stage ever reading a partial file (a stage
/// that did would exit with status 4 and fail the recovery run).
final class CrashTests: XCTestCase {
    /// An uninterrupted run's results, and a copy of its work directory to start trials from.
    private struct Reference {
        var output: Data
        var objects: [String: Data]
        var work: String
        var seconds: Double
    }

    private func reference(_ f: PipelineFixture) throws -> Reference {
        let t0 = monotonicSeconds()
        let result = try f.run()
        let seconds = monotonicSeconds() - t0
        XCTAssertEqual(result.status, 0, result.output)
        let copy = f.root + "/reference-work"
        try FileManager.default.copyItem(atPath: f.workPath, toPath: copy)
        return Reference(output: try f.output(), objects: try f.objectFiles(), work: copy, seconds: seconds)
    }

    /// Resets the fixture's work directory: empty, or the reference with the records and objects
    /// of `removing` stages deleted.
    private func prepare(_ f: PipelineFixture, _ reference: Reference, keep: Bool, removing stages: ArraySlice<String> = []) throws {
        try? FileManager.default.removeItem(atPath: f.workPath)
        unlink(f.outputPath)
        guard keep else { return }
        try FileManager.default.copyItem(atPath: reference.work, toPath: f.workPath)
        for dir in [f.work.objects, f.work.records] {
            for name in FileSystem.list(dir) {
                if let entry = WorkDirectory.parseEntry(name), stages.contains(entry.stage) {
                    try FileManager.default.removeItem(atPath: dir + "/" + name)
                }
            }
        }
    }

    /// The next run must succeed and reproduce the reference exactly.
    private func assertRecovers(_ f: PipelineFixture, _ reference: Reference, _ context: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let recovery = try f.run()
        XCTAssertEqual(recovery.status, 0, "\(context): \(recovery.output)", file: file, line: line)
        XCTAssertFalse(recovery.output.contains("error"), "\(context): \(recovery.output)", file: file, line: line)
        XCTAssertEqual(try f.output(), reference.output, context, file: file, line: line)
        XCTAssertEqual(try f.objectFiles(), reference.objects, context, file: file, line: line)
        XCTAssertEqual(f.temporaries(), [], context, file: file, line: line)
        XCTAssertEqual(try f.runState().status, "ok", context, file: file, line: line)
    }

    /// Runs with `REGIONSEARCH_CRASH_AT=spec`; true when the run was killed there, false when it
    /// finished without reaching the point.
    private func crash(_ f: PipelineFixture, _ spec: String, options: [String] = []) throws -> Bool {
        let result = try f.run(options, environment: [CrashPoint.environmentVariable: spec])
        if result.termination == .signaled(SIGKILL) { return true }
        XCTAssertEqual(result.status, 0, "\(spec) neither crashed nor succeeded: \(result.output)")
        return false
    }

    func testKillsAtDeterministicPointsAreRecovered() throws {
        let f = try PipelineFixture()
        defer { f.remove() }
        let ref = try reference(f)
        let stageNames = Pipeline.stages.map { $0.name }
        var tried = 0
        var killed = 0

        // Inside each stage's own writes (artifact, rejects, summary): half-written block, before
        // fsync, before rename, after rename. The work directory holds the results of the stages
        // before it (resume path), or every stage with --from (replacing a complete object).
        for (k, stage) in stageNames.enumerated() {
            for point in ["write", "fsync", "rename", "renamed"] {
                var n = 1
                while true {
                    let replace = (n + k) % 2 == 0
                    try prepare(f, ref, keep: true, removing: replace ? [] : stageNames[k...])
                    tried += 1
                    let options = replace ? ["--from", stage] : []
                    guard try crash(f, "\(stage):\(point):\(n)", options: options) else { break }
                    killed += 1
                    try assertRecovers(f, ref, "\(stage):\(point):\(n)\(replace ? " --from" : "")")
                    n += 1
                }
                XCTAssertGreaterThan(n, 1, "\(stage):\(point) was never reached")
            }
        }

        // Inside the runner, from an empty work directory: before starting the n-th stage, after
        // it exited, before promoting its staging directory, after promoting it (before its record
        // is written), and before publishing the GeoJSON.
        for point in ["spawn", "stage-done", "promote", "promoted", "output"] {
            for n in 1...(point == "output" ? 1 : stageNames.count) {
                try prepare(f, ref, keep: false)
                tried += 1
                XCTAssertTrue(try crash(f, "run:\(point):\(n)"), "run:\(point):\(n) was not reached")
                killed += 1
                try assertRecovers(f, ref, "run:\(point):\(n)")
            }
        }

        // The runner's own atomic writes (run.json, records, the published GeoJSON): the commit
        // moment (rename) of every one of them, and a third of them, in turn, mid-write, before
        // fsync and after the rename (a full sweep of those takes minutes and adds nothing the
        // stage-level sweep above does not already cover for the same code).
        var writes = 0
        for (offset, point) in ["rename", "write", "fsync", "renamed"].enumerated() {
            var n = 1
            while true {
                if point != "rename" && n % 3 != offset % 3 {
                    n += 1
                    if writes > 0 && n > writes { break }
                    continue
                }
                try prepare(f, ref, keep: false)
                tried += 1
                guard try crash(f, "run:\(point):\(n)") else { break }
                killed += 1
                try assertRecovers(f, ref, "run:\(point):\(n)")
                n += 1
            }
            if point == "rename" { writes = n - 1 }
        }
        XCTAssertGreaterThan(writes, 6 * 2 + 2, "the runner writes run.json around every stage and a record per stage")
        print("CrashTests: \(killed) deterministic kill points hit (\(tried) tried), all recovered byte-identically")
        XCTAssertGreaterThan(killed, 100)
    }

    /// SIGKILL of the runner's whole process group at evenly spread moments of a run, some from
    /// an empty work directory and some while already recovering from an earlier kill.
    func testTimedKillsOfTheProcessGroupAreRecovered() throws {
        let f = try PipelineFixture()
        defer { f.remove() }
        let ref = try reference(f)
        let trials = 16
        var killed = 0
        var chained = false
        for i in 0..<trials {
            // Alternate: start afresh, or keep whatever the previous kill left (a kill during recovery).
            if !chained { try prepare(f, ref, keep: false) }
            let delay = ref.seconds * Double(i + 1) / Double(trials + 1)
            let child = try ChildProcess(
                executable: PipelineFixture.regionsearch, arguments: ["run", f.manifestPath, "--quiet"],
                environment: PipelineFixture.environment(adding: [:]), newProcessGroup: true, output: .file(f.root + "/timed.log"))
            usleep(useconds_t(delay * 1e6))
            child.kill(SIGKILL, group: true)
            let termination = child.wait()
            if termination == .signaled(SIGKILL) { killed += 1 } else { XCTAssertEqual(termination, .exited(0)) }
            chained = i % 3 == 0
            if !chained { try assertRecovers(f, ref, "timed kill \(i) after \(String(format: "%.3f", delay)) s") }
        }
        try assertRecovers(f, ref, "after the last timed kill")
        print("CrashTests: \(killed) of \(trials) timed process-group kills landed during the run, all recovered")
        XCTAssertGreaterThan(killed, trials / 2)
    }

    /// The lock of a killed run does not block the next one, which reports the interruption.
    func testLockOfAKilledRunIsStale() throws {
        let f = try PipelineFixture()
        defer { f.remove() }
        let result = try f.run([], environment: [CrashPoint.environmentVariable: "run:spawn:3"])
        XCTAssertEqual(result.termination, .signaled(SIGKILL))
        let lockText = try String(contentsOfFile: f.work.lockFile, encoding: .utf8)
        XCTAssertTrue(lockText.hasPrefix("pid "), lockText)
        let status = try f.tool(["status", f.manifestPath])
        XCTAssertTrue(status.output.contains("last run: interrupted"), status.output)
        XCTAssertTrue(status.output.contains("during graph"), status.output)
        let next = try f.run()
        XCTAssertEqual(next.status, 0, next.output)
        let pid = lockText.split(separator: "\n")[0].dropFirst(4)
        XCTAssertTrue(next.output.contains("the previous run on this work directory (pid \(pid)) was interrupted; resuming"), next.output)
        XCTAssertEqual(try f.ranStages(), ["graph", "propagate", "regions", "hulls"])
        XCTAssertEqual(try String(contentsOfFile: f.work.lockFile, encoding: .utf8), "", "released on exit")
    }
}
