import Foundation
import XCTest

@testable import RegionSearchCore
@testable import RegionSearchIngest
@testable import RegionSearchModel
@testable import RegionSearchTestSupport

/// Keys of keyword values (OSM tag keys, GeoJSON properties, delimited columns) through ingest,
/// and `key=value` against token queries on the pois artifact.
final class KeywordKeyTests: XCTestCase {
    let scratch = IngestScratch()

    private func ingest(_ arguments: [String], name: String) throws -> POITable {
        let out = scratch.path(name + ".rsa")
        try runIngest(arguments + ["--output", out, "--rejects", scratch.path(name + ".rejects")])
        return try POITable(artifact: ArtifactFile(path: out, expected: .pois))
    }

    /// The ids of the POIs whose keyword text matches `query`.
    private func ids(_ t: POITable, _ query: String) -> [String] {
        let matcher = KeywordMatcher(query, keys: t.keywordKeys)
        return (0..<t.count).filter { t.keywords.withUTF8($0) { matcher.matches($0) } }.map { t.ids[$0] }
    }

    private func readable(_ t: POITable, _ row: Int) -> String {
        KeywordText.readable(t.keywords[row], keys: t.keywordKeys)
    }

    static let osm = """
        <?xml version="1.0" encoding="UTF-8"?>
        <osm version="0.6" generator="test">
          <node id="1" lat="60.1700" lon="24.9400"><tag k="amenity" v="parking"/><tag k="parking" v="surface"/></node>
          <node id="2" lat="60.1701" lon="24.9401"><tag k="amenity" v="bicycle_parking"/></node>
          <node id="3" lat="60.1702" lon="24.9402"><tag k="amenity" v="parking_entrance"/></node>
          <node id="4" lat="60.1703" lon="24.9403"><tag k="amenity" v="motorcycle_parking"/></node>
          <node id="5" lat="60.1704" lon="24.9404"><tag k="shop" v="yes"/><tag k="name" v="Parking Shop"/>
          </node>
          <node id="6" lat="60.1705" lon="24.9405"><tag k="amenity" v="restaurant"/>
            <tag k="cuisine" v="pizza;burger"/></node>
          <node id="7" lat="60.1706" lon="24.9406"><tag k="parking" v="underground"/>
            <tag k="amenity" v="parking"/></node>
          <node id="8" lat="60.1707" lon="24.9407"><tag k="amenity" v="Parking garage"/></node>
          <node id="100" lat="60.1710" lon="24.9410"/>
          <node id="101" lat="60.1710" lon="24.9420"/>
          <node id="102" lat="60.1720" lon="24.9420"/>
          <way id="10"><nd ref="100"/><nd ref="101"/><nd ref="102"/><nd ref="100"/><tag k="amenity" v="parking"/></way>
        </osm>

        """

    func testOSMXMLKeyValueAgainstTokens() throws {
        let path = scratch.write(Self.osm, name: "small.osm")
        let t = try ingest([path, "--osm-keyword-keys", "amenity,shop,cuisine,parking"], name: "osm")
        XCTAssertEqual(t.keywordKeys, ["amenity", "parking", "shop", "cuisine"], "in order of first use")
        XCTAssertEqual(ids(t, "amenity=parking"), ["node/1", "node/7", "way/10"])
        XCTAssertEqual(ids(t, "parking"), ["node/1", "node/7", "node/8", "way/10"])
        XCTAssertEqual(ids(t, "parking=surface"), ["node/1"])
        XCTAssertEqual(ids(t, "parking=*"), ["node/1", "node/7"])
        XCTAssertEqual(ids(t, "amenity=parking*"), ["node/1", "node/3", "node/7", "node/8", "way/10"])
        XCTAssertEqual(ids(t, "*_parking"), ["node/2", "node/4"])
        XCTAssertEqual(ids(t, "amenity=bicycle_parking"), ["node/2"])
        XCTAssertEqual(ids(t, "amenity=parking garage"), ["node/8"])
        XCTAssertEqual(ids(t, "shop=yes"), ["node/5"])
        XCTAssertEqual(ids(t, "shop"), ["node/5"], "shop=yes gives the value shop, as before")
        XCTAssertEqual(ids(t, "cuisine=burger"), ["node/6"])
        XCTAssertEqual(ids(t, "amenity"), [], "keys are not values")
        XCTAssertEqual(readable(t, 0), "amenity=parking\nparking=surface")
        XCTAssertEqual(readable(t, 6), "amenity=parking\nparking=underground", "values in keyword-key order")

        // With the default keyword keys `parking` is no keyword key: parking=surface finds nothing.
        let d = try ingest([path], name: "osm-default")
        XCTAssertFalse(d.keywordKeys.contains("parking"))
        XCTAssertEqual(ids(d, "parking=surface"), [])
        XCTAssertFalse(KeywordMatcher("parking=surface", keys: d.keywordKeys).isKeyKnown)
        XCTAssertEqual(ids(d, "amenity=parking"), ["node/1", "node/7", "way/10"])

        // Names only with name_as_keyword, under the key `name`, token-matched.
        XCTAssertEqual(ids(d, "parking shop"), [])
        let n = try ingest([path, "--name-as-keyword", "true"], name: "osm-names")
        XCTAssertEqual(ids(n, "parking shop"), ["node/5"])
        XCTAssertEqual(ids(n, "parking"), ["node/1", "node/5", "node/7", "node/8", "way/10"])
        XCTAssertEqual(ids(n, "name=parking shop"), ["node/5"])
        XCTAssertEqual(ids(n, "name=parking"), [])
    }

    func testOSMPBFGivesTheSameKeysAsXML() throws {
        let xml = scratch.write(Self.osm, name: "same.osm")
        let pbf = scratch.path("same.osm.pbf")
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/osmium") else {
            throw XCTSkip("osmium (osmium-tool) is not installed")
        }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/osmium")
        p.arguments = ["cat", xml, "-o", pbf, "--overwrite"]
        try p.run()
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0)
        let a = try ingest([xml, "--osm-keyword-keys", "amenity,parking"], name: "x")
        let b = try ingest([pbf, "--osm-keyword-keys", "amenity,parking"], name: "p")
        XCTAssertEqual(a.keywordKeys, b.keywordKeys)
        XCTAssertEqual(a.keywords, b.keywords)
        XCTAssertEqual(ids(b, "parking=surface"), ["node/1"])
    }

    func testGeoJSONPropertiesAreKeys() throws {
        func feature(_ id: Int, _ props: String) -> String {
            #"{"type":"Feature","id":\#(id),"geometry":{"type":"Point","coordinates":[24.9\#(id),60.1]},"#
                + #""properties":{\#(props)}}"#
        }
        let text =
            #"{"type":"FeatureCollection","features":["#
            + [
                feature(1, #""amenity":"parking","parking":"surface""#),
                feature(2, #""amenity":"bicycle_parking""#),
                feature(3, #""amenity":"parking_entrance","parking":"multi-storey""#),
                feature(4, #""amenity":["cafe","parking"],"name":"Bank of China""#),
                feature(5, #""category":"parking""#),
            ].joined(separator: ",") + "]}"
        let path = scratch.write(text, name: "p.geojson")
        let spec = #"{"path":"\#(path)","columns":{"keywords":["amenity","parking"]}}"#
        let t = try ingest(["--input-spec", spec], name: "geo")
        XCTAssertEqual(t.keywordKeys, ["amenity", "parking"])
        XCTAssertEqual(ids(t, "amenity=parking"), ["1", "4"])
        XCTAssertEqual(ids(t, "parking=surface"), ["1"])
        XCTAssertEqual(ids(t, "parking"), ["1", "4"])
        XCTAssertEqual(ids(t, "parking=multi"), [], "a key=value value is matched whole")
        XCTAssertEqual(ids(t, "multi"), ["3"], "a token query finds multi in multi-storey")
        XCTAssertEqual(ids(t, "category=parking"), [], "category is not a keyword property here")
        XCTAssertEqual(readable(t, 3), "amenity=cafe\namenity=parking")

        // Guessed keyword property: its name is the key (here the first of the guess list present).
        let g = try ingest([path], name: "geo-guess")
        XCTAssertEqual(ids(g, "category=parking"), ["5"])
        XCTAssertEqual(ids(g, "amenity=parking"), ["1", "4"])
        XCTAssertEqual(Set(g.keywordKeys), ["amenity", "category"])
        // Names as free text.
        let n = try ingest(["--input-spec", spec, "--name-as-keyword", "true"], name: "geo-names")
        XCTAssertEqual(ids(n, "bank"), ["4"])
        XCTAssertEqual(ids(n, "china"), ["4"])
        XCTAssertEqual(ids(n, "name=bank of china"), ["4"])
    }

    func testGDALFieldsAreKeys() throws {
        // The same properties as GeoJSON, converted to a GeoPackage by ogr2ogr and read through OGR.
        func feature(_ id: Int, _ props: String) -> String {
            #"{"type":"Feature","geometry":{"type":"Point","coordinates":[24.9\#(id),60.1]},"#
                + #""properties":{"id":"\#(id)",\#(props)}}"#
        }
        let text =
            #"{"type":"FeatureCollection","features":["#
            + [
                feature(1, #""amenity":"parking","parking":"surface","category":null"#),
                feature(2, #""amenity":"bicycle_parking","parking":null,"category":null"#),
                feature(3, #""amenity":"parking_entrance","parking":"multi-storey","category":null"#),
                feature(5, #""amenity":null,"parking":null,"category":"parking""#),
            ].joined(separator: ",") + "]}"
        let geojson = scratch.write(text, name: "g.geojson")
        let gpkg = scratch.path("g.gpkg")
        try GIS.ogr2ogr(["-f", "GPKG", gpkg, geojson, "-nln", "pois"])
        let spec = #"{"path":"\#(gpkg)","format":"ogr","columns":{"id":"id","keywords":["amenity","parking"]}}"#
        let t = try ingest(["--input-spec", spec], name: "gpkg")
        XCTAssertEqual(t.keywordKeys, ["amenity", "parking"])
        XCTAssertEqual(ids(t, "amenity=parking"), ["1"])
        XCTAssertEqual(ids(t, "parking=surface"), ["1"])
        XCTAssertEqual(ids(t, "parking"), ["1"], "not bicycle_parking, not parking_entrance")
        XCTAssertEqual(ids(t, "parking=multi-storey"), ["3"])
        XCTAssertEqual(ids(t, "category=parking"), [], "category is not a keyword field here")
        XCTAssertEqual(readable(t, 0), "amenity=parking\nparking=surface")
    }

    func testDelimitedColumnsAreKeysAndMergeKeepsThem() throws {
        let csv = """
            id,name,fclass,Cuisine,lon,lat
            1,Lot A,parking,,10,20
            2,Racks,bicycle_parking,,10.001,20
            3,Pizza Parking,restaurant,pizza;burger,10.002,20
            1,Lot A,Parking,coffee_shop,10,20
            4,Entrance,parking_entrance,,10.003,20

            """
        let path = scratch.write(csv, name: "p.csv")
        let t = try ingest(
            [path, "--keyword-column", "fclass", "--keyword-column", "Cuisine", "--name-as-keyword", "true"],
            name: "csv")
        XCTAssertEqual(t.keywordKeys, ["fclass", "cuisine", "name"], "keys are normalised like values")
        XCTAssertEqual(ids(t, "fclass=parking"), ["1"])
        XCTAssertEqual(ids(t, "parking"), ["1", "3"], "the name Pizza Parking is free text")
        XCTAssertEqual(ids(t, "cuisine=coffee_shop"), ["1"], "merged duplicates keep their keys")
        XCTAssertEqual(readable(t, 0), "fclass=parking\nname=lot a\ncuisine=coffee_shop")
        XCTAssertEqual(ids(t, "CUISINE=Pizza"), ["3"])

        // Without a header there is no column name, so no key.
        let bare = scratch.write("1,parking,10,20\n2,bicycle_parking,10.1,20\n", name: "bare.csv")
        let b = try ingest(
            [bare, "--header", "false", "--keyword-column", "1", "--lon-column", "2", "--lat-column", "3"],
            name: "bare")
        XCTAssertEqual(b.keywordKeys, [])
        XCTAssertEqual(b.keywords[0], "parking")
        XCTAssertEqual(ids(b, "parking"), [""])
    }

    /// `split: hstore` (osm2pgsql/ogr2ogr `other_tags`): the OSM keyword keys' values with their
    /// tag keys; other tags left out; escapes, NULL, `;` and `yes` as in the OSM readers.
    func testHStoreSplit() {
        let splitter = KeywordSplitter(missingValues: ["N/A"])
        func split(_ text: String) -> [String] {
            var out: [String] = []
            var keys: [String] = []
            var t = text
            t.withUTF8 {
                splitter.split($0, mode: .hstore, separator: [0x3B], key: "other_tags", into: &out, keys: &keys)
            }
            return zip(keys, out).map { $0 + "=" + $1 }
        }
        XCTAssertEqual(
            split(
                #""amenity"=>"cafe","cuisine"=>"coffee_shop; donut","addr:street"=>"Parking Rd","shop"=>"yes","#
                    + #" "website"=>NULL, "name"=>"A \"B\"""#),
            ["amenity=cafe", "cuisine=coffee_shop", "cuisine=donut", "shop=shop"])
        XCTAssertEqual(split(#""cuisine"=>"a\"b;c\\d""#), [#"cuisine=a"b"#, #"cuisine=c\d"#])
        XCTAssertEqual(split(#""cuisine"=>"N/A;pizza""#), ["cuisine=pizza"], "missing-value markers dropped")
        XCTAssertEqual(split(#""addr:city"=>"Chicago""#), [], "no keyword key: no value")
        XCTAssertEqual(split(#""amenity"=>"cafe" "cuisine"=>"x""#), ["amenity=cafe"], "pairs up to a break stand")
        XCTAssertEqual(
            split(#""amenity"=>"cafe","opening_hours"=>"Mo-Fr 11:00-22:00; Sa,S"#), ["amenity=cafe"],
            "a cell cut short keeps its complete pairs")
        XCTAssertEqual(split(#""amenity"=>"#), [#"other_tags="amenity"=>"#], "not hstore: kept whole")
        XCTAssertEqual(
            split(#""amenity"=>"cafe","cuisine"=>"pizza;coffee_shop;cof"#),
            ["amenity=cafe", "cuisine=pizza", "cuisine=coffee_shop"],
            "a tag value cut short keeps its parts before the last")
        XCTAssertEqual(split(#""amenity"=>"cafe","cuisine"=>"coffee_shop"#), ["amenity=cafe"])
        XCTAssertEqual(split("cafe"), ["other_tags=cafe"])
    }

    /// Random hstore-like text: never a crash, no empty value, every key the column's or a
    /// keyword key, and a value either a tag's part, the key (for yes) or the whole text.
    func testHStoreFuzz() {
        let splitter = KeywordSplitter(missingValues: [])
        let pieces = [#"""#, #"\"#, "=>", ",", ";", " ", "a", "amenity", "cuisine", "yes", "NULL", #""amenity"=>""#]
        var rng = SeededRandom(seed: 7)
        for _ in 0..<20_000 {
            var text = ""
            for _ in 0..<Int(rng.next() % 12) { text += pieces[Int(rng.next() % UInt64(pieces.count))] }
            var out: [String] = []
            var keys: [String] = []
            var t = text
            t.withUTF8 { splitter.split($0, mode: .hstore, separator: [0x3B], key: "col", into: &out, keys: &keys) }
            XCTAssertEqual(out.count, keys.count)
            for (k, v) in zip(keys, out) {
                XCTAssertFalse(v.isEmpty, text)
                XCTAssertTrue(k == "col" || OSMOptions.defaultKeywordKeys.contains(k), text)
                if k == "col" { XCTAssertEqual(v, text.trimmingCharacters(in: .whitespaces), text) }
            }
        }
    }

    /// Chicago's `other_tags`: `cuisine=coffee_shop` finds exactly the rows whose other_tags
    /// carry that cuisine (counted here from the raw CSV with a second reader).
    func testChicagoOtherTags() throws {
        let csv = try SharedData.require("chicago-osm-2019/chicago-2019.csv")
        let records = csvRecords(try String(contentsOfFile: csv, encoding: .utf8))
        let tagsColumn = try XCTUnwrap(records[0].firstIndex(of: "other_tags"))
        let fid = try XCTUnwrap(records[0].firstIndex(of: "FID"))
        func rows(withCuisine c: String) -> Set<String> {
            Set(
                records.dropFirst().filter { r in
                    guard let range = r[tagsColumn].range(of: #""cuisine"=>""#) else { return false }
                    let rest = r[tagsColumn][range.upperBound...]
                    let end = rest.firstIndex(of: "\"")
                    var parts = rest[..<(end ?? rest.endIndex)].split(separator: ";", omittingEmptySubsequences: false)
                    if end == nil { parts.removeLast() }  // the cell was cut inside this value
                    return parts.map { $0.trimmingCharacters(in: .whitespaces) }.contains(c)
                }.map { $0[fid] })
        }
        let expected = rows(withCuisine: "coffee_shop")
        XCTAssertGreaterThan(expected.count, 50)
        let spec =
            #"{"path": "\#(csv)", "columns": {"id": "FID", "keywords": ["fclass", "#
            + #"{"column": "other_tags", "split": "hstore"}], "lat": "lat", "lon": "lon"}}"#
        let t = try ingest(["--input-spec", spec, "--duplicates", "keep_all"], name: "chicago")
        XCTAssertEqual(Set(ids(t, "cuisine=coffee_shop")), expected)
        XCTAssertEqual(Set(ids(t, "coffee_shop")), expected, "no other keyword field says coffee_shop")
        XCTAssertEqual(Set(ids(t, "cuisine=pizza")), rows(withCuisine: "pizza"))
        XCTAssertTrue(t.keywordKeys.contains("amenity") && t.keywordKeys.contains("cuisine"), "\(t.keywordKeys)")
        XCTAssertFalse(t.keywordKeys.contains("addr:street"))
        XCTAssertEqual(ids(t, "fclass=parking").count, ids(t, "amenity=parking").count, "the two agree here")
    }

    /// The same input gives the same artifact for any thread count (keys numbered in input order).
    func testKeysAreDeterministic() throws {
        let path = scratch.write(Self.osm, name: "det.osm")
        var outputs: [[UInt8]] = []
        for threads in ["1", "2"] {
            let out = scratch.path("det-\(threads).rsa")
            try runIngest([
                path, "--osm-keyword-keys", "cuisine,parking,amenity,shop", "--output", out, "--rejects",
                scratch.path("det-\(threads).rej"), "--threads", threads,
            ])
            outputs.append(scratch.read(out))
        }
        XCTAssertEqual(outputs[0], outputs[1])
    }
}
