import Foundation
import RegionSearchCore
import RegionSearchModel

/// The properties of a region feature, the same in every output: their names, types, rounding
/// and the simplestyle colours.
public enum RegionFeatureSchema {
    /// One feature per polygon, `region_id` numbering them from 1 in order.
    public static func features(
        polygons: [RegionPolygonBuilder.Polygon], table: RegionTable, keywords: [String]
    ) -> [GeoJSONWriter.Feature] {
        // Colour depth per keyword from the region's mean score relative to the keyword's range.
        var range: [Int: (Double, Double)] = [:]
        for p in polygons {
            let r = table.regions[p.region]
            let cur = range[r.keyword] ?? (Double.infinity, -Double.infinity)
            range[r.keyword] = (min(cur.0, r.scoreMean), max(cur.1, r.scoreMean))
        }
        var features: [GeoJSONWriter.Feature] = []
        for (id, p) in polygons.enumerated() {
            let r = table.regions[p.region]
            let (lo, hi) = range[r.keyword]!
            let depth = hi > lo ? (r.scoreMean - lo) / (hi - lo) : 1
            let colour = ColorRamp.color(keyword: r.keyword, depth: depth)
            func round(_ v: Double, _ digits: Double) -> JSONValue { .number((v * digits).rounded() / digits) }
            let density = p.areaM2 > 0 ? Double(r.nPOIs) / (p.areaM2 / 1e6) : 0
            features.append(
                GeoJSONWriter.Feature(
                    rings: p.rings,
                    properties: [
                        ("region_id", .number(Double(id + 1))),
                        ("keyword", .string(keywords[r.keyword])),
                        ("rank", .number(Double(r.rank))),
                        ("n_pois", .number(Double(r.nPOIs))),
                        ("n_keyword_pois", .number(Double(r.nKeyword))),
                        ("n_footprint", .number(Double(r.nFootprint))),
                        ("share", round(r.share, 1e6)),
                        ("lift", round(r.lift, 1e4)),
                        ("score_sum", round(r.scoreSum, 1e6)),
                        ("score_mean", round(r.scoreMean, 1e6)),
                        ("score_max", round(r.scoreMax, 1e6)),
                        ("p_value", .number(significant(r.pValue))),
                        ("q_value", .number(significant(r.qValue))),
                        ("area_m2", round(p.areaM2, 10)),
                        ("density_per_km2", round(density, 100)),
                        ("fill", .string(colour)),
                        ("fill-opacity", .number(ColorRamp.opacity(depth: depth))),
                        ("stroke", .string(colour)),
                        ("stroke-width", .number(1)),
                    ]))
        }
        return features
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
