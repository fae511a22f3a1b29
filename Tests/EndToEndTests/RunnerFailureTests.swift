import Foundation
import XCTest

@testable import RegionSearchRunner

/// What a failed stage leaves for the operator: its own exit status, its rejects, its counts.
final class RunnerFailureTests: XCTestCase {
    func testTooManyRejectsExitsWithTheStagesStatusAndKeepsTheRejects() throws {
        let f = try PipelineFixture()
        defer { f.remove() }
        var csv = "id,name,category,lon,lat\n"
        for i in 0..<100 { csv += i % 2 == 0 ? "\(i),a,cafe,24.9,60.1\n" : "\(i),b,cafe,not-a-number,60.1\n" }
        try csv.write(toFile: f.csvPath, atomically: true, encoding: .utf8)
        // --quiet keeps the pointer to the kept rejects: the stage's own message names its
        // staging folder, which is gone by then.
        let result = try f.run(["--quiet"])
        XCTAssertEqual(result.status, 3, "ingest's own exit status, not 7: " + result.output)
        let state = try f.runState()
        let key = try XCTUnwrap(state["ingest"].key)
        let kept = f.work.failedDirectory(stage: "ingest", key: key)
        XCTAssertTrue(result.output.contains("kept in \(kept)"), result.output)
        // The stage's message names its staging folder; the warning maps it to the kept one.
        let staging = try XCTUnwrap(
            result.output.components(separatedBy: "See ").dropFirst().first?.components(separatedBy: "/rejects.txt")
                .first)
        XCTAssertTrue(result.output.contains("folder it wrote in, \(staging), which is gone"), result.output)
        let rejects = try String(contentsOfFile: kept + "/rejects.txt", encoding: .utf8)
        XCTAssertEqual(rejects.split(separator: "\n").count, 1 + 50, "header and the 50 bad rows")
        let failure = try XCTUnwrap(try StageRecord.load(f.work.failurePath(stage: "ingest", key: key)))
        XCTAssertEqual(failure.summary.count(.read), 100, "the failure record has the counts")
        XCTAssertEqual(failure.summary.count(.rejected), 50)
        XCTAssertTrue(failure.failure?.contains(kept) ?? false, failure.failure ?? "")
        // Fixed input: the run succeeds and the kept files of the failure go.
        try Data(PipelineFixture.csvBytes).write(to: URL(fileURLWithPath: f.csvPath))
        XCTAssertEqual(try f.run().status, 0)
        // A run with a few rejects names where they are once the stage's folder is in place.
        try (String(decoding: PipelineFixture.csvBytes, as: UTF8.self) + "9999,bad,cafe,x,60.1\n").write(
            toFile: f.csvPath, atomically: true, encoding: .utf8)
        let few = try f.run()
        XCTAssertEqual(few.status, 0, few.output)
        let object = f.work.objectDirectory(stage: "ingest", key: try XCTUnwrap(try f.runState()["ingest"].key))
        XCTAssertTrue(few.output.contains("the rejected records are in \(object)/rejects.txt"), few.output)
        let written = try String(contentsOfFile: object + "/rejects.txt", encoding: .utf8)
        XCTAssertEqual(written.split(separator: "\n").count, 2, "the header and the bad row")
        XCTAssertTrue(FileSystem.exists(kept), "another key's failure is kept until clean")
        XCTAssertEqual(try f.tool(["clean", f.manifestPath, "--unused"]).status, 0)
        XCTAssertFalse(FileSystem.exists(f.work.failed))
    }

    func testPassedThroughStatuses() {
        XCTAssertEqual(RunnerError.passedThrough(.exited(3)), .inputData)
        XCTAssertEqual(RunnerError.passedThrough(.exited(4)), .artifact)
        XCTAssertEqual(RunnerError.passedThrough(.exited(6)), .output)
        XCTAssertEqual(RunnerError.passedThrough(.exited(70)), .stageFailed, "a crash is 7")
        XCTAssertEqual(RunnerError.passedThrough(.exited(5)), .stageFailed)
        XCTAssertEqual(RunnerError.passedThrough(.exited(99)), .stageFailed)
        XCTAssertEqual(RunnerError.passedThrough(.signaled(9)), .stageFailed)
    }
}
