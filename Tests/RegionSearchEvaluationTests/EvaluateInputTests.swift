import Foundation
import XCTest

@testable import RegionSearchCLI
@testable import RegionSearchCore
@testable import RegionSearchEvaluation
@testable import RegionSearchModel
@testable import RegionSearchOutput
@testable import RegionSearchProjection
@testable import RegionSearchTestSupport

/// Reading region GeoJSON, members and POI files; command-line errors and exit codes.
final class EvaluateInputTests: XCTestCase {
    typealias F = EvaluateFixtures

    func testBadJSONNamesLineAndColumn() {
        XCTAssertThrowsError(
            try RegionFeatureFile(path: "x.geojson", text: "{\"type\": \"FeatureCollection\",\n \"features\": [,]}")
        ) { e in
            guard case .badJSON(let path, let error) = e as? EvaluateError else { return XCTFail("\(e)") }
            XCTAssertEqual(path, "x.geojson")
            XCTAssertEqual(error.line, 2)
            XCTAssertEqual(error.column, 15)
            XCTAssertEqual((e as? EvaluateError)?.exitStatus, .inputData)
        }
    }

    /// A GeoPackage given where GeoJSON is read was "not valid JSON: unexpected character 'S'":
    /// it is said to be a GeoPackage, with the conversion.
    func testABinaryGISFileIsNamedForWhatItIs() throws {
        let path = TestSupport.temporaryDirectory() + "/regions.gpkg"
        var bytes = Array("SQLite format 3\u{0}".utf8) + [UInt8](repeating: 0, count: 100)
        bytes.replaceSubrange(68..<72, with: Array("GPKG".utf8))
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        XCTAssertThrowsError(try RegionFeatureFile.read(path: path)) { e in
            XCTAssertTrue("\(e)".contains("the file is a GeoPackage"), "\(e)")
            XCTAssertTrue("\(e)".contains("ogr2ogr -f GeoJSON"), "\(e)")
            XCTAssertEqual((e as? EvaluateError)?.exitStatus, .inputData)
        }
    }

    /// An empty POI file (preview --pois, evaluate) gave maps and densities of nothing with exit
    /// 0; as ingest, it is refused with exit 3, and so is one whose every record is rejected.
    func testAPOIFileWithNoPOIsIsRefused() throws {
        let dir = TestSupport.temporaryDirectory()
        try Data().write(to: URL(fileURLWithPath: dir + "/empty.csv"))
        try "id,name,category,lon,lat\n1,a,cafe,x,y\n".write(
            toFile: dir + "/bad.csv", atomically: true, encoding: .utf8)
        for (file, said) in [("empty.csv", "holds no POIs (no records)"), ("bad.csv", "all 1 records were rejected")] {
            XCTAssertThrowsError(try EvaluationPOIs.load(path: dir + "/" + file)) { e in
                XCTAssertTrue("\(e)".contains(said), "\(e)")
                XCTAssertEqual((e as? EvaluateError)?.exitStatus, .inputData)
            }
        }
    }

    func testUnsupportedGeometryNamesTheFeature() {
        let text = """
            {"type":"FeatureCollection","features":[
            {"type":"Feature","geometry":{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,0]]]},"properties":{}},
            {"type":"Feature","geometry":{"type":"Point","coordinates":[0,0]},"properties":{}}]}
            """
        XCTAssertThrowsError(try RegionFeatureFile(path: "r.geojson", text: text)) { e in
            XCTAssertEqual(
                "\(e)",
                "r.geojson: not usable GeoJSON: feature 1: geometry type \"Point\" is not supported (regions must be "
                    + "Polygon or MultiPolygon)"
            )
        }
        let badPosition = """
            {"type":"Feature","geometry":{"type":"Polygon","coordinates":[[[0,0],[1],[1,1],[0,0]]]},"properties":null}
            """
        XCTAssertThrowsError(try RegionFeatureFile(path: "r.geojson", text: badPosition)) { e in
            XCTAssertTrue("\(e)".contains("feature 0, ring 0, position 1"), "\(e)")
        }
    }

    func testMultiPolygonsHolesIdsKeywordsAndNullGeometries() throws {
        let text = """
            {"type":"FeatureCollection","features":[
            {"type":"Feature","id":"f-a","geometry":{"type":"MultiPolygon","coordinates":[
              [[[0,0],[0.01,0],[0.01,0.01],[0,0.01],[0,0]],[[0.004,0.004],[0.006,0.004],[0.006,0.006],[0.004,0.006]]],
              [[[0.02,0],[0.03,0],[0.03,0.01],[0.02,0]]]]},"properties":{"keyword":"bank"}},
            {"type":"Feature","geometry":null,"properties":{"keyword":"bank"}},
            {"type":"Feature","geometry":{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,0]]]},"properties":{"region_id":7,"keyword":"*"}}]}
            """
        let file = try RegionFeatureFile(path: "r", text: text)
        XCTAssertEqual(file.features.count, 2)
        XCTAssertEqual(file.nullGeometries, 1)
        XCTAssertEqual(file.features[0].id, .string("f-a"))
        XCTAssertEqual(file.features[0].keyword, "bank")
        XCTAssertEqual(file.features[0].polygons.count, 2)
        XCTAssertEqual(file.features[0].polygons[0].count, 2)
        XCTAssertEqual(file.features[0].polygons[0][1].lon.count, 5)  // unclosed hole closed
        XCTAssertEqual(file.features[1].id, .number(7))
        XCTAssertNil(file.features[1].keyword)
        XCTAssertEqual(file.features[1].index, 2)
        // The hole is subtracted: area of the first feature in m² vs. the geodesic areas.
        let geos = GEOSContext()
        let proj = PROJContext()
        let layer = try EvaluationLayer(
            file: file, transform: proj.transformation(from: "EPSG:4326", to: "EPSG:32631"), context: geos)
        let p = file.features[0].polygons
        let geodesic =
            Geodesic.area(lon: p[0][0].lon, lat: p[0][0].lat) - Geodesic.area(lon: p[0][1].lon, lat: p[0][1].lat)
            + Geodesic.area(lon: p[1][0].lon, lat: p[1][0].lat)
        XCTAssertEqual(layer.items[0].area, geodesic, accuracy: geodesic * 0.005)
        XCTAssertEqual(layer.nullGeometries, 1)
    }

    /// A truth file whose features all had empty geometries (`"coordinates": []`, which the
    /// generator wrote for clusters of radius below a centimetre) trapped in the automatic CRS
    /// choice: there was a feature but no coordinate to take an extent of. The CRS is taken from
    /// the file that has coordinates, and the empty features match nothing.
    func testFeaturesWithEmptyGeometriesDoNotStopTheCRSChoice() throws {
        let empty = try RegionFeatureFile(
            path: "t",
            text: """
                {"type":"FeatureCollection","features":[
                {"type":"Feature","geometry":{"type":"MultiPolygon","coordinates":[]},"properties":{"cluster_id":0,"keyword":"bank"}}]}
                """)
        let square = try RegionFeatureFile(
            path: "r",
            text: """
                {"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Polygon",
                "coordinates":[[[13,52],[13.01,52],[13.01,52.01],[13,52.01],[13,52]]]},"properties":{"keyword":"bank"}}]}
                """)
        let score = try Evaluator().scoreTruth(regions: square, truth: empty)
        XCTAssertEqual(score.crs?.definition, "EPSG:32633")
        XCTAssertEqual(score.truths.count, 1)
        XCTAssertEqual(score.overall.meanBestIoU, 0)
        XCTAssertEqual(score.inputs.first { $0.role == "truth" }?.degenerate, 1)
        // Nothing anywhere to measure: no CRS, and the features are counted as skipped, not lost.
        let both = try Evaluator().scoreTruth(regions: empty, truth: empty)
        XCTAssertNil(both.crs)
        XCTAssertEqual(both.inputs.map(\.skipped), [1, 1])
        let compared = try Evaluator().compare(empty, empty)
        XCTAssertEqual(compared.inputs.map(\.skipped), [1, 1])
    }

    /// A file of null geometries only was reported as 0 features, 0 skipped: the skipped count
    /// was lost when no CRS could be chosen.
    func testNullGeometriesAreCountedWhenNothingIsMeasured() throws {
        let nulls = try RegionFeatureFile(
            path: "n",
            text: """
                {"type":"FeatureCollection","features":[{"type":"Feature","geometry":null,"properties":{}},
                {"type":"Feature","geometry":null,"properties":{}}]}
                """)
        let score = try Evaluator().scoreTruth(regions: nulls, truth: nulls)
        XCTAssertEqual(score.inputs.map(\.skipped), [2, 2])
        XCTAssertEqual(score.inputs[0].notes, ["2 feature(s) without geometry skipped"])
    }

    func testMembersCSV() throws {
        let text = "\u{FEFF}id,cluster_id\r\n1,0\r\n\"x,1\",2\r\n\"say \"\"hi\"\"\",3\n\n"
        let m = try PlantedMembers(path: "m.csv", bytes: Array(text.utf8))
        XCTAssertEqual(m.ids, ["1", "x,1", "say \"hi\""])
        XCTAssertEqual(m.clusterIDs, ["0", "2", "3"])
        XCTAssertThrowsError(try PlantedMembers(path: "m.csv", bytes: Array("id,cluster_id\n1,0\n2\n".utf8))) { e in
            XCTAssertEqual("\(e)", "m.csv: line 3: 1 fields, expected 2 as in the header")
        }
        XCTAssertThrowsError(try PlantedMembers(path: "m.csv", bytes: Array("poi,cluster\n1,0\n".utf8))) { e in
            XCTAssertTrue("\(e)".contains("no 'id' column"), "\(e)")
        }
    }

    func testPOIsFromAnArtifact() throws {
        var table = POITable()
        table.append(id: "7", name: "Bank 1", keywordText: "bank", lon: 15, lat: 52, source: 0, line: 2)
        table.append(id: "8", name: "咖啡 2", keywordText: "咖啡", lon: 15.001, lat: 52, source: 0, line: 3)
        let path = TestSupport.temporaryDirectory() + "/pois.rsa"
        try table.writer(metadata: .object([])).write(to: path)
        let pois = try EvaluationPOIs.load(path: path)
        XCTAssertEqual(pois.count, 2)
        XCTAssertEqual(pois.ids[1], "8")
        XCTAssertEqual(pois.keywordText[1], "咖啡")
        XCTAssertEqual(pois.lon, [15, 15.001])
    }

    func testPOIsFromTheGeneratorsCSVGoThroughIngest() throws {
        let dir = TestSupport.temporaryDirectory()
        let csv = """
            id,name,category,lon,lat
            1,"Wang's ""Best"" Dumplings, Sanlitun",restaurant,116.4000000,39.9000000
            2,Bank Street Inn,hotel,116.4010000,39.9010000
            3,Bank of Beijing 12,Bank,116.4020000,39.9020000
            4,瑞幸咖啡 7,咖啡,116.4030000,39.9030000
            5,Broken,bank,116.4040000,139.9
            3,Bank of Beijing 12 again,bank,116.4050000,39.9050000

            """
        try csv.write(toFile: dir + "/p.csv", atomically: true, encoding: .utf8)
        let pois = try EvaluationPOIs.load(path: dir + "/p.csv")
        // Every valid record is its own POI (the duplicate id 3 too); the bad latitude is counted.
        XCTAssertEqual(pois.count, 5)
        XCTAssertEqual(pois.skipped, 1)
        XCTAssertTrue(pois.skipNotes[0].contains("latitude out of range"), "\(pois.skipNotes)")
        XCTAssertEqual((0..<pois.count).map { pois.ids[$0] }, ["1", "2", "3", "4", "3"])
        // The keyword text is the normalised category, not the name.
        XCTAssertEqual(pois.keywordKeys, ["category"])
        XCTAssertEqual(
            (0..<pois.count).map { KeywordText.readable(pois.keywordText[$0], keys: pois.keywordKeys) },
            ["category=restaurant", "category=hotel", "category=bank", "category=咖啡", "category=bank"])
        let bank = KeywordMatcher("bank")
        XCTAssertEqual((0..<pois.count).filter { pois.keywordText.withUTF8($0) { bank.matches($0) } }, [2, 4])
        XCTAssertEqual(pois.lon[3], 116.403)
    }

    // MARK: - Command line

    private func run(_ args: [String]) -> ExitStatus {
        do {
            let parsed = try EvaluateCommand.spec.parse(args)
            return ToolMain.execute { try EvaluateCommand.run(parsed) }
        } catch {
            return .usage
        }
    }

    private func write(_ text: String, _ name: String, in dir: String) -> String {
        let path = dir + "/" + name
        try! text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func testExitCodesAndDeterministicJSON() throws {
        let dir = TestSupport.temporaryDirectory()
        let truth = write(F.geoJSON([F.feature(0, "bank", F.square(0, 0))]), "t.geojson", in: dir)
        let regions = write(F.geoJSON([F.feature(0, "bank", F.square(500, 0))]), "r.geojson", in: dir)
        let broken = write("{\"type\":\"FeatureCollection\",\"features\":[}", "bad.geojson", in: dir)
        XCTAssertEqual(run(["truth", regions]), .usage)
        XCTAssertEqual(run(["score", regions, truth]), .usage)
        XCTAssertEqual(run(["truth", regions, truth, "--thresholds", "0.3,1.5"]), .usage)
        XCTAssertEqual(run(["truth", regions, truth, "--members", regions]), .usage, "members need POIs")
        XCTAssertEqual(run(["truth", regions, truth, "--pois", regions, "--manifest", regions]), .usage)
        XCTAssertEqual(run(["truth", regions, truth, "--spacing-k", "2.5"]), .usage)
        XCTAssertEqual(run(["truth", regions, truth, "--empty-limit", "2"]), .usage)
        XCTAssertEqual(run(["compare", regions, truth, "--must-not", regions]), .usage)
        XCTAssertEqual(run(["truth", broken, truth, "--quiet"]), .inputData)
        XCTAssertEqual(run(["truth", dir + "/missing.geojson", truth]), .inputData)
        XCTAssertEqual(run(["truth", regions, truth, "--crs", "EPSG:4326"]), .usage)
        let out1 = dir + "/a.json"
        let out2 = dir + "/b.json"
        XCTAssertEqual(run(["truth", regions, truth, "--json", out1, "--quiet"]), .success)
        XCTAssertEqual(run(["truth", regions, truth, "--json", out2, "--quiet"]), .success)
        let a = try Data(contentsOf: URL(fileURLWithPath: out1))
        let b = try Data(contentsOf: URL(fileURLWithPath: out2))
        XCTAssertEqual(a, b)
        let v = try JSONParser.parse(String(decoding: a, as: UTF8.self))
        // Through GeoJSON text (7 decimals ≈ 1 cm) the IoU stays 1/3 to 4 decimals.
        XCTAssertEqual(v["mean_best_iou"], .number(0.3333))
        XCTAssertEqual(v["crs"], .string("EPSG:32633"))
        XCTAssertEqual(run(["compare", regions, truth, "--json", dir + "/c.json", "--quiet"]), .success)
        // POI level through the CLI: one planted bank POI inside the region, one outside.
        let pois = write("id,name,category,lon,lat\n", "p.csv", in: dir)
        let inside = F.pois([("1", "bank", 700, 500), ("2", "bank", 100, 500)])
        var lines = "id,name,category,lon,lat\n"
        for i in 0..<inside.count { lines += "\(inside.ids[i]),x,bank,\(inside.lon[i]),\(inside.lat[i])\n" }
        try lines.write(toFile: pois, atomically: true, encoding: .utf8)
        let members = write("id,cluster_id\n1,0\n2,0\n", "m.csv", in: dir)
        XCTAssertEqual(
            run(["truth", regions, truth, "--pois", pois, "--members", members, "--json", out1, "--quiet"]), .success)
        let p = try JSONParser.parse(String(decoding: try Data(contentsOf: URL(fileURLWithPath: out1)), as: UTF8.self))
        XCTAssertEqual(p["poi_recall"], .number(0.5))
        XCTAssertEqual(p["poi_precision"], .number(1))
        XCTAssertEqual(
            run(["truth", regions, truth, "--pois", dir + "/nothing.csv", "--members", members]), .inputData)
        // A members file named twice (here once through a link) was read twice.
        let link = dir + "/m-link.csv"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: members)
        XCTAssertEqual(run(["truth", regions, truth, "--pois", pois, "--members", members, "--members", link]), .usage)
    }

    /// Real-data style: POIs with their own column names read through --input-spec or --manifest,
    /// two truth files with their members files, a must-not file; the JSON has the checks.
    func testInputSpecManifestSeveralTruthFilesAndMustNot() throws {
        let dir = TestSupport.temporaryDirectory()
        // Six restaurants 20 m apart along a street and one far away, in UTM metres.
        let points = F.pois(
            (0..<6).map { (id: "\(100 + $0)", category: "restaurant", x: 100 + Double($0) * 20, y: 500) }
                + [(id: "200", category: "restaurant", x: 3000, y: 3000)])
        var csv = "osm_id,title,fclass,latitude,longitude\n"
        for i in 0..<points.count {
            csv += "\(points.ids[i]),R,restaurant,\(points.lat[i]),\(points.lon[i])\n"
        }
        let poiPath = write(csv, "pois.csv", in: dir)
        let strip = RegionFeature(
            id: .string("strip-1"), keyword: "restaurant", polygons: [[F.lonLat(F.rectangle(90, 480, 210, 520))]],
            index: 0, kind: "strip")
        let district = RegionFeature(
            id: .string("district-1"), keyword: "restaurant", polygons: [[F.lonLat(F.square(2900, 2900, side: 200))]],
            index: 0, kind: "district")
        func truthText(_ f: RegionFeature) -> String {
            GeoJSONWriter.document(
                features: [
                    GeoJSONWriter.Feature(
                        rings: f.polygons[0],
                        properties: [
                            ("truth_id", f.id), ("keyword", .string("restaurant")), ("kind", .string(f.kind!)),
                        ])
                ], foreignMembers: [])
        }
        let strips = write(truthText(strip), "strips.geojson", in: dir)
        let districts = write(truthText(district), "districts.geojson", in: dir)
        let stripMembers = write("id,cluster_id\n" + (0..<6).map { "\(100 + $0),strip-1\n" }.joined(), "s.csv", in: dir)
        let districtMembers = write("id,cluster_id\n200,district-1\n", "d.csv", in: dir)
        // One region over the first four restaurants only: 4 of 6 strip members.
        let regions = write(
            F.geoJSON([F.feature(0, "restaurant", F.rectangle(95, 490, 165, 510))]), "r.geojson", in: dir)
        let mustNot = write(
            GeoJSONWriter.document(
                features: [
                    GeoJSONWriter.Feature(
                        rings: [F.lonLat(F.rectangle(95, 490, 130, 510))],
                        properties: [("kind", .string("void")), ("keyword", .string("*"))])
                ], foreignMembers: []), "must-not.geojson", in: dir)
        let spec =
            #"{"path": "\#(poiPath)", "columns": {"id": "osm_id", "keywords": "fclass", "lat": "latitude", "#
            + #""lon": "longitude"}}"#
        let common = [
            "truth", regions, strips, districts, "--members", stripMembers, "--members", districtMembers,
            "--must-not", mustNot, "--quiet",
        ]
        let out1 = dir + "/spec.json"
        XCTAssertEqual(run(common + ["--input-spec", spec, "--json", out1]), .success)
        // The same file named twice (here once through a link) would count every POI twice.
        let poiLink = dir + "/pois-link.csv"
        try FileManager.default.createSymbolicLink(atPath: poiLink, withDestinationPath: poiPath)
        let linkSpec = spec.replacingOccurrences(of: poiPath, with: poiLink)
        XCTAssertEqual(run(common + ["--input-spec", spec, "--input-spec", linkSpec]), .usage)
        let manifest = write(
            #"{"name": "m", "inputs": [\#(spec)], "work_dir": "w", "output": "o.geojson", "#
                + #""keywords": ["restaurant", "bar"]}"#, "m.json", in: dir)
        let out2 = dir + "/manifest.json"
        XCTAssertEqual(run(common + ["--manifest", manifest, "--json", out2]), .success)
        let out3 = dir + "/again.json"
        XCTAssertEqual(run(common + ["--input-spec", spec, "--json", out3, "--threads", "1"]), .success)
        // A report over the POI file the spec or the manifest names is refused, and the file kept.
        let poiBytes = try Data(contentsOf: URL(fileURLWithPath: poiPath))
        XCTAssertEqual(run(common + ["--input-spec", spec, "--json", poiPath]), .usage)
        XCTAssertEqual(run(common + ["--manifest", manifest, "--json", poiPath]), .usage)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: poiPath)), poiBytes)
        XCTAssertEqual(
            try Data(contentsOf: URL(fileURLWithPath: out1)), try Data(contentsOf: URL(fileURLWithPath: out3)),
            "the same bytes on every run and thread count")
        let a = try JSONParser.parse(String(decoding: try Data(contentsOf: URL(fileURLWithPath: out1)), as: UTF8.self))
        let b = try JSONParser.parse(String(decoding: try Data(contentsOf: URL(fileURLWithPath: out2)), as: UTF8.self))
        for report in [a, b] {
            XCTAssertEqual(report["n_truth"], .number(2))
            XCTAssertEqual(report["n_member_items"], .number(2))
            XCTAssertEqual(report["n_member_found"], .number(1), "4 of 6 strip members inside; the district's one not")
            XCTAssertEqual(report["member_recall"], .number(0.5))
            XCTAssertEqual(report["mean_fragmentation"], .number(1))
            // Half the region's 70 m × 20 m, to the centimetres of 7-decimal coordinates.
            XCTAssertEqual(try XCTUnwrap(report["void_share"]?.doubleValue), 0.5, accuracy: 2e-4)
            XCTAssertEqual(
                report["member_groups"]?.arrayValue?.map { $0["group"]?.stringValue ?? "" },
                ["restaurant/district", "restaurant/strip"])
            let region = try XCTUnwrap(report["regions"]?.arrayValue?.first)
            XCTAssertEqual(region["n_keyword_pois"], .number(4))
            // The 5th nearest other location of the four inside (x = 100, 120, 140, 160 of 100…200):
            // 100, 80, 60 and 60 m; the median is 70 m.
            XCTAssertEqual(region["spacing_m"], .number(70))
        }
        // The manifest's keywords add a column for a keyword without truth or region.
        XCTAssertNotNil(b["keywords"]?["bar"])
        XCTAssertNil(a["keywords"]?["bar"])
    }
}
