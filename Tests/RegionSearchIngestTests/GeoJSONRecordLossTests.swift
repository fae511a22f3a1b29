import Foundation
import XCTest

@testable import RegionSearchIngest
@testable import RegionSearchTestSupport

/// GeoJSON records that were lost or merged without a trace.
final class GeoJSONRecordLossTests: XCTestCase {
    let scratch = IngestScratch()

    private func point(_ id: String, _ extra: String = "") -> String {
        #"{"type":"Feature","id":\#(id),"geometry":{"type":"Point","coordinates":[1,2]},"properties":{}\#(extra)}"#
    }

    func testAFeatureWithAFeaturesMemberIsReadOrRejectedNeverDropped() throws {
        // type first: `features` is a foreign member of the feature, which is read.
        let typeFirst = point("1", #","features":[1,2]"#)
        let r1 = try readAll(geojson(scratch.write(typeFirst)))
        XCTAssertEqual(r1.compactMap { $0.record?.id }, ["1"])
        // features first: the elements are read as features, the outer one is rejected, counted.
        let featuresFirst =
            #"{"features":[\#(point("2"))],"type":"Feature","geometry":{"type":"Point","coordinates":[1,2]}}"#
        let r2 = try readAll(geojson(scratch.write(featuresFirst)))
        XCTAssertEqual(r2.compactMap { $0.record?.id }, ["2"])
        XCTAssertEqual(r2.compactMap { $0.rejected }.count, 1)
        XCTAssertTrue(r2.compactMap { $0.rejected?.reason }.first?.contains("\"features\" member") ?? false)
    }

    func testIdsBeyond2To53KeepEveryDigit() throws {
        let text =
            point("9007199254740993") + "\n" + point("9007199254740992") + "\n" + point("-9007199254740995") + "\n"
            + #"{"type":"Feature","geometry":{"type":"Point","coordinates":[1,2]},"properties":{"id":18446744073709551617}}"#
            + "\n" + point("12")
        let ids = try readAll(geojson(scratch.write(text))).compactMap { $0.record?.id }
        XCTAssertEqual(
            ids, ["9007199254740993", "9007199254740992", "-9007199254740995", "18446744073709551617", "12"])
        // With the id in a named property.
        let named =
            #"{"type":"Feature","geometry":{"type":"Point","coordinates":[1,2]},"properties":{"a":[1,{"b":2}],"osm_id":9007199254740993}}"#
        let r = try readAll(geojson(scratch.write(named), #""columns": {"id": "osm_id"}"#))
        XCTAssertEqual(r.first?.record?.id, "9007199254740993")
        XCTAssertEqual(
            GeoJSONReader.numberLiteral(in: #"{"x": "9", "id" : 123456789012345678901}"#, path: ["id"]),
            "123456789012345678901")
        XCTAssertNil(GeoJSONReader.numberLiteral(in: #"{"id": 1.5e20}"#, path: ["id"]))
    }

    func testBareGeometriesAreFeaturesWithoutProperties() throws {
        let text =
            #"{"type":"Point","coordinates":[24.9,60.1]}"# + "\n"
            + #"{"type":"Polygon","coordinates":[[[0,0],[2,0],[2,2],[0,2],[0,0]]]}"# + "\n"
        let r = try readAll(geojson(scratch.write(text)))
        XCTAssertEqual(r.compactMap { $0.record?.lon }, [24.9, 1])
        XCTAssertEqual(r.compactMap { $0.record?.lat }, [60.1, 1])
        // Inside a collection only Features are features.
        let collection = #"{"type":"FeatureCollection","features":[{"type":"Point","coordinates":[1,2]}]}"#
        XCTAssertEqual(
            try readAll(geojson(scratch.write(collection))).compactMap { $0.rejected?.reason },
            [#"not a GeoJSON Feature: type "Point""#])
    }

    func testAFileHoldingNullIsJSONNotCSV() throws {
        XCTAssertEqual(try InputFormatDetector.detect(Array("null\n".utf8), path: "n.json"), .geojson)
        XCTAssertEqual(try InputFormatDetector.detect(Array("nullable,id\n1,2\n".utf8), path: "n.csv"), .csv)
        let path = scratch.write("null\n")
        let input = try OpenedInput.open(InputSpec(path: path))
        XCTAssertEqual(input.format, .geojson)
        XCTAssertEqual(try readAll(input.source).compactMap { $0.rejected }.count, 1)
    }
}
