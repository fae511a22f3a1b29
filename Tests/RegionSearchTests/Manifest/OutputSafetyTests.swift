import Foundation
import XCTest

@testable import RegionSearchCore
@testable import RegionSearchPipeline

/// A manifest whose output would replace a file the run reads is refused before anything runs.
final class OutputSafetyTests: XCTestCase {
    private var dir = ""

    override func setUp() {
        dir = TestSupport.temporaryDirectory()
        try! FileManager.default.createDirectory(atPath: dir + "/data", withIntermediateDirectories: true)
        try! "id,name,category,lon,lat\n1,a,cafe,24.9,60.1\n".write(
            toFile: dir + "/data/pois.csv", atomically: true, encoding: .utf8)
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: dir) }

    /// Writes a manifest at `DIR/m.json` and loads it; the error message when it is refused.
    private func load(output: String, extra: String = "", inputs: String = #"[{"path": "data/pois.csv"}]"#)
        -> (Manifest?, String?)
    {
        let text = """
            {"inputs": \(inputs), "work_dir": "work", "output": "\(output)", "keywords": ["cafe"]\(extra)}
            """
        try! text.write(toFile: dir + "/m.json", atomically: true, encoding: .utf8)
        do {
            return (try Manifest.load(path: dir + "/m.json"), nil)
        } catch {
            XCTAssertEqual(error.exitStatus, .usage)
            return (nil, error.description)
        }
    }

    func testOutputNamingTheInputIsRefused() {
        let (m, message) = load(output: "data/pois.csv")
        XCTAssertNil(m)
        XCTAssertTrue(message?.contains("output: ") ?? false, message ?? "")
        XCTAssertTrue(message?.contains("would overwrite input inputs[0]") ?? false, message ?? "")
    }

    func testOutputReachingTheInputThroughALinkOrDotsIsRefused() throws {
        try FileManager.default.createSymbolicLink(atPath: dir + "/link.geojson", withDestinationPath: "data/pois.csv")
        XCTAssertNotNil(load(output: "link.geojson").1)
        XCTAssertNotNil(load(output: "data/../data/./pois.csv").1)
        try FileManager.default.createSymbolicLink(atPath: dir + "/d", withDestinationPath: "data")
        XCTAssertNotNil(load(output: "d/pois.csv").1)
        XCTAssertEqual(link(dir + "/data/pois.csv", dir + "/hard.geojson"), 0)
        XCTAssertNotNil(load(output: "hard.geojson").1, "a hard link is the same file")
    }

    func testOutputNamingTheManifestOrTheWorkStateIsRefused() {
        XCTAssertTrue(load(output: "m.json").1?.contains("the manifest") ?? false)
        XCTAssertTrue(load(output: "work/run.json").1?.contains("run state") ?? false)
    }

    func testExperimentOutputDirectoryHoldingAnInputIsRefused() throws {
        try FileManager.default.createDirectory(atPath: dir + "/out", withIntermediateDirectories: true)
        try "x".write(toFile: dir + "/out/results.csv", atomically: true, encoding: .utf8)
        let (m, message) = load(
            output: "out", extra: #", "experiment": {"inputs": {"a": [{"path": "out/results.csv"}]}}"#, inputs: "null")
        XCTAssertNil(m)
        XCTAssertTrue(message?.contains("experiment.inputs.a[0]") ?? false, message ?? "")
        // A combination's GeoJSON over an input is caught too.
        try "y".write(toFile: dir + "/out/a.geojson", atomically: true, encoding: .utf8)
        XCTAssertNotNil(
            load(
                output: "out", extra: #", "experiment": {"inputs": {"a": [{"path": "out/a.geojson"}]}}"#, inputs: "null"
            )
            .1)
    }

    func testAnOrdinaryOutputIsAccepted() {
        let (m, message) = load(output: "out/result.geojson")
        XCTAssertNotNil(m, message ?? "")
        XCTAssertNoThrow(try OutputSafety.check(m!))
    }

    func testCheckComparesByFileNotBySpelling() throws {
        let protected = [OutputSafety.Protected(path: dir + "/data/pois.csv", role: "input inputs[0]")]
        XCTAssertThrowsError(try OutputSafety.check(writing: [dir + "//data/./pois.csv"], protected: protected))
        XCTAssertNoThrow(try OutputSafety.check(writing: [dir + "/data/other.csv"], protected: protected))
        XCTAssertNoThrow(try OutputSafety.check(writing: [dir + "/nowhere/x/y.geojson"], protected: protected))
    }
}
