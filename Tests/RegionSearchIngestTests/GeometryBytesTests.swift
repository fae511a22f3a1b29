import Foundation
import XCTest

@testable import RegionSearchCore
@testable import RegionSearchIngest
@testable import RegionSearchTestSupport

/// The byte-level geometry reader against the JSON one: the same point, bit for bit, for every
/// geometry it takes, and nil (so that the JSON path reports) for everything else.
final class GeometryBytesTests: XCTestCase {
    private func viaJSON(_ text: String) -> RepresentativePoint.Outcome {
        guard let v = try? JSONParser.parse(text) else { return .failure("invalid JSON") }
        return RepresentativePoint.of(v)
    }

    private func viaBytes(_ text: String) -> RepresentativePoint.Outcome? {
        var t = text
        return t.withUTF8 { GeometryBytes.shape($0) }.map { RepresentativePoint.of($0) }
    }

    private func number(_ rng: inout SeededRandom) -> String {
        let d = Double.random(in: -180...180, using: &rng)
        switch Int.random(in: 0..<4, using: &rng) {
        case 0: return String(format: "%.7f", d)
        case 1: return String(Int(d))
        case 2: return String(format: "%.3e", d)
        default: return "\(d)"
        }
    }

    private func position(_ rng: inout SeededRandom) -> String {
        let extra = Int.random(in: 0..<5, using: &rng) == 0 ? ", " + number(&rng) : ""
        return "[\(number(&rng)),\(number(&rng))\(extra)]"
    }

    private func list(_ n: Int, _ element: () -> String) -> String {
        "[" + (0..<n).map { _ in element() }.joined(separator: ", ") + "]"
    }

    private func geometry(_ rng: inout SeededRandom, depth: Int = 0) -> String {
        func count() -> Int { Int.random(in: 0..<6, using: &rng) }
        let type = [
            "Point", "MultiPoint", "LineString", "MultiLineString", "Polygon", "MultiPolygon", "GeometryCollection",
        ]
        .randomElement(using: &rng)!
        let coordinates: String
        switch type {
        case "Point": coordinates = position(&rng)
        case "MultiPoint", "LineString": coordinates = list(count()) { position(&rng) }
        case "MultiLineString", "Polygon": coordinates = list(count()) { list(count()) { position(&rng) } }
        case "MultiPolygon": coordinates = list(count()) { list(count()) { list(count() + 2) { position(&rng) } } }
        default:
            let members = depth < 2 ? list(count()) { geometry(&rng, depth: depth + 1) } : "[]"
            return #"{"type": "GeometryCollection", "geometries": \#(members)}"#
        }
        let bbox = Int.random(in: 0..<4, using: &rng) == 0 ? #", "bbox": [0, 0, 1, 1]"# : ""
        return Bool.random(using: &rng)
            ? #"{"type": "\#(type)", "coordinates": \#(coordinates)\#(bbox)}"#
            : #"{"coordinates": \#(coordinates), "type":"\#(type)"\#(bbox)}"#
    }

    func testRandomGeometriesGiveTheSamePointBothWays() {
        var rng = SeededRandom(seed: 4_242)
        var taken = 0
        for k in 0..<3_000 {
            let text = geometry(&rng)
            let expected = viaJSON(text)
            guard let fast = viaBytes(text) else {
                // Only what the JSON path rejects, or positions with a third member, fall back.
                if case .point = expected {
                    XCTAssertTrue(
                        text.contains("bbox")
                            || text.range(of: #"\[[^\[\]]*,[^\[\]]*,"#, options: .regularExpression) != nil, text)
                }
                continue
            }
            taken += 1
            XCTAssertEqual(fast, expected, "geometry \(k): \(text)")
        }
        XCTAssertGreaterThan(taken, 1_000, "the fast path takes most valid geometries")
    }

    func testAnythingOddFallsBackToTheJSONPath() {
        let odd = [
            #"{"type": "Point", "coordinates": []}"#, #"{"type": "Point", "coordinates": [1]}"#,
            #"{"type": "Point", "coordinates": [1, "2"]}"#, #"{"type": "Point", "coordinates": [1, 2, null]}"#,
            #"{"type": "Point", "type": "Point", "coordinates": [1, 2]}"#, #"{"type": "Curve", "coordinates": []}"#,
            #"{"type": "Point", "coordinates": [1, 2],}"#, #"{"type": "Polygon", "coordinates": [[]]}"#,
            #"{"type": "MultiLineString", "coordinates": [[], []]}"#, #"{"coordinates": [1, 2]}"#,
            #"{"type": "Point", "coordinates": [01, 2]}"#, #"{"type": "GeometryCollection", "geometries": []}"#,
            #"{"type": "Point", "coordinates": [1, 2]} x"#,
        ]
        for text in odd { XCTAssertNil(viaBytes(text), text) }
        XCTAssertEqual(
            viaBytes(#" {"type": "Point", "coordinates": [1, 2, 3], "crs": {"a": [1]}} "#), .point(lon: 1, lat: 2))
    }

    func testFeatureBytesKeepsTheOtherMembers() throws {
        var text =
            #"{"type": "Feature", "id": 7, "geometry": {"type": "Point", "coordinates": [1, 2]}, "properties": {"a": [1, 2]}}"#
        let parsed = try XCTUnwrap(text.withUTF8 { FeatureBytes.parse($0) })
        XCTAssertEqual(parsed.0.map(\.0), ["type", "id", "geometry", "properties"])
        XCTAssertEqual(JSONValue.object(parsed.0)["properties"], try JSONParser.parse(#"{"a": [1, 2]}"#))
        var duplicate = #"{"type": "Feature", "type": "Feature", "geometry": {"type": "Point", "coordinates": [1, 2]}}"#
        XCTAssertNil(duplicate.withUTF8 { FeatureBytes.parse($0) })
    }
}

/// The reader takes the positions path for large features, with the same point as the JSON path.
final class GeoJSONLargeFeatureTests: XCTestCase {
    let scratch = IngestScratch()

    func testLargeFeaturesInEveryLayoutGiveTheJSONPathsPoint() throws {
        var ring: [String] = []
        for k in 0..<10_000 {
            let a = 2 * Double.pi * Double(k) / 10_000
            ring.append("[\(24.9 + 0.01 * cos(a) * (1 + 0.3 * sin(7 * a))),\(60.1 + 0.01 * sin(a))]")
        }
        ring.append(ring[0])
        let geometry = #"{"type":"Polygon","coordinates":[[\#(ring.joined(separator: ","))]]}"#
        XCTAssertGreaterThan(geometry.utf8.count, GeoJSONReader.positionsThreshold)
        guard case .point(let lon, let lat) = RepresentativePoint.of(try JSONParser.parse(geometry)) else {
            return XCTFail("polygon not read")
        }
        let feature = #"{"type":"Feature","id":1,"properties":{"name":"big"},"geometry":\#(geometry)}"#
        for text in [
            #"{"type":"FeatureCollection","features":[\#(feature)]}"#, feature + "\n" + feature,
            "\u{1E}" + feature + "\n", "[" + feature + "]",
        ] {
            let records = try readAll(geojson(scratch.write(text))).compactMap(\.record)
            XCTAssertFalse(records.isEmpty)
            for r in records {
                XCTAssertEqual(r.lon, lon)
                XCTAssertEqual(r.lat, lat)
                XCTAssertEqual(r.name, "big")
            }
        }
    }
}
