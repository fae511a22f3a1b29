import Foundation
import XCTest

@testable import RegionSearchCore
@testable import RegionSearchRunner
@testable import RegionSearchStages
@testable import RegionSearchTestSupport

/// Kills `regionsearch run` with SIGKILL at many moments — at deterministic points inside every
/// stage's artifact writes and inside the runner (REGIONSEARCH_CRASH_AT), and at timed moments
/// of the whole process group — and checks that the next `regionsearch run` finishes with output
/// byte-identical to an uninterrupted run, without a stage ever reading a partial file (a stage
/// that did would exit with status 4 and fail the recovery run).
final class CrashTests: XCTestCase {
    /// An uninterrupted run's results, and a copy of its work directory to start trials from.
    private struct Reference {
        var output: Data
        /// The map files beside the output (name → bytes).
        var maps: [String: Data]
        var objects: [String: Data]
        var work: String
        var seconds: Double
        /// Every crash point the run reached, as `scope:point:n`.
        var points: [String]
    }

    private func reference(_ f: PipelineFixture) throws -> Reference {
        let trace = f.root + "/crash-trace.txt"
        let t0 = monotonicSeconds()
        let result = try f.run([], environment: [CrashPoint.traceVariable: trace])
        let seconds = monotonicSeconds() - t0
        guard result.status == 0 else { throw Failure("reference run failed: \(result.output)") }
        let copy = f.root + "/reference-work"
        try FileManager.default.copyItem(atPath: f.workPath, toPath: copy)
        let points = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n").map(String.init)
        return Reference(
            output: try f.output(), maps: try mapFiles(f), objects: try f.objectFiles(), work: copy, seconds: seconds,
            points: points)
    }

    /// The files beside the output other than the output itself (the maps), by name.
    private func mapFiles(_ f: PipelineFixture) throws -> [String: Data] {
        let dir = AtomicFile.directory(of: f.outputPath)
        var out: [String: Data] = [:]
        // The published paths (the folder of published sets is hidden).
        for name in FileSystem.list(dir) where dir + "/" + name != f.outputPath && !name.hasPrefix(".") {
            out[name] = try Data(contentsOf: URL(fileURLWithPath: dir + "/" + name))
        }
        return out
    }

    private struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ d: String) { description = d }
    }

    /// Resets the fixture's work directory: empty, or the reference with the records and objects
    /// of `removing` stages deleted.
    private func prepare(
        _ f: PipelineFixture, _ reference: Reference, keep: Bool, removing stages: ArraySlice<String> = []
    ) throws {
        try? FileManager.default.removeItem(atPath: f.workPath)
        // The output and the maps beside it: a trial starts before anything was published.
        for name in FileSystem.list(AtomicFile.directory(of: f.outputPath)) {
            try FileManager.default.removeItem(atPath: AtomicFile.directory(of: f.outputPath) + "/" + name)
        }
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

    /// What is wrong after the next run, which must succeed and reproduce the reference exactly.
    private func recoveryProblems(_ f: PipelineFixture, _ reference: Reference) throws -> [String] {
        var problems: [String] = []
        let recovery = try f.run()
        if recovery.status != 0 || recovery.output.contains("error") {
            problems.append("recovery run: \(recovery.termination): \(recovery.output)")
        }
        if (try? f.output()) != reference.output { problems.append("output differs from the uninterrupted run") }
        if (try? mapFiles(f)) != reference.maps { problems.append("maps differ from the uninterrupted run") }
        let objects = try f.objectFiles()
        if objects != reference.objects {
            let differing = Set(objects.keys).union(reference.objects.keys).filter {
                objects[$0] != reference.objects[$0]
            }
            problems.append("objects differ: \(differing.sorted())")
        }
        if !f.temporaries().isEmpty { problems.append("temporary files left: \(f.temporaries())") }
        if (try? f.runState().status) != "ok" { problems.append("run.json does not say ok") }
        return problems
    }

    private func assertRecovers(
        _ f: PipelineFixture, _ reference: Reference, _ context: String, file: StaticString = #filePath,
        line: UInt = #line
    ) throws {
        for problem in try recoveryProblems(f, reference) { XCTFail("\(context): \(problem)", file: file, line: line) }
    }

    /// One deterministic kill: where, and how the work directory starts.
    private struct Trial {
        var spec: String
        /// nil: empty work directory; otherwise the reference minus the stages from this index on
        /// (or, with `replace`, the complete reference and `--from` that stage).
        var fromStage: Int?
        var replace = false
    }

    /// Every point an uninterrupted run reaches inside the stages' writes and the runner's steps,
    /// and the runner's own atomic writes (each commit, and a third of them at the other moments).
    private func trials(_ points: [String]) -> [Trial] {
        let stageNames = Pipeline.stages.map { $0.name }
        var out: [Trial] = []
        for spec in points {
            let parts = spec.split(separator: ":").map(String.init)
            guard parts.count == 3, let n = Int(parts[2]) else { continue }
            let (scope, point) = (parts[0], parts[1])
            if let k = stageNames.firstIndex(of: scope) {
                // Inside a stage: resume with the earlier stages done, or replace a complete object.
                out.append(Trial(spec: spec, fromStage: k, replace: (n + k + point.count) % 2 == 0))
            } else if ["spawn", "stage-done", "promote", "promoted", "output", "set-ready", "set-current"].contains(
                point)
            {
                out.append(Trial(spec: spec, fromStage: nil))
            } else if point == "rename" || n % 3 == ["write", "fsync", "renamed"].firstIndex(of: point).map({ $0 % 3 })
            {
                out.append(Trial(spec: spec, fromStage: nil))
            }
        }
        return out
    }

    func testKillsAtDeterministicPointsAreRecovered() throws {
        // Two workers with their own fixtures share the trials (each trial is two short runs).
        let workers = 2
        let fixtures = try (0..<workers).map { _ in try PipelineFixture() }
        defer { for f in fixtures { f.remove() } }
        let references = try fixtures.map { try reference($0) }
        XCTAssertEqual(references[0].points, references[1].points, "the same points in every run")
        let all = trials(references[0].points)
        let stageNames = Pipeline.stages.map { $0.name }
        let lock = NSLock()
        var failures: [String] = []
        var killed = 0
        // Parallel.forEach shares the closure across its threads; the lock guards what it mutates.
        Parallel.forEach(workers) { w in
            let f = fixtures[w]
            let ref = references[w]
            for trial in all.enumerated().filter({ $0.offset % workers == w }).map({ $0.element }) {
                do {
                    try prepare(
                        f, ref, keep: trial.fromStage != nil,
                        removing: trial.replace ? [] : stageNames[(trial.fromStage ?? 0)...])
                    let options = trial.replace ? ["--from", stageNames[trial.fromStage!]] : []
                    let result = try f.run(options, environment: [CrashPoint.environmentVariable: trial.spec])
                    var problems: [String] = []
                    if result.termination == .signaled(SIGKILL) {
                        problems = try recoveryProblems(f, ref)
                    } else {
                        problems = ["not killed: \(result.termination): \(result.output)"]
                    }
                    lock.lock()
                    if result.termination == .signaled(SIGKILL) { killed += 1 }
                    failures += problems.map { "\(trial.spec)\(trial.replace ? " (--from)" : ""): \($0)" }
                    lock.unlock()
                } catch {
                    lock.lock()
                    failures.append("\(trial.spec): \(error)")
                    lock.unlock()
                }
            }
        }
        for failure in failures { XCTFail(failure) }
        // Every stage writes its artifact and summary; the runner passes each of its points.
        for stage in stageNames {
            for point in ["write", "fsync", "rename", "renamed"] {
                XCTAssertTrue(all.contains { $0.spec == "\(stage):\(point):2" }, "\(stage):\(point)")
            }
        }
        for point in ["spawn", "stage-done", "promote", "promoted"] {
            XCTAssertTrue(all.contains { $0.spec == "run:\(point):6" }, point)
        }
        XCTAssertTrue(all.contains { $0.spec == "run:output:1" })
        XCTAssertGreaterThan(all.filter { $0.spec.hasPrefix("run:rename:") }.count, 6 * 2 + 2)
        print(
            "CrashTests: \(killed) deterministic kill points, all recovered byte-identically (of "
                + "\(references[0].points.count) points an uninterrupted run passes)"
        )
        XCTAssertEqual(killed, all.count)
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
                environment: PipelineFixture.environment(adding: [:]), newProcessGroup: true,
                output: .file(f.root + "/timed.log"))
            usleep(useconds_t(delay * 1e6))
            child.kill(SIGKILL, group: true)
            let termination = child.wait()
            if termination == .signaled(SIGKILL) { killed += 1 } else { XCTAssertEqual(termination, .exited(0)) }
            chained = i % 3 == 0
            if !chained { try assertRecovers(f, ref, "timed kill \(i) after \(String(format: "%.3f", delay)) s") }
        }
        try assertRecovers(f, ref, "after the last timed kill")
        // How many land mid-run depends on the machine's load; every one of them was recovered.
        print("CrashTests: \(killed) of \(trials) timed process-group kills landed during the run, all recovered")
        XCTAssertGreaterThan(killed, 0)
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
        XCTAssertTrue(
            next.output.contains("the previous run on this work directory (pid \(pid)) was interrupted; resuming"),
            next.output)
        XCTAssertEqual(try f.ranStages(), ["graph", "propagate", "regions", "hulls"])
        XCTAssertEqual(try String(contentsOfFile: f.work.lockFile, encoding: .utf8), "", "released on exit")
    }
}
