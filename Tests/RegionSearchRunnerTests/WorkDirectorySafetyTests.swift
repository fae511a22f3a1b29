import Foundation
import XCTest

@testable import RegionSearchCore
@testable import RegionSearchIngest
@testable import RegionSearchRunner
@testable import RegionSearchTestSupport

/// Traps in and around the work directory: special files as inputs, a lock file that is a
/// link, user files that look like temporaries.
final class WorkDirectorySafetyTests: XCTestCase {
    func testSpecialFilesAreRefusedInsteadOfHashedForever() throws {
        let dir = TestSupport.temporaryDirectory()
        let fifo = dir + "/fifo"
        XCTAssertEqual(mkfifo(fifo, 0o644), 0)
        for path in ["/dev/zero", fifo] {
            XCTAssertThrowsError(try FileDigest.of(path: path), path) { error in
                XCTAssertTrue("\(error)".contains("not a regular file"), "\(error)")
            }
        }
        XCTAssertThrowsError(try ByteReader(path: "/dev/zero")) { error in
            XCTAssertTrue("\(error)".contains("is a device"), "\(error)")
        }
    }

    /// A folder wanted where a user's file stands (an output under a file, a file at the
    /// published sets' name) is said as that, without the full disk's advice that "File exists"
    /// used to get.
    func testAFileWhereAFolderIsNeededIsNamedAsSuch() throws {
        let dir = TestSupport.temporaryDirectory()
        try "my notes\n".write(toFile: dir + "/notes", atomically: true, encoding: .utf8)
        // A link to nothing stands at a name too (mkdir's EEXIST, then the `stat` of the check
        // for a folder sets errno to ENOENT).
        XCTAssertEqual(symlink(dir + "/nothing", dir + "/dangling"), 0)
        for path in [dir + "/notes", dir + "/notes/sub", dir + "/dangling"] {
            XCTAssertThrowsError(try FileSystem.createDirectories(path), path) { error in
                guard let failure = error as? FileSystem.Failure else { return XCTFail("\(error)") }
                let expected = path.hasSuffix("/sub") ? dir + "/notes" : path
                XCTAssertEqual(failure.path, expected)
                XCTAssertEqual(failure.reason, FileErrorAdvice.notAFolder)
                XCTAssertEqual(
                    "\(RunnerError.fileSystem(failure))",
                    "\(expected): cannot create directory: \(FileErrorAdvice.notAFolder)")
            }
        }
        XCTAssertEqual(try String(contentsOfFile: dir + "/notes", encoding: .utf8), "my notes\n")
    }

    func testLockFileThatIsALinkIsNotFollowed() throws {
        let dir = TestSupport.temporaryDirectory()
        let precious = dir + "/precious.csv"
        try "id,lon,lat\n1,2,3\n".write(toFile: precious, atomically: true, encoding: .utf8)
        let work = WorkDirectory(path: dir + "/work")
        try work.create()
        try FileManager.default.createSymbolicLink(atPath: work.lockFile, withDestinationPath: precious)
        XCTAssertThrowsError(try WorkLock.acquire(work, wait: false)) { error in
            XCTAssertEqual((error as? RunnerError)?.exitStatus, .output)
            XCTAssertTrue("\(error)".contains("symbolic link"), "\(error)")
        }
        XCTAssertEqual(try String(contentsOfFile: precious, encoding: .utf8), "id,lon,lat\n1,2,3\n")
        // A hard link would be truncated just the same.
        unlink(work.lockFile)
        XCTAssertEqual(link(precious, work.lockFile), 0)
        XCTAssertThrowsError(try WorkLock.acquire(work, wait: false))
        XCTAssertEqual(try String(contentsOfFile: precious, encoding: .utf8), "id,lon,lat\n1,2,3\n")
    }

    func testUserFilesThatLookLikeTemporariesAreKept() throws {
        let dir = TestSupport.temporaryDirectory()
        let work = WorkDirectory(path: dir + "/work")
        try work.create()
        let users = [
            work.path + "/notes.tmp-1", work.path + "/.data.csv.tmp-5-0", work.path + "/report.tmp-final.txt",
            work.objects + "/mine.tmp-2", work.records + "/.notes.txt.tmp-3-0", dir + "/out/.x.geojson.tmp-mine",
            // The runner's temporary forms of names it does not make there.
            work.records + "/.x.json.tmp-7-1", work.objects + "/.mine.tmp-7", work.lineage + "/.trip.tmp-7",
            work.scores + "/.grades.json.tmp-7-0",
        ]
        let ours = [
            work.path + "/.run.json.tmp-7-0", work.objects + "/.graph-0123456789abcdeffedcba9876543210.tmp-7",
            work.objects + "/.graph-0123456789abcdeffedcba9876543210.tmp-old-7",
            work.records + "/.graph-0123456789abcdeffedcba9876543210.json.tmp-7-1",
            work.lineage + "/.0123456789abcdeffedcba9876543210.tmp-7", dir + "/out/.x.geojson.tmp-7-0",
        ]
        for path in users + ours {
            try FileSystem.createDirectories(AtomicFile.directory(of: path))
            XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data("x".utf8)))
        }
        let removed = try work.removeTemporaries() + WorkDirectory.removeTemporaries(besides: dir + "/out/x.geojson")
        XCTAssertEqual(removed.sorted(), ours.sorted())
        for path in users { XCTAssertTrue(FileSystem.exists(path), path) }
    }
}
