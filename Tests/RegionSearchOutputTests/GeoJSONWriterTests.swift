import XCTest

@testable import RegionSearchCore
@testable import RegionSearchOutput

final class GeoJSONWriterTests: XCTestCase {
    func testCoordinatesHaveAtMostSevenDecimals() {
        XCTAssertEqual(GeoJSONWriter.coordinate(24.94), "24.94")
        XCTAssertEqual(GeoJSONWriter.coordinate(-0.000000049), "0")
        XCTAssertEqual(GeoJSONWriter.coordinate(-0.00000005), "-0.0000001")
        XCTAssertEqual(GeoJSONWriter.coordinate(120.18641349), "120.1864135")
        XCTAssertEqual(GeoJSONWriter.coordinate(-179.9999999), "-179.9999999")
        XCTAssertEqual(GeoJSONWriter.coordinate(60), "60")
    }

    func testRingsAreClosedAndCounterClockwise() {
        let cw = GeoJSONWriter.normalizedRing(lon: [0, 0, 1, 1], lat: [0, 1, 1, 0])!
        XCTAssertEqual(cw.lon.first, cw.lon.last)
        XCTAssertGreaterThan(GeoJSONWriter.signedArea(lon: cw.lon, lat: cw.lat), 0)
        XCTAssertNil(GeoJSONWriter.normalizedRing(lon: [0, 0, 0], lat: [0, 0, 0]))
    }

    /// A ring is written the same whichever vertex and direction GEOS began it with: from its least
    /// vertex, counter-clockwise (a hole clockwise); a self-touching ring by the vertices after the tie.
    func testRingsStartAtTheirLeastVertexWhateverTheInputOrder() {
        // A plain ring, and two loops touching at their least vertex (0, 0).
        for (lon, lat) in [([2.0, 3, 3, 1, 1], [0.0, 1, 2, 2, 1]), ([0.0, 2, 2, 0, 1, 0], [0.0, 0, 1, 0, 2, 2])] {
            let least = zip(lon, lat).min { ($0.0, $0.1) < ($1.0, $1.1) }!
            for hole in [false, true] {
                var written: [[Double]] = []
                for start in 0..<lon.count {
                    for reversed in [false, true] {
                        var xs = Array(lon[start...] + lon[..<start])
                        var ys = Array(lat[start...] + lat[..<start])
                        if reversed {
                            xs.reverse()
                            ys.reverse()
                        }
                        let ring = GeoJSONWriter.normalizedRing(lon: xs, lat: ys, hole: hole)!
                        written.append(ring.lon + ring.lat)
                        XCTAssertEqual([ring.lon[0], ring.lat[0]], [least.0, least.1])
                        XCTAssertEqual(GeoJSONWriter.signedArea(lon: ring.lon, lat: ring.lat) < 0, hole)
                    }
                }
                XCTAssertEqual(Set(written).count, 1, "\(lon) hole \(hole): one way of writing the ring")
            }
        }
    }

    func testDocumentParsesAndKeepsForeignMembers() throws {
        let ring = GeoJSONWriter.normalizedRing(lon: [0, 1, 1], lat: [0, 0, 1])!
        let doc = GeoJSONWriter.document(
            features: [.init(rings: [ring], properties: [("name", .string("a \"b\"")), ("n", .number(3))])],
            foreignMembers: [("regionsearch", .object([("version", .string("x"))]))])
        let v = try JSONParser.parse(doc)
        XCTAssertEqual(v["type"], .string("FeatureCollection"))
        XCTAssertEqual(v["regionsearch"]?["version"], .string("x"))
        XCTAssertEqual(v["features"]?.arrayValue?.first?["properties"]?["name"], .string("a \"b\""))
        XCTAssertNil(v["crs"])
    }
}
