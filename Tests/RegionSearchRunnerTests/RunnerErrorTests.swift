import Foundation
import XCTest

@testable import RegionSearchCore
@testable import RegionSearchRunner

/// What a failed stage's message says, and the run's exit status for it.
final class RunnerErrorTests: XCTestCase {
    func testAKilledStageIsNotSaidToHaveLeftAMessage() {
        let killed = RunnerError.stageFailed(stage: "graph", exit: .signaled(SIGKILL), detail: nil)
        XCTAssertTrue(
            killed.description.hasPrefix(
                "stage graph was killed by signal 9 (SIGKILL) (the kernel's out-of-memory killer, a scheduler or an "
                    + "operator). Earlier stages are kept"), killed.description)
        XCTAssertFalse(killed.description.contains("its message is above"))
        XCTAssertEqual(killed.exitStatus, .stageFailed)
        let failed = RunnerError.stageFailed(stage: "graph", exit: .exited(1), detail: nil)
        XCTAssertTrue(failed.description.hasPrefix("stage graph failed (exit status 1); its message is above"))
        XCTAssertEqual(failed.exitStatus, .failure)
    }
}
