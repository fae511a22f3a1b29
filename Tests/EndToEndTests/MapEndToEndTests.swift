import Foundation
import XCTest

@testable import RegionSearchMaps
@testable import RegionSearchRunner
@testable import RegionSearchTestSupport

/// `regionsearch run` writes the maps beside the output, deterministically and only when they
/// change; the manifest turns them off or picks formats; `regionsearch preview` draws the same.
final class MapEndToEndTests: XCTestCase {
    /// The modification time of the file a path shows (published paths are links into the set).
    private func modified(_ path: String) throws -> Date {
        let real = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        return try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: real)[.modificationDate] as? Date)
    }

    /// The names a user sees in a folder (the published sets' folder is hidden).
    private func visible(_ dir: String) -> [String] { FileSystem.list(dir).filter { !$0.hasPrefix(".") } }

    func testRunWritesMapsBesideTheOutputOnlyWhenTheyChange() throws {
        let f = try PipelineFixture()
        defer { f.remove() }
        let first = try f.run()
        XCTAssertEqual(first.status, 0, first.output)
        let out = f.root + "/out"
        XCTAssertEqual(visible(out), ["test.geojson", "test.html", "test.png", "test.qml", "test.svg"])
        XCTAssertTrue(first.output.contains("wrote maps test.png, test.svg, test.html in \(out)"), first.output)
        let png = try Data(contentsOf: URL(fileURLWithPath: out + "/test.png"))
        let image = try CairoSurface(png: Array(png))
        XCTAssertEqual(image.width, 1600)
        let html = try String(contentsOfFile: out + "/test.html", encoding: .utf8)
        XCTAssertTrue(html.contains("<title>RegionSearch — test</title>"))
        let set = PublishedSet(root: out + "/.test.geojson.published")
        XCTAssertEqual(
            set.current()?.record.member("maps")?.files.map(\.path),
            ["png", "svg", "html"].map { out + "/test." + $0 }, "the maps are part of the published set")

        // Up to date: nothing rendered, nothing touched.
        let times = try ["png", "svg", "html"].map { try modified(out + "/test." + $0) }
        usleep(20_000)
        let second = try f.run()
        XCTAssertEqual(second.status, 0, second.output)
        XCTAssertTrue(second.output.contains("maps test.png, test.svg, test.html are up to date"), second.output)
        XCTAssertEqual(try ["png", "svg", "html"].map { try modified(out + "/test." + $0) }, times)
        XCTAssertEqual(set.current()?.generation, 0)
        // A damaged map is noticed (its digest no longer matches the set's record) and the maps
        // are published again, in a new set.
        let svg = try Data(contentsOf: URL(fileURLWithPath: out + "/test.svg"))
        try Data("x".utf8).write(to: URL(fileURLWithPath: out + "/test.svg"))
        // `status` tells it as `run` does (it had said "up to date").
        let status = try f.tool(["status", f.manifestPath, "--check"])
        XCTAssertNotEqual(status.status, 0, status.output)
        let told = try f.tool(["status", f.manifestPath]).output
        XCTAssertTrue(told.contains("maps test.png, test.svg, test.html: differ"), told)
        let fourth = try f.run()
        XCTAssertTrue(fourth.output.contains("wrote maps test.png, test.svg, test.html"), fourth.output)
        XCTAssertTrue(fourth.output.contains("test.geojson is up to date"), fourth.output)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: out + "/test.svg")), svg)
        XCTAssertEqual(set.current()?.generation, 1)

        // preview draws the same map from the same files.
        let pois = try f.objectPath("ingest", "pois.rsa")
        let preview = try f.tool([
            "preview", f.outputPath, "--pois", pois, "--title", "test", "--out", f.root + "/preview",
        ])
        XCTAssertEqual(preview.status, 0, preview.output)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: f.root + "/preview.png")), png)
        XCTAssertEqual(try String(contentsOfFile: f.root + "/preview.html", encoding: .utf8), html)
        // By default a preview of the run's output goes beside the maps the run published
        // (`test.preview.png`, …): written through their links, it had changed the published
        // set's files under its record. Named outright, they are refused.
        let setBefore = try Data(contentsOf: URL(fileURLWithPath: out + "/.test.geojson.published/current/SET.json"))
        let beside = try f.tool(["preview", f.outputPath, "--pois", pois, "--title", "test"])
        XCTAssertEqual(beside.status, 0, beside.output)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: out + "/test.preview.png")), png)
        let named = try f.tool(["preview", f.outputPath, "--out", out + "/test"])
        XCTAssertEqual(named.status, 2, named.output)
        XCTAssertTrue(named.output.contains("is a map that 'regionsearch run' published"), named.output)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: out + "/test.png")), png)
        XCTAssertEqual(
            try Data(contentsOf: URL(fileURLWithPath: out + "/.test.geojson.published/current/SET.json")), setBefore)
        let after = try f.tool(["status", f.manifestPath, "--check"])
        XCTAssertEqual(after.status, 0, "the published set is as it was: \(after.output)")
    }

    func testManifestTurnsMapsOffOrChoosesFormats() throws {
        let f = try PipelineFixture(sections: [("maps", .bool(false))])
        defer { f.remove() }
        let off = try f.run()
        XCTAssertEqual(off.status, 0, off.output)
        XCTAssertEqual(visible(f.root + "/out"), ["test.geojson", "test.qml"], "the QGIS style, no maps")

        try f.writeManifest(sections: [("maps", .object([("svg", .bool(false)), ("pdf", .bool(true))]))])
        let chosen = try f.run()
        XCTAssertEqual(chosen.status, 0, chosen.output)
        XCTAssertEqual(visible(f.root + "/out"), ["test.geojson", "test.html", "test.pdf", "test.png", "test.qml"])
        let pdf = try Data(contentsOf: URL(fileURLWithPath: f.root + "/out/test.pdf"))
        XCTAssertTrue(String(decoding: pdf.prefix(8), as: UTF8.self).hasPrefix("%PDF-1.5"))

        try f.writeManifest(sections: [("maps", .object([("widht", .number(800))]))])
        let typo = try f.run()
        XCTAssertEqual(typo.status, 2, typo.output)
        XCTAssertTrue(typo.output.contains("maps.widht: unknown key (did you mean 'width'?)"), typo.output)
    }

    /// Issue 21: a hostile basemap is refused by the manifest (exit 2, the page never written) and
    /// by `preview --basemap` (exit 2); `preview --out` into a missing folder says so (exit 6)
    /// instead of advising free disk space.
    func testHostileBasemapsAreRefusedAndAMissingFolderIsNamed() throws {
        let f = try PipelineFixture(sections: [("maps", .object([("png", .bool(false)), ("svg", .bool(false))]))])
        defer { f.remove() }
        try f.runOK()
        let injected = "https://a\"><img src=x onerror=document.title=1337><meta x=\"/{z}/{x}/{y}.png"
        try f.writeManifest(sections: [("maps", .object([("basemap", .string(injected))]))])
        let r = try f.run()
        XCTAssertEqual(r.status, 2, r.output)
        XCTAssertTrue(r.output.contains("maps.basemap"), r.output)
        XCTAssertFalse(
            try String(contentsOfFile: f.root + "/out/test.html", encoding: .utf8).contains("document.title=1337"))
        let preview = try f.tool(["preview", f.outputPath, "--basemap", injected, "--out", f.root + "/p"])
        XCTAssertEqual(preview.status, 2, preview.output)
        XCTAssertTrue(preview.output.contains("--basemap"), preview.output)
        let missing = try f.tool(["preview", f.outputPath, "--formats", "svg", "--out", f.root + "/no/such/dir/p"])
        XCTAssertEqual(missing.status, 6, missing.output)
        XCTAssertTrue(missing.output.contains("does not exist"), missing.output)
        XCTAssertFalse(missing.output.contains("disk space"), missing.output)
    }
}
