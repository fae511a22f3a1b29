import Foundation
import XCTest

@testable import RegionSearchIngest

final class OSMXMLReaderTests: XCTestCase {
    private func read(_ text: String, options: OSMOptions = OSMOptions()) throws -> (
        results: [ReadResult], counts: OSMElementCounts
    ) {
        try read(bytes: Array(text.utf8), options: options)
    }

    private func read(bytes: [UInt8], options: OSMOptions = OSMOptions()) throws -> (
        results: [ReadResult], counts: OSMElementCounts
    ) {
        let dir = try OSMTestSupport.temporaryDirectory(self)
        let path = dir + "/test.osm"
        try OSMTestSupport.write(bytes, to: path)
        return try OSMTestSupport.readXML(path, options: options)
    }

    func testSmallWorld() throws {
        let text = OSMSmallWorld.xml()
        let (results, counts) = try read(text)
        XCTAssertEqual(counts, OSMSmallWorld.counts)
        let order = results.map { r -> String in
            switch r {
            case .record(let x): return x.id
            case .rejected(let x): return "rejected:" + x.reason
            }
        }
        XCTAssertEqual(order, OSMSmallWorld.expectedOrder)
        let bytes = Array(text.utf8)
        for r in OSMTestSupport.records(results) {
            let e = OSMSmallWorld.expectedRecords.first { $0.id == r.id }!
            XCTAssertEqual(r.name, e.name, r.id)
            XCTAssertEqual(r.keywords, e.keywords, r.id)
            XCTAssertEqual(r.lon, e.lon, accuracy: 1e-9, r.id)
            XCTAssertEqual(r.lat, e.lat, accuracy: 1e-9, r.id)
            // line and byte offset of the element's start tag, found by searching the text.
            let parts = r.id.split(separator: "/")
            let needle = Array("<\(parts[0]) id=\"\(parts[1])\"".utf8)
            let offset = (0...(bytes.count - needle.count)).first { Array(bytes[$0..<$0 + needle.count]) == needle }!
            XCTAssertEqual(r.byteOffset, UInt64(offset), r.id)
            XCTAssertEqual(r.line, UInt64(bytes[..<offset].filter { $0 == 0x0A }.count + 1), r.id)
        }
        let rejects = OSMTestSupport.rejects(results)
        XCTAssertEqual(rejects.map { $0.reason }, OSMSmallWorld.expectedRejects.map { $0.reason })
        XCTAssertEqual(rejects.map { $0.raw }, OSMSmallWorld.expectedRejects.map { $0.raw })
    }

    /// Entities, character references, attribute-value normalisation, quoting styles, comments,
    /// CDATA, DOCTYPE, a byte-order mark and CRLF line ends.
    func testXMLSyntax() throws {
        let text =
            "\u{FEFF}<?xml version=\"1.0\" encoding=\"UTF-8\"?>\r\n"
            + "<!DOCTYPE osm>\r\n"
            + "<!-- a comment with <node id=\"99\"> inside -->\r\n"
            + "<osm version='0.6'>\r\n"
            + "  <bounds minlat=\"1\" minlon=\"2\" maxlat=\"3\" maxlon=\"4\"/>\r\n"
            + "  <node id = '1'  lat=\"60.5\"\r\n lon=\"24.25\" >\r\n"
            + "    <tag k=\"name\" v=\"A&amp;B &lt;&gt; &quot;q&quot; "
            + "&apos;s&apos; caf&#233; &#xE9;&#x1F355; a>b\"/>\r\n"
            + "    <tag k='amenity' v='restaurant'/>\r\n"
            + "    <tag k=\"cuisine\" v=\"pizza;&#10;kebab\tfries\"/>\r\n"
            + "    <![CDATA[ <tag k=\"shop\" v=\"no\"/> ]]>\r\n"
            + "  </node>\r\n"
            + "  <node id=\"2\" lat=\"1\" lon=\"2\"><tag k=\"shop\" v=\"bakery\"></tag></node>\r\n"
            + "</osm>\r\n"
        let (results, counts) = try read(text)
        XCTAssertEqual(counts.nodes, 2)
        let records = OSMTestSupport.records(results)
        XCTAssertEqual(records.count, 2)
        XCTAssertEqual(records[0].name, "A&B <> \"q\" 's' café é🍕 a>b")
        // `&#10;` is a real line feed, the literal tab is normalised to a space.
        XCTAssertEqual(records[0].keywords, ["restaurant", "pizza", "\nkebab fries"])
        XCTAssertEqual(records[0].lat, 60.5)
        XCTAssertEqual(records[0].lon, 24.25)
        XCTAssertEqual(records[0].line, 6)
        XCTAssertEqual(records[1].keywords, ["bakery"])
        XCTAssertEqual(records[1].line, 13)
    }

    /// Ways before nodes (unsorted files) still find their nodes; nodes still come first.
    func testWaysBeforeNodes() throws {
        let text = """
            <osm>
              <way id="5"><nd ref="3"/><nd ref="4"/><tag k="amenity" v="bench"/></way>
              <relation id="9"><member type="way" ref="5" role=""/></relation>
              <node id="4" lat="1" lon="3"/>
              <node id="3" lat="1" lon="1"/>
              <node id="6" lat="0" lon="0"><tag k="office" v="company"/></node>
            </osm>
            """
        let (results, counts) = try read(text)
        XCTAssertEqual(counts.nodes, 3)
        XCTAssertEqual(counts.ways, 1)
        XCTAssertEqual(counts.relations, 1)
        let records = OSMTestSupport.records(results)
        XCTAssertEqual(records.map { $0.id }, ["node/6", "way/5"])
        XCTAssertEqual(records[1].lon, 2, accuracy: 1e-12)
        XCTAssertEqual(records[1].lat, 1, accuracy: 1e-12)
    }

    func testEmptyFiles() throws {
        for text in ["<osm/>", "<?xml version=\"1.0\"?>\n<osm version=\"0.6\">\n</osm>\n"] {
            let (results, counts) = try read(text)
            XCTAssertTrue(results.isEmpty)
            XCTAssertEqual(counts, OSMElementCounts())
        }
    }

    func testDeletedElementsAreSkipped() throws {
        let text = """
            <osm>
              <node id="1" visible="false" version="3"><tag k="amenity" v="cafe"/></node>
              <node id="2" lat="1" lon="1" action="delete"><tag k="amenity" v="cafe"/></node>
              <node id="3" lat="1" lon="1" visible="true"><tag k="amenity" v="cafe"/></node>
              <way id="4" action="delete"><nd ref="3"/><tag k="shop" v="mall"/></way>
            </osm>
            """
        let (results, counts) = try read(text)
        XCTAssertEqual(OSMTestSupport.records(results).map { $0.id }, ["node/3"])
        XCTAssertEqual(counts.deleted, 3)
        XCTAssertEqual(counts.nodes, 3)
        XCTAssertEqual(counts.poiNodes, 1)
        XCTAssertEqual(counts.poiWays, 0)
    }

    func testUnusableElementsAreRejected() throws {
        let text = """
            <osm>
              <node id="1" lon="24.0"><tag k="amenity" v="cafe"/></node>
              <node id="x1" lat="1" lon="2"><tag k="amenity" v="cafe"/></node>
              <node id="3" lat="north" lon="2"><tag k="amenity" v="cafe"/></node>
              <node id="4" lat="1" lon="-180.5"><tag k="amenity" v="cafe"/></node>
              <node id="5" lat="1" lon="2"/>
              <way id="6"><nd ref="5"/><nd ref="five"/><tag k="shop" v="kiosk"/></way>
              <way id="7"><tag k="shop" v="kiosk"/></way>
              <way id="8"><nd ref="5"/><tag k="shop" v="kiosk"/></way>
            </osm>
            """
        let (results, counts) = try read(text)
        let rejects = OSMTestSupport.rejects(results)
        XCTAssertEqual(
            rejects.map { $0.reason },
            [
                "missing or invalid coordinates: lat (missing), lon 24.0",
                "missing or invalid node id \"x1\"",
                "missing or invalid coordinates: lat \"north\", lon 2.0",
                "invalid coordinates: lat 1.0, lon -180.5",
                "invalid node ref \"five\"",
                "way has no node refs",
            ])
        XCTAssertEqual(rejects.map { $0.line }, [2, 3, 4, 5, 7, 8])
        XCTAssertEqual(rejects[0].raw, "node/1 [amenity=cafe] at lat (missing), lon 24.0")
        XCTAssertEqual(rejects[4].raw, "way/6 [shop=kiosk], 1 node ref")
        // A one-node way is its node.
        XCTAssertEqual(OSMTestSupport.records(results).map { "\($0.id) \($0.lon) \($0.lat)" }, ["way/8 2.0 1.0"])
        XCTAssertEqual(counts.rejectedNodes, 4)
        XCTAssertEqual(counts.rejectedWays, 2)
    }

    func testInvalidUTF8IsRejected() throws {
        var bytes = Array(
            "<osm><node id=\"1\" lat=\"1\" lon=\"1\"><tag k=\"amenity\" v=\"cafe\"/><tag k=\"name\" v=\"".utf8)
        bytes += [0x41, 0xFF]
        bytes += Array("\"/></node></osm>".utf8)
        let (results, _) = try read(bytes: bytes)
        XCTAssertEqual(OSMTestSupport.rejects(results).map { $0.reason }, ["invalid UTF-8 in the value of tag 'name'"])
    }

    /// A value longer than the tokenizer's initial buffer, split across reads.
    func testLongValues() throws {
        let long = String(repeating: "Ä", count: 300_000)
        let text =
            "<osm>\n" + String(repeating: "<node id=\"1\" lat=\"1\" lon=\"1\"/>\n", count: 5_000)
            + "<node id=\"2\" lat=\"2\" lon=\"3\"><tag k=\"shop\" "
            + "v=\"x\"/><tag k=\"name\" v=\"\(long)\"/></node>\n</osm>\n"
        let (results, counts) = try read(text)
        XCTAssertEqual(counts.nodes, 5_001)
        let records = OSMTestSupport.records(results)
        XCTAssertEqual(records.first?.name, long)
        XCTAssertEqual(records.first?.line, 5_002)
    }

    private func expectError(_ text: String, _ fragments: [String], file: StaticString = #filePath, line: UInt = #line)
        throws
    {
        do {
            _ = try read(text)
            XCTFail("expected an error for: \(text.prefix(80))", file: file, line: line)
        } catch let error as InputError {
            XCTAssertEqual(error.exitStatus, .inputData, file: file, line: line)
            for f in fragments {
                XCTAssertTrue(
                    error.description.contains(f), "'\(f)' not in: \(error.description)", file: file, line: line)
            }
        }
    }

    func testMalformedXMLIsAFileError() throws {
        try expectError(
            "<osm>\n<node id=\"1\" lat=\"1\" lon=\"1\">\n</way>\n</osm>",
            ["line 3 (byte 36)", "</way> does not match <node> opened at line 2"])
        try expectError("<osm>\n<node id=\"1\" lat=\"1\" lon=\"1\">\n", ["before <node> opened at line 2 is closed"])
        try expectError(
            "<osm><node id=\"1\" lat=\"1\" lon=\"1\"><tag k=\"a\" v=\"&nbsp;\"/></node></osm>",
            ["unknown entity &nbsp;"])
        try expectError(
            "<osm><node id=\"1\" lat=\"1\" lon=\"1\"><tag k=\"a\" v=\"&#0;\"/></node></osm>",
            ["not an allowed XML character"])
        try expectError(
            "<osm><node id=\"1\" lat=\"1\" lon=\"1\"><tag k=\"a\" v=\"&#xD800;\"/></node></osm>",
            ["not an allowed XML character"])
        try expectError(
            "<osm><node id=\"1\" lat=\"1\" lon=\"1\"><tag k=\"a\" v=\"a & b\"/></node></osm>",
            ["'&' not starting an entity"])
        try expectError("<osm><node id=1/></osm>", ["attribute value not in quotes"])
        try expectError("<osm><node id=\"1\"lat=\"2\"/></osm>", ["separated by white space"])
        try expectError("<osm><node id=\"<\"/></osm>", ["'<' inside an attribute value"])
        try expectError("<osm><tag k=\"a\"/><node id=\"1\"><tag k=\"a\"/></node></osm>", ["<tag> without a k or v"])
        try expectError("<gpx version=\"1.1\"></gpx>", ["not an OSM XML file: root element is <gpx>, expected <osm>"])
        try expectError("<osmChange version=\"0.6\"></osmChange>", ["osmChange"])
        try expectError("id,name\n1,a\n", ["line 1 (byte 0)", "not an XML file"])
        try expectError("", ["no XML element"])
        try expectError("<osm></osm><osm></osm>", ["second root element"])
        try expectError("<osm></osm>trailing", ["text after the root element"])
        try expectError("<osm><!-- never closed </osm>", ["comment is not closed"])
        try expectError(
            "<osm><node id=\"1\" lat=\"1\" lon=\"1\" name=\"" + String(repeating: "x", count: 1_100_000),
            ["markup longer than 1 MiB"])
    }
}
