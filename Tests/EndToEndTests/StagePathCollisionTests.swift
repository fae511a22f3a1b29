import Foundation
import XCTest

@testable import RegionSearchCore

/// A stage executable run by hand (`regionsearch-graph --input p.rsa --output p.rsa`) refuses an
/// output that names one of its input artifacts, as `regionsearch run` refuses it in a manifest:
/// exit 2 and the input untouched. The built executables on the fixture's city.
final class StagePathCollisionTests: XCTestCase {
    private func tool(_ name: String, _ arguments: [String], in f: PipelineFixture) throws -> PipelineFixture.Result {
        try f.tool(arguments + ["--quiet"], executable: PipelineFixture.toolDirectory + "/" + name)
    }

    func testAStageDoesNotWriteOverWhatItReads() throws {
        let f = try PipelineFixture()
        defer { f.remove() }
        let csv = f.root + "/city.csv"
        try PipelineFixture.csvBytes.write(to: URL(fileURLWithPath: csv))
        let (pois, projected) = (f.root + "/pois.rsa", f.root + "/projected.rsa")
        XCTAssertEqual(
            try tool("regionsearch-ingest", [csv, "--output", pois, "--rejects", f.root + "/r.txt"], in: f).status, 0)
        XCTAssertEqual(try tool("regionsearch-project", ["--input", pois, "--output", projected], in: f).status, 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: projected))
        // The same path, and a link to it under another name.
        let link = f.root + "/link.rsa"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: projected)
        for output in [projected, link] {
            let r = try tool("regionsearch-graph", ["--input", projected, "--output", output], in: f)
            XCTAssertEqual(r.status, 2, r.output)
            XCTAssertTrue(r.output.contains("--output \(output) is --input \(projected)"), r.output)
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: projected)), before)
        }
        let summary = try tool(
            "regionsearch-graph", ["--input", projected, "--output", f.root + "/g.rsa", "--summary", projected], in: f)
        XCTAssertEqual(summary.status, 2, summary.output)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: projected)), before)
        // A distinct output is written as before.
        XCTAssertEqual(
            try tool("regionsearch-graph", ["--input", projected, "--output", f.root + "/g.rsa"], in: f).status, 0)
    }

    /// `regionsearch diff`, `regionsearch-evaluate compare` and `regionsearch preview` refuse a
    /// report or map path that names one of their inputs, and leave it as it was.
    func testToolsDoNotWriteOverTheirInputs() throws {
        let f = try PipelineFixture()
        defer { f.remove() }
        try f.writeManifest()
        XCTAssertEqual(try f.run().status, 0)
        let a = try f.copy(as: "a.geojson")
        // A region file that happens to be named like the map preview would write.
        let html = try f.copy(as: "q.html")
        let before = try Data(contentsOf: URL(fileURLWithPath: a))
        let rs = PipelineFixture.regionsearch
        for (executable, arguments, file) in [
            (rs, ["diff", a, a, "--json", a], a),
            (rs, ["diff", a, a, "--geojson", a], a),
            (PipelineFixture.toolDirectory + "/regionsearch-evaluate", ["compare", a, a, "--json", a], a),
            (rs, ["preview", html, "--out", f.root + "/q", "--formats", "html"], html),
        ] {
            let r = try f.tool(arguments, executable: executable)
            XCTAssertEqual(r.status, 2, "\(arguments): \(r.output)")
            XCTAssertTrue(r.output.contains("would replace the input"), r.output)
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: file)), before, "\(arguments)")
        }
        XCTAssertEqual(try f.tool(["diff", a, a, "--json", f.root + "/changes.json"]).status, 0)
        // A truth file named twice (here through a link) would count its items twice.
        let link = f.root + "/link.geojson"
        XCTAssertEqual(symlink(html, link), 0)
        let evaluate = PipelineFixture.toolDirectory + "/regionsearch-evaluate"
        let twice = try f.tool(["truth", a, html, link], executable: evaluate)
        XCTAssertEqual(twice.status, 2, twice.output)
        XCTAssertTrue(twice.output.contains("truth file '\(link)' is the same file as '\(html)'"), twice.output)
    }
}
