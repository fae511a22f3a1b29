import CGEOS
import Foundation
import XCTest

@testable import RegionSearchCore
@testable import RegionSearchIngest
@testable import RegionSearchTestSupport

final class GeoJSONReaderTests: XCTestCase {
    let scratch = IngestScratch()

    private func feature(_ id: Int, _ lon: Double, _ lat: Double, _ props: String = "") -> String {
        """
        {"type": "Feature", "id": \(id), "geometry": {"type": "Point", "coordinates": [\(lon), \(lat)]}, "properties": {"name": "n\(id)"\(props)}}
        """
    }

    func testFeatureCollectionStreamedWithMembersAroundFeatures() throws {
        let text = """
            {
              "type": "FeatureCollection",
              "name": "sample", "crs": {"type": "name", "properties": {"name": "urn:ogc:def:crs:OGC:1.3:CRS84"}},
              "features": [
                \(feature(1, 10.5, 20.5, ", \"category\": \"cafe;bar\"")),
                \(feature(2, -1.25, 2.5, ", \"tags\": [\"a\", 3, null, {\"x\": 1}]"))
              ],
              "bbox": [-1.25, 2.5, 10.5, 20.5]
            }

            """
        let reader = try geojson(scratch.write(text))
        let r = try readAll(reader)
        XCTAssertEqual(r.count, 2)
        XCTAssertEqual(r[0].record?.id, "1")
        XCTAssertEqual(r[0].record?.name, "n1")
        XCTAssertEqual(r[0].record?.keywords, ["cafe", "bar"])
        XCTAssertEqual(r[0].record?.lon, 10.5)
        XCTAssertEqual(r[0].record?.line, 5)
        XCTAssertEqual(r[1].record?.keywords, ["a", "3"])
        XCTAssertEqual(r[1].record?.lat, 2.5)
        XCTAssertEqual(r[1].record?.line, 6)
        let bytes = Array(text.utf8)
        XCTAssertEqual(bytes[Int(r[1].record!.byteOffset)], UInt8(ascii: "{"))
        XCTAssertEqual(reader.collectionsSeen, 1)
        XCTAssertEqual(reader.warnings, [])
    }

    /// A UTF-8 byte-order mark before the first value is skipped; offsets and lines count it.
    func testByteOrderMarkIsSkipped() throws {
        let text = "\u{FEFF}" + feature(1, 1, 2) + "\n" + feature(2, 3, 4) + "\n"
        let r = try readAll(geojson(scratch.write(text)))
        XCTAssertEqual(r.count, 2)
        XCTAssertEqual(r[0].record?.id, "1")
        XCTAssertEqual(r[0].record?.byteOffset, 3)
        XCTAssertEqual(r[0].record?.line, 1)
        XCTAssertEqual(r[1].record?.id, "2")
        XCTAssertEqual(r[1].record?.line, 2)
    }

    func testSequencesNewlineDelimitedArraysAndSingleFeature() throws {
        let rs = "\u{1E}"
        let seq = rs + feature(1, 1, 2) + "\n" + rs + feature(2, 3, 4) + "\n"
        XCTAssertEqual(try readAll(geojson(scratch.write(seq))).compactMap { $0.record?.id }, ["1", "2"])
        let nd = feature(1, 1, 2) + "\n" + feature(2, 3, 4) + "\r\n\n" + feature(3, 5, 6)
        let ndr = try readAll(geojson(scratch.write(nd)))
        XCTAssertEqual(ndr.compactMap { $0.record?.id }, ["1", "2", "3"])
        XCTAssertEqual(ndr[2].record?.line, 4)
        let array = "[" + feature(1, 1, 2) + ",\n" + feature(2, 3, 4) + "]"
        XCTAssertEqual(try readAll(geojson(scratch.write(array))).compactMap { $0.record?.lat }, [2, 4])
        XCTAssertEqual(try readAll(geojson(scratch.write(feature(9, 7, 8)))).first?.record?.id, "9")
        // A sequence of collections.
        let collections =
            rs + "{\"type\":\"FeatureCollection\",\"features\":[\(feature(1, 1, 2))]}\n" + rs
            + "{\"type\":\"FeatureCollection\",\"features\":[\(feature(2, 3, 4))]}\n"
        XCTAssertEqual(try readAll(geojson(scratch.write(collections))).compactMap { $0.record?.id }, ["1", "2"])
    }

    func testBadFeaturesAreRejectedWithTheirText() throws {
        let text = """
            {"type": "FeatureCollection", "features": [
            \(feature(1, 1, 2)),
            {"type": "Feature", "geometry": null, "properties": {}},
            {"type": "Feature", "geometry": {"type": "Point", "coordinates": ["a", 1]}, "properties": {}},
            {"type": "Feature", "geometry": {"type": "Point", "coordinates": [1, 2]}, "properties": {"a": 1, "a": 2}},
            {"type": "Thing"},
            [1, 2],
            {"type": "Feature", "geometry": {"type": "Curve", "coordinates": []}},
            \(feature(2, 3, 4))
            ]}
            """
        let r = try readAll(geojson(scratch.write(text)))
        XCTAssertEqual(r.count, 8)
        XCTAssertEqual(r[0].record?.id, "1")
        XCTAssertEqual(r[1].rejected?.reason, "feature has no geometry")
        XCTAssertEqual(r[1].rejected?.raw, "{\"type\": \"Feature\", \"geometry\": null, \"properties\": {}}")
        XCTAssertEqual(r[1].rejected?.line, 3)
        XCTAssertEqual(r[2].rejected?.reason, "invalid Point coordinates: a position must hold at least two numbers")
        XCTAssertTrue(
            r[3].rejected?.reason.hasPrefix("invalid JSON at line 5, column") == true, r[3].rejected?.reason ?? "")
        XCTAssertTrue(r[3].rejected?.reason.contains("duplicate member name") == true)
        XCTAssertEqual(r[4].rejected?.reason, "not a GeoJSON Feature: type \"Thing\"")
        XCTAssertEqual(r[5].rejected?.reason, "expected a GeoJSON Feature object, found array")
        XCTAssertEqual(r[6].rejected?.reason, "unsupported geometry type \"Curve\"")
        XCTAssertEqual(r[7].record?.id, "2")
    }

    func testBrokenLinesOfNewlineDelimitedInputCostOneRecordEach() throws {
        let text =
            feature(1, 1, 2) + "\n" + "{\"type\": \"Feature\", \"geometry\": {\"type\": \"Po\n" + "garbage line\n"
            + feature(2, 3, 4) + "\n"
        let r = try readAll(geojson(scratch.write(text)))
        XCTAssertEqual(r.compactMap { $0.record?.id }, ["1", "2"])
        XCTAssertEqual(r.compactMap { $0.rejected?.line }, [2, 3])
        XCTAssertEqual(r.compactMap { $0.record?.line }, [1, 4])
    }

    func testTruncatedCollectionRejectsTheLastFeatureAndBrokenEnvelopeIsAnError() throws {
        let truncated =
            "{\"type\":\"FeatureCollection\",\"features\":[" + feature(1, 1, 2) + ",{\"type\":\"Feature\",\"geometry\":"
        let r = try readAll(geojson(scratch.write(truncated)))
        XCTAssertEqual(r.count, 2)
        XCTAssertEqual(r[1].rejected?.reason, "truncated feature: the file ends inside it")
        let broken = "{\"type\":\"FeatureCollection\",\"features\":[" + feature(1, 1, 2) + " " + feature(2, 1, 2) + "]}"
        let reader = try geojson(scratch.write(broken))
        XCTAssertNotNil(try reader.next()?.record)
        XCTAssertThrowsError(try reader.next()) { error in
            XCTAssertTrue("\(error)".contains("malformed GeoJSON at line 1"), "\(error)")
            XCTAssertTrue("\(error)".contains("expected ',' or ']' between features"), "\(error)")
        }
    }

    func testPropertyMapping() throws {
        let text = """
            {"type": "Feature", "id": "f-1", "geometry": {"type": "Point", "coordinates": [1, 2, 300]},
             "properties": {"osm": 77, "title": "T", "kind": "a|b", "extra": ["x", "y"], "name": "ignored"}}
            """
        let path = scratch.write(text)
        let mapped = try readAll(
            geojson(
                path,
                """
                "columns": {"id": "osm", "name": "title", "keywords": [{"column": "kind", "split": "hierarchy", "separator": "|"}, "extra"]}
                """))
        XCTAssertEqual(mapped[0].record?.id, "77")
        XCTAssertEqual(mapped[0].record?.name, "T")
        XCTAssertEqual(mapped[0].record?.keywords, ["a", "b", "x", "y"])
        let defaults = try readAll(geojson(path))
        XCTAssertEqual(defaults[0].record?.id, "f-1")
        XCTAssertEqual(defaults[0].record?.name, "ignored")
        XCTAssertEqual(defaults[0].record?.keywords, ["a|b"], "the first guessed keyword property is 'kind'")
    }

    func testLargeCollectionAcrossBufferRefillsAndGzip() throws {
        var text = "{\"type\":\"FeatureCollection\",\"features\":[\n"
        let n = 5_000
        for k in 0..<n {
            let padding = k == 2500 ? 1_500_000 : (k % 1000 == 0 ? 300_000 : 0)
            let big = padding > 0 ? ", \"pad\": \"" + String(repeating: "p", count: padding) + "\"" : ""
            text += feature(k, Double(k) / 100, Double(k % 90), big) + (k + 1 < n ? ",\n" : "\n")
        }
        text += "]}\n"
        let path = scratch.write(text)
        XCTAssertGreaterThan(text.utf8.count, 2 << 20, "larger than the 1 MiB buffer, with one feature longer than it")
        for p in [path, try scratch.gzip(path)] {
            let r = try readAll(geojson(p))
            XCTAssertEqual(r.count, n, p)
            XCTAssertEqual(r.compactMap { $0.record?.id }.last, String(n - 1), p)
            XCTAssertEqual(r[n - 1].record?.lon, Double(n - 1) / 100, p)
            XCTAssertEqual(r[n - 1].record?.line, UInt64(n + 1), p)
        }
    }

    func testFormatDetection() throws {
        func detect(_ s: String) throws -> InputSpec.Format { try InputFormatDetector.detect(Array(s.utf8), path: "t") }
        XCTAssertEqual(try detect("\u{FEFF}  \n{\"type\""), .geojson)
        XCTAssertEqual(try detect("[{"), .geojson)
        XCTAssertEqual(try detect("\u{1E}{"), .geojson)
        XCTAssertEqual(try detect("<?xml version='1.0'?><osm>"), .osmXML)
        XCTAssertEqual(try detect("<osm version"), .osmXML)
        XCTAssertEqual(try detect("id,name\n"), .csv)
        XCTAssertEqual(try detect(""), .csv)
        let pbf: [UInt8] = [0, 0, 0, 0x0D, 0x0A, 0x09] + Array("OSMHeader".utf8) + [0x18]
        XCTAssertEqual(try InputFormatDetector.detect(pbf, path: "t"), .osmPBF)
        // The real PBF extract is recognised.
        let helsinki = SharedData.path("helsinki-center-osm/Helsinki.osm.pbf")
        if let data = FileManager.default.contents(atPath: helsinki) {
            XCTAssertEqual(try InputFormatDetector.detect(Array(data.prefix(64)), path: "t"), .osmPBF)
        }
    }
}

/// The representative-point rules, checked against closed forms and against GEOS.
final class RepresentativePointTests: XCTestCase {
    private func point(_ json: String) -> RepresentativePoint.Outcome {
        RepresentativePoint.of(try! JSONParser.parse(json))
    }

    func testSimpleGeometries() {
        XCTAssertEqual(point(#"{"type":"Point","coordinates":[1,2]}"#), .point(lon: 1, lat: 2))
        XCTAssertEqual(point(#"{"type":"MultiPoint","coordinates":[[0,0],[10,0],[4,1]]}"#), .point(lon: 4, lat: 1))
        XCTAssertEqual(point(#"{"type":"LineString","coordinates":[[0,0],[2,0],[2,2]]}"#), .point(lon: 2, lat: 0))
        XCTAssertEqual(point(#"{"type":"LineString","coordinates":[[0,0],[4,0]]}"#), .point(lon: 2, lat: 0))
        XCTAssertEqual(
            point(#"{"type":"MultiLineString","coordinates":[[[0,0],[1,0]],[[0,5],[0,9]]]}"#), .point(lon: 0, lat: 7))
        XCTAssertEqual(
            point(#"{"type":"Polygon","coordinates":[[[0,0],[4,0],[4,2],[0,2],[0,0]]]}"#), .point(lon: 2, lat: 1))
        XCTAssertEqual(
            point(
                #"{"type":"MultiPolygon","coordinates":[[[[0,0],[1,0],[1,1],[0,0]]],[[[10,10],[14,10],[14,14],[10,14],[10,10]]]]}"#
            ),
            .point(lon: 12, lat: 12))
        XCTAssertEqual(
            point(
                #"{"type":"GeometryCollection","geometries":[{"type":"Point","coordinates":[9,9]},{"type":"LineString","coordinates":[[0,0],[0,2]]}]}"#
            ),
            .point(lon: 0, lat: 1))
        XCTAssertEqual(point(#"{"type":"Point","coordinates":[]}"#), .failure("empty Point"))
        XCTAssertEqual(point(#"{"type":"MultiPoint","coordinates":[]}"#), .failure("empty MultiPoint"))
        XCTAssertEqual(point(#"{"type":"GeometryCollection","geometries":[]}"#), .failure("empty GeometryCollection"))
        XCTAssertEqual(point(#"{"type":"Polygon"}"#), .failure("Polygon without coordinates"))
    }

    /// A ring-shaped polygon (square with a square hole): its centroid lies in the hole, so the
    /// scan-line rule must give a point inside the ring, which GEOS confirms.
    func testCentroidInHoleFallsBackToAnInsidePoint() throws {
        let json =
            #"{"type":"Polygon","coordinates":[[[0,0],[10,0],[10,10],[0,10],[0,0]],[[2,2],[8,2],[8,8],[2,8],[2,2]]]}"#
        guard case .point(let x, let y) = point(json) else { return XCTFail("no point") }
        XCTAssertEqual(y, 5)
        XCTAssertEqual(x, 1, "middle of the widest inside interval [0,2] or [8,10] (the first)")
        XCTAssertTrue(try geosContains("POLYGON((0 0,10 0,10 10,0 10,0 0),(2 2,8 2,8 8,2 8,2 2))", x, y))
    }

    /// Random star-shaped and C-shaped polygons: the point is always inside (GEOS as referee).
    func testRandomPolygonsGiveInsidePoints() throws {
        var rng = SeededRandom(seed: 42)
        for trial in 0..<200 {
            let n = Int.random(in: 5...14, using: &rng)
            var ring: [(Double, Double)] = []
            let cx = Double.random(in: -170...170, using: &rng)
            let cy = Double.random(in: -80...80, using: &rng)
            for k in 0..<n {
                let a = Double(k) / Double(n) * 2 * .pi
                // Deep notches make many centroids fall outside.
                let r =
                    (k % 2 == 0 ? 1.0 : Double.random(in: 0.05...0.5, using: &rng))
                    * Double.random(in: 0.001...1, using: &rng)
                ring.append((cx + r * cos(a), cy + r * sin(a)))
            }
            if trial % 3 == 0 { ring = ring.map { ($0.0, $0.1) }.reversed() }
            ring.append(ring[0])
            let coords = ring.map { "[\($0.0),\($0.1)]" }.joined(separator: ",")
            guard case .point(let x, let y) = point(#"{"type":"Polygon","coordinates":[[\#(coords)]]}"#) else {
                return XCTFail("no point for trial \(trial)")
            }
            let wkt = "POLYGON((" + ring.map { "\($0.0) \($0.1)" }.joined(separator: ",") + "))"
            XCTAssertTrue(try geosContains(wkt, x, y), "trial \(trial): \(x) \(y) not inside \(wkt)")
        }
    }

    private func geosContains(_ wkt: String, _ x: Double, _ y: Double) throws -> Bool {
        let ctx = GEOS_init_r()
        defer { GEOS_finish_r(ctx) }
        let reader = GEOSWKTReader_create_r(ctx)
        defer { GEOSWKTReader_destroy_r(ctx, reader) }
        let poly = try XCTUnwrap(GEOSWKTReader_read_r(ctx, reader, wkt))
        defer { GEOSGeom_destroy_r(ctx, poly) }
        let p = try XCTUnwrap(GEOSWKTReader_read_r(ctx, reader, "POINT(\(x) \(y))"))
        defer { GEOSGeom_destroy_r(ctx, p) }
        return GEOSContains_r(ctx, poly, p) == 1
    }
}
