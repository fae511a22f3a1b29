import XCTest

@testable import RegionSearchCore
@testable import RegionSearchIngest
@testable import RegionSearchStages
@testable import RegionSearchTestSupport

final class InputSpecTests: XCTestCase {
    private func parse(_ json: String) throws -> InputSpec {
        try InputSpec(json: JSONParser.parse(json), context: "inputs[0]")
    }

    private func message(_ json: String) -> String {
        do {
            _ = try parse(json)
            return "no error"
        } catch {
            return "\(error)"
        }
    }

    func testFullSpecAndDefaults() throws {
        let s = try parse(
            """
            {"path": "a.csv", "format": "csv", "delimiter": "tab", "quote": "'", "header": false, "trim": false,
             "columns": {"id": 0, "name": "n", "keywords": ["k", {"column": 3, "split": "list"}], "coordinates": 4},
             "coordinate_order": "lat_lon", "crs": "bd09", "keyword_split": "hierarchy", "keyword_separator": " > ",
             "missing_values": ["Нет"], "osm": {}, "max_record_bytes": 4096}
            """)
        XCTAssertEqual(s.path, "a.csv")
        XCTAssertEqual(s.format, .csv)
        XCTAssertEqual(s.delimiter, 0x09)
        XCTAssertEqual(s.quote, 0x27)
        XCTAssertEqual(s.header, .absent)
        XCTAssertFalse(s.trim)
        XCTAssertEqual(s.columns.id, .index(0))
        XCTAssertEqual(s.columns.name, .name("n"))
        XCTAssertEqual(s.columns.keywords, [.init(column: .name("k")), .init(column: .index(3), split: .list)])
        XCTAssertEqual(s.columns.coordinates, .index(4))
        XCTAssertEqual(s.coordinateOrder, .latLon)
        XCTAssertEqual(s.crs, .bd09)
        XCTAssertEqual(s.keywordSplit, .hierarchy)
        XCTAssertEqual(s.keywordSeparator, " > ")
        XCTAssertEqual(s.missingValues, ["Нет"])
        XCTAssertEqual(s.maxRecordBytes, 4096)
        let d = try parse(#"{"path": "b.geojson"}"#)
        XCTAssertEqual(d.format, .auto)
        XCTAssertNil(d.delimiter)
        XCTAssertEqual(d.quote, 0x22)
        XCTAssertEqual(d.header, .auto)
        XCTAssertTrue(d.trim)
        XCTAssertEqual(d.crs, .wgs84)
        XCTAssertEqual(d.missingValues, InputSpec.defaultMissingValues)
        // The canonical JSON round-trips.
        let again = try InputSpec(json: s.json, context: "x")
        XCTAssertEqual(again.json, s.json)
        XCTAssertEqual(d.json.serialized(), try InputSpec(json: d.json, context: "x").json.serialized())
    }

    func testUnknownKeysAndBadValuesNameTheKey() {
        XCTAssertEqual(
            message(#"{"path": "a", "columns": {"lonn": 1}}"#),
            "inputs[0].columns.lonn: unknown key (did you mean 'lon'?); known keys: id, name, keywords, lon, lat, "
                + "coordinates, wkt, tags"
        )
        XCTAssertTrue(
            message(#"{"path": "a", "delimeter": ","}"#).hasPrefix(
                "inputs[0].delimeter: unknown key (did you mean 'delimiter'?)"))
        XCTAssertEqual(
            message(#"{"path": "a", "crs": "gcj"}"#),
            #"inputs[0].crs: expected one of "wgs84", "gcj02", "bd09", got "gcj" (did you mean "gcj02"?)"#)
        XCTAssertEqual(message(#"{"format": "csv"}"#), "inputs[0].path: required (the input file)")
        XCTAssertEqual(message(#"{"path": ""}"#), #"inputs[0].path: expected a non-empty string, got """#)
        // `--input-spec '{"path":"base.csv\u0000x"}'` read base.csv.
        XCTAssertTrue(
            message(#"{"path": "base.csv\u0000x"}"#).hasPrefix(
                "inputs[0].path: holds the control character U+0000 (NUL)"))
        XCTAssertTrue(
            message(#"{"path": "a.gpkg", "where": "kind = 'cafe'\u0000 OR 1=1"}"#).hasPrefix(
                "inputs[0].where: holds the control character U+0000 (NUL)"))
        XCTAssertTrue(
            message(#"{"path": "a.gpkg", "open_options": ["A=1", "B\u0000=2"]}"#).hasPrefix(
                "inputs[0].open_options[1]: holds the control character U+0000 (NUL)"))
        // A NUL that only RegionSearch's own readers see is a byte like any other.
        XCTAssertNoThrow(try parse(#"{"path": "a.csv", "missing_values": ["\u0000"]}"#))
        XCTAssertTrue(
            message(#"{"path": "a", "delimiter": "::"}"#).hasPrefix(
                "inputs[0].delimiter: expected a single ASCII character"))
        XCTAssertEqual(
            message(#"{"path": "a", "header": "yes"}"#), #"inputs[0].header: expected true, false or "auto", got "yes""#
        )
        XCTAssertTrue(
            message(#"{"path": "a", "columns": {"lon": -1, "lat": 2}}"#).hasPrefix(
                "inputs[0].columns.lon: a column index must be 0 or more"))
        XCTAssertEqual(
            message(#"{"path": "a", "columns": {"lon": 1}}"#),
            "inputs[0].columns.lat: lon and lat must be given together")
        XCTAssertEqual(
            message(#"{"path": "a", "columns": {"lon": 1, "lat": 2, "wkt": 3}}"#),
            "inputs[0].columns: give only one of lon+lat, coordinates, wkt")
        XCTAssertEqual(
            message(#"{"path": "a", "columns": {"keywords": [{"split": "list"}]}}"#),
            "inputs[0].columns.keywords[0].column: required")
        XCTAssertTrue(
            message(#"{"path": "a", "columns": {"keywords": [{"column": 1, "splt": "list"}]}}"#).hasPrefix(
                "inputs[0].columns.keywords[0].splt: unknown key (did you mean 'split'?)"))
        XCTAssertTrue(
            message(#"{"path": "a", "osm": {"poi_key": ["shop"]}}"#).hasPrefix(
                "inputs[0].osm.poi_key: unknown key (did you mean 'poi_keys'?)"))
        XCTAssertTrue(
            message(#"{"path": "a", "max_record_bytes": 10}"#).hasPrefix(
                "inputs[0].max_record_bytes: expected an integer in [1024"))
        XCTAssertEqual(
            message(#"{"path": "a", "delimiter": ";", "quote": ";"}"#),
            "inputs[0].quote: the quote character cannot also be the delimiter")
        XCTAssertEqual(message(#"[1]"#), "inputs[0]: expected an object, got array")
    }

    func testKeysMustSuitTheFormat() throws {
        let s = try parse(#"{"path": "a", "delimiter": ",", "columns": {"lon": 1, "lat": 2}}"#)
        XCTAssertThrowsError(try s.checkApplicable(to: .geojson)) { e in
            XCTAssertEqual("\(e)", "inputs[0].delimiter: only for delimited text, but 'a' is GeoJSON")
        }
        let g = try parse(#"{"path": "a", "columns": {"lon": "x", "lat": "y"}}"#)
        XCTAssertThrowsError(try g.checkApplicable(to: .geojson)) { e in
            XCTAssertTrue("\(e)".hasPrefix("inputs[0].columns.lon: only for delimited text"), "\(e)")
        }
        let idx = try parse(#"{"path": "a", "columns": {"name": 2}}"#)
        XCTAssertThrowsError(try idx.checkApplicable(to: .geojson)) { e in
            XCTAssertEqual("\(e)", "inputs[0].columns.name: GeoJSON properties are named, not numbered")
        }
        let osm = try parse(#"{"path": "a", "osm": {"poi_keys": ["shop"]}}"#)
        XCTAssertThrowsError(try osm.checkApplicable(to: .delimited))
        XCTAssertNoThrow(try osm.checkApplicable(to: .osm))
        XCTAssertThrowsError(try parse(#"{"path": "a", "crs": "gcj02"}"#).checkApplicable(to: .osm))
    }

    func testCommandLineFormatOptionsBuildTheSameSpec() throws {
        let spec = IngestStage.commandSpec()
        let parsed = try spec.parse([
            "x.tsv", "--delimiter", "tab", "--header", "false", "--name-column", "0", "--keyword-column", "3",
            "--keyword-column", "cat", "--coordinates-column", "4", "--crs", "gcj02", "--missing-value", "Нет",
            "--output", "o", "--rejects", "r",
        ])
        let specs = try IngestStage.inputSpecs(parsed)
        XCTAssertEqual(specs.count, 1)
        let s = specs[0]
        XCTAssertEqual(s.delimiter, 0x09)
        XCTAssertEqual(s.header, .absent)
        XCTAssertEqual(s.columns.name, .index(0))
        XCTAssertEqual(s.columns.keywords?.map { $0.column }, [.index(3), .name("cat")])
        XCTAssertEqual(s.columns.coordinates, .index(4))
        XCTAssertEqual(s.crs, .gcj02)
        XCTAssertEqual(s.missingValues, ["Нет"])
        // Input specs come after the positional files and are numbered like manifest inputs.
        let withSpec = try spec.parse([
            "--input-spec", #"{"path": "y.csv", "columns": {"lonn": 1}}"#, "--output", "o", "--rejects", "r",
        ])
        XCTAssertThrowsError(try IngestStage.inputSpecs(withSpec)) { e in
            XCTAssertTrue("\(e)".hasPrefix("inputs[0].columns.lonn: unknown key (did you mean 'lon'?)"), "\(e)")
        }
        let badJSON = try spec.parse(["--input-spec", "{path", "--output", "o", "--rejects", "r"])
        XCTAssertThrowsError(try IngestStage.inputSpecs(badJSON)) { e in
            XCTAssertTrue("\(e)".hasPrefix("--input-spec #1: invalid JSON: line 1, column 2"), "\(e)")
        }
        let stray = try spec.parse([
            "--crs", "bd09", "--input-spec", #"{"path": "y"}"#, "--output", "o", "--rejects", "r",
        ])
        XCTAssertThrowsError(try IngestStage.inputSpecs(stray)) { e in
            XCTAssertTrue("\(e)".hasPrefix("--crs applies to positional FILEs"), "\(e)")
        }
        XCTAssertThrowsError(try IngestStage.inputSpecs(try spec.parse(["--output", "o", "--rejects", "r"]))) { e in
            XCTAssertEqual("\(e)", "no input: give one or more FILEs or --input-spec")
        }
    }
}
