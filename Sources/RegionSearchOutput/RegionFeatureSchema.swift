import Foundation
import RegionSearchCore
import RegionSearchGDAL
import RegionSearchModel

/// The properties of a region feature, the same in every output format: their names, types,
/// descriptions, Shapefile names, rounding and the simplestyle colours. The field list is
/// ``fields``; ``layer(polygons:table:keywords:measure:counts:)`` fills it, so the two cannot drift
/// apart.
///
/// Counts, shares and densities describe the polygon as written: they are counted inside it by
/// ``PointCensus`` (a GIS points-in-polygon join on the output gives the same numbers). What the
/// region had before its polygon was drawn and clipped keeps its own `member_` names.
public enum RegionFeatureSchema {
    /// The layer (table) name of the regions in multi-layer outputs (GeoPackage, PostGIS).
    public static let layerName = "regions"

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

    /// Every field of a region feature, in output order. Shapefile names (dBASE allows 10 bytes)
    /// are the names themselves except where given.
    public static let fields: [FeatureLayer.Field] = [
        .init(
            "region_id", .integer,
            "the region's id: kept from night to night while it is the same place (regionsearch run's lineage), "
                + "else its number in this result, from 1"),
        .init("keyword", .string, "the query keyword the region is dense in"),
        // Filled by the runner's lineage step (RegionSearchLineage); null from the hulls stage alone.
        .init(
            "label", .string,
            "a name a person recognises (a place node, the street most of its POIs share, or their common word); "
                + "null when the data has none"),
        .init("label_rule", .string, "which rule chose the label: place, street, nearest_place or name_token"),
        .init(
            "change", .string,
            "since the previous result: new, unchanged, grown, shrunk, moved, split or merged (the .changes.json "
                + "beside the output has the figures)"),
        .init("measure", .string, "\"density\" or \"lift\" (regions.measure), or \"dbscan\""),
        .init("rank", .integer, "rank within the keyword and level, 1 = the region holding the most keyword POIs"),
        .init(
            "level", .integer,
            "nesting level, 0 = coarsest; a region lies inside its parent, one level up (a street: its level-0 region)"),
        .init(
            "parent_id", .integer,
            "region_id of the region that holds this one (one level up; a street: its level-0 region); null at level 0"),
        .init(
            "kind", .string,
            "\"street\" when the region's POIs line one street and it is drawn as a street-wide band along it, "
                + "else \"area\""),
        .init(
            "band_floor_per_km2", .real,
            "the density band the region stands for: the keyword POIs per km² its POIs were at least as dense as",
            shapefileName: "band_floor"),
        .init("n_keyword_pois", .integer, "POIs of the keyword inside the polygon", shapefileName: "n_kw_pois"),
        .init("n_pois", .integer, "all POIs inside the polygon"),
        .init("share", .real, "n_keyword_pois / n_pois"),
        .init("lift", .real, "share / the keyword's share of all POIs in the data"),
        .init("area_m2", .real, "geodesic area of the polygon (holes excluded), square metres"),
        .init(
            "keyword_density_per_km2", .real,
            "keyword POIs inside the polygon per square kilometre; the colour follows it",
            shapefileName: "kw_density"),
        .init("density_per_km2", .real, "all POIs inside the polygon per square kilometre", shapefileName: "density"),
        .init(
            "density_ratio", .real,
            "keyword_density_per_km2 / the keyword's typical density (its POIs over the area the data's POIs occupy)",
            shapefileName: "dens_ratio"),
        .init(
            "member_pois", .integer,
            "keyword POIs the region was found with (before its polygon was drawn and clipped)",
            shapefileName: "member_poi"),
        .init(
            "member_score_mean", .real, "mean member score (density ratio, or the propagated score for lift)",
            shapefileName: "mem_score"),
        .init("member_score_max", .real, "largest member score", shapefileName: "mem_max"),
        .init("spacing_m", .real, "median distance from the members to their 5th nearest keyword location, metres"),
        .init("margin_m", .real, "how far the polygon reaches beyond its members' skeleton, metres"),
        .init(
            "empty_share", .real,
            "share of the polygon farther than 2 spacings from every member (ground it should not cover)",
            shapefileName: "empty_shr"),
        .init(
            "members_inside", .real, "share of the region's members inside the polygon as written",
            shapefileName: "mem_inside"),
        .init(
            "shape_ok", .integer, "1 when empty_share <= 0.05 and members_inside >= 0.9 (a polygon a person would draw)"
        ),
        .init("p_value", .real, "significance of the region (regionsearch help regions)"),
        .init("q_value", .real, "Benjamini-Hochberg q-value over the keyword's candidate regions"),
        .init("fill", .string, "simplestyle fill colour (the keyword's ramp at the density bin)"),
        .init("fill-opacity", .real, "simplestyle fill opacity (denser = more opaque)", shapefileName: "fill_opac"),
        .init("stroke", .string, "simplestyle outline colour (the ramp's darkest)"),
        .init("stroke-width", .real, "simplestyle outline width in pixels", shapefileName: "stroke_w"),
    ]

    /// The density the colour scale (``ColorScale``) is binned on: keyword POIs per km² of the
    /// polygon, from a feature's values.
    public static func colorDensity(_ values: [FieldValue]) -> Double {
        guard let i = fields.firstIndex(where: { $0.name == "keyword_density_per_km2" }) else { return .nan }
        switch values[i] {
        case .integer(let v): return Double(v)
        case .real(let v): return v
        default: return .nan
        }
    }

    /// ``colorDensity(_:)`` as a QGIS (and SQLite) expression over the fields, for the rules of
    /// the QGIS style.
    public static let colorDensityExpression = "\"keyword_density_per_km2\""

    /// One feature per polygon, `region_id` numbering them from 1 in order; `counts` are the POIs
    /// (all, and of the region's keyword) inside each written polygon (``PointCensus``).
    public static func layer(
        polygons: [RegionPolygonBuilder.Polygon], table: RegionTable, keywords: [KeywordFacts], measure: String,
        counts: [(all: Int, matching: Int)]
    ) -> FeatureLayer {
        precondition(counts.count == polygons.count)
        var features: [FeatureLayer.Feature] = []
        // region_id of each drawn region (by table row); a parent that was not drawn (covered)
        // hands its children to its own drawn parent, as the polygons were cut.
        var idOfRow = [Int: Int]()
        for (id, p) in polygons.enumerated() { idOfRow[p.region] = id + 1 }
        func parentID(_ row: Int) -> FieldValue {
            var ancestor = table.regions[row].parent
            while ancestor >= 0 && idOfRow[ancestor] == nil { ancestor = table.regions[ancestor].parent }
            return ancestor >= 0 ? .integer(Int64(idOfRow[ancestor]!)) : .null
        }
        for (id, p) in polygons.enumerated() {
            let r = table.regions[p.region]
            let facts = keywords[r.keyword]
            func round(_ v: Double, _ digits: Double) -> FieldValue { .real((v * digits).rounded() / digits) }
            let (all, matching) = counts[id]
            let km2 = p.areaM2 / 1e6
            let keywordDensity = km2 > 0 ? Double(matching) / km2 : 0
            let share = all > 0 ? Double(matching) / Double(all) : 0
            let pairs: [(String, FieldValue)] = [
                ("region_id", .integer(Int64(id + 1))),
                ("keyword", .string(facts.query)),
                ("label", .null),
                ("label_rule", .null),
                ("change", .null),
                ("measure", .string(measure)),
                ("rank", .integer(Int64(r.rank))),
                ("level", .integer(Int64(r.level))),
                ("parent_id", parentID(p.region)),
                ("kind", .string(p.isStreet ? "street" : "area")),
                ("band_floor_per_km2", round(r.bandFloor, 100)),
                ("n_keyword_pois", .integer(Int64(matching))),
                ("n_pois", .integer(Int64(all))),
                ("share", round(share, 1e6)),
                ("lift", round(facts.baseRate > 0 ? share / facts.baseRate : 0, 1e4)),
                ("area_m2", round(p.areaM2, 10)),
                ("keyword_density_per_km2", round(keywordDensity, 100)),
                ("density_per_km2", round(km2 > 0 ? Double(all) / km2 : 0, 100)),
                (
                    "density_ratio",
                    round(facts.typicalDensityPerKm2 > 0 ? keywordDensity / facts.typicalDensityPerKm2 : 0, 100)
                ),
                ("member_pois", .integer(Int64(r.nKeyword))),
                ("member_score_mean", round(r.scoreMean, 1e6)),
                ("member_score_max", round(r.scoreMax, 1e6)),
                ("spacing_m", round(r.spacing, 10)),
                ("margin_m", round(p.marginM, 10)),
                ("empty_share", round(p.shape.emptyShare, 1e4)),
                ("members_inside", round(p.shape.membersInside, 1e4)),
                ("shape_ok", .integer(p.shape.passes ? 1 : 0)),
                ("p_value", .real(significant(r.pValue))),
                ("q_value", .real(significant(r.qValue))),
                ("fill", .string(ColorScale.fill(keyword: r.keyword, density: keywordDensity))),
                ("fill-opacity", .real(ColorScale.opacity(density: keywordDensity))),
                ("stroke", .string(ColorScale.stroke(keyword: r.keyword))),
                ("stroke-width", .real(ColorScale.strokeWidth)),
            ]
            let values = Self.values(pairs)
            features.append(.init(geometry: .multiPolygon(p.polygons), values: values))
        }
        return FeatureLayer(name: layerName, geometryType: .multiPolygon, fields: fields, features: features)
    }

    /// Values in field order from (name, value) pairs, which must name ``fields`` in order.
    static func values(_ pairs: [(String, FieldValue)]) -> [FieldValue] {
        precondition(
            pairs.map { $0.0 } == fields.map { $0.name }, "region values do not follow RegionFeatureSchema.fields")
        return pairs.map { $0.1 }
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
