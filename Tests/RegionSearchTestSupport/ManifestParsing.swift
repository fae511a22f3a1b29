import RegionSearchRunner
import XCTest

/// Manifest text parsed as if read from `pipelines/x.json` in `/base/pipelines`, so that
/// expected messages and resolved paths are the same in every manifest test.
protocol ManifestParsing {}

extension ManifestParsing {
    func parse(_ text: String) throws(ManifestError) -> Manifest {
        try Manifest(bytes: Array(text.utf8), file: "pipelines/x.json", directory: "/base/pipelines")
    }

    /// The message of the usage error `text` fails with (a test failure when it is accepted).
    func message(_ text: String, line: UInt = #line) -> String {
        do throws(ManifestError) {
            _ = try parse(text)
            XCTFail("manifest was accepted", line: line)
            return ""
        } catch {
            XCTAssertEqual(error.exitStatus, .usage, line: line)
            return error.description
        }
    }
}
