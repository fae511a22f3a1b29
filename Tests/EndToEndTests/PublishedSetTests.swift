import Foundation
import Synchronization
import XCTest

@testable import RegionSearchCore
@testable import RegionSearchRunner
@testable import RegionSearchTestSupport

/// Issue 21: a run's files are published as one set. Yesterday's set (A: the defaults) is being
/// replaced by today's (B: no region is large enough): the regions GeoJSON and its style, a POI
/// GeoPackage and the three maps. A run killed (SIGKILL) at every point of publishing, and at
/// random moments, leaves every reader one complete set — A or B, never a mix — and the next run
/// publishes B. Readers that resolve `current` once while sets are published one after another
/// always read a complete set matching its `SET.json`.
final class PublishedSetTests: XCTestCase {
    /// The published paths, in a fixed order.
    static let names = ["test.geojson", "test.qml", "p.gpkg", "test.png", "test.svg", "test.html"]

    private func setUpFixture() throws -> PipelineFixture {
        let f = try PipelineFixture()
        try f.writeManifest(output: .string("../out/test.geojson"), poiOutput: .string("../out/p.gpkg"))
        return f
    }

    /// Today's run: every file differs from yesterday's (no regions, so no region on the maps or
    /// in the POI layer).
    private static let today = ["--set", "regions.min_keyword_pois=100000"]

    /// The content hash of each published path (nil: missing), through its link.
    private func published(_ f: PipelineFixture) -> [String?] {
        Self.names.map { name in (try? FileDigest.of(path: f.root + "/out/" + name)).map { "\($0.hash)" } }
    }

    /// The same files read under the folder `current` resolves to (resolved once), after checking
    /// them against that set's record; nil when the set is not complete or does not verify.
    static func readCurrentSet(_ root: String) -> [String?]? {
        let set = PublishedSet(root: root)
        guard let real = realpath(set.currentLink, nil) else { return nil }
        let dir = String(cString: real)
        free(real)
        guard let record = PublishedSet.Record.load(dir + "/" + PublishedSet.recordName) else { return nil }
        var byName: [String: String] = [:]
        for member in record.members {
            for file in member.files {
                guard let d = try? FileDigest.of(path: dir + "/" + file.name), d == file.digest else { return nil }
                byName[AtomicFile.baseName(of: file.path)] = "\(d.hash)"
            }
        }
        return names.map { byName[$0] }
    }

    /// What a set's link may replace, checked again when the set is committed and linked (after
    /// the run's preflight): a file, a link or nothing, never a pipe or folder.
    func testASetsLinkReplacesOnlyAFileALinkOrNothing() throws {
        let dir = NSTemporaryDirectory() + "regionsearch-nonfile-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir + "/folder", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        XCTAssertEqual(mkfifo(dir + "/pipe", 0o600), 0)
        try "x".write(toFile: dir + "/file", atomically: false, encoding: .utf8)
        XCTAssertEqual(symlink(dir + "/pipe", dir + "/link"), 0)
        for replaceable in ["file", "link", "nothing"] {
            XCTAssertNoThrow(try PublishedSet.refuseNonFile(dir + "/" + replaceable), replaceable)
        }
        for kept in ["pipe", "folder"] {
            XCTAssertThrowsError(try PublishedSet.refuseNonFile(dir + "/" + kept), kept) { error in
                XCTAssertTrue("\(error)".contains("a pipe, device or folder is never replaced"), "\(error)")
            }
        }
    }

    /// `published.json` names the current set. A write of it that failed after the flip (a full
    /// work directory) left it naming yesterday's set, and no later run mended it; a run with
    /// nothing to do mends it now, and leaves a right one untouched.
    func testARunWithNothingToDoMendsTheRecordOfTheCurrentSet() throws {
        let f = try setUpFixture()
        defer { f.remove() }
        try f.runOK(["--quiet"])
        let memo = f.workPath + "/published.json"
        let right = try String(contentsOfFile: memo, encoding: .utf8)
        XCTAssertTrue(right.contains("g000000"), right)
        let stale = right.replacingOccurrences(of: "\"generation\" : 0", with: "\"generation\" : 7")
            .replacingOccurrences(of: "g000000", with: "g000007")
        XCTAssertNotEqual(stale, right)
        try stale.write(toFile: memo, atomically: true, encoding: .utf8)
        try f.runOK(["--quiet"])
        XCTAssertEqual(try String(contentsOfFile: memo, encoding: .utf8), right)
        let before = try FileManager.default.attributesOfItem(atPath: memo)[.modificationDate] as? Date
        usleep(20_000)
        try f.runOK(["--quiet"])
        let after = try FileManager.default.attributesOfItem(atPath: memo)[.modificationDate] as? Date
        XCTAssertEqual(before, after, "a run with nothing to do writes nothing")
    }

    /// An old set is removed by what its record lists: a file someone put in its folder stays,
    /// said in a warning (the whole folder had been removed with it).
    func testAnOldSetKeepsWhatItsRecordDoesNotList() throws {
        let f = try setUpFixture()
        defer { f.remove() }
        try f.runOK(["--quiet"])
        let old = f.root + "/out/.test.geojson.published/g000000"
        try "mine".write(toFile: old + "/mine.txt", atomically: false, encoding: .utf8)
        try f.runOK(Self.today + ["--quiet"])
        let third = try f.runOK(["--set", "hulls.margin_m=30"])
        XCTAssertTrue(
            third.output.contains(
                "g000000: the old published set is removed but for what RegionSearch did not put "
                    + "there (mine.txt)"), third.output)
        XCTAssertEqual(FileSystem.list(old), ["mine.txt"])
        XCTAssertEqual(try String(contentsOfFile: old + "/mine.txt", encoding: .utf8), "mine")
        // Once it is moved away, the next run removes the folder.
        XCTAssertEqual(unlink(old + "/mine.txt"), 0)
        try f.runOK(["--set", "hulls.margin_m=40", "--quiet"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: old))
    }

    func testEveryReaderSeesOneCompleteSetAcrossKills() throws {
        let f = try setUpFixture()
        defer { f.remove() }
        let root = f.root + "/out/.test.geojson.published"
        try f.runOK()
        let a = published(f)
        try f.runOK(Self.today)
        let b = published(f)
        XCTAssertFalse(a.contains(nil), "\(a)")
        XCTAssertFalse(b.contains(nil), "\(b)")
        for i in [0, 2, 3, 4, 5] { XCTAssertNotEqual(a[i], b[i], Self.names[i]) }
        XCTAssertEqual(Self.readCurrentSet(root), b)

        // Every point of publishing B over A.
        try f.runOK()
        let trace = f.root + "/trace.txt"
        let traced = try f.run(Self.today + ["--quiet"], environment: [CrashPoint.traceVariable: trace])
        XCTAssertEqual(traced.status, 0, traced.output)
        let points = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n").map(String.init)
        guard let start = points.firstIndex(of: "run:output:1") else {
            return XCTFail("publishing reached no output point: \(points)")
        }
        let publishing = Array(points[start...])
        XCTAssertTrue(publishing.contains("run:set-ready:1") && publishing.contains("run:set-current:1"))
        var trials = publishing.filter { $0.contains("set-") || $0.contains(":output:") || $0.contains(":rename:") }
        trials += publishing.enumerated().filter { $0.offset % 6 == 1 }.map(\.element)
        var seen: Set<String> = []
        trials = trials.filter { seen.insert($0).inserted }
        var outcomes: [String: Int] = [:]
        for point in trials {
            try f.runOK()
            XCTAssertEqual(published(f), a, "restored A before \(point)")
            let killed = try f.run(Self.today, environment: [CrashPoint.environmentVariable: point])
            XCTAssertEqual(
                "\(killed.termination)", "\(ChildProcess.Termination.signaled(9))", "\(point): \(killed.output)")
            let paths = published(f)
            let current = Self.readCurrentSet(root)
            XCTAssertTrue(paths == a || paths == b, "\(point): the published paths mix sets: \(paths)")
            XCTAssertTrue(
                current == a || current == b, "\(point): current is not a complete set: \(String(describing: current))")
            XCTAssertEqual(paths, current, "\(point): the paths show the current set")
            outcomes[paths == a ? "A" : "B", default: 0] += 1
            try f.runOK(Self.today)
            XCTAssertEqual(published(f), b, "\(point): the next run publishes B")
            XCTAssertEqual(f.temporaries(), [], "\(point): leftovers removed")
        }
        // Kills before the flip leave A, after it B: both happen.
        XCTAssertGreaterThan(outcomes["A"] ?? 0, 0, "\(outcomes)")
        XCTAssertGreaterThan(outcomes["B"] ?? 0, 0, "\(outcomes)")

        // Timed kills of the whole process group while it publishes.
        var random = SeededRandom(seed: 2121)
        for trial in 0..<4 {
            try f.runOK()
            let child = try ChildProcess(
                executable: PipelineFixture.regionsearch, arguments: ["run", f.manifestPath, "--quiet"] + Self.today,
                environment: PipelineFixture.environment(adding: [:]), newProcessGroup: true,
                output: .file(f.root + "/timed.log"))
            usleep(UInt32(random.uniform(0.05, 1.5) * 1_000_000))
            kill(-child.pid, SIGKILL)
            _ = child.wait()
            let paths = published(f)
            XCTAssertTrue(paths == a || paths == b, "timed kill \(trial): the published paths mix sets: \(paths)")
            XCTAssertEqual(paths, Self.readCurrentSet(root), "timed kill \(trial)")
            try f.runOK(Self.today)
            XCTAssertEqual(published(f), b)
        }
    }

    /// Outputs an earlier version wrote as plain files are adopted as a set of their own (the
    /// same bytes, now links), so the switch to today's set is one flip too.
    func testPlainOutputsOfAnEarlierVersionAreAdopted() throws {
        let f = try setUpFixture()
        defer { f.remove() }
        let root = f.root + "/out/.test.geojson.published"
        try f.runOK()
        let a = published(f)
        // What an earlier version left: plain files, no sets.
        for name in Self.names where FileManager.default.fileExists(atPath: f.root + "/out/" + name) {
            let data = try Data(contentsOf: URL(fileURLWithPath: f.root + "/out/" + name))
            unlink(f.root + "/out/" + name)
            try data.write(to: URL(fileURLWithPath: f.root + "/out/" + name))
        }
        try FileManager.default.removeItem(atPath: root)
        let r = try f.runOK(Self.today)
        XCTAssertTrue(r.output.contains("adopted 6 file(s) published before as set g000000"), r.output)
        XCTAssertEqual(published(f).map { $0 != nil }, a.map { $0 != nil })
        XCTAssertEqual(Self.readCurrentSet(root), published(f))
        let set = PublishedSet(root: root)
        XCTAssertEqual(set.current()?.generation, 1)
        XCTAssertEqual(set.generations, [0, 1], "the adopted set is kept as the previous one")
        let adopted = PublishedSet.Record.load(set.directory(0) + "/" + PublishedSet.recordName)
        XCTAssertEqual(
            Set(adopted?.members.flatMap(\.files).map { "\($0.digest.hash)" } ?? []), Set(a.compactMap { $0 }),
            "the adopted set holds yesterday's bytes")
        for name in Self.names where a[Self.names.firstIndex(of: name)!] != nil {
            XCTAssertNotNil(PublishedSet.linkText(f.root + "/out/" + name), "\(name) is a link now")
        }
    }

    func testReadersResolvingCurrentOnceSeeCompleteSetsWhileSetsArePublished() throws {
        let f = try setUpFixture()
        defer { f.remove() }
        let root = f.root + "/out/.test.geojson.published"
        try f.runOK()
        let a = published(f)
        try f.runOK(Self.today)
        let b = published(f)
        let shared = ReaderState()
        let reader = Thread {
            while !shared.stop.load(ordering: .relaxed) {
                let got = Self.readCurrentSet(root)
                shared.reads.withLock { r in
                    if let got, got == a || got == b {
                        r.complete += 1
                        r.sets.insert(got == a ? "A" : "B")
                    } else {
                        r.problems.append("\(String(describing: got))")
                    }
                }
            }
        }
        reader.start()
        for i in 0..<6 { try f.runOK(i % 2 == 0 ? ["--quiet"] : ["--quiet"] + Self.today) }
        shared.stop.store(true, ordering: .relaxed)
        while !reader.isFinished { usleep(10_000) }
        let result = shared.reads.withLock { $0 }
        XCTAssertEqual(result.problems, [], "every read saw one complete set")
        XCTAssertGreaterThan(result.complete, 10)
        XCTAssertEqual(result.sets, ["A", "B"], "reads happened while both sets were current")
        // Only the current and the previous set are kept; going back to the previous parameters
        // hard-links the previous set's files instead of writing them again.
        XCTAssertEqual(PublishedSet(root: root).generations.count, PublishedSet.kept)
        let back = try f.runOK()
        XCTAssertTrue(back.output.contains("test.geojson is the same as in set g000006, published again"), back.output)
        XCTAssertEqual(published(f), a)
    }

    /// Two manifests whose outputs share a stem in one folder (`test.geojson`, `test.gpkg`) would
    /// have the same maps and style: the second is refused before it makes anything current, and
    /// the first's links stay its own.
    func testAnOutputOfTheSameStemBesideAnotherIsRefused() throws {
        let f = try setUpFixture()
        defer { f.remove() }
        try f.writeManifest(output: .string("../out/test.geojson"))
        try f.runOK()
        let before = ["test.geojson", "test.qml", "test.png", "test.html"].map {
            PublishedSet.linkText(f.root + "/out/" + $0)
        }
        XCTAssertTrue(before.allSatisfy { $0?.hasPrefix(".test.geojson.published/current/") ?? false }, "\(before)")
        let other = f.root + "/pipelines/other.json"
        let text = try String(contentsOfFile: f.manifestPath, encoding: .utf8)
        try text.replacingOccurrences(of: "../work", with: "../work-other")
            .replacingOccurrences(of: "../out/test.geojson", with: "../out/test.gpkg")
            .write(toFile: other, atomically: true, encoding: .utf8)
        let second = try f.tool(["run", other])
        XCTAssertEqual(second.status, 2, second.output)
        let refusal = "belongs to the output test.geojson that \(f.manifestPath) publishes in the same folder"
        XCTAssertTrue(second.output.contains(refusal), second.output)
        let after = ["test.geojson", "test.qml", "test.png", "test.html"].map {
            PublishedSet.linkText(f.root + "/out/" + $0)
        }
        XCTAssertEqual(after, before, "the first output's links were taken over")
        XCTAssertFalse(FileManager.default.fileExists(atPath: f.root + "/out/test.gpkg"))
        // The same manifest moving its output to another format takes its own old links over.
        try text.replacingOccurrences(of: "../out/test.geojson", with: "../out/test.gpkg").write(
            toFile: f.manifestPath, atomically: true, encoding: .utf8)
        XCTAssertEqual(try f.run().status, 0)
        XCTAssertEqual(PublishedSet.linkText(f.root + "/out/test.png"), ".test.gpkg.published/current/maps/test.png")
    }

    /// Two manifests that name one output publish into one set folder. Their runs at the same
    /// time take turns (the folder's lock, from reading the lineage file to the flip): every run
    /// exits 0, the output is one complete set of either, and the lineage's high-water mark never
    /// goes back (the other manifest, without a lineage, carries the first one's lineage file
    /// into its sets unchanged; with one, it is refused the first one's lineage file); the
    /// start-up sweep leaves the folder alone while another run holds the lock; and a run
    /// replacing the other manifest's set says so.
    func testTwoManifestsWithOneOutputTakeTurnsAndSaySo() throws {
        let f = try setUpFixture()
        defer { f.remove() }
        try f.writeManifest(
            output: .string("../out/test.geojson"), sections: [("maps", .bool(false)), ("lineage", .bool(true))])
        let other = f.root + "/pipelines/other.json"
        let text = try String(contentsOfFile: f.manifestPath, encoding: .utf8)
        try text.replacingOccurrences(of: "../work", with: "../work-other").write(
            toFile: other, atomically: true, encoding: .utf8)
        try f.runOK()
        let refused = try f.tool(["run", other])
        XCTAssertEqual(refused.status, 2, refused.output)
        XCTAssertTrue(refused.output.contains("is the lineage file of another manifest"), refused.output)
        let lineageOff = text.replacingOccurrences(of: "../work", with: "../work-other")
            .replacingOccurrences(of: "\"lineage\": true", with: "\"lineage\": false")
        XCTAssertNotEqual(lineageOff, text.replacingOccurrences(of: "../work", with: "../work-other"))
        try lineageOff.write(toFile: other, atomically: true, encoding: .utf8)
        let second = try f.tool(["run", other, "--set", "regions.core_ratio=8"])
        XCTAssertEqual(second.status, 0, second.output)
        XCTAssertTrue(second.output.contains("the current set was published by another manifest"), second.output)
        func highWaterMark() throws -> Int {
            let text = try String(contentsOfFile: f.root + "/out/test.lineage.json", encoding: .utf8)
            return try XCTUnwrap(JSONParser.parse(text)["regionsearch_lineage"]?["high_water_mark"]?.intValue)
        }
        var mark = try highWaterMark()
        for round in 0..<6 {
            let ratios = ["regions.core_ratio=\(4 + round)", "regions.core_ratio=\(5 + round)"]
            let logs = (0..<2).map { f.root + "/run-\($0).log" }
            let children = try [f.manifestPath, other].enumerated().map { k, manifest in
                try ChildProcess(
                    executable: PipelineFixture.regionsearch,
                    arguments: ["run", manifest, "--quiet", "--set", ratios[k]], output: .file(logs[k]))
            }
            for (child, log) in zip(children, logs) {
                let termination = child.wait()
                let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
                XCTAssertTrue(termination.succeeded, "round \(round): \(termination): \(text)")
            }
            let root = f.root + "/out/.test.geojson.published"
            XCTAssertEqual(FileSystem.list(root).filter { $0.contains(".tmp-") }, [], "round \(round)")
            XCTAssertNoThrow(
                try JSONParser.parse(try String(contentsOfFile: f.root + "/out/test.geojson", encoding: .utf8)))
            let next = try highWaterMark()
            XCTAssertGreaterThanOrEqual(next, mark, "round \(round)")
            mark = next
        }
        // While another run holds the folder's lock, the sweep leaves a set being built and a
        // link being made beside the output; once it is free, they are leftovers.
        let set = PublishedSet(root: f.root + "/out/.test.geojson.published")
        let building = set.root + "/.g000999.tmp-4194303"
        let linking = f.root + "/out/.test.geojson.tmp-4194303-0"
        try FileManager.default.createDirectory(atPath: building, withIntermediateDirectories: true)
        try Data().write(to: URL(fileURLWithPath: linking))
        let work = WorkDirectory(path: f.root + "/work")
        let held = try XCTUnwrap(try set.lock(wait: false))
        try Runner.prepare(work, outputs: [f.root + "/out/test.geojson"], set: set)
        XCTAssertTrue(FileManager.default.fileExists(atPath: building))
        XCTAssertTrue(FileManager.default.fileExists(atPath: linking))
        held.release()
        try Runner.prepare(work, outputs: [f.root + "/out/test.geojson"], set: set)
        XCTAssertFalse(FileManager.default.fileExists(atPath: building))
        XCTAssertFalse(FileManager.default.fileExists(atPath: linking))
    }
}

/// What the reader thread and the test share.
private final class ReaderState: Sendable {
    let stop = Atomic<Bool>(false)
    let reads = Mutex<(complete: Int, sets: Set<String>, problems: [String])>((0, [], []))
}
