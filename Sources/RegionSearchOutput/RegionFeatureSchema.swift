import Foundation
import RegionSearchCore
import RegionSearchModel

/// The properties of a region feature, the same in every output: their names, types, rounding
/// and the simplestyle colours.
///
/// Counts, shares and densities describe the polygon as written: they are counted inside it by
/// ``PointCensus`` (a GIS points-in-polygon join on the output gives the same numbers). What the
/// region had before its polygon was drawn and clipped keeps its own `member_` names.
public enum RegionFeatureSchema {
    /// What the schema needs to know about each keyword.
    public struct KeywordFacts: Sendable {
        public var query: String
        /// The keyword's share of all POIs in the data.
        public var baseRate: Double
        /// Keyword POIs per km² over the area the data's POIs occupy.
        public var typicalDensityPerKm2: Double

        public init(query: String, baseRate: Double, typicalDensityPerKm2: Double) {
            self.query = query
            self.baseRate = baseRate
            self.typicalDensityPerKm2 = typicalDensityPerKm2
        }
    }

    /// The property names, in output order, with what they mean (for docs and other formats).
    public static let fields: [(name: String, meaning: String)] = [
        ("region_id", "1, 2, … in output order"),
        ("keyword", "the query keyword"),
        ("measure", "\"density\" or \"lift\" (regions.measure), or \"dbscan\""),
        ("rank", "1 = the region of its keyword holding the most keyword POIs"),
        ("n_keyword_pois", "keyword POIs inside the polygon"),
        ("n_pois", "all POIs inside the polygon"),
        ("share", "n_keyword_pois / n_pois"),
        ("lift", "share / the keyword's share of all POIs in the data"),
        ("area_m2", "geodesic area of the polygon (holes excluded)"),
        ("keyword_density_per_km2", "n_keyword_pois per km² of the polygon; the colour follows it"),
        ("density_per_km2", "n_pois per km² of the polygon"),
        (
            "density_ratio",
            "keyword_density_per_km2 / the keyword's typical density (its POIs over the area the "
                + "data's POIs occupy)"
        ),
        ("member_pois", "keyword POIs the region was found with (before its polygon was drawn and clipped)"),
        ("member_score_mean", "mean score of the members (density ratio, or the propagated share score for lift)"),
        ("member_score_max", "largest member score"),
        ("spacing_m", "median distance between the members and their nearest other member"),
        ("margin_m", "how far the polygon extends beyond its members' skeleton"),
        ("p_value", "significance of the region (see regions --help)"),
        ("q_value", "Benjamini–Hochberg q-value (false discovery rate control)"),
        ("fill", "simplestyle fill colour: the keyword's ramp at the density bin"),
        ("fill-opacity", "simplestyle fill opacity (denser = more opaque)"),
        ("stroke", "simplestyle outline colour: the ramp's darkest"),
        ("stroke-width", "simplestyle outline width in pixels"),
    ]

    /// One feature per polygon, `region_id` numbering them from 1 in order.
    public static func features(
        polygons: [RegionPolygonBuilder.Polygon], table: RegionTable, keywords: [KeywordFacts], measure: String,
        counts: [(all: Int, matching: Int)]
    ) -> [GeoJSONWriter.Feature] {
        precondition(counts.count == polygons.count)
        var features: [GeoJSONWriter.Feature] = []
        for (id, p) in polygons.enumerated() {
            let r = table.regions[p.region]
            let facts = keywords[r.keyword]
            func round(_ v: Double, _ digits: Double) -> JSONValue { .number((v * digits).rounded() / digits) }
            let (all, matching) = counts[id]
            let km2 = p.areaM2 / 1e6
            let keywordDensity = km2 > 0 ? Double(matching) / km2 : 0
            let share = all > 0 ? Double(matching) / Double(all) : 0
            features.append(
                GeoJSONWriter.Feature(
                    polygons: p.polygons,
                    properties: [
                        ("region_id", .number(Double(id + 1))),
                        ("keyword", .string(facts.query)),
                        ("measure", .string(measure)),
                        ("rank", .number(Double(r.rank))),
                        ("n_keyword_pois", .number(Double(matching))),
                        ("n_pois", .number(Double(all))),
                        ("share", round(share, 1e6)),
                        ("lift", round(facts.baseRate > 0 ? share / facts.baseRate : 0, 1e4)),
                        ("area_m2", round(p.areaM2, 10)),
                        ("keyword_density_per_km2", round(keywordDensity, 100)),
                        ("density_per_km2", round(km2 > 0 ? Double(all) / km2 : 0, 100)),
                        (
                            "density_ratio",
                            round(
                                facts.typicalDensityPerKm2 > 0 ? keywordDensity / facts.typicalDensityPerKm2 : 0, 100)
                        ),
                        ("member_pois", .number(Double(r.nKeyword))),
                        ("member_score_mean", round(r.scoreMean, 1e6)),
                        ("member_score_max", round(r.scoreMax, 1e6)),
                        ("spacing_m", round(r.spacing, 10)),
                        ("margin_m", round(p.marginM, 10)),
                        ("p_value", .number(significant(r.pValue))),
                        ("q_value", .number(significant(r.qValue))),
                        ("fill", .string(ColorScale.fill(keyword: r.keyword, density: keywordDensity))),
                        ("fill-opacity", .number(ColorScale.opacity(density: keywordDensity))),
                        ("stroke", .string(ColorScale.stroke(keyword: r.keyword))),
                        ("stroke-width", .number(ColorScale.strokeWidth)),
                    ]))
        }
        return features
    }

    /// Rounds to 6 significant digits (p-values span hundreds of orders of magnitude).
    public static func significant(_ v: Double) -> Double {
        guard v.isFinite, v != 0 else { return v.isFinite ? 0 : 1 }
        let e = floor(log10(abs(v)))
        let f = pow(10, 5 - e)
        let r = (v * f).rounded() / f
        return r.isFinite ? r : v
    }
}
