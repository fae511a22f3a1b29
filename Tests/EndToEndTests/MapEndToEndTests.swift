import Foundation
import XCTest

@testable import RegionSearchCore
@testable import RegionSearchMaps
@testable import RegionSearchPipeline

/// `regionsearch run` writes the maps beside the output, deterministically and only when they
/// change; the manifest turns them off or picks formats; `regionsearch preview` draws the same.
final class MapEndToEndTests: XCTestCase {
    private func modified(_ path: String) throws -> Date {
        try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date)
    }

    func testRunWritesMapsBesideTheOutputOnlyWhenTheyChange() throws {
        let f = try PipelineFixture()
        defer { f.remove() }
        let first = try f.run()
        XCTAssertEqual(first.status, 0, first.output)
        let out = f.root + "/out"
        XCTAssertEqual(
            FileSystem.list(out),
            ["test.changes.json", "test.geojson", "test.html", "test.lineage.json", "test.png", "test.qml", "test.svg"])
        XCTAssertTrue(first.output.contains("wrote maps test.png, test.svg, test.html in \(out)"), first.output)
        let png = try Data(contentsOf: URL(fileURLWithPath: out + "/test.png"))
        let image = try CairoSurface(png: Array(png))
        XCTAssertEqual(image.width, 1600)
        let html = try String(contentsOfFile: out + "/test.html", encoding: .utf8)
        XCTAssertTrue(html.contains("<title>RegionSearch — test</title>"))
        XCTAssertEqual(FileSystem.list(f.work.maps).count, 1, "one map record")

        // Up to date: nothing rendered, nothing touched.
        let times = try ["png", "svg", "html"].map { try modified(out + "/test." + $0) }
        usleep(20_000)
        let second = try f.run()
        XCTAssertEqual(second.status, 0, second.output)
        XCTAssertTrue(second.output.contains("maps test.png, test.svg, test.html are up to date"), second.output)
        // Without the record the maps are rendered again, to the same bytes, so not rewritten.
        try FileSystem.removeTree(f.work.maps)
        let third = try f.run()
        XCTAssertTrue(third.output.contains("maps test.png, test.svg, test.html rendered, unchanged"), third.output)
        XCTAssertEqual(try ["png", "svg", "html"].map { try modified(out + "/test." + $0) }, times)
        // A damaged map is noticed (its digest no longer matches) and rewritten.
        try Data("x".utf8).write(to: URL(fileURLWithPath: out + "/test.svg"))
        let fourth = try f.run()
        XCTAssertTrue(fourth.output.contains("wrote maps test.svg"), fourth.output)

        // preview draws the same map from the same files.
        let pois = try f.objectPath("ingest", "pois.rsa")
        let preview = try f.tool([
            "preview", f.outputPath, "--pois", pois, "--title", "test", "--out", f.root + "/preview",
        ])
        XCTAssertEqual(preview.status, 0, preview.output)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: f.root + "/preview.png")), png)
        XCTAssertEqual(try String(contentsOfFile: f.root + "/preview.html", encoding: .utf8), html)
    }

    func testManifestTurnsMapsOffOrChoosesFormats() throws {
        let f = try PipelineFixture(sections: [("maps", .bool(false))])
        defer { f.remove() }
        let off = try f.run()
        XCTAssertEqual(off.status, 0, off.output)
        XCTAssertEqual(
            FileSystem.list(f.root + "/out"), ["test.changes.json", "test.geojson", "test.lineage.json", "test.qml"],
            "the QGIS style, the change report and the lineage, no maps")

        try f.writeManifest(sections: [("maps", .object([("svg", .bool(false)), ("pdf", .bool(true))]))])
        let chosen = try f.run()
        XCTAssertEqual(chosen.status, 0, chosen.output)
        XCTAssertEqual(
            FileSystem.list(f.root + "/out"),
            ["test.changes.json", "test.geojson", "test.html", "test.lineage.json", "test.pdf", "test.png", "test.qml"])
        let pdf = try Data(contentsOf: URL(fileURLWithPath: f.root + "/out/test.pdf"))
        XCTAssertTrue(String(decoding: pdf.prefix(8), as: UTF8.self).hasPrefix("%PDF-1.5"))

        try f.writeManifest(sections: [("maps", .object([("widht", .number(800))]))])
        let typo = try f.run()
        XCTAssertEqual(typo.status, 2, typo.output)
        XCTAssertTrue(typo.output.contains("maps.widht: unknown key (did you mean 'width'?)"), typo.output)
    }
}
