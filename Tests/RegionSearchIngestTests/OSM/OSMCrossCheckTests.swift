import Foundation
import XCTest

/// The two readers against each other, with osmium (libosmium, Debian `osmium-tool`) converting
/// between the formats — an independent PBF decoder and XML writer/parser.
final class OSMCrossCheckTests: XCTestCase {
    /// Helsinki PBF → osmium → XML (plain and gzip): both readers yield identical records and
    /// rejects, and the same counts.
    func testHelsinkiXMLMatchesPBF() throws {
        let dir = try OSMTestSupport.temporaryDirectory(self)
        let pbf = try OSMTestSupport.readPBF(OSMTestSupport.helsinkiPBF)
        for name in ["helsinki.osm", "helsinki.osm.gz"] {
            let path = dir + "/" + name
            try OSMTestSupport.osmium(["cat", OSMTestSupport.helsinkiPBF, "-o", path])
            let xml = try OSMTestSupport.readXML(path)
            XCTAssertEqual(xml.counts, pbf.counts, name)
            XCTAssertEqual(xml.results.count, 2_124, name)
            OSMTestSupport.assertSameResults(pbf.results, xml.results, name)
        }
    }

    /// The hand-made XML → osmium → PBF (dense and plain nodes, zlib and uncompressed): the PBF
    /// reader on osmium's files gives what the XML reader gives on the original, and the XML
    /// reader on osmium's XML rendering of our own PBF writer's file agrees too.
    func testSmallWorldThroughOsmium() throws {
        let dir = try OSMTestSupport.temporaryDirectory(self)
        let source = dir + "/small.osm"
        try OSMTestSupport.write(OSMSmallWorld.xml(), to: source)
        let reference = try OSMTestSupport.readXML(source)
        XCTAssertEqual(reference.counts, OSMSmallWorld.counts)

        let variants = [
            ("dense.osm.pbf", "pbf"),
            ("plain.osm.pbf", "pbf,pbf_dense_nodes=false"),
            ("raw.osm.pbf", "pbf,pbf_compression=none"),
        ]
        for (name, format) in variants {
            let path = dir + "/" + name
            try OSMTestSupport.osmium(["cat", source, "-f", format, "-o", path])
            let pbf = try OSMTestSupport.readPBF(path)
            XCTAssertEqual(pbf.counts, reference.counts, name)
            OSMTestSupport.assertSameResults(reference.results, pbf.results, name)
        }

        let ours = dir + "/ours.osm.pbf"
        try OSMTestSupport.write(OSMSmallWorld.pbf(dense: true), to: ours)
        let back = dir + "/ours.osm"
        try OSMTestSupport.osmium(["cat", ours, "-o", back])
        let viaOsmium = try OSMTestSupport.readXML(back)
        OSMTestSupport.assertSameResults(reference.results, viaOsmium.results, "test writer → osmium → XML")
    }
}
