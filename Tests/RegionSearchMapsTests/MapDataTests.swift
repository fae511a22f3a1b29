import Foundation
import RegionSearchCore
import XCTest

@testable import RegionSearchEvaluation
@testable import RegionSearchMaps
@testable import RegionSearchModel
@testable import RegionSearchTestSupport

/// What colours a region: its keyword density, read or counted; and which ramp each keyword gets.
final class MapDataTests: XCTestCase {
    let square = MapFixtures.Square(
        lon: 24.95, lat: 60.17, halfLon: 0.002, halfLat: 0.001, keyword: "cafe", rank: 1, density: nil)

    /// Area of a lon/lat rectangle on the WGS84 ellipsoid, in closed form:
    /// A = b²·Δλ/2 · [q(φ₂) − q(φ₁)], q(φ) = sinφ/(1 − e²sin²φ) + ln((1 + e·sinφ)/(1 − e·sinφ))/(2e).
    func ellipsoidArea(_ s: MapFixtures.Square) -> Double {
        let a = 6_378_137.0
        let f = 1 / 298.257_223_563
        let b = a * (1 - f)
        let e = (f * (2 - f)).squareRoot()
        let rad = Double.pi / 180
        func q(_ phi: Double) -> Double {
            let x = sin(phi * rad)
            return x / (1 - e * e * x * x) + log((1 + e * x) / (1 - e * x)) / (2 * e)
        }
        return b * b * (2 * s.halfLon * rad) / 2 * (q(s.lat + s.halfLat) - q(s.lat - s.halfLat))
    }

    func testDensityIsCountedFromTheKeywordPOIsInsideThePolygon() throws {
        var points: [(lon: Double, lat: Double, keywords: String)] = []
        for i in 0..<12 {  // inside, matching
            points.append((square.lon - 0.0015 + 0.00025 * Double(i), square.lat + 0.0004 * Double(i % 3 - 1), "Cafe"))
        }
        // Inside, not matching.
        for i in 0..<4 { points.append((square.lon + 0.0002 * Double(i), square.lat, "bakery")) }
        for i in 0..<5 { points.append((square.lon + 0.003 + 0.0001 * Double(i), square.lat, "cafe")) }  // outside
        let data = try MapFixtures.data([square], pois: MapFixtures.pois(points))
        let region = try XCTUnwrap(data.regions.first)
        XCTAssertEqual(region.densitySource, .counted)
        let expected = 12 / (ellipsoidArea(square) / 1e6)
        XCTAssertEqual(region.density, expected, accuracy: expected * 1e-4)
        XCTAssertEqual(data.matches[0].filter { $0 }.count, 17, "KeywordMatcher on the keyword text, case-folded")
    }

    func testThePropertyWinsAndTheFootprintIsTheLastResort() throws {
        var given = square
        given.density = 123.5
        let withProperty = try MapFixtures.data([given], pois: MapFixtures.pois([(24.95, 60.17, "cafe")]))
        XCTAssertEqual(withProperty.regions[0].density, 123.5)
        XCTAssertEqual(withProperty.regions[0].densitySource, .property)

        let text = MapFixtures.geoJSON([square]).replacingOccurrences(
            of: "\"rank\":1", with: "\"rank\":1,\"n_footprint\":10,\"share\":0.5,\"area_m2\":20000")
        let file = try RegionFeatureFile(path: "r.geojson", text: text)
        let footprint = try MapData(file: file, keywords: nil, only: nil, title: "t", attribution: "", pois: nil)
        XCTAssertEqual(footprint.regions[0].densitySource, .footprint)
        XCTAssertEqual(footprint.regions[0].density, 250, accuracy: 1e-9)

        let bare = try MapFixtures.data([square], pois: nil)
        XCTAssertEqual(bare.regions[0].densitySource, .unknown)
        XCTAssertTrue(bare.notes.contains { $0.contains("lowest density bin") }, "\(bare.notes)")
    }

    func testKeywordOrderComesFromTheRunAndPicksTheRamp() throws {
        let squares = ["bank", "cafe"].map { k in
            MapFixtures.Square(lon: 24.95, lat: 60.17, halfLon: 0.001, halfLat: 0.001, keyword: k, rank: 1, density: 10)
        }
        // The run's order (provenance) is cafe, bar, bank: bank keeps ramp 2 even when shown alone.
        let file = try RegionFeatureFile(
            path: "r.geojson", text: MapFixtures.geoJSON(squares, keywords: ["cafe", "bar", "bank"]))
        let all = try MapData(file: file, keywords: nil, only: nil, title: "t", attribution: "", pois: nil)
        XCTAssertEqual(
            all.keywords,
            [
                MapKeyword(name: "cafe", colorIndex: 0), MapKeyword(name: "bar", colorIndex: 1),
                MapKeyword(name: "bank", colorIndex: 2),
            ])
        let only = try MapData(file: file, keywords: nil, only: ["bank"], title: "t", attribution: "", pois: nil)
        XCTAssertEqual(only.keywords, [MapKeyword(name: "bank", colorIndex: 2)])
        XCTAssertEqual(only.regions.count, 1)
        XCTAssertEqual(only.regions[0].keyword, 0)
        // Without provenance: the order keywords first appear in.
        let plain = try MapFixtures.data(squares, pois: nil)
        XCTAssertEqual(plain.keywords.map(\.name), ["bank", "cafe"])
    }

    /// A keyword no region has, and a file whose features have no keyword: said as such (they
    /// were "nothing to draw: no region polygons", though the polygons are there).
    func testAKeywordNoRegionHasIsNamed() throws {
        let squares = ["bank", "cafe"].map { k in
            MapFixtures.Square(lon: 24.95, lat: 60.17, halfLon: 0.001, halfLat: 0.001, keyword: k, rank: 1, density: 10)
        }
        let file = try RegionFeatureFile(path: "r.geojson", text: MapFixtures.geoJSON(squares, keywords: nil))
        XCTAssertThrowsError(
            try MapData(file: file, keywords: nil, only: ["nomatch"], title: "t", attribution: "", pois: nil)
        ) { error in
            XCTAssertEqual("\(error)", "--keyword nomatch: no region of the file has it; its keywords: bank, cafe")
            XCTAssertEqual((error as? ExitCoded)?.exitStatus, .usage)
        }
        let bare = try RegionFeatureFile(
            path: "r.geojson",
            text: #"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"rank":1},"#
                + #""geometry":{"type":"Polygon","coordinates":[[[24.9,60.1],[24.91,60.1],[24.91,60.11],[24.9,60.1]]]}}]}"#
        )
        XCTAssertThrowsError(try MapData(file: bare, keywords: nil, only: nil, title: "t", attribution: "", pois: nil))
        {
            XCTAssertTrue("\($0)".contains("no feature of the regions file has a keyword property"), "\($0)")
        }
    }
}
