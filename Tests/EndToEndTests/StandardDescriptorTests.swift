import Foundation
import XCTest

@testable import RegionSearchCore

/// The built executables started with a standard descriptor closed (`2>&-`, `>&-`) or with
/// standard error on a device every write to fails: the log is given up, never fatal, and no
/// file the run opens takes a closed descriptor's number.
final class StandardDescriptorTests: XCTestCase {
    /// Runs `executable ARGS` through `sh` with `redirections` (e.g. `2>&-`); its exit status.
    private func run(_ executable: String, _ arguments: [String], redirections: String, in dir: String) throws
        -> Int32
    {
        let script = "exec \"$0\" \"$@\" " + redirections
        let termination = try ChildProcess(
            executable: "/bin/sh", arguments: ["-c", script, executable] + arguments,
            output: .files(stdout: dir + "/stdout", stderr: dir + "/stderr")
        ).wait()
        guard case .exited(let code) = termination else { return -1 }
        return code
    }

    func testAnUnwritableLogIsNotFatal() throws {
        guard FileManager.default.fileExists(atPath: "/dev/full") else {
            throw XCTSkip("/dev/full (a device every write to fails) is Linux's")
        }
        let f = try PipelineFixture()
        defer { f.remove() }
        let tool = PipelineFixture.regionsearch
        // A missing manifest is still a usage error (2), its message lost, not a crash (SIGILL, 132).
        for redirection in ["2>&-", "2>/dev/full"] {
            XCTAssertEqual(try run(tool, ["run", f.root + "/missing.json"], redirections: redirection, in: f.root), 2)
            let graph = PipelineFixture.toolDirectory + "/regionsearch-graph"
            XCTAssertEqual(try run(graph, ["--bogus"], redirections: redirection, in: f.root), 2)
        }
        // A whole run with its log on /dev/full, then with standard error closed: both publish.
        XCTAssertEqual(try run(tool, ["run", f.manifestPath], redirections: "2>/dev/full", in: f.root), 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: f.outputPath))
        XCTAssertEqual(try run(tool, ["run", f.manifestPath, "--force"], redirections: "2>&-", in: f.root), 0)
        let lock = (try? String(contentsOfFile: f.workPath + "/lock", encoding: .utf8)) ?? ""
        XCTAssertFalse(lock.contains("regionsearch:"), "the log went into the work directory's lock: \(lock)")
    }

    /// A log whose reader has gone (`regionsearch run … 2>&1 | head -1`): the run goes on and
    /// publishes (a write to the pipe fails with EPIPE) instead of dying of SIGPIPE (exit 141).
    func testALogReaderThatWentAwayDoesNotEndTheRun() throws {
        let f = try PipelineFixture()
        defer { f.remove() }
        // The reader closes its end at once and lives on a second, so the run's first lines meet a
        // pipe without a reader.
        let termination = try ChildProcess(
            executable: "/bin/bash",
            arguments: [
                "-c", "\"$0\" \"$@\" 2>&1 >/dev/null | (exec 0<&-; sleep 1); exit ${PIPESTATUS[0]}",
                PipelineFixture.regionsearch, "run", f.manifestPath,
            ],
            output: .files(stdout: f.root + "/stdout", stderr: f.root + "/stderr")
        ).wait()
        XCTAssertEqual(termination, .exited(0))
        XCTAssertTrue(FileManager.default.fileExists(atPath: f.outputPath), "the night's regions were published")
    }

    /// An output `-` with standard output closed fails (exit 6); before, the regions were
    /// written into the work directory's lock (which took descriptor 1) and truncated, exit 0.
    func testRegionsForAClosedStandardOutputAreAnErrorNotLost() throws {
        let f = try PipelineFixture()
        defer { f.remove() }
        let manifest = f.root + "/pipelines/stdout.json"
        try """
        {"inputs": [{"path": "../data/city.csv"}], "work_dir": "../work", "output": "-", "keywords": ["cafe"],
         "maps": false}
        """.write(toFile: manifest, atomically: true, encoding: .utf8)
        let tool = PipelineFixture.regionsearch
        XCTAssertEqual(try run(tool, ["run", manifest], redirections: ">/dev/null", in: f.root), 0)
        XCTAssertEqual(try run(tool, ["run", manifest], redirections: ">&-", in: f.root), 6)
        let stderr = try String(contentsOfFile: f.root + "/stderr", encoding: .utf8)
        XCTAssertTrue(stderr.contains("-: cannot write: Bad file descriptor"), stderr)
        XCTAssertFalse(stderr.contains("cannot write: -: cannot write"), stderr)
        let lock = (try? String(contentsOfFile: f.workPath + "/lock", encoding: .utf8)) ?? ""
        XCTAssertFalse(lock.contains("FeatureCollection"), "the regions went into the lock")
    }
}
