import Foundation
import XCTest

@testable import RegionSearchCore
@testable import RegionSearchRunner
@testable import RegionSearchTestSupport

/// The tiled Snakemake workflow follows its inputs' content, not their modification times: a POI
/// file replaced by different data with an older mtime (`cp -p`, `rsync -t` of an older download)
/// reruns the workflow, and a rerun with nothing changed does nothing. Snakemake 9.27 alone dates
/// the files: it kept the stale result (measured: after `cp -p` of an older, different file onto
/// the input, `snakemake -n` said "Nothing to be done").
///
/// Runs the real `regionsearch` and a real Snakemake (from scripts/workflow-env, which needs root
/// when it has to install it; skipped otherwise).
final class WorkflowInputChangeTests: XCTestCase {

    func snakemake() throws -> String {
        guard let path = try WorkflowEnvironment.snakemake() else {
            throw XCTSkip("no snakemake: scripts/workflow-env may need root to install it")
        }
        return path
    }

    /// The modification time of a file, in seconds.
    func mtime(_ path: String) throws -> Double {
        let date = try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date
        return date?.timeIntervalSince1970 ?? 0
    }

    func testAnInputReplacedByAnOlderFileReruns() throws {
        let snakemake = try snakemake()
        let f = try PipelineFixture(sections: [("maps", .bool(false))])
        defer { f.remove() }
        let dir = f.root + "/out/wf"
        let plan = try f.tool(["plan", f.manifestPath, "--tiles", "2", "--emit", "snakefile", dir])
        XCTAssertEqual(plan.status, 0, plan.output)
        func workflow(_ extra: [String] = []) throws -> PipelineFixture.Result {
            try f.tool(["-s", dir + "/Snakefile", "--cores", "2"] + extra, executable: snakemake)
        }
        let first = try workflow()
        XCTAssertEqual(first.status, 0, first.output)
        let before = try f.output()
        XCTAssertTrue(FileSystem.exists(dir + "/state/inputs.json"), "the inputs' content key")

        // Nothing changed, or only a date (touched back to 2001, forward to now): nothing to do.
        for date in ["2001-01-01", "now"] {
            let touch = try ChildProcess.run("/usr/bin/touch", ["-d", date, f.csvPath])
            XCTAssertTrue(touch.succeeded)
            let again = try workflow(["-n"])
            XCTAssertEqual(again.status, 0, again.output)
            if date != "now" {
                XCTAssertTrue(again.output.contains("Nothing to be done"), "\(date): \(again.output)")
            }
        }
        let settle = try workflow()
        XCTAssertEqual(settle.status, 0, settle.output)

        // Other POIs (every third line left out), in a file dated 2001, copied over the input with
        // its date (cp -p): older than every output.
        let lines = try String(contentsOfFile: f.csvPath, encoding: .utf8).split(separator: "\n")
        let fewer = lines.enumerated().filter { $0.offset == 0 || $0.offset % 3 != 0 }.map(\.element)
        let download = f.root + "/data/download.csv"
        try (fewer.joined(separator: "\n") + "\n").write(toFile: download, atomically: true, encoding: .utf8)
        XCTAssertTrue(try ChildProcess.run("/usr/bin/touch", ["-d", "2001-01-01", download]).succeeded)
        XCTAssertTrue(try ChildProcess.run("/bin/cp", ["-p", download, f.csvPath]).succeeded)
        XCTAssertLessThan(try mtime(f.csvPath), try mtime(dir + "/state/prepared.json"), "the input is older")

        let dry = try workflow(["-n"])
        XCTAssertEqual(dry.status, 0, dry.output)
        XCTAssertTrue(dry.output.contains("prepare"), dry.output)
        XCTAssertFalse(dry.output.contains("Nothing to be done"), "a changed input must rerun: \(dry.output)")
        let second = try workflow()
        XCTAssertEqual(second.status, 0, second.output)
        XCTAssertNotEqual(try f.output(), before, "the output follows the new data")
        // Every stage is up to date with the data as it is now: the single run's keys.
        let status = try f.tool(["status", f.manifestPath, "--check"])
        XCTAssertEqual(status.status, 0, status.output)
        let done = try workflow(["-n"])
        XCTAssertTrue(done.output.contains("Nothing to be done"), done.output)

        // The data away (a mount not there yet): Snakemake still starts, so a crashed workflow can
        // be unlocked; the key's step warns, and the run itself stops at the missing input.
        let away = f.csvPath + ".away"
        try FileManager.default.moveItem(atPath: f.csvPath, toPath: away)
        let unlock = try workflow(["--unlock"])
        XCTAssertEqual(unlock.status, 0, unlock.output)
        XCTAssertTrue(unlock.output.contains("state/inputs.json is not updated"), unlock.output)
        XCTAssertTrue(unlock.output.contains(f.csvPath), "the missing input is named: \(unlock.output)")
        try FileManager.default.moveItem(atPath: away, toPath: f.csvPath)
    }
}
