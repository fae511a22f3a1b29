import XCTest

@testable import RegionSearchCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The advice appended to a failed file operation names what the reason says, not a full disk
/// whatever happened.
final class FileErrorAdviceTests: XCTestCase {
    private func advice(_ code: Int32) -> String {
        FileErrorAdvice.suffix(forReason: "cannot write x: " + String(cString: strerror(code)))
    }

    func testEachReasonGetsItsOwnAdvice() {
        XCTAssertTrue(advice(ENOSPC).contains("file system is full"))
        XCTAssertTrue(advice(ENOENT).contains("does not exist"))
        XCTAssertTrue(advice(EACCES).contains("permissions"))
        XCTAssertTrue(advice(EIO).contains("I/O error"))
        // A folder at the output's name and a closed pipe are neither a full disk nor permissions.
        XCTAssertTrue(advice(EISDIR).contains("a folder stands at that name"))
        XCTAssertTrue(advice(EPIPE).contains("closed it before everything was written"))
        for code in [EISDIR, EPIPE] { XCTAssertFalse(advice(code).contains("disk space"), "\(code)") }
        XCTAssertEqual(FileErrorAdvice.suffix(forReason: FileErrorAdvice.notAFolder), "")
        XCTAssertEqual(FileErrorAdvice.suffix(forReason: "something else"), "; check free disk space and permissions")
    }
}
