import XCTest

@testable import RegionSearchCore
@testable import RegionSearchIngest

final class OSMOptionsTests: XCTestCase {
    func testDefaults() {
        let o = OSMOptions()
        XCTAssertEqual(
            o.poiKeys,
            [
                "amenity", "shop", "tourism", "leisure", "office", "craft", "historic", "healthcare", "sport",
                "public_transport",
            ])
        XCTAssertEqual(
            o.keywordKeys,
            ["amenity", "shop", "cuisine", "tourism", "leisure", "office", "craft", "historic", "healthcare", "sport"])
        XCTAssertEqual(o.nameKey, "name")
    }

    func testJSON() throws {
        let json = try JSONParser.parse(
            #"{"poi_keys": ["amenity", "shop"], "keyword_keys": "cuisine", "name_key": "name:en"}"#)
        let o = try OSMOptions(json: json, context: "ingest.osm")
        XCTAssertEqual(o.poiKeys, ["amenity", "shop"])
        XCTAssertEqual(o.keywordKeys, ["cuisine"])
        XCTAssertEqual(o.nameKey, "name:en")
        // Round trip through the canonical object.
        XCTAssertEqual(try OSMOptions(json: o.json, context: "x"), o)
        // Missing keys keep their defaults.
        XCTAssertEqual(try OSMOptions(json: .object([]), context: "x"), OSMOptions())
    }

    private func expectUsageError(_ text: String, _ message: String, file: StaticString = #filePath, line: UInt = #line)
        throws
    {
        let json = try JSONParser.parse(text)
        do {
            _ = try OSMOptions(json: json, context: "ingest.osm")
            XCTFail("expected a usage error", file: file, line: line)
        } catch {
            XCTAssertEqual(error.description, message, file: file, line: line)
            XCTAssertEqual(error.exitStatus, .usage, file: file, line: line)
        }
    }

    func testJSONErrors() throws {
        try expectUsageError(
            #"{"poi_key": ["amenity"]}"#,
            "ingest.osm.poi_key: unknown key (did you mean 'poi_keys'?); known keys: poi_keys, keyword_keys, name_key")
        try expectUsageError(
            #"{"colour": 1}"#, "ingest.osm.colour: unknown key; known keys: poi_keys, keyword_keys, name_key")
        try expectUsageError(
            #"["amenity"]"#, "ingest.osm: expected an object with keys poi_keys, keyword_keys, name_key, got array")
        try expectUsageError(
            #"{"poi_keys": []}"#,
            "ingest.osm.poi_keys: the list is empty, so no element could be a POI; give at least one tag key")
        try expectUsageError(
            #"{"poi_keys": ["shop", 3]}"#, "ingest.osm.poi_keys: expected a list of strings, found a number in it")
        try expectUsageError(#"{"keyword_keys": ["shop", "shop"]}"#, "ingest.osm.keyword_keys: 'shop' is listed twice")
        try expectUsageError(#"{"keyword_keys": [""]}"#, "ingest.osm.keyword_keys: empty tag key in the list")
        try expectUsageError(
            #"{"keyword_keys": true}"#, "ingest.osm.keyword_keys: expected a list of OSM tag keys, got boolean")
        try expectUsageError(
            #"{"name_key": ""}"#, #"ingest.osm.name_key: expected a non-empty string (an OSM tag key), got """#)
    }
}
