import Foundation
import XCTest

@testable import RegionSearchCore
@testable import RegionSearchRunner
@testable import RegionSearchTestSupport

/// `regionsearch run` and `clean` through the driver: a folder holding other files is refused as
/// a work directory, and a user's files inside a work directory survive every sweep.
final class WorkDirectoryOwnershipEndToEndTests: XCTestCase {
    func testRunAndCleanRefuseAFolderHoldingOtherFiles() throws {
        let f = try PipelineFixture()
        defer { f.remove() }
        // "work_dir": "." is the manifest's own folder.
        let text = try String(contentsOfFile: f.manifestPath, encoding: .utf8)
            .replacingOccurrences(of: "\"../work\"", with: "\".\"")
        try text.write(toFile: f.manifestPath, atomically: true, encoding: .utf8)
        let folder = f.root + "/pipelines"
        for command in [["run"], ["clean"], ["run", "--dry-run"]] {
            let r = try f.tool([command[0], f.manifestPath] + command.dropFirst())
            XCTAssertEqual(r.status, 2, r.output)
            XCTAssertTrue(r.output.contains("work_dir \(folder) holds files that RegionSearch did not make"), r.output)
            XCTAssertTrue(r.output.contains("name a new or empty folder as work_dir"), r.output)
        }
        XCTAssertEqual(FileSystem.list(folder), ["test.json"], "nothing written beside the manifest")
        XCTAssertFalse(FileSystem.exists(f.outputPath))
    }

    /// A `work_dir` that is a file, or lies under one, is refused by `run` and `run --dry-run`
    /// alike, with exit status 2 and what to do, before anything is written: `run` used to fail
    /// creating it (exit 6, "check free disk space and permissions") while the dry run said every
    /// stage would run.
    func testRunAndDryRunRefuseAWorkDirThatIsAFile() throws {
        let f = try PipelineFixture()
        defer { f.remove() }
        let notes = f.root + "/notes.txt"
        try "mine".write(toFile: notes, atomically: false, encoding: .utf8)
        let original = try String(contentsOfFile: f.manifestPath, encoding: .utf8)
        for (workDir, file) in [("../notes.txt", notes), ("../notes.txt/work", notes)] {
            let text = original.replacingOccurrences(of: "\"../work\"", with: "\"\(workDir)\"")
            try text.write(toFile: f.manifestPath, atomically: true, encoding: .utf8)
            for command in [["run"], ["run", "--dry-run"]] {
                let r = try f.tool([command[0], f.manifestPath] + command.dropFirst())
                let label = "\(workDir), \(command.joined(separator: " "))"
                XCTAssertEqual(r.status, 2, "\(label): \(r.output)")
                XCTAssertTrue(r.output.contains("\(file) is a file, not a folder"), "\(label): \(r.output)")
                XCTAssertTrue(r.output.contains("name a new or empty folder as work_dir"), "\(label): \(r.output)")
                XCTAssertFalse(r.output.contains("would run"), "\(label): \(r.output)")
            }
        }
        XCTAssertEqual(try String(contentsOfFile: notes, encoding: .utf8), "mine")
        XCTAssertEqual(FileSystem.list(f.root).sorted(), ["data", "notes.txt", "out", "pipelines"])
        XCTAssertFalse(FileSystem.exists(f.outputPath))
    }

    func testUsersFilesInAWorkDirectorySurviveRunAndClean() throws {
        let f = try PipelineFixture(sections: [("maps", .bool(false))])
        defer { f.remove() }
        XCTAssertEqual(try f.run().status, 0)
        let objectsOfTheRun = FileSystem.list(f.work.objects)
        let users = [
            "/lineage/trip/photo.jpg", "/lineage/family.txt", "/failed/important.txt", "/scores/grades.json",
            "/runs/marathon.json", "/maps/holiday.png", "/manifests/list.txt", "/objects/mine.txt",
            "/records/notes.txt", "/notes.txt",
        ]
        for path in users {
            try FileSystem.createDirectories(AtomicFile.directory(of: f.workPath + path))
            try "mine".write(toFile: f.workPath + path, atomically: false, encoding: .utf8)
        }
        func check(_ after: String) {
            for path in users {
                XCTAssertEqual(try? String(contentsOfFile: f.workPath + path, encoding: .utf8), "mine", after + path)
            }
        }
        // A run with nothing to do still prunes lineage/: the user's files there stay, named once.
        let again = try f.run()
        XCTAssertEqual(again.status, 0, again.output)
        XCTAssertEqual(try f.ranStages(), [])
        XCTAssertTrue(
            again.output.contains("2 file(s) in the work directory that RegionSearch did not make"), again.output)
        XCTAssertTrue(again.output.contains(f.workPath + "/lineage/family.txt"), again.output)
        check("run: ")
        let unused = try f.tool(["clean", f.manifestPath, "--unused"])
        XCTAssertEqual(unused.status, 0, unused.output)
        XCTAssertTrue(unused.output.contains("removed 0 stage output(s), 0 record(s)"), unused.output)
        XCTAssertEqual(FileSystem.list(f.work.objects), (objectsOfTheRun + ["mine.txt"]).sorted())
        check("clean --unused: ")
        let clean = try f.tool(["clean", f.manifestPath])
        XCTAssertEqual(clean.status, 0, clean.output)
        XCTAssertTrue(clean.output.contains("removed \(objectsOfTheRun.count) stage output(s)"), clean.output)
        XCTAssertTrue(clean.output.contains("did not make"), clean.output)
        check("clean: ")
        // The runner's own files are gone: only the user's are left in its folders.
        XCTAssertEqual(FileSystem.list(f.work.objects), ["mine.txt"])
        XCTAssertEqual(FileSystem.list(f.work.records), ["notes.txt"])
        XCTAssertEqual(FileSystem.list(f.work.lineage), ["family.txt", "trip"])
        XCTAssertFalse(FileSystem.exists(f.work.runState))
        // And the work directory is still one: the next run uses it.
        let after = try f.run()
        XCTAssertEqual(after.status, 0, after.output)
        check("run after clean: ")
    }
}
