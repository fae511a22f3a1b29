import Foundation
import XCTest

@testable import RegionSearchCore
@testable import RegionSearchRunner
@testable import RegionSearchTestSupport

/// The work directory is the runner's, and only what the runner made in it is ever removed or
/// replaced: a folder that holds other files is refused, and a user's file inside a work directory
/// survives `run`'s sweeps, `clean --unused` and `clean`.
final class WorkDirectoryOwnershipTests: XCTestCase {
    private var dir = ""

    override func setUp() { dir = TestSupport.temporaryDirectory() }

    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    private static let keyA = "0123456789abcdeffedcba9876543210"
    private static let keyB = "00000000000000000000000000000001"

    private func write(_ text: String, to path: String) throws {
        try FileSystem.createDirectories(AtomicFile.directory(of: path))
        try text.write(toFile: path, atomically: false, encoding: .utf8)
    }

    /// `DIR/m.json` with `work_dir`, loaded.
    private func manifest(workDir: String) throws -> Manifest {
        try write("id,name,category,lon,lat\n1,a,bank,24.9,60.1\n", to: dir + "/g.csv")
        try write(
            #"{"inputs":[{"path":"g.csv"}],"work_dir":"\#(workDir)","output":"out/r.geojson","keywords":["bank"],"#
                + #""maps":false}"#, to: dir + "/m.json")
        return try Manifest.load(path: dir + "/m.json")
    }

    /// A run state naming one stage run: `graph-<key>`.
    private func runState(graphKey: String) -> RunState {
        var state = RunState(manifest: dir + "/m.json", name: "m", options: .object([]))
        state["graph"].key = ContentHash(hex: graphKey)
        state.status = "ok"
        return state
    }

    func testAFolderHoldingOtherFilesIsRefusedBeforeAnythingIsWritten() throws {
        let m = try manifest(workDir: ".")
        let work = WorkDirectory(path: m.workDirectory)
        XCTAssertEqual(work.path, dir)
        let attempts: [(String, () throws -> Void)] = [
            ("run", { try WorkLock.acquire(work, wait: false).release() }),
            ("clean", { _ = try Cleaner.clean(m, unusedOnly: false, wait: false) }),
        ]
        for (what, attempt) in attempts {
            XCTAssertThrowsError(try attempt(), what) { error in
                guard let error = error as? RunnerError, case .notAWorkDirectory(let path, let names) = error else {
                    return XCTFail("\(error)")
                }
                XCTAssertEqual(path, dir)
                XCTAssertEqual(names, ["g.csv", "m.json"])
                XCTAssertEqual(error.exitStatus, .usage)
                XCTAssertTrue(error.description.hasPrefix("work_dir \(dir) holds files"), error.description)
                XCTAssertTrue(
                    error.description.hasSuffix("name a new or empty folder as work_dir (e.g. \"work_dir\": \"work\")"),
                    error.description)
            }
        }
        XCTAssertEqual(FileSystem.list(dir), ["g.csv", "m.json"], "nothing was written, not even the lock file")
        // A dedicated folder a user made with notes in it is refused the same way.
        try write("notes", to: dir + "/w/lineage/notes.txt")
        XCTAssertThrowsError(try WorkLock.acquire(WorkDirectory(path: dir + "/w"), wait: false))
        XCTAssertEqual(FileSystem.list(dir + "/w"), ["lineage"])
    }

    func testNewEmptyAndEarlierWorkDirectoriesAreAccepted() throws {
        // Missing, and empty: they become work directories.
        try WorkLock.acquire(WorkDirectory(path: dir + "/new"), wait: false).release()
        try FileSystem.createDirectories(dir + "/empty")
        try WorkLock.acquire(WorkDirectory(path: dir + "/empty"), wait: false).release()
        // What earlier versions leave: a full clean leaves the (released, empty) lock file beside a
        // user's file and the lineage file; a work directory whose lock file someone removed still
        // has its objects/ and records/; a run killed while it held the lock left its pid.
        try write("", to: dir + "/cleaned/lock")
        try write("{}", to: dir + "/cleaned/lineage.json")
        try write("n", to: dir + "/cleaned/notes.txt")
        try FileSystem.createDirectories(dir + "/unlocked/objects/graph-" + Self.keyA)
        try FileSystem.createDirectories(dir + "/unlocked/records")
        try write("pid 99999\nstarted 2025-01-01T00:00:00.000Z\n", to: dir + "/killed/lock")
        try write("x", to: dir + "/killed/records/graph-\(Self.keyA).json")
        for name in ["cleaned", "unlocked", "killed"] {
            let work = WorkDirectory(path: dir + "/" + name)
            XCTAssertNoThrow(try WorkLock.acquire(work, wait: false).release(), name)
        }
        // A work directory with every file of a run, each in the runner's own format.
        let work = WorkDirectory(path: dir + "/full")
        try work.create()
        try runState(graphKey: Self.keyA).write(work)
        try write(#"{"outputs": {}}"#, to: work.path + "/published.json")
        try write(#"{"version": 1, "executables": {}}"#, to: work.builds)
        XCTAssertNoThrow(try WorkLock.acquire(work, wait: false).release())
    }

    func testAUsersRunJsonOrLockInAWorkDirectoryIsRefusedNotOverwritten() throws {
        let work = WorkDirectory(path: dir + "/work")
        try work.create()
        let cases: [(name: String, text: String)] = [
            ("run.json", #"{"my": "own run settings"}"#), ("lock", "my own lock\n"),
            ("published.json", #"["my", "list"]"#), ("builds.json", #"{"builds": 3}"#),
        ]
        for (name, text) in cases {
            let path = work.path + "/" + name
            try write(text, to: path)
            XCTAssertThrowsError(try WorkLock.acquire(work, wait: false), name) { error in
                guard let error = error as? RunnerError, case .foreignFile(let p, let w, _) = error else {
                    return XCTFail("\(error)")
                }
                XCTAssertEqual(p, path)
                XCTAssertEqual(w, work.path)
                XCTAssertEqual(error.exitStatus, .usage)
                XCTAssertTrue(error.description.contains("move it out of the work directory"), error.description)
            }
            XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), text, "\(name) is untouched")
            unlink(path)
        }
        // The runner's own run.json is its to replace.
        try runState(graphKey: Self.keyA).write(work)
        XCTAssertNoThrow(try WorkLock.acquire(work, wait: false).release())
        // So are its files a power cut left empty or cut short (they are written without a sync).
        try write(#"{"manifest": "/m.json", "sta"#, to: work.path + "/run.json")
        try write("", to: work.path + "/published.json")
        XCTAssertNoThrow(try WorkLock.acquire(work, wait: false).release())
    }

    /// What a file system or a desktop puts in any folder does not make a new work directory
    /// someone else's: a fresh volume's `lost+found`, Finder's `.DS_Store`.
    func testAFreshVolumeOrAFolderWithHiddenFilesIsAccepted() throws {
        try FileSystem.createDirectories(dir + "/volume/lost+found")
        try write("", to: dir + "/volume/.DS_Store")
        XCTAssertNoThrow(try WorkLock.acquire(WorkDirectory(path: dir + "/volume"), wait: false).release())
    }

    /// Every folder of a work directory with the runner's stale and live entries and a user's
    /// files: `clean --unused` removes only the stale, `clean` all of the runner's, and the user's
    /// files survive both (their folders too).
    func testCleanRemovesOnlyTheRunnersOwnFiles() throws {
        let m = try manifest(workDir: "w")
        let work = WorkDirectory(path: m.workDirectory)
        try work.create()
        try runState(graphKey: Self.keyA).write(work)
        try write(#"{"outputs": {}}"#, to: work.path + "/published.json")
        try write(#"{"version": 1, "executables": {}}"#, to: work.builds)
        let live = ["/objects/graph-\(Self.keyA)/graph.rsa", "/records/graph-\(Self.keyA).json"]
        let stale = [
            "/objects/graph-\(Self.keyB)/graph.rsa", "/records/graph-\(Self.keyB).json",
            "/records/graph-\(Self.keyB).failed.json", "/failed/ingest-\(Self.keyB)/rejects.csv",
            "/scores/\(Self.keyB).json", "/runs/old.json",
        ]
        let rebuilt = [
            "/maps/\(Self.keyA).json", "/manifests/\(Self.keyA).json", "/lineage/\(Self.keyA)/changes.json",
        ]
        let users = [
            "/notes.txt", "/objects/mine/graph.rsa", "/objects/graph-\(Self.keyA.uppercased())",
            "/records/notes.json", "/records/graph-\(Self.keyB).json.bak", "/failed/important.txt",
            "/scores/grades.json", "/runs/marathon.json", "/maps/holiday.png", "/manifests/list.txt",
            "/lineage/trip/photo.jpg", "/lineage/family.txt",
        ]
        for path in live + stale + rebuilt + users { try write("x", to: work.path + path) }
        try runState(graphKey: Self.keyB).write(to: work.path + "/runs/old.json")

        let unused = try Cleaner.clean(m, unusedOnly: true, wait: false)
        XCTAssertEqual(unused.objects, 1)
        XCTAssertEqual(unused.records, 5, "2 records, the failed run's files, a score and a combination's state")
        for path in live + rebuilt + users { XCTAssertTrue(FileSystem.exists(work.path + path), path) }
        for path in stale { XCTAssertFalse(FileSystem.exists(work.path + path), path) }
        XCTAssertTrue(FileSystem.isDirectory(work.failed), "it still holds a user's file")

        _ = try Cleaner.clean(m, unusedOnly: false, wait: false)
        for path in users { XCTAssertTrue(FileSystem.exists(work.path + path), path) }
        for path in live + rebuilt + ["/run.json", "/published.json", "/builds.json"] {
            XCTAssertFalse(FileSystem.exists(work.path + path), path)
        }
        XCTAssertEqual(
            FileSystem.list(work.path),
            ["failed", "lineage", "lock", "manifests", "maps", "notes.txt", "objects", "records", "runs", "scores"])
        XCTAssertEqual(FileSystem.list(work.lineage), ["family.txt", "trip"])

        // Without a user's file, a full clean leaves only the lock file.
        for path in users + ["/objects/mine", "/lineage/trip"] { try FileSystem.removeTree(work.path + path) }
        for path in live + stale + rebuilt { try write("x", to: work.path + path) }
        try runState(graphKey: Self.keyB).write(to: work.path + "/runs/old.json")
        _ = try Cleaner.clean(m, unusedOnly: false, wait: false)
        XCTAssertEqual(FileSystem.list(work.path), ["lock"])
    }

    func testLineagePruneKeepsAUsersFiles() throws {
        let m = try manifest(workDir: "w")
        let work = WorkDirectory(path: m.workDirectory)
        let step = LineageStep(
            manifest: m, work: work, planner: StagePlanner(manifest: m, work: work), build: "xxh128:0")
        for path in ["/\(Self.keyA)/changes.json", "/\(Self.keyB)/changes.json", "/notes.txt", "/trip/photo.jpg"] {
            try write("x", to: work.lineage + path)
        }
        step.prune(keeping: Self.keyA)
        XCTAssertEqual(FileSystem.list(work.lineage), [Self.keyA, "notes.txt", "trip"])
    }

    func testOwnNamesAreExact() {
        let work = WorkDirectory(path: "/w")
        XCTAssertTrue(work.isOwn("graph-\(Self.keyA)", in: work.objects))
        XCTAssertFalse(work.isOwn("graph-\(Self.keyA).json", in: work.objects))
        XCTAssertFalse(work.isOwn("graph-\(Self.keyA.uppercased())", in: work.objects))
        XCTAssertTrue(work.isOwn("graph-\(Self.keyA).json", in: work.records))
        XCTAssertTrue(work.isOwn("graph-\(Self.keyA).failed.json", in: work.records))
        XCTAssertFalse(work.isOwn("graph-\(Self.keyA)", in: work.records))
        XCTAssertFalse(work.isOwn("graph-\(Self.keyA).json.bak", in: work.records))
        XCTAssertTrue(work.isOwn("ingest-\(Self.keyA)", in: work.failed))
        XCTAssertFalse(work.isOwn("important.txt", in: work.failed))
        XCTAssertTrue(work.isOwn(Self.keyA, in: work.lineage))
        XCTAssertFalse(work.isOwn("trip", in: work.lineage))
        for folder in [work.scores, work.maps, work.manifestStates] {
            XCTAssertTrue(work.isOwn(Self.keyA + ".json", in: folder), folder)
            XCTAssertFalse(work.isOwn("grades.json", in: folder), folder)
            XCTAssertFalse(work.isOwn(Self.keyA, in: folder), folder)
        }
        XCTAssertTrue(work.isLeftover(".graph-\(Self.keyA).tmp-7", in: work.objects))
        XCTAssertTrue(work.isLeftover(".graph-\(Self.keyA).tmp-old-7", in: work.objects))
        XCTAssertFalse(work.isLeftover(".mine.tmp-7", in: work.objects))
        XCTAssertTrue(work.isLeftover(".\(Self.keyA).tmp-7", in: work.lineage))
        XCTAssertFalse(work.isLeftover(".trip.tmp-7", in: work.lineage))
        XCTAssertTrue(work.isLeftover(".graph-\(Self.keyA).json.tmp-7-0", in: work.records))
        XCTAssertFalse(work.isLeftover(".notes.json.tmp-7-0", in: work.records))
        XCTAssertTrue(work.isLeftover(".\(Self.keyA).json.tmp-7-0", in: work.scores))
        XCTAssertFalse(work.isLeftover(".grades.json.tmp-7-0", in: work.scores))
        XCTAssertTrue(work.isLeftover(".run.json.tmp-7-0", in: work.path))
        XCTAssertFalse(work.isLeftover(".notes.json.tmp-7-0", in: work.path))
    }
}
