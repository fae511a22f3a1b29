import Foundation
import XCTest

@testable import RegionSearchCore

/// The tiled workflow on real engines (issue 15), from the test command itself:
/// `scripts/check-cluster-workflow` plans the default job in 4 tiles and runs the plan with
/// Snakemake's local executor, with the Slurm executor on a throwaway single-node cluster (one graph
/// tile job cancelled with scancel, then resumed) and as plain sbatch arrays, comparing the sha256 of
/// every artifact, the GeoJSON and its maps with a single run. The script installs the pinned
/// Snakemake and slurm-wlm/munge when missing (scripts/workflow-env, scripts/slurm-local), starts the
/// cluster and always stops it.
///
/// Skipped only when not root (a Slurm cluster needs root to start); any failed check is a failure.
final class ClusterWorkflowTests: XCTestCase {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    func testTiledWorkflowOnSnakemakeAndSlurmEqualsASingleRun() throws {
        guard getuid() == 0 else {
            throw XCTSkip("the single-node Slurm cluster needs root (scripts/check-cluster-workflow)")
        }
        let log = NSTemporaryDirectory() + "check-cluster-workflow-\(getpid()).log"
        defer { unlink(log) }
        var environment = ProcessInfo.processInfo.environment
        // The executables this test run was built with, not a stale build elsewhere.
        environment["REGIONSEARCH_BIN"] = PipelineFixture.toolDirectory
        let termination = try ChildProcess(
            executable: "/bin/bash", arguments: [Self.repository + "/scripts/check-cluster-workflow"],
            environment: environment, output: .file(log)
        ).wait()
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        XCTAssertEqual("\(termination)", "\(ChildProcess.Termination.exited(0))", text)
        let summary = text.split(separator: "\n").last { $0.hasPrefix("check-cluster-workflow:") } ?? ""
        // Five checks: local executor identical; Slurm stopped by the cancelled tile, the resume reruns
        // only that tile, then identical; sbatch arrays identical.
        XCTAssertTrue(summary.hasSuffix(", 0 failed"), text)
        let passed = summary.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        XCTAssertGreaterThanOrEqual(passed, 5, text)
    }
}
