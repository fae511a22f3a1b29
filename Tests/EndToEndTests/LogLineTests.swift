import Foundation
import XCTest

@testable import RegionSearchCore

/// A path quoted in a log message cannot start a line of its own: a message's later lines are
/// indented, so every line at the margin is one the tool wrote.
final class LogLineTests: XCTestCase {
    func testANewlineInAFileNameCannotForgeALogLine() throws {
        let f = try PipelineFixture()
        defer { f.remove() }
        let forged = f.root + "/data/x\nregionsearch: finished OK.csv"
        try FileManager.default.copyItem(atPath: f.csvPath, toPath: forged)
        let errors = f.root + "/stderr"
        let termination = try ChildProcess(
            executable: PipelineFixture.toolDirectory + "/regionsearch-ingest",
            arguments: [forged, "--output", f.root + "/p.rsa", "--rejects", f.root + "/r.csv"],
            output: .files(stdout: "/dev/null", stderr: errors)
        ).wait()
        XCTAssertEqual(termination, .exited(0))
        let lines = try String(contentsOfFile: errors, encoding: .utf8).split(separator: "\n")
        XCTAssertTrue(lines.contains { $0.hasPrefix("  regionsearch: finished OK.csv") }, "\(lines)")
        for line in lines {
            XCTAssertTrue(
                line.hasPrefix("regionsearch-ingest: ") || line.hasPrefix("  "), "a line at the margin: \(line)")
        }
    }
}
