import XCTest

@testable import RegionSearchOutput
@testable import RegionSearchRunner
@testable import RegionSearchTestSupport

/// `output` and `poi_output`: the format by extension or given, layers, PostGIS mode, and what
/// is refused before anything runs.
final class OutputTargetTests: XCTestCase, ManifestParsing {
    private func manifest(_ output: String, poi: String? = nil) -> String {
        #"{"inputs": [{"path": "../data/a.csv"}], "work_dir": "../work", "keywords": ["cafe"], "output": \#(output)"#
            + (poi.map { #", "poi_output": \#($0)"# } ?? "") + "}"
    }

    func testTheFormatComesFromTheExtensionOrIsGiven() throws {
        let cases: [(String, OutputFormat)] = [
            ("x.geojson", .geojson), ("x.json", .geojson), ("x.geojsonl", .geojsonseq), ("x.geojsons", .geojsonseq),
            ("x.gpkg", .gpkg), ("x.GPKG", .gpkg), ("x.fgb", .flatgeobuf), ("x.shp", .shapefile),
            ("x.shp.zip", .shapefile), ("x.kml", .kml), ("result", .geojson),
        ]
        for (path, format) in cases {
            let m = try parse(manifest(#""../out/\#(path)""#))
            XCTAssertEqual(m.outputTarget.format, format, path)
            XCTAssertEqual(m.outputTarget.path, "/base/out/" + path)
            XCTAssertEqual(m.output, "/base/out/" + path)
        }
        let given = try parse(manifest(#"{"path": "-", "format": "geojsonseq"}"#))
        XCTAssertEqual(given.outputTarget.path, "-")
        XCTAssertEqual(given.outputTarget.format, .geojsonseq)
        XCTAssertEqual(given.outputTarget.files, [])
        let shp = try parse(manifest(#""../out/r.shp""#)).outputTarget
        XCTAssertEqual(
            shp.files,
            [
                "/base/out/r.shp", "/base/out/r.shx", "/base/out/r.dbf", "/base/out/r.prj", "/base/out/r.cpg",
                "/base/out/r.qix", "/base/out/r.sbn", "/base/out/r.sbx", "/base/out/r.shp.xml", "/base/out/r.qml",
            ])
    }

    func testPostGISAndTheSecondLayer() throws {
        let m = try parse(
            manifest(
                #"{"path": "PG:dbname=gis password=secret", "layer": "nightly_regions", "mode": "append"}"#,
                poi: #"{"path": "PG:dbname=gis password=secret", "select": "in_regions"}"#))
        XCTAssertEqual(m.outputTarget.format, .postgis)
        XCTAssertEqual(m.outputTarget.path, "PG:dbname=gis password=secret", "a connection string is not a path")
        XCTAssertEqual(m.outputTarget.mode, .append)
        XCTAssertEqual(m.outputTarget.layer, "nightly_regions")
        XCTAssertEqual(m.outputTarget.display, "PG:dbname=gis password=*** table nightly_regions")
        XCTAssertEqual(m.poiOutput?.layer, "pois")
        XCTAssertEqual(m.poiOutput?.selection, .inRegions)
        XCTAssertEqual(Publisher.destinations(m.outputTargets).count, 1, "one transaction for both tables")
        let gpkg = try parse(manifest(#""../out/r.gpkg""#, poi: #""../out/r.gpkg""#))
        XCTAssertEqual(Publisher.destinations(gpkg.outputTargets).map(\.count), [2], "one file for both layers")
        let apart = try parse(manifest(#""../out/r.geojson""#, poi: #""../out/pois.fgb""#))
        XCTAssertEqual(Publisher.destinations(apart.outputTargets).map(\.count), [1, 1])
    }

    /// One database spelt with and without its default port is one destination (one
    /// transaction); another port, database or host is another.
    func testOneDatabaseWithOrWithoutItsDefaultPortIsOneDestination() {
        let key = { (s: String, env: [String: String]) in OutputTarget.connectionKey(s, environment: env) }
        let plain = "PG:host=/s dbname=d user=u"
        XCTAssertEqual(key(plain, [:]), key("PG:dbname=d host=/s port=5432 user=u", [:]))
        XCTAssertEqual(key(plain, ["PGPORT": "6543"]), key("PG:host=/s port=6543 dbname=d user=u", ["PGPORT": "6543"]))
        XCTAssertNotEqual(
            key(plain, ["PGPORT": "6543"]), key("PG:host=/s port=5432 dbname=d user=u", ["PGPORT": "6543"]))
        XCTAssertNotEqual(key(plain, [:]), key("PG:host=/s port=5433 dbname=d user=u", [:]))
        XCTAssertNotEqual(key(plain, [:]), key("PG:host=/s dbname=e user=u", [:]))
    }

    func testMistakesAreRefusedBeforeAnythingRuns() {
        let cases: [(String, String?, String)] = [
            (
                #""../out/r.txt""#, nil,
                #"output: cannot tell the format of '../out/r.txt' from its extension; give "format""#
            ),
            (#"{"path": "../out/r.geojson", "format": "gpkg"}"#, nil, #"output.format: "gpkg" does not fit the path"#),
            (#"{"path": "../out/r.geojson", "format": "gkpg"}"#, nil, #"(did you mean "gpkg"?)"#),
            (#"{"path": "../out/r.gpkg", "mode": "append"}"#, nil, "output.mode: append is for PostGIS tables"),
            (#"{"path": "PG:dbname=x", "layer": "Bad-Name"}"#, nil, "output.layer: table name 'Bad-Name' must match"),
            (#"{"path": "../out/r.gpkg", "select": "all"}"#, nil, "output.select: unknown key"),
            (#"{"path": "-", "format": "shapefile"}"#, nil, "cannot go to standard output"),
            (
                #""../out/r.geojson""#, #""../out/r.geojson""#,
                "poi_output: the same file as output, but geojson holds one layer"
            ),
            (
                #""../out/r.gpkg""#, #"{"path": "../out/r.gpkg", "layer": "regions"}"#,
                "poi_output.layer: 'regions' is the regions' layer too"
            ),
            (
                #""../out/r.gpkg""#, #"{"path": "../out/p.gpkg", "select": "some"}"#,
                #"poi_output.select: expected "all" or "in_regions""#
            ),
            (#""../data/a.csv""#, nil, "would overwrite input inputs[0]"),
            (#""../out/r.geojson""#, #""../data/a.csv""#, "would overwrite input inputs[0]"),
        ]
        for (output, poi, expected) in cases {
            let text = message(manifest(output, poi: poi))
            XCTAssertTrue(text.contains(expected), "\(output) \(poi ?? ""): \(text)")
        }
        // The style sidecar beside an output is protected too: an input named like it.
        let qml =
            #"{"inputs": [{"path": "../out/r.qml"}], "work_dir": "../work", "keywords": ["cafe"], "#
            + #""output": "../out/r.geojson"}"#
        XCTAssertTrue(message(qml).contains("would overwrite input inputs[0]"))
    }
}

/// The example manifests of README's Formats section are valid manifests.
final class ReadmeFormatExamplesTests: XCTestCase, ManifestParsing {
    func testTheFormatsSectionsExamplesParse() throws {
        let readme = try String(contentsOfFile: GIS.repository + "/README.md", encoding: .utf8)
        let section = try XCTUnwrap(
            readme.components(separatedBy: "\n## Formats\n").last?
                .components(separatedBy: "\n## ").first)
        let blocks = section.components(separatedBy: "```json\n").dropFirst().map {
            $0.components(separatedBy: "```")[0]
        }
        XCTAssertEqual(blocks.count, 3, "one example each: input, PostGIS output, GeoPackage output")
        for block in blocks {
            do {
                _ = try parse(block)
            } catch {
                XCTFail("\(error)\n\(block)")
            }
        }
    }
}
