import Foundation
import XCTest

@testable import RegionSearchCore
@testable import RegionSearchEvaluation
@testable import RegionSearchMaps
@testable import RegionSearchModel
@testable import RegionSearchTestSupport

/// Synthetic maps with regions and POIs at known places, and pixel helpers.
enum MapFixtures {
    /// A rectangular region: centre and half sizes in degrees.
    struct Square {
        var lon: Double
        var lat: Double
        var halfLon: Double
        var halfLat: Double
        var keyword: String
        var rank: Int
        /// Written as `keyword_density_per_km2` when given.
        var density: Double?
        /// Written as `level` and `parent_id` (the 1-based region_id of the parent: its index in
        /// the list + 1) when given.
        var level: Int? = nil
        var parent: Int? = nil

        var ring: [[Double]] {
            [
                [lon - halfLon, lat - halfLat], [lon + halfLon, lat - halfLat], [lon + halfLon, lat + halfLat],
                [lon - halfLon, lat + halfLat], [lon - halfLon, lat - halfLat],
            ]
        }
    }

    /// A region GeoJSON as a run writes it (with the `regionsearch` member naming the CRS).
    static func geoJSON(_ squares: [Square], crs: String? = "EPSG:32635", keywords: [String]? = nil) -> String {
        var features: [JSONValue] = []
        for (i, s) in squares.enumerated() {
            var properties: [(String, JSONValue)] = [
                ("region_id", .number(Double(i + 1))), ("keyword", .string(s.keyword)),
                ("rank", .number(Double(s.rank))),
            ]
            if let d = s.density { properties.append(("keyword_density_per_km2", .number(d))) }
            if let level = s.level {
                properties.append(("level", .number(Double(level))))
                properties.append(("parent_id", s.parent.map { .number(Double($0 + 1)) } ?? .null))
            }
            features.append(
                .object([
                    ("type", .string("Feature")),
                    (
                        "geometry",
                        .object([
                            ("type", .string("Polygon")),
                            ("coordinates", .array([.array(s.ring.map { .array($0.map { .number($0) }) })])),
                        ])
                    ),
                    ("properties", .object(properties)),
                ]))
        }
        var members: [(String, JSONValue)] = [("type", .string("FeatureCollection"))]
        if let crs {
            var meta: [(String, JSONValue)] = [("crs", .string(crs))]
            if let keywords {
                meta.append(
                    (
                        "provenance",
                        .object([
                            (
                                "propagate",
                                .object([("parameters", .object([("keywords", .array(keywords.map { .string($0) }))]))])
                            )
                        ])
                    ))
            }
            members.append(("regionsearch", .object(meta)))
        }
        members.append(("features", .array(features)))
        return JSONValue.object(members).serialized()
    }

    /// POIs from (lon, lat, keyword text) triples.
    static func pois(_ points: [(lon: Double, lat: Double, keywords: String)]) -> EvaluationPOIs {
        var p = EvaluationPOIs(path: "test-pois")
        for (i, q) in points.enumerated() {
            p.append(id: "p\(i)", keywordText: KeywordText.normalize(q.keywords), lon: q.lon, lat: q.lat)
        }
        return p
    }

    static func data(
        _ squares: [Square], pois: EvaluationPOIs?, keywords: [String]? = nil, only: [String]? = nil,
        crs: String? = "EPSG:32635"
    ) throws -> MapData {
        let file = try RegionFeatureFile(path: "regions.geojson", text: geoJSON(squares, crs: crs))
        return try MapData(
            file: file, keywords: keywords, only: only, title: "test", attribution: "© test data", pois: pois)
    }

    /// The colour a fill of `hex` at `alpha` gives over `background`, as 0–255 components.
    static func blended(_ hex: String, alpha: Double, over background: RGBA = MapStyle.mapBackground) -> [Int] {
        let c = RGBA(hex: hex)!
        return [(c.r, background.r), (c.g, background.g), (c.b, background.b)].map {
            Int((($0.0 * alpha + $0.1 * (1 - alpha)) * 255).rounded())
        }
    }

    static func rgb(_ hex: String) -> [Int] {
        let c = RGBA(hex: hex)!
        return [c.r, c.g, c.b].map { Int(($0 * 255).rounded()) }
    }

    static func pixel(_ s: CairoSurface, _ x: Double, _ y: Double) -> [Int] {
        let p = s.pixel(x: Int(x.rounded(.down)), y: Int(y.rounded(.down)))
        return [Int(p.r), Int(p.g), Int(p.b)]
    }

    static func close(_ a: [Int], _ b: [Int], tolerance: Int = 3) -> Bool {
        zip(a, b).allSatisfy { abs($0 - $1) <= tolerance }
    }

    /// The bounding box of pixels exactly of `color` (the map box's background), scanning every
    /// second row and column.
    static func bounds(of color: [Int], in s: CairoSurface, xRange: Range<Int>? = nil)
        -> (x0: Int, y0: Int, x1: Int, y1: Int)?
    {
        let xs = xRange ?? 0..<Int(s.width)
        var x0 = Int.max
        var y0 = Int.max
        var x1 = -1
        var y1 = -1
        for y in stride(from: 0, to: Int(s.height), by: 2) {
            for x in stride(from: xs.lowerBound, to: xs.upperBound, by: 2) where pixel(s, Double(x), Double(y)) == color
            {
                x0 = min(x0, x)
                y0 = min(y0, y)
                x1 = max(x1, x)
                y1 = max(y1, y)
            }
        }
        return x1 < 0 ? nil : (x0, y0, x1, y1)
    }
}
