import Foundation
import XCTest

@testable import RegionSearchCore
@testable import RegionSearchTestSupport

/// What is at an output path decides how it is written: a link is written through, a pipe or
/// device in place, and nothing is replaced that is not a regular file.
final class AtomicFileTargetTests: XCTestCase {
    func testALinkIsWrittenThroughAndKept() throws {
        let dir = GIS.directory("links")
        try "old".write(toFile: dir + "/real.geojson", atomically: false, encoding: .utf8)
        XCTAssertEqual(symlink(dir + "/real.geojson", dir + "/link.geojson"), 0)
        try AtomicFile.write("new", to: dir + "/link.geojson")
        XCTAssertEqual(
            try FileManager.default.destinationOfSymbolicLink(atPath: dir + "/link.geojson"), dir + "/real.geojson")
        XCTAssertEqual(try String(contentsOfFile: dir + "/real.geojson", encoding: .utf8), "new")
        XCTAssertEqual(FileSystemListForTest.names(dir), ["link.geojson", "real.geojson"], "no temporary left")

        XCTAssertEqual(symlink(dir + "/missing", dir + "/dangling"), 0)
        XCTAssertThrowsError(try AtomicFile.write("x", to: dir + "/dangling")) {
            XCTAssertTrue("\($0)".contains("symbolic link to a missing file"), "\($0)")
        }
        XCTAssertEqual(symlink(dir + "/loop-b", dir + "/loop-a"), 0)
        XCTAssertEqual(symlink(dir + "/loop-a", dir + "/loop-b"), 0)
        XCTAssertThrowsError(try AtomicFile.write("x", to: dir + "/loop-a")) {
            XCTAssertTrue("\($0)".contains("is a loop of symbolic links"), "\($0)")
        }
        XCTAssertThrowsError(try AtomicFile.write("x", to: dir)) { XCTAssertTrue("\($0)".contains("is a directory")) }
    }

    func testPipesDevicesAndStandardStreamsAreWrittenInPlace() throws {
        XCTAssertEqual(try AtomicFile.Target("-"), .writeThrough("-", descriptor: 1))
        XCTAssertEqual(try AtomicFile.Target("/dev/stdout"), .writeThrough("/dev/stdout", descriptor: 1))
        XCTAssertEqual(try AtomicFile.Target("/proc/self/fd/2"), .writeThrough("/proc/self/fd/2", descriptor: 2))
        XCTAssertEqual(try AtomicFile.Target("/dev/null"), .writeThrough("/dev/null", descriptor: nil))
        try AtomicFile.write("discarded", to: "/dev/null")
        var st = stat()
        XCTAssertEqual(lstat("/dev/null", &st), 0)
        XCTAssertEqual(st.st_mode & S_IFMT, S_IFCHR, "/dev/null is still the device")
        let dir = GIS.directory("pipe")
        XCTAssertEqual(try AtomicFile.Target(dir + "/new.geojson"), .replace(dir + "/new.geojson"))
    }
}

enum FileSystemListForTest {
    static func names(_ dir: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).sorted()
    }
}
