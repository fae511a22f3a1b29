import Foundation

@testable import RegionSearchCore
@testable import RegionSearchEvaluation
@testable import RegionSearchModel
@testable import RegionSearchOutput
@testable import RegionSearchProjection

/// Builds region/truth files from shapes drawn in UTM zone 33N metres, so that areas and IoUs in
/// that CRS have closed forms (vertices round-trip through lon/lat to nanometres, and edges are
/// straight in the plane they are measured in).
enum EvaluateFixtures {
    static let crs = "EPSG:32633"
    /// A point near the zone's central meridian (15°E) at about 52°N.
    static let originX = 500_000.0
    static let originY = 5_760_000.0

    typealias Ring = (x: [Double], y: [Double])

    /// An axis-aligned rectangle, offsets from the origin in metres.
    static func rectangle(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) -> Ring {
        ([x0, x1, x1, x0, x0].map { $0 + originX }, [y0, y0, y1, y1, y0].map { $0 + originY })
    }

    static func square(_ x0: Double, _ y0: Double, side: Double = 1000) -> Ring {
        rectangle(x0, y0, x0 + side, y0 + side)
    }

    /// A regular n-gon inscribed in a circle, starting at angle 0; `fromStep...toStep` of the n
    /// steps gives a part of it (a half disc for 0...n/2).
    static func disc(_ cx: Double, _ cy: Double, radius: Double, n: Int = 128, steps: ClosedRange<Int>? = nil) -> Ring {
        let range = steps ?? 0...n
        let xs = range.map { originX + cx + radius * cos(2 * .pi * Double($0) / Double(n)) }
        let ys = range.map { originY + cy + radius * sin(2 * .pi * Double($0) / Double(n)) }
        return (xs + [xs[0]], ys + [ys[0]])
    }

    /// Area of a simple ring by the shoelace formula (an independent check on GEOS).
    static func shoelace(_ r: Ring) -> Double {
        var a = 0.0
        for i in 0..<(r.x.count - 1) { a += r.x[i] * r.y[i + 1] - r.x[i + 1] * r.y[i] }
        return abs(a) / 2
    }

    /// Converts UTM rings to lon/lat.
    static func lonLat(_ r: Ring) -> GeoJSONWriter.Ring {
        let context = PROJContext()
        let t = try! context.transformation(from: "EPSG:4326", to: crs)
        var x = r.x
        var y = r.y
        _ = try! t.transform(x: &x, y: &y, inverse: true)
        return GeoJSONWriter.Ring(lon: x, lat: y)
    }

    /// A feature with one polygon (exterior + holes) drawn in UTM.
    static func feature(_ id: Int, _ keyword: String?, _ rings: Ring...) -> RegionFeature {
        RegionFeature(id: .number(Double(id)), keyword: keyword, polygons: [rings.map(lonLat)], index: id)
    }

    static func file(_ name: String, _ features: [RegionFeature]) -> RegionFeatureFile {
        RegionFeatureFile(path: name, features: features)
    }

    /// An evaluator measuring in the fixtures' CRS.
    static var evaluator: Evaluator { Evaluator(thresholds: [0.3, 0.5], crs: crs) }

    /// POIs at UTM offsets.
    static func pois(_ points: [(id: String, category: String, x: Double, y: Double)]) -> EvaluationPOIs {
        let context = PROJContext()
        let t = try! context.transformation(from: "EPSG:4326", to: crs)
        var x = points.map { $0.x + originX }
        var y = points.map { $0.y + originY }
        _ = try! t.transform(x: &x, y: &y, inverse: true)
        var out = EvaluationPOIs(path: "pois")
        for (i, p) in points.enumerated() {
            out.append(id: p.id, keywordText: KeywordText.normalize(p.category), lon: x[i], lat: y[i])
        }
        return out
    }

    /// Writes GeoJSON text for features (through GeoJSONWriter, so coordinates get 7 decimals).
    static func geoJSON(_ features: [RegionFeature]) -> String {
        GeoJSONWriter.document(
            features: features.map { f in
                var props: [(String, JSONValue)] = [("region_id", f.id)]
                if let k = f.keyword { props.append(("keyword", .string(k))) }
                return GeoJSONWriter.Feature(rings: f.polygons.map { $0[0] }, properties: props)
            }, foreignMembers: [])
    }
}
