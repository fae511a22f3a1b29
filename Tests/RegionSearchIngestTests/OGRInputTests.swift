import Foundation
import XCTest

@testable import RegionSearchCore
@testable import RegionSearchIngest
@testable import RegionSearchModel
@testable import RegionSearchTestSupport

/// Input through GDAL/OGR (`format: "ogr"` and detected formats), against the GeoJSON reader and
/// against the coordinates the fixtures were made from.
final class OGRInputTests: XCTestCase {
    let scratch = IngestScratch()

    /// Four points: Unicode names, an integer, a real and a null; made into every format by ogr2ogr.
    static let points: String = {
        let rows: [(String, String, String, String, String, String)] = [
            ("a", "Café Ärrä", "cafe", "12", "4.5", "24.9384,60.1699"),
            ("b", "美食广场", "food", "7", "2.0", "121.4737,31.2304"),
            ("c", "Кафе Пушкин", "cafe", "3", "3.25", "37.6048,55.7636"),
            ("d", "Kiosk", "shop", "0", "null", "25.4651,65.0121"),
        ]
        let features = rows.map { id, name, kind, visits, score, xy in
            #"{"type":"Feature","properties":{"id":"\#(id)","name":"\#(name)","kind":"\#(kind)","visits":\#(visits),"#
                + #""score":\#(score)},"geometry":{"type":"Point","coordinates":[\#(xy)]}}"#
        }
        return #"{"type":"FeatureCollection","features":["# + features.joined(separator: ",\n") + "]}"
    }()
    static let expected: [String: (Double, Double)] = [
        "Café Ärrä": (24.9384, 60.1699), "美食广场": (121.4737, 31.2304), "Кафе Пушкин": (37.6048, 55.7636),
        "Kiosk": (25.4651, 65.0121),
    ]

    /// The records of one input spec, read through ``OpenedInput``.
    private func records(_ json: String) throws -> (OpenedInput, [ReadResult]) {
        let input = try OpenedInput.open(spec(json))
        return (input, try readAll(input.source))
    }

    /// Ingests with the command line of the stage; POIs by id: name, keyword text (readable,
    /// `key=value` lines: key codes follow the order keys are first met, which differs between
    /// formats that return features in another order), lon, lat.
    private func ingest(_ arguments: [String], name: String) throws -> [String: (String, String, Double, Double)] {
        let out = scratch.path(name + ".rsa")
        try runIngest(arguments + ["--output", out, "--rejects", scratch.path(name + ".rejects")])
        let table = try POITable(artifact: try ArtifactFile(path: out, expected: .pois))
        var byID: [String: (String, String, Double, Double)] = [:]
        for i in 0..<table.count {
            byID[table.ids[i]] = (
                table.names[i], KeywordText.readable(table.keywords[i], keys: table.keywordKeys), table.lon[i],
                table.lat[i]
            )
        }
        return byID
    }

    func testTheDefaultDataConvertedByOgr2ogrIngestsToTheSamePOIs() throws {
        func columns(_ keywordFields: [String]) -> [String] {
            ["--id-column", "@id", "--name-column", "name"] + keywordFields.flatMap { ["--keyword-column", $0] }
        }
        let reference = try ingest([GIS.defaultData] + columns(GIS.defaultKeywordColumns), name: "geojson")
        XCTAssertEqual(reference.count, 2108)
        let gpkg = scratch.path("default.gpkg")
        let fgb = scratch.path("default.fgb")
        try GIS.ogr2ogr(["-f", "GPKG", gpkg, GIS.defaultData, "-nln", "pois"])
        try GIS.ogr2ogr(["-f", "FlatGeobuf", fgb, GIS.defaultData])
        // A Shapefile holds one geometry type: one file each for the points, polygons and lines;
        // dBASE truncates public_transport to public_tra.
        var shapefiles: [String] = []
        for type in ["POINT", "MULTIPOLYGON", "LINESTRING"] {
            let shp = scratch.path("default-\(type.lowercased()).shp")
            try GIS.ogr2ogr([
                "-f", "ESRI Shapefile", shp, GIS.defaultData, "-where", "OGR_GEOMETRY='\(type)'", "-lco",
                "ENCODING=UTF-8",
            ])
            shapefiles.append(shp)
        }
        let shortColumns = GIS.defaultKeywordColumns.map { $0 == "public_transport" ? "public_tra" : $0 }
        for (name, arguments) in [
            ("gpkg", [gpkg] + columns(GIS.defaultKeywordColumns)),
            ("fgb", [fgb] + columns(GIS.defaultKeywordColumns)),
            ("shp", shapefiles + columns(shortColumns)),
        ] {
            let got = try ingest(arguments, name: name)
            XCTAssertEqual(got.count, reference.count, name)
            var differences = 0
            for (id, want) in reference {
                guard var have = got[id] else {
                    differences += 1
                    continue
                }
                // dBASE's 10-byte field names are the keys of a Shapefile's values.
                if name == "shp" { have.1 = have.1.replacingOccurrences(of: "public_tra=", with: "public_transport=") }
                if have.0 != want.0 || have.1 != want.1 || abs(have.2 - want.2) > 1e-9 || abs(have.3 - want.3) > 1e-9 {
                    differences += 1
                    if differences < 4 { XCTFail("\(name) \(id): \(have) != \(want)") }
                }
            }
            XCTAssertEqual(differences, 0, name)
        }
    }

    func testAProjectedSourceIsReprojectedToWGS84() throws {
        let gpkg = scratch.path("etrs.gpkg")
        try GIS.ogr2ogr(["-f", "GPKG", gpkg, GIS.defaultData, "-t_srs", "EPSG:3067", "-nln", "pois"])
        let (input, results) = try records(#"{"path": "\#(gpkg)", "columns": {"id": "@id"}}"#)
        XCTAssertEqual(input.format, .ogr)
        let reprojected = Dictionary(uniqueKeysWithValues: results.compactMap { $0.record }.map { ($0.id, $0) })
        let (_, direct) = try records(#"{"path": "\#(GIS.defaultData)", "columns": {"id": "@id"}}"#)
        var worst = 0.0
        for r in direct.compactMap({ $0.record }) {
            let p = try XCTUnwrap(reprojected[r.id], r.id)
            worst = max(worst, metres(r.lon, r.lat, p.lon, p.lat))
        }
        XCTAssertEqual(reprojected.count, 2108)
        XCTAssertLessThan(worst, 0.01, "ETRS-TM35FIN and back within a centimetre")
        let reader = try XCTUnwrap(input.source as? OGRReader)
        XCTAssertEqual(reader.crsDescription, "EPSG:3067")
    }

    func testEveryOGRFormatReadsThePointsWithTheirNames() throws {
        let source = scratch.write(Self.points, name: "points.geojson")
        let cases: [(String, [String], String)] = [
            ("points.gpkg", ["-f", "GPKG"], ""),
            ("points.shp", ["-f", "ESRI Shapefile", "-lco", "ENCODING=UTF-8"], ""),
            ("points.fgb", ["-f", "FlatGeobuf"], ""),
            ("points.kml", ["-f", "KML"], ""),
            ("points.gml", ["-f", "GML"], ""),
            (
                "points.gpx", ["-f", "GPX", "-dsco", "GPX_USE_EXTENSIONS=YES", "-nln", "waypoints"],
                #", "layer": "waypoints""#
            ),
            ("points.tab", ["-f", "MapInfo File"], ""),
            (
                "points.csv", ["-f", "CSV", "-lco", "GEOMETRY=AS_XY"],
                #", "format": "ogr", "open_options": ["X_POSSIBLE_NAMES=X", "Y_POSSIBLE_NAMES=Y", "#
                    + #""KEEP_GEOM_COLUMNS=NO"]"#
            ),
        ]
        for (name, options, extra) in cases {
            let path = scratch.path(name)
            try GIS.ogr2ogr(options + [path, source])
            let (input, results) = try records(#"{"path": "\#(path)"\#(extra)}"#)
            XCTAssertEqual(input.format, .ogr, name)
            let got = results.compactMap { $0.record }
            XCTAssertEqual(got.count, 4, "\(name): \(results)")
            for r in got {
                guard let want = Self.expected[r.name] else {
                    XCTFail("\(name): unexpected name \(r.name)")
                    continue
                }
                XCTAssertEqual(r.lon, want.0, accuracy: 1e-7, "\(name) \(r.name)")
                XCTAssertEqual(r.lat, want.1, accuracy: 1e-7, "\(name) \(r.name)")
            }
        }
        // The Shapefile's .cpg says UTF-8, and the names read back as written.
        XCTAssertEqual(try String(contentsOfFile: scratch.path("points.cpg"), encoding: .utf8), "UTF-8")
    }

    /// A Shapefile without its `.dbf` read as geometry alone (exit 0: no id, name or keyword on any
    /// POI); a FlatGeobuf cut short read as an empty layer ("no records"). Both are refused,
    /// saying what is wrong with the file.
    func testAShapefileWithoutItsTableAndACutFlatGeobufAreRefused() throws {
        let source = scratch.write(Self.points, name: "whole.geojson")
        let shp = scratch.path("nodbf.shp")
        try GIS.ogr2ogr(["-f", "ESRI Shapefile", shp, source])
        XCTAssertNoThrow(try OpenedInput.open(spec(#"{"path": "\#(shp)"}"#)))
        // Its table in upper case, as GDAL also finds it: read, and hashed with the input.
        XCTAssertEqual(rename(scratch.path("nodbf.dbf"), scratch.path("nodbf.DBF")), 0)
        XCTAssertTrue(OpenedInput.sourceFiles(shp).contains(scratch.path("nodbf.DBF")))
        XCTAssertNoThrow(try OpenedInput.open(spec(#"{"path": "\#(shp)"}"#)))
        // Both cases beside it (a file system that tells them apart): the lower-case one is
        // GDAL's, and hashed.
        #if os(Linux)
            try FileManager.default.copyItem(atPath: scratch.path("nodbf.DBF"), toPath: scratch.path("nodbf.dbf"))
            let both = OpenedInput.sourceFiles(shp)
            XCTAssertTrue(both.contains(scratch.path("nodbf.dbf")), "\(both)")
            XCTAssertFalse(both.contains(scratch.path("nodbf.DBF")), "\(both)")
            try FileManager.default.removeItem(atPath: scratch.path("nodbf.dbf"))
        #endif
        try FileManager.default.removeItem(atPath: scratch.path("nodbf.DBF"))
        XCTAssertThrowsError(try OpenedInput.open(spec(#"{"path": "\#(shp)"}"#))) { error in
            XCTAssertTrue("\(error)".contains("has no .dbf beside it"), "\(error)")
            XCTAssertEqual((error as? ExitCoded)?.exitStatus, .inputData)
        }

        var many: [String] = []
        for k in 0..<200 {
            many.append(
                #"{"type":"Feature","properties":{"id":"p\#(k)","name":"n\#(k)","kind":"cafe"},"#
                    + #""geometry":{"type":"Point","coordinates":[\#(24.9 + Double(k) * 1e-4),60.17]}}"#)
        }
        let big = scratch.write(
            #"{"type":"FeatureCollection","features":["# + many.joined(separator: ",") + "]}", name: "many.geojson")
        let fgb = scratch.path("many.fgb")
        try GIS.ogr2ogr(["-f", "FlatGeobuf", fgb, big])
        let (whole, read) = try records(#"{"path": "\#(fgb)"}"#)
        XCTAssertEqual(read.compactMap(\.record).count, 200, "\(whole.format)")
        // Cut in its spatial index (after the header), in the features, and one byte short.
        let bytes = try Data(contentsOf: URL(fileURLWithPath: fgb))
        var saidByCount = 0
        for size in [1_000, 3_000, bytes.count / 2, bytes.count - 1] {
            let cut = scratch.path("cut-\(size).fgb")
            try bytes.prefix(size).write(to: URL(fileURLWithPath: cut))
            XCTAssertThrowsError(try records(#"{"path": "\#(cut)"}"#), "cut at \(size) of \(bytes.count)") { error in
                if "\(error)".contains("its header declares 200 features, but only") { saidByCount += 1 }
            }
        }
        XCTAssertGreaterThan(saidByCount, 0, "a cut GDAL reads as a shorter layer")
    }

    /// A GeoPackage with a rollback journal beside it (a writer's transaction open, or cut off by
    /// a crash) is refused in words; GDAL said "attempt to write a readonly database". An empty
    /// journal is none.
    func testAGeoPackageWithARollbackJournalIsRefusedInWords() throws {
        let source = scratch.write(Self.points, name: "j.geojson")
        let gpkg = scratch.path("pois.db")
        try GIS.ogr2ogr(["-f", "GPKG", gpkg, source])
        try Data().write(to: URL(fileURLWithPath: gpkg + "-journal"))
        XCTAssertNoThrow(try OpenedInput.open(spec(#"{"path": "\#(gpkg)"}"#)))
        try Data(repeating: 0xD9, count: 512).write(to: URL(fileURLWithPath: gpkg + "-journal"))
        XCTAssertThrowsError(try OpenedInput.open(spec(#"{"path": "\#(gpkg)"}"#))) { error in
            XCTAssertTrue("\(error)".contains("has a rollback journal (pois.db-journal)"), "\(error)")
            XCTAssertEqual((error as? ExitCoded)?.exitStatus, .inputData)
        }
    }

    func testRejectsNameTheFeatureAndTheCountsAddUp() throws {
        var features: [String] = []
        for i in 0..<20 {
            features.append(
                #"{"type":"Feature","properties":{"id":"p\#(i)","kind":"cafe"},"#
                    + #""geometry":{"type":"Point","coordinates":[24.9\#(i),60.1]}}"#
            )
        }
        features.append(#"{"type":"Feature","properties":{"id":"nogeom","kind":"cafe"},"geometry":null}"#)
        features.append(
            #"{"type":"Feature","properties":{"id":"north","kind":"cafe"},"#
                + #""geometry":{"type":"Point","coordinates":[24.9,95.0]}}"#
        )
        let source = scratch.write(#"{"type":"FeatureCollection","features":[\#(features.joined(separator: ","))]}"#)
        let gpkg = scratch.path("rejects.gpkg")
        try GIS.ogr2ogr(["-f", "GPKG", gpkg, source, "-nln", "pois"])
        let out = scratch.path("rejects.rsa")
        let rejects = scratch.path("rejects.ndjson")
        try runIngest([gpkg, "--output", out, "--rejects", rejects])
        let meta = try ArtifactFile(path: out, expected: .pois).metadata
        let counts = try XCTUnwrap(meta["counts"])
        XCTAssertEqual(counts["read"]?.intValue, 22)
        XCTAssertEqual(counts["accepted"]?.intValue, 20)
        XCTAssertEqual(counts["rejected"]?.intValue, 2)
        let lines = scratch.text(rejects).split(separator: "\n").compactMap { try? JSONParser.parse(String($0)) }
        XCTAssertEqual(lines.count, 2)
        let noGeometry = try XCTUnwrap(lines.first { $0["raw"]?.stringValue?.contains("nogeom") ?? false })
        XCTAssertEqual(noGeometry["reason"]?.stringValue, "feature has no geometry: FID 21")
        XCTAssertEqual(noGeometry["line"]?.intValue, 21)
        let raw = try JSONParser.parse(try XCTUnwrap(noGeometry["raw"]?.stringValue))
        XCTAssertEqual(raw["fid"]?.intValue, 21)
        XCTAssertEqual(raw["properties"]?["id"]?.stringValue, "nogeom")
        let north = try XCTUnwrap(lines.first { $0["raw"]?.stringValue?.contains("north") ?? false })
        XCTAssertTrue(north["reason"]?.stringValue?.contains("latitude") ?? false, "\(north)")
        XCTAssertEqual(try JSONParser.parse(north["raw"]!.stringValue!)["fid"]?.intValue, 22)
    }

    func testLayerSQLWhereAndTheirErrors() throws {
        let source = scratch.write(Self.points, name: "two.geojson")
        let gpkg = scratch.path("two.gpkg")
        try GIS.ogr2ogr(["-f", "GPKG", gpkg, source, "-nln", "first"])
        try GIS.ogr2ogr(["-f", "GPKG", "-update", gpkg, source, "-nln", "second", "-where", "kind = 'cafe'"])
        let (input, all) = try records(#"{"path": "\#(gpkg)"}"#)
        XCTAssertEqual(all.count, 4)
        XCTAssertTrue((input.source as? OGRReader)?.notes.first?.contains("first layer 'first' of 2") ?? false)
        XCTAssertEqual(try records(#"{"path": "\#(gpkg)", "layer": "second"}"#).1.count, 2)
        XCTAssertEqual(try records(#"{"path": "\#(gpkg)", "where": "visits > 5"}"#).1.count, 2)
        let (_, sql) = try records(#"{"path": "\#(gpkg)", "sql": "SELECT * FROM first WHERE kind = 'shop'"}"#)
        XCTAssertEqual(sql.compactMap { $0.record?.name }, ["Kiosk"])
        XCTAssertThrowsError(try records(#"{"path": "\#(gpkg)", "layer": "third"}"#)) { error in
            XCTAssertTrue("\(error)".contains("layers: 'first', 'second'"), "\(error)")
        }
        XCTAssertThrowsError(try records(#"{"path": "\#(gpkg)", "columns": {"name": "nmae"}}"#)) { error in
            XCTAssertTrue("\(error)".contains("did you mean 'name'?"), "\(error)")
        }
        XCTAssertThrowsError(try records(#"{"path": "\#(gpkg)", "where": "nosuchfield = 1"}"#)) { error in
            XCTAssertTrue("\(error)".contains("GDAL"), "\(error)")
        }
        XCTAssertThrowsError(
            try InputSpec(
                json: JSONParser.parse(#"{"path": "\#(gpkg)", "format": "csv", "layer": "first"}"#), context: "i")
        ) { error in
            XCTAssertEqual("\(error)", #"i.layer: only for OGR input (format "ogr"), but the format is csv"#)
        }
    }

    func testALayerWithoutACRSIsReadInSourceCRS() throws {
        // The fixture in ETRS-TM35FIN metres, as a CSV (which has no place for a CRS) read through OGR.
        let source = scratch.write(Self.points, name: "crs.geojson")
        let csv = scratch.path("metres.csv")
        try GIS.ogr2ogr([
            "-f", "CSV", csv, source, "-t_srs", "EPSG:3067", "-lco", "GEOMETRY=AS_XY", "-where", "id = 'a'",
        ])
        let options = #""format": "ogr", "open_options": ["X_POSSIBLE_NAMES=X", "Y_POSSIBLE_NAMES=Y"]"#
        let (_, given) = try records(#"{"path": "\#(csv)", \#(options), "source_crs": "EPSG:3067"}"#)
        let r = try XCTUnwrap(given.first?.record)
        XCTAssertEqual(r.lon, 24.9384, accuracy: 1e-7)
        XCTAssertEqual(r.lat, 60.1699, accuracy: 1e-7)
        let (input, assumed) = try records(#"{"path": "\#(csv)", \#(options)}"#)
        XCTAssertGreaterThan(
            assumed.first?.record?.lon ?? 0, 1000, "metres taken as lon/lat: the validator rejects them")
        XCTAssertTrue((input.source as? OGRReader)?.notes.contains { $0.contains("declares no CRS") } ?? false)
    }
}
