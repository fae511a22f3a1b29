import Foundation
import XCTest

@testable import RegionSearchCore
@testable import RegionSearchRunner
@testable import RegionSearchTestSupport

final class WorkDirectoryTests: XCTestCase {
    /// The runner's digest cache reads a file once: an unchanged file is confirmed by its `stat`
    /// signature, an edited one (same size, written after the hash) is hashed again and found
    /// changed, a replaced one too, and a file written in the same clock tick as it was hashed
    /// is never trusted by signature.
    func testDigestCacheConfirmsByStatAndCatchesEveryChange() throws {
        let dir = TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/input.csv"
        try Data(repeating: 65, count: 100_000).write(to: URL(fileURLWithPath: path))
        usleep(30_000)  // past the coarse clock tick of the write
        let cache = DigestCache()
        let digest = try cache.digest(path: path)
        XCTAssertEqual(digest, try FileDigest.of(path: path))
        XCTAssertEqual(cache.hashedFiles, 1)
        XCTAssertTrue(cache.hasDigest(path: path, digest))
        XCTAssertEqual(cache.hashedFiles, 1, "an unchanged file is confirmed without reading it")
        // The same size, other bytes, written in place.
        let fd = open(path, O_WRONLY)
        XCTAssertEqual(pwrite(fd, "B", 1, 500), 1)
        close(fd)
        XCTAssertFalse(cache.hasDigest(path: path, digest))
        XCTAssertEqual(cache.hashedFiles, 2)
        // Replaced by a file with the original bytes: another inode, rehashed, equal again.
        try Data(repeating: 65, count: 100_000).write(to: URL(fileURLWithPath: dir + "/new.csv"))
        XCTAssertEqual(rename(dir + "/new.csv", path), 0)
        XCTAssertTrue(cache.hasDigest(path: path, digest))
        XCTAssertEqual(cache.hashedFiles, 3)
        // Freshly written: hashed, but its signature is not trusted (a later write in the same tick
        // could leave it unchanged), so every check reads it again.
        let fresh = dir + "/fresh.csv"
        for round in 0..<3 {
            try Data(repeating: UInt8(round), count: 1000).write(to: URL(fileURLWithPath: fresh))
            let (d, signature) = try FileDigest.hashed(path: fresh)
            if signature != nil { continue }  // the clock ticked between write and hash: retry
            let before = cache.hashedFiles
            _ = try cache.digest(path: fresh)
            XCTAssertTrue(cache.hasDigest(path: fresh, d))
            XCTAssertEqual(cache.hashedFiles, before + 2, "an unsettled file is rehashed")
            break
        }
    }

    func testFileDigestMatchesAOneShotHashAcrossChunkBoundaries() throws {
        let dir = TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // 9 MiB + 17 bytes: crosses the 4 MiB read chunks and the 32-byte hash stripes unevenly.
        var bytes = [UInt8](repeating: 0, count: 9 << 20 + 17)
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for i in 0..<bytes.count {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            bytes[i] = UInt8(truncatingIfNeeded: state >> 33)
        }
        try Data(bytes).write(to: URL(fileURLWithPath: dir + "/big.bin"))
        var h = ContentHasher()
        bytes.withUnsafeBytes { h.update($0) }
        // Two independent XXH64 lanes over the same bytes.
        let lane0 = bytes.withUnsafeBytes { XXHash64.hash($0, seed: 0) }
        XCTAssertEqual(h.finalize().high, lane0)
        XCTAssertEqual(try FileDigest.of(path: dir + "/big.bin"), FileDigest(hash: h.finalize(), size: bytes.count))
        XCTAssertThrowsError(try FileDigest.of(path: dir + "/none")) { error in
            let failure = error as? FileDigest.Failure
            XCTAssertEqual(failure?.isMissing, true)
            XCTAssertEqual(failure?.description, dir + "/none: No such file or directory")
        }
        XCTAssertThrowsError(try FileDigest.of(path: dir)) { error in
            let failure = error as? FileDigest.Failure
            XCTAssertEqual(failure?.isMissing, false)
            XCTAssertEqual(failure?.reason, "is a directory, expected a file")
        }
    }

    func testLayoutNamesAndEntryParsing() {
        let work = WorkDirectory(path: "/w")
        let key = ContentHash(high: 0x0123_4567_89AB_CDEF, low: 0xFEDC_BA98_7654_3210)
        XCTAssertEqual(
            work.objectDirectory(stage: "graph", key: key), "/w/objects/graph-0123456789abcdeffedcba9876543210")
        XCTAssertEqual(
            work.recordPath(stage: "graph", key: key), "/w/records/graph-0123456789abcdeffedcba9876543210.json")
        XCTAssertEqual(
            work.failurePath(stage: "graph", key: key), "/w/records/graph-0123456789abcdeffedcba9876543210.failed.json")
        XCTAssertEqual(
            work.stagingDirectory(stage: "graph", key: key, pid: 42),
            "/w/objects/.graph-0123456789abcdeffedcba9876543210.tmp-42")
        for name in [
            "graph-0123456789abcdeffedcba9876543210", "graph-0123456789abcdeffedcba9876543210.json",
            "graph-0123456789abcdeffedcba9876543210.failed.json",
        ] {
            let entry = WorkDirectory.parseEntry(name)
            XCTAssertEqual(entry?.stage, "graph", name)
            XCTAssertEqual(entry?.key, key, name)
        }
        XCTAssertNil(WorkDirectory.parseEntry("nostage-0123456789abcdeffedcba9876543210"))
        XCTAssertNil(WorkDirectory.parseEntry("graph-0123"))
        XCTAssertNil(WorkDirectory.parseEntry(".graph-0123456789abcdeffedcba9876543210.tmp-42"))
    }

    func testRemoveTemporariesTakesOnlyLeftovers() throws {
        let dir = TestSupport.temporaryDirectory()
        let work = WorkDirectory(path: dir + "/work")
        try work.create()
        let keep = [
            work.objects + "/graph-0123456789abcdeffedcba9876543210/graph.rsa", work.records + "/a.json", work.runState,
            dir + "/out/x.geojson", dir + "/out/.y.geojson.tmp-1-0",
        ]
        let leftovers = [
            work.objects + "/.graph-0123456789abcdeffedcba9876543210.tmp-7/graph.rsa",
            work.records + "/.graph-0123456789abcdeffedcba9876543210.json.tmp-7-0", work.path + "/.run.json.tmp-7-1",
            dir + "/out/.x.geojson.tmp-7-0",
        ]
        for path in keep + leftovers {
            try FileSystem.createDirectories(AtomicFile.directory(of: path))
            XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data("x".utf8)))
        }
        let removed = try work.removeTemporaries() + WorkDirectory.removeTemporaries(besides: dir + "/out/x.geojson")
        XCTAssertEqual(
            removed.sorted(),
            [
                work.objects + "/.graph-0123456789abcdeffedcba9876543210.tmp-7",
                work.records + "/.graph-0123456789abcdeffedcba9876543210.json.tmp-7-0",
                work.path + "/.run.json.tmp-7-1", dir + "/out/.x.geojson.tmp-7-0",
            ].sorted())
        for path in keep { XCTAssertTrue(FileSystem.exists(path), path) }
        for path in leftovers { XCTAssertFalse(FileSystem.exists(path), path) }
    }

    func testLockIsExclusiveNamesItsHolderAndRecognisesAStaleOne() throws {
        let work = WorkDirectory(path: TestSupport.temporaryDirectory() + "/work")
        XCTAssertEqual(WorkLock.state(of: work), .free)
        let first = try WorkLock.acquire(work, wait: false)
        XCTAssertNil(first.interruptedHolder)
        guard case .held(let holder) = WorkLock.state(of: work) else { return XCTFail("not held") }
        XCTAssertEqual(holder?.pid, getpid())
        XCTAssertThrowsError(try WorkLock.acquire(work, wait: false)) { error in
            guard let error = error as? RunnerError, case .busy(let path, let holder) = error else {
                return XCTFail("\(error)")
            }
            XCTAssertEqual(path, work.path)
            XCTAssertEqual(holder?.pid, getpid())
            XCTAssertEqual(error.exitStatus, .busy)
            XCTAssertTrue(
                error.description.hasPrefix(
                    "work directory \(work.path) is in use by another run (pid \(getpid()), started "))
        }
        first.release()
        XCTAssertEqual(WorkLock.state(of: work), .free)
        XCTAssertEqual(try String(contentsOfFile: work.lockFile, encoding: .utf8), "", "a clean release clears the pid")
        let second = try WorkLock.acquire(work, wait: false)
        XCTAssertNil(second.interruptedHolder)
        second.release()
        // A run killed while holding the lock leaves its pid behind but no flock.
        try "pid 99999\nstarted 2025-01-01T00:00:00.000Z\n".write(
            toFile: work.lockFile, atomically: false, encoding: .utf8)
        XCTAssertEqual(WorkLock.state(of: work), .free)
        let third = try WorkLock.acquire(work, wait: false)
        XCTAssertEqual(third.interruptedHolder, WorkLock.Holder(pid: 99999, started: "2025-01-01T00:00:00.000Z"))
        third.release()
    }

    func testChildProcessReportsExitStatusSignalAndOutput() throws {
        let exit3 = try ChildProcess(
            executable: "/bin/sh", arguments: ["-c", "echo hello; echo 'tool: error: bad thing' >&2; exit 3"],
            output: .tee(tail: 1024))
        XCTAssertEqual(exit3.wait(), .exited(3))
        XCTAssertEqual(String(decoding: exit3.tail, as: UTF8.self), "hello\ntool: error: bad thing\n")
        XCTAssertEqual(exit3.errorLines, ["tool: error: bad thing"])
        XCTAssertEqual(exit3.termination?.description, "exit status 3")
        let killed = try ChildProcess(executable: "/bin/sh", arguments: ["-c", "kill -9 $$"], output: .tee(tail: 10))
        XCTAssertEqual(killed.wait(), .signaled(SIGKILL))
        XCTAssertEqual(killed.termination?.description, "killed by signal 9 (SIGKILL)")
        let dir = TestSupport.temporaryDirectory()
        XCTAssertEqual(
            try ChildProcess.run(
                "/bin/sh", ["-c", "echo $GREETING"], environment: ["GREETING": "hi"], output: .file(dir + "/o")),
            .exited(0))
        XCTAssertEqual(try String(contentsOfFile: dir + "/o", encoding: .utf8), "hi\n")
        // Only the last bytes are kept.
        let long = try ChildProcess(executable: "/bin/sh", arguments: ["-c", "seq 1 1000"], output: .tee(tail: 8))
        long.wait()
        XCTAssertEqual(String(decoding: long.tail, as: UTF8.self), "99\n1000\n")
        XCTAssertThrowsError(try ChildProcess(executable: "/nonexistent/tool", arguments: [])) { error in
            XCTAssertEqual("\(error)", "cannot start /nonexistent/tool: No such file or directory")
        }
    }

    func testPathResolution() {
        XCTAssertEqual(PathResolver.absolute("../data/x.csv", relativeTo: "/base/pipelines"), "/base/data/x.csv")
        XCTAssertEqual(PathResolver.absolute("./a//b/./c", relativeTo: "/base"), "/base/a/b/c")
        XCTAssertEqual(PathResolver.absolute("/abs/./x/../y", relativeTo: "/base"), "/abs/y")
        XCTAssertEqual(PathResolver.absolute("../../../..", relativeTo: "/a"), "/")
        XCTAssertEqual(AtomicFile.baseName(of: "/a/b/c.json"), "c.json")
    }
}
