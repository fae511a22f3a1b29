import Foundation
import XCTest

@testable import RegionSearchCore

/// A command whose result goes to standard output fails when that result cannot be written:
/// `regionsearch diff OLD NEW > changes.json` on a full disk must not exit 0 with a short file.
/// The built executables run with standard output on `/dev/full` (every write fails with ENOSPC)
/// and must exit 6 with the reason on standard error; on `/dev/null` the same commands exit 0.
final class StandardOutputFullTests: XCTestCase {
    /// Runs `executable ARGS` with standard output into `stdout`; its exit status and stderr.
    private func run(_ executable: String, _ arguments: [String], stdout: String, in dir: String) throws -> (
        status: Int32, stderr: String
    ) {
        let errors = dir + "/stderr-" + UUID().uuidString
        defer { unlink(errors) }
        let termination = try ChildProcess(
            executable: executable, arguments: arguments, output: .files(stdout: stdout, stderr: errors)
        ).wait()
        guard case .exited(let code) = termination else { return (-1, "") }
        return (code, (try? String(contentsOfFile: errors, encoding: .utf8)) ?? "")
    }

    func testAResultThatCannotBeWrittenExitsWithStatus6() throws {
        guard FileManager.default.fileExists(atPath: "/dev/full") else {
            throw XCTSkip("/dev/full (a device every write to fails) is Linux's")
        }
        let f = try PipelineFixture()
        defer { f.remove() }
        try f.writeManifest()
        XCTAssertEqual(try f.run().status, 0)
        let result = try f.copy(as: "a.geojson")
        let tools = PipelineFixture.toolDirectory
        let commands: [(String, [String])] = [
            (tools + "/regionsearch", ["diff", result, result]),
            (tools + "/regionsearch", ["status", f.manifestPath, "--json"]),
            (tools + "/regionsearch", ["--version"]),
            (tools + "/regionsearch-evaluate", ["compare", result, result]),
            (tools + "/regionsearch-graph", ["--help"]),
        ]
        for (executable, arguments) in commands {
            let name = ([URL(fileURLWithPath: executable).lastPathComponent] + arguments.prefix(1)).joined(
                separator: " ")
            let written = try run(executable, arguments, stdout: "/dev/null", in: f.root)
            XCTAssertEqual(written.status, 0, "\(name) > /dev/null: \(written.stderr)")
            let full = try run(executable, arguments, stdout: "/dev/full", in: f.root)
            XCTAssertEqual(full.status, 6, "\(name) > /dev/full")
            XCTAssertTrue(full.stderr.contains("standard output: cannot write"), "\(name): \(full.stderr)")
        }
    }
}
