import Foundation
import RegionSearchCore
import RegionSearchGDAL
import RegionSearchModel

/// The properties of a region feature, the same in every output format: their names, types,
/// descriptions, Shapefile names, rounding and the simplestyle colours. The field list is
/// ``fields``; ``layer(polygons:table:keywords:)`` fills it, so the two cannot drift apart.
public enum RegionFeatureSchema {
    /// The layer (table) name of the regions in multi-layer outputs (GeoPackage, PostGIS).
    public static let layerName = "regions"

    /// Every field of a region feature, in output order. Shapefile names (dBASE allows 10 bytes)
    /// are the names themselves except where given.
    public static let fields: [FeatureLayer.Field] = [
        .init("region_id", .integer, "number of the region in this result, from 1"),
        .init("keyword", .string, "the query keyword the region is dense in"),
        .init("rank", .integer, "rank within the keyword by score sum, 1 = strongest"),
        .init("n_pois", .integer, "POIs in the region"),
        .init("n_keyword_pois", .integer, "POIs of the keyword in the region", shapefileName: "n_kw_pois"),
        .init("n_footprint", .integer, "POIs inside the region's footprint", shapefileName: "n_footprnt"),
        .init("share", .real, "share of the keyword's POIs inside the footprint"),
        .init("lift", .real, "share divided by the keyword's base rate"),
        .init("score_sum", .real, "sum of the propagated scores of the region's POIs"),
        .init("score_mean", .real, "mean propagated score of the region's POIs"),
        .init("score_max", .real, "largest propagated score in the region"),
        .init("p_value", .real, "binomial tail probability of the region's keyword count"),
        .init("q_value", .real, "Benjamini-Hochberg q-value over all candidate regions"),
        .init("area_m2", .real, "geodesic area of the polygon, square metres"),
        .init("density_per_km2", .real, "POIs of the region per square kilometre", shapefileName: "density"),
        .init("fill", .string, "simplestyle fill colour"),
        .init("fill-opacity", .real, "simplestyle fill opacity", shapefileName: "fill_opac"),
        .init("stroke", .string, "simplestyle outline colour"),
        .init("stroke-width", .real, "simplestyle outline width", shapefileName: "stroke_w"),
    ]

    /// The density the colour scale (``ColorScale``) is binned on: keyword POIs per km² of the
    /// polygon, from a feature's values.
    public static func colorDensity(_ values: [FieldValue]) -> Double {
        func number(_ name: String) -> Double {
            guard let i = fields.firstIndex(where: { $0.name == name }) else { return .nan }
            switch values[i] {
            case .integer(let v): return Double(v)
            case .real(let v): return v
            default: return .nan
            }
        }
        let area = number("area_m2")
        return area > 0 ? number("n_keyword_pois") / (area / 1e6) : .infinity
    }

    /// ``colorDensity(_:)`` as a QGIS (and SQLite) expression over the fields, for the rules of
    /// the QGIS style.
    public static let colorDensityExpression = "(\"n_keyword_pois\" / (\"area_m2\" / 1000000.0))"

    /// One feature per polygon, `region_id` numbering them from 1 in order.
    public static func layer(polygons: [RegionPolygonBuilder.Polygon], table: RegionTable, keywords: [String])
        -> FeatureLayer
    {
        // Colour depth per keyword from the region's mean score relative to the keyword's range.
        var range: [Int: (Double, Double)] = [:]
        for p in polygons {
            let r = table.regions[p.region]
            let cur = range[r.keyword] ?? (Double.infinity, -Double.infinity)
            range[r.keyword] = (min(cur.0, r.scoreMean), max(cur.1, r.scoreMean))
        }
        var features: [FeatureLayer.Feature] = []
        for (id, p) in polygons.enumerated() {
            let r = table.regions[p.region]
            let (lo, hi) = range[r.keyword]!
            let depth = hi > lo ? (r.scoreMean - lo) / (hi - lo) : 1
            let colour = ColorRamp.color(keyword: r.keyword, depth: depth)
            func round(_ v: Double, _ digits: Double) -> FieldValue { .real((v * digits).rounded() / digits) }
            let density = p.areaM2 > 0 ? Double(r.nPOIs) / (p.areaM2 / 1e6) : 0
            let values = Self.values([
                ("region_id", .integer(Int64(id + 1))),
                ("keyword", .string(keywords[r.keyword])),
                ("rank", .integer(Int64(r.rank))),
                ("n_pois", .integer(Int64(r.nPOIs))),
                ("n_keyword_pois", .integer(Int64(r.nKeyword))),
                ("n_footprint", .integer(Int64(r.nFootprint))),
                ("share", round(r.share, 1e6)),
                ("lift", round(r.lift, 1e4)),
                ("score_sum", round(r.scoreSum, 1e6)),
                ("score_mean", round(r.scoreMean, 1e6)),
                ("score_max", round(r.scoreMax, 1e6)),
                ("p_value", .real(significant(r.pValue))),
                ("q_value", .real(significant(r.qValue))),
                ("area_m2", round(p.areaM2, 10)),
                ("density_per_km2", round(density, 100)),
                ("fill", .string(colour)),
                ("fill-opacity", .real(ColorRamp.opacity(depth: depth))),
                ("stroke", .string(colour)),
                ("stroke-width", .real(1)),
            ])
            // The builder's parts are exterior rings: one polygon each.
            features.append(.init(geometry: .multiPolygon(p.rings.map { [$0] }), values: values))
        }
        return FeatureLayer(name: layerName, geometryType: .multiPolygon, fields: fields, features: features)
    }

    /// Values in field order from (name, value) pairs, which must name ``fields`` in order.
    static func values(_ pairs: [(String, FieldValue)]) -> [FieldValue] {
        precondition(pairs.map(\.0) == fields.map(\.name), "region values do not follow RegionFeatureSchema.fields")
        return pairs.map(\.1)
    }

    /// Rounds to 6 significant digits (p-values span hundreds of orders of magnitude).
    static func significant(_ v: Double) -> Double {
        guard v.isFinite, v != 0 else { return v.isFinite ? 0 : 1 }
        let e = floor(log10(abs(v)))
        let f = pow(10, 5 - e)
        let r = (v * f).rounded() / f
        return r.isFinite ? r : v
    }
}
