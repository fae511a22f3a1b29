import Foundation
import XCTest

@testable import RegionSearchCore

/// The Snakemake the workflow tests run: `scripts/workflow-env` installs the pinned version in a
/// project venv (as root) and prints its path.
enum WorkflowEnvironment {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// The snakemake executable; nil when not root (the script may need to install it), and a
    /// test failure as well when the script gave none.
    static func snakemake() throws -> String? {
        guard getuid() == 0 else { return nil }
        let log = NSTemporaryDirectory() + "workflow-env-\(getpid()).log"
        defer { unlink(log) }
        let t = try ChildProcess(
            executable: "/bin/bash", arguments: [repository + "/scripts/workflow-env"],
            output: .files(stdout: log, stderr: "/dev/null")
        ).wait()
        let path = ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")
            .trimmingCharacters(in: .whitespacesAndNewlines)
        guard t.succeeded, FileManager.default.isExecutableFile(atPath: path) else {
            XCTFail("scripts/workflow-env did not give snakemake (\(t))")
            return nil
        }
        return path
    }
}
