import Foundation
import XCTest

@testable import RegionSearchCore
@testable import RegionSearchEvaluation
@testable import RegionSearchModel
@testable import RegionSearchOutput
@testable import RegionSearchRunner
@testable import RegionSearchTestSupport

/// The shipped manifests — the embedded default and the four real datasets in ../shared/data —
/// run with the built executables, and their GeoJSON obeys RFC 7946 and opens in GDAL.
final class GeoJSONOutputTests: XCTestCase {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
    static let sharedData =
        ProcessInfo.processInfo.environment["REGIONSEARCH_SHARED_DATA"]
        ?? URL(fileURLWithPath: repository).deletingLastPathComponent().path + "/shared/data"

    /// Runs a shipped manifest with its work directory and output moved into a fixture directory.
    private func runShipped(_ name: String, poiLayer: Bool = false) throws
        -> (fixture: PipelineFixture, document: JSONValue, text: String)
    {
        let f = try PipelineFixture()
        let manifestDir = Self.repository + "/pipelines"
        var text = try String(contentsOfFile: manifestDir + "/\(name).json", encoding: .utf8)
        text = text.replacingOccurrences(of: "\"../../shared/data/", with: "\"\(Self.sharedData)/")
            .replacingOccurrences(of: "\"../data/", with: "\"\(Self.repository)/data/")
        let parsed = try JSONParser.parse(text)
        guard case .object(var members) = parsed else { throw ToolFailure("\(name).json is not a JSON object") }
        for i in members.indices where members[i].0 == "work_dir" { members[i].1 = .string("../work") }
        for i in members.indices where members[i].0 == "output" { members[i].1 = .string("../out/test.geojson") }
        if poiLayer {
            // Every POI with its keyword flags, for the points-in-polygon join in GDAL.
            members.append(
                ("poi_output", .object([("path", .string("../out/pois.gpkg")), ("layer", .string("pois"))])))
            members.append(("maps", .bool(false)))
        }
        try JSONValue.object(members).serialized(pretty: true).write(
            toFile: f.manifestPath, atomically: true, encoding: .utf8)
        let result = try f.run(["--quiet"])
        XCTAssertEqual(result.status, 0, "\(name): \(result.output)")
        let out = String(decoding: try Data(contentsOf: URL(fileURLWithPath: f.outputPath)), as: UTF8.self)
        return (f, try JSONParser.parse(out), out)
    }

    /// RFC 7946 and the project's own promises about every output file.
    private func checkDocument(_ doc: JSONValue, text: String, path: String, name: String) throws {
        XCTAssertEqual(doc["type"], .string("FeatureCollection"))
        XCTAssertNil(doc["crs"], "RFC 7946 has no crs member")
        XCTAssertEqual(doc["regionsearch"]?["version"], .string(RegionSearchVersion.current))
        XCTAssertNotNil(doc["regionsearch"]?["provenance"]?["ingest"]?["inputs"], "provenance names the inputs")
        let features = try XCTUnwrap(doc["features"]?.arrayValue)
        // At most 7 decimals in every coordinate.
        let decimals = try NSRegularExpression(pattern: "\\d\\.\\d{8,}[,\\]]")
        let coordinatesText = text.components(separatedBy: "\"coordinates\":").dropFirst()
            .map { $0.components(separatedBy: "\"properties\"").first ?? "" }.joined()
        XCTAssertFalse(coordinatesText.isEmpty && !(doc["features"]?.arrayValue?.isEmpty ?? true))
        XCTAssertNil(
            decimals.firstMatch(
                in: coordinatesText, range: NSRange(coordinatesText.startIndex..., in: coordinatesText)),
            "\(name): a coordinate has more than 7 decimals")
        var schema: [(String, String)]?
        let geos = GEOSContext()
        for (i, feature) in features.enumerated() {
            let geometry = try XCTUnwrap(feature["geometry"])
            let type = geometry["type"]?.stringValue
            XCTAssertTrue(type == "Polygon" || type == "MultiPolygon", "\(name) feature \(i): \(type ?? "nil")")
            let polygons: [JSONValue] =
                type == "Polygon" ? [geometry["coordinates"]!] : geometry["coordinates"]?.arrayValue ?? []
            for polygon in polygons {
                let ring = try XCTUnwrap(polygon.arrayValue?.first?.arrayValue)
                let lon = ring.map { $0.arrayValue?[0].doubleValue ?? .nan }
                let lat = ring.map { $0.arrayValue?[1].doubleValue ?? .nan }
                XCTAssertGreaterThanOrEqual(ring.count, 4)
                XCTAssertEqual(lon.first, lon.last, "ring closed")
                XCTAssertEqual(lat.first, lat.last, "ring closed")
                XCTAssertTrue(
                    lon.allSatisfy { $0 >= -180 && $0 <= 180 } && lat.allSatisfy { $0 >= -90 && $0 <= 90 },
                    "lon, lat order and range")
                XCTAssertGreaterThan(
                    GeoJSONWriter.signedArea(lon: lon, lat: lat), 0,
                    "\(name) feature \(i): exterior ring counter-clockwise")
                // Valid as written: exterior and holes, at the written 7 decimals.
                let rings = (polygon.arrayValue ?? []).map { ring -> (x: [Double], y: [Double]) in
                    let points = ring.arrayValue ?? []
                    return (
                        points.map { $0.arrayValue?[0].doubleValue ?? .nan },
                        points.map { $0.arrayValue?[1].doubleValue ?? .nan }
                    )
                }
                let g = try geos.polygon(rings: rings)
                XCTAssertTrue(g.isValid, "\(name) feature \(i): \(g.validityReason)")
            }
            // The same properties, with the same JSON types, in every feature (a nullable field,
            // parent_id at level 0, may be null instead).
            let props = try XCTUnwrap(feature["properties"]?.objectValue)
            let kinds = props.map { ($0.0, $0.1.typeName) }
            if let known = schema {
                XCTAssertTrue(
                    known.elementsEqual(
                        kinds, by: { $0.0 == $1.0 && ($0.1 == $1.1 || $0.1 == "null" || $1.1 == "null") }),
                    "\(name) feature \(i) properties differ")
                schema = zip(known, kinds).map { $0.1 == "null" ? $0 : $1 }
            } else {
                schema = kinds
            }
            let fill = try XCTUnwrap(feature["properties"]?["fill"]?.stringValue)
            XCTAssertNotNil(fill.range(of: "^#[0-9a-f]{6}$", options: .regularExpression))
            let opacity = try XCTUnwrap(feature["properties"]?["fill-opacity"]?.doubleValue)
            XCTAssertTrue(opacity > 0 && opacity <= 1)
        }
        // Denser is darker: within a keyword, a higher keyword density never gets a fainter fill.
        var byKeyword: [String: [(Double, Double)]] = [:]
        for f in features {
            byKeyword[f["properties"]?["keyword"]?.stringValue ?? "", default: []].append(
                (
                    f["properties"]?["keyword_density_per_km2"]?.doubleValue ?? 0,
                    f["properties"]?["fill-opacity"]?.doubleValue ?? 0
                ))
        }
        for (_, list) in byKeyword {
            let sorted = list.sorted { $0.0 < $1.0 }
            for k in 1..<max(sorted.count, 1) { XCTAssertLessThanOrEqual(sorted[k - 1].1, sorted[k].1) }
        }
        try checkWithGDAL(path: path, features: features.count, name: name)
    }

    /// `ogrinfo` (GDAL) opens the file as one polygon layer with every feature.
    private func checkWithGDAL(path: String, features: Int, name: String) throws {
        let ogrinfo = ["/usr/bin/ogrinfo", "/usr/local/bin/ogrinfo"].first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
        guard let ogrinfo else {
            XCTFail("ogrinfo not found: install gdal-bin (scripts/setup does)")
            return
        }
        let log = NSTemporaryDirectory() + "ogrinfo-" + UUID().uuidString
        defer { unlink(log) }
        let termination = try ChildProcess(
            executable: ogrinfo, arguments: ["-ro", "-so", "-al", path], output: .file(log)
        ).wait()
        let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        XCTAssertEqual(termination, .exited(0), output)
        XCTAssertTrue(output.contains("Feature Count: \(features)"), "\(name): \(output)")
        if features > 0 {
            XCTAssertTrue(
                output.contains("Geometry: Polygon") || output.contains("Geometry: Multi Polygon")
                    || output.contains("Geometry: Unknown (any)"), "\(name): \(output)")
        }
    }

    /// The polygons as written describe their properties (issue 11's rules, checked by tools
    /// other than the hulls stage):
    /// - a points-in-polygon join in GDAL (SQLite/SpatiaLite `ST_Covers` over the GeoPackage's
    ///   R-trees, the regions loaded by `ogr2ogr`) gives `n_pois` and `n_keyword_pois`, and
    ///   SpatiaLite's geodesic area gives `area_m2`;
    /// - the evaluator's region check (``Evaluator/checkRegions(_:pois:)``) finds every region's
    ///   empty share — the share of the polygon farther than 2 × the median 5th-nearest-location
    ///   spacing of its keyword POIs from all of them — at most 0.1.
    private func checkPolygonsAsWritten(_ f: PipelineFixture, document: JSONValue, name: String) throws {
        let features = document["features"]?.arrayValue ?? []
        guard !features.isEmpty else { return }
        let gpkg = f.root + "/out/pois.gpkg"
        try gdalTool("ogr2ogr", ["-update", "-nln", "regions", gpkg, f.outputPath])
        let keywords = try f.manifest().keywords
        let flag =
            "CASE r.keyword "
            + keywords.enumerated().map {
                "WHEN '\($0.1.replacingOccurrences(of: "'", with: "''"))' THEN p.match_\($0.0 + 1)"
            }
            .joined(separator: " ") + " END"
        // One tagged text column per row: SpatiaLite's notices go to the same log, and may join a line.
        let sql = """
            SELECT 'join:' || r.region_id || ':' || COUNT(p.fid) || ':' || SUM(\(flag)) || ':' AS t FROM regions r \
            JOIN rtree_regions_geom rr ON rr.id = r.fid JOIN rtree_pois_geom rp ON rp.minx <= rr.maxx \
            AND rp.maxx >= rr.minx AND rp.miny <= rr.maxy AND rp.maxy >= rr.miny JOIN pois p ON p.fid = rp.id \
            WHERE ST_Covers(r.geom, p.geom) GROUP BY r.region_id
            """
        let joined = try gdalTool("ogrinfo", ["-ro", "-q", gpkg, "-sql", sql])
        var counts: [Int: (Int, Int)] = [:]
        let joinRow = try NSRegularExpression(pattern: "join:([0-9]+):([0-9]+):([0-9]+):")
        for m in joinRow.matches(in: joined, range: NSRange(joined.startIndex..., in: joined)) {
            let v = (1...3).map { Int((joined as NSString).substring(with: m.range(at: $0)))! }
            counts[v[0]] = (v[1], v[2])
        }
        let areas = try gdalTool(
            "ogrinfo",
            [
                "-ro", "-q", gpkg, "-sql",
                "SELECT 'area:' || region_id || ':' || ST_Area(geom, 1) || ':' AS t FROM regions",
            ])
        var geodesic: [Int: Double] = [:]
        let areaRow = try NSRegularExpression(pattern: "area:([0-9]+):([0-9.eE+-]+):")
        for m in areaRow.matches(in: areas, range: NSRange(areas.startIndex..., in: areas)) {
            let text = areas as NSString
            geodesic[Int(text.substring(with: m.range(at: 1)))!] = Double(text.substring(with: m.range(at: 2)))
        }
        XCTAssertEqual(geodesic.count, features.count, "\(name): an area per region: \(areas.prefix(2_000))")
        for feature in features {
            let p = try XCTUnwrap(feature["properties"])
            let id = try XCTUnwrap(p["region_id"]?.doubleValue.map { Int($0) })
            let (all, keyword) = counts[id] ?? (0, 0)
            XCTAssertEqual(p["n_pois"]?.doubleValue.map { Int($0) }, all, "\(name) region \(id): n_pois vs the join")
            XCTAssertEqual(
                p["n_keyword_pois"]?.doubleValue.map { Int($0) }, keyword,
                "\(name) region \(id): n_keyword_pois vs the join")
            let area = try XCTUnwrap(p["area_m2"]?.doubleValue)
            let measured = try XCTUnwrap(geodesic[id], "\(name) region \(id): no SpatiaLite area")
            // area_m2 is GeographicLib's exact ellipsoidal area; SpatiaLite's (lwgeom's spheroid
            // algorithm) differs from it by 0.05 % at 1,000 km², 0.5 % at 50,000 km² (measured).
            XCTAssertEqual(area, measured, accuracy: max(1, area * 1e-2), "\(name) region \(id): area_m2")
        }

        let ingestKey = try XCTUnwrap(try f.runState()["ingest"].key)
        let poisPath = f.work.objectDirectory(stage: "ingest", key: ingestKey) + "/pois.rsa"
        let table = try POITable(artifact: ArtifactFile(path: poisPath, expected: .pois))
        let checks = try Evaluator().checkRegions(
            RegionFeatureFile.read(path: f.outputPath), pois: EvaluationPOIs(table: table, path: poisPath))
        XCTAssertEqual(checks.count, features.count)
        for (feature, check) in zip(features, checks) {
            let id = feature["properties"]?["region_id"]?.doubleValue ?? -1
            // The hulls stage's own shape check (empty_share ≤ 0.05, members_inside ≥ 0.9) passes
            // for every region of every shared dataset (issue 22).
            XCTAssertEqual(
                feature["properties"]?["shape_ok"]?.doubleValue, 1,
                "\(name) region \(id): shape_ok (empty_share \(feature["properties"]?["empty_share"]?.doubleValue ?? -1), "
                    + "members_inside \(feature["properties"]?["members_inside"]?.doubleValue ?? -1))")
            let check = try XCTUnwrap(check, "\(name) region \(id) has no keyword")
            XCTAssertEqual(
                Double(check.keywordPOIs), feature["properties"]?["n_keyword_pois"]?.doubleValue,
                "\(name) region \(id): the evaluator's count")
            if let empty = check.emptyShare {
                XCTAssertLessThanOrEqual(empty, 0.1, "\(name) region \(id) (\(check.keyword)): empty share")
            } else {
                XCTAssertLessThanOrEqual(check.keywordLocations, 5, "\(name) region \(id): spacing undefined")
            }
        }
    }

    /// Runs `/usr/bin/<tool>` (GDAL's command-line tools), failing with its output unless it exits 0.
    @discardableResult
    private func gdalTool(_ tool: String, _ arguments: [String]) throws -> String {
        // Standard error apart: SpatiaLite's notices would otherwise land inside result lines.
        let log = NSTemporaryDirectory() + "\(tool)-" + UUID().uuidString
        defer {
            unlink(log)
            unlink(log + ".err")
        }
        let termination = try ChildProcess(
            executable: "/usr/bin/" + tool, arguments: arguments, output: .files(stdout: log, stderr: log + ".err")
        ).wait()
        let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        guard termination == .exited(0) else {
            let errors = (try? String(contentsOfFile: log + ".err", encoding: .utf8)) ?? ""
            throw ToolFailure("\(tool) \(arguments): \(errors)\(output)")
        }
        return output
    }

    func testDefaultPipelineWritesValidGeoJSONThatGDALOpens() throws {
        let (f, doc, text) = try runShipped("default", poiLayer: true)
        defer { f.remove() }
        XCTAssertGreaterThan(doc["features"]?.arrayValue?.count ?? 0, 0, "the default job finds regions")
        try checkDocument(doc, text: text, path: f.outputPath, name: "default")
        try checkPolygonsAsWritten(f, document: doc, name: "default")
    }

    func testRealDatasetsRunEndToEnd() throws {
        // name → a keyword that must get at least one region.
        let expectations = [
            ("helsinki-osm", "clothes"), ("hangzhou-amap", "餐饮服务"), ("spb-2gis", "Бары"),
            ("ourairports-world", "heliport"), ("dc-osm", "restaurant"), ("chicago-osm", "restaurant"),
        ]
        for (name, keyword) in expectations {
            let (f, doc, text) = try runShipped(name, poiLayer: true)
            defer { f.remove() }
            let features = doc["features"]?.arrayValue ?? []
            XCTAssertTrue(
                features.contains { $0["properties"]?["keyword"] == .string(keyword) },
                "\(name): no region for \(keyword)")
            try checkDocument(doc, text: text, path: f.outputPath, name: name)
            try checkPolygonsAsWritten(f, document: doc, name: name)
        }
    }

    func testStPetersburgRejectsAndDuplicatesAreCounted() throws {
        let (f, _, _) = try runShipped("spb-2gis")
        defer { f.remove() }
        let state = try f.runState()
        let key = try XCTUnwrap(state["ingest"].key)
        let record = try XCTUnwrap(try StageRecord.load(f.work.recordPath(stage: "ingest", key: key)))
        let counts = record.summary
        XCTAssertEqual(counts.count(.read), 12_204, "\(counts.json.serialized())")
        XCTAssertEqual(counts.count(.rejected), 151)
        XCTAssertEqual(counts.count(.mergedDuplicates), 1_163)
        XCTAssertEqual(counts.count(.accepted), 10_890)
    }
}
