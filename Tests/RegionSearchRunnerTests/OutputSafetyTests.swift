import Foundation
import XCTest

@testable import RegionSearchRunner
@testable import RegionSearchTestSupport

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
        XCTAssertNoThrow(try RunInventory(m!).check())
    }

    func testCheckComparesByFileNotBySpelling() throws {
        let protected = [OutputSafety.Protected(path: dir + "/data/pois.csv", role: "input inputs[0]")]
        XCTAssertThrowsError(try OutputSafety.check(writing: [dir + "//data/./pois.csv"], protected: protected))
        XCTAssertNoThrow(try OutputSafety.check(writing: [dir + "/data/other.csv"], protected: protected))
        XCTAssertNoThrow(try OutputSafety.check(writing: [dir + "/nowhere/x/y.geojson"], protected: protected))
    }

    // MARK: Issue 21: one inventory of every file a run writes

    /// Finding 6: the maps beside the output are in the inventory: an input named like a map, or
    /// the manifest itself, is refused.
    func testMapsBesideTheOutputMayNotBeAnInputOrTheManifest() throws {
        try FileManager.default.copyItem(atPath: dir + "/data/pois.csv", toPath: dir + "/r.svg")
        let (m, message) = load(output: "r.geojson", inputs: #"[{"path": "r.svg", "format": "csv"}]"#)
        XCTAssertNil(m)
        XCTAssertTrue(message?.contains("the map r.svg") ?? false, message ?? "")
        XCTAssertTrue(message?.contains("would overwrite input inputs[0]") ?? false, message ?? "")
        // The manifest named like the web map.
        let text =
            #"{"inputs": [{"path": "data/pois.csv"}], "work_dir": "work", "output": "m.geojson", "keywords": ["cafe"]}"#
        try text.write(toFile: dir + "/m.html", atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try Manifest.load(path: dir + "/m.html")) { error in
            XCTAssertTrue("\(error)".contains("the map m.html"), "\(error)")
            XCTAssertTrue("\(error)".contains("would overwrite the manifest"), "\(error)")
        }
        // Maps off: nothing beside the output is written, so nothing collides.
        XCTAssertNotNil(
            load(output: "r.geojson", extra: #", "maps": false"#, inputs: #"[{"path": "r.svg", "format": "csv"}]"#).0)
    }

    /// Finding 7: the outputs' sidecars are compared with each other: the regions Shapefile and a
    /// GeoJSON POI layer of the same stem would share `r.qml`; a regions file named `g.qml` would be
    /// replaced by the POI layer's style.
    func testSidecarsOfTheTwoOutputsMayNotCollide() {
        let (a, messageA) = load(output: "r.shp", extra: #", "poi_output": "r.geojson""#)
        XCTAssertNil(a)
        XCTAssertTrue(messageA?.contains("QGIS style") ?? false, messageA ?? "")
        // "g.qml" has no format of its own: given as GeoJSON.
        let text = """
            {"inputs": [{"path": "data/pois.csv"}], "work_dir": "work", "output": {"path": "g.qml", "format": "geojson"},
             "poi_output": "g.geojson", "keywords": ["cafe"]}
            """
        try! text.write(toFile: dir + "/m.json", atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try Manifest.load(path: dir + "/m.json")) { error in
            // Its own style and the POI layer's would both be g.qml.
            XCTAssertTrue("\(error)".contains("QGIS style"), "\(error)")
            XCTAssertTrue("\(error)".contains("would overwrite output"), "\(error)")
        }
        // The POI layer may not be one of the maps either.
        let map = load(output: "r.gpkg", extra: #", "poi_output": {"path": "r.svg", "format": "geojson"}"#).1 ?? ""
        XCTAssertTrue(map.contains("the map r.svg") && map.contains("would overwrite poi_output"), map)
        // Different stems are fine, and a GeoPackage holding both layers is one file on purpose.
        XCTAssertNotNil(load(output: "r.shp", extra: #", "poi_output": "p.geojson""#).0)
        XCTAssertNotNil(load(output: "r.gpkg", extra: #", "poi_output": {"path": "r.gpkg", "layer": "pois"}"#).0)
    }

    /// Finding 14: an output inside the work directory's folders (here an artifact's place in
    /// `objects/`) is refused, as is its publish record; elsewhere in the work directory is fine.
    func testOutputsInsideTheRunnersFoldersAreRefused() throws {
        try FileManager.default.createDirectory(
            atPath: dir + "/work/objects/ingest-0123", withIntermediateDirectories: true)
        try "x".write(toFile: dir + "/work/objects/ingest-0123/pois.rsa", atomically: true, encoding: .utf8)
        let text = """
            {"inputs": [{"path": "data/pois.csv"}], "work_dir": "work",
             "output": {"path": "work/objects/ingest-0123/pois.rsa", "format": "geojson"}, "keywords": ["cafe"]}
            """
        try text.write(toFile: dir + "/m.json", atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try Manifest.load(path: dir + "/m.json")) { error in
            XCTAssertEqual((error as? ManifestError)?.exitStatus, .usage)
            XCTAssertTrue("\(error)".contains("is inside the work directory's objects"), "\(error)")
        }
        for path in ["work/records/x.geojson", "work/failed/x.geojson", "work/maps/x.geojson"] {
            XCTAssertTrue(load(output: path).1?.contains("is inside the work directory") ?? false, path)
        }
        XCTAssertTrue(load(output: "work/published.json").1?.contains("publish record") ?? false)
        // The runner rewrites its record of the executables' builds on every run: an output there
        // would be overwritten through its published link, yesterday's result by a failing night.
        XCTAssertTrue(load(output: "work/builds.json").1?.contains("builds") ?? false)
        // A folder is no output file (normalised, "out/" was written as a file named out).
        XCTAssertTrue(load(output: "out/").1?.contains("names a folder") ?? false)
        XCTAssertNotNil(load(output: "work/result.geojson").0, "the work directory itself is not off limits")
    }

    /// The published sets' folder is the runner's: no output inside it, no input it would remove.
    func testThePublishedSetsFolderIsTheRunners() throws {
        XCTAssertTrue(
            load(output: "out/r.geojson", extra: #", "poi_output": "out/.r.geojson.published/p.geojson""#).1?
                .contains("is inside the published sets of r.geojson") ?? false)
        // The folder itself, before it exists (the first run).
        XCTAssertTrue(
            load(output: "out/r.geojson", extra: #", "poi_output": "out/.r.geojson.published""#).1?
                .contains("is inside the published sets of r.geojson") ?? false)
        try FileManager.default.createDirectory(
            atPath: dir + "/out/.r.geojson.published/g000001/output", withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: dir + "/data/pois.csv", toPath: dir + "/out/.r.geojson.published/g000001/output/in.csv")
        let (m, message) = load(
            output: "out/r.geojson", inputs: #"[{"path": "out/.r.geojson.published/g000001/output/in.csv"}]"#)
        XCTAssertNil(m)
        XCTAssertTrue(message?.contains("holds input inputs[0]") ?? false, message ?? "")
    }

    /// Finding 15 (the manifest's part): one file named twice, through a link, is refused.
    func testTheSameInputFileTwiceIsRefused() throws {
        try FileManager.default.createSymbolicLink(atPath: dir + "/data/link.csv", withDestinationPath: "pois.csv")
        let (m, message) = load(output: "r.geojson", inputs: #"[{"path": "data/pois.csv"}, {"path": "data/link.csv"}]"#)
        XCTAssertNil(m)
        XCTAssertTrue(message?.contains("inputs[1].path") ?? false, message ?? "")
        XCTAssertTrue(message?.contains("is the same file as inputs[0]") ?? false, message ?? "")
    }

    /// Two layers of one GeoPackage (a usual QGIS layout), or one file read through two filters,
    /// are two inputs; the same layer twice is still the same input twice.
    func testOneFileReadTwoWaysIsTwoInputs() throws {
        let gpkg = dir + "/data/two.gpkg"
        try Data("x".utf8).write(to: URL(fileURLWithPath: gpkg))
        let two = #"[{"path": "data/two.gpkg", "layer": "pois"}, {"path": "data/two.gpkg", "layer": "cafes"}]"#
        let (m, message) = load(output: "r.geojson", inputs: two)
        XCTAssertNotNil(m, message ?? "")
        let filters =
            #"[{"path": "data/two.gpkg", "where": "kind = 'a'"}, {"path": "data/two.gpkg", "where": "kind = 'b'"}]"#
        XCTAssertNotNil(load(output: "r.geojson", inputs: filters).0)
        let same = #"[{"path": "data/two.gpkg", "layer": "pois"}, {"path": "./data/two.gpkg", "layer": "pois"}]"#
        let (twice, why) = load(output: "r.geojson", inputs: same)
        XCTAssertNil(twice)
        XCTAssertTrue(why?.contains("read the same way") ?? false, why ?? "")
    }
}
