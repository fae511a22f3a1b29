import Foundation
import RegionSearchCore
import RegionSearchModel
import RegionSearchOutput

/// The `hulls` stage: region polygons through GEOS, written as RFC 7946 GeoJSON.
public enum HullsStage {
    public static let definition = StageDefinition(
        name: "hulls",
        abstract: "build region polygons with GEOS and write them as RFC 7946 GeoJSON",
        // 4: polygons snapped to the written 7-decimal grid.
        // 5: the point census tests each POI as the POI layer writes it (7 decimals); hull margin
        //    as a parameter (hulls.margin_spacing).
        // 6: rings written from their least vertex, holes and parts in order (the same polygons as
        //    5, normalised; the skeleton's triangles joined by a coverage union).
        // 7: levels: a region cut to its parent's polygon, overlaps removed per keyword and level;
        //    level, parent_id and band_floor_per_km2 properties.
        // 8: the levels parameter (what a flat consumer gets); the provenance records it. The
        //    default ("all") writes v7's features.
        // 9: label, label_rule and change properties (null here; the runner's lineage step fills them).
        // 10: margin_rule "support" by default: a region of few POIs is grown by the band its
        //     convex hull misses (RegionPolygonBuilder.supportGap), when wider than margin_spacing's.
        // 11: close_spacing 1.5 by default: the grown skeleton is closed, notches between members filled.
        // 12: child_margin_floor 0.5 by default: a finer region reaches half its band floor's
        //     spacing beyond its members (midway to its parent's POIs at that density).
        // 13: street_aspect 4 by default: a region that is a street is drawn as a street-wide band.
        // 14: a region's polygon leaves the ground around the members of denser, worse-ranked
        //     regions of its keyword and level to them (they lost those members to it);
        //     members_inside counted across the antimeridian.
        // 15: a grown geometry of 64 rings or more is shrunk back (the closing) by its boundary's
        //     band instead of GEOS's negative buffer: the same set to the arcs' chords, not the
        //     same bytes (fewer rings: unchanged).
        // 16: the kind property: "street" for a region drawn as a street-wide band, else "area".
        // 17: levels "finest" leaves out a parent whose remainder around its children holds none
        //     of its POIs (a sliver of ground between them); "all" writes v16's features.
        version: 17,
        inputs: [
            ProjectStage.definition.provides("output", as: "projected"),
            RegionsStage.definition.provides("output", as: "regions"),
            PropagateStage.definition.provides("output", as: "scores"),
        ],
        outputs: [.init(option: "output", fileName: "regions.geojson", kind: nil)],
        options: RegionPolygonBuilder.Options.self)

    static let discussion = """
        One feature per region: its skeleton (its POIs, the keyword-graph edges between them up to 4
        spacings long, and the triangles of such edges whose circumcircle is at most 2 spacings
        wide; spacing = the region's median distance from a member to its 5th nearest keyword
        location) grown by margin_m with GEOS (a finer level's region at least child_margin_floor
        spacings of its band floor) and closed by close_spacing spacings (notches and
        holes narrower than about twice that filled), at least min_extent_m wide, valid, not overlapping
        better-ranked regions of the same keyword and level, leaving the ground around the members of
        denser worse-ranked ones to them, and cut to its parent region's polygon;
        levels chooses what is written of the hierarchy (all levels, nested; the finest region at
        each place; level 0; one level); a Polygon, or a MultiPolygon when a gap is too
        long to draw, in WGS84 lon/lat with counter-clockwise exterior rings, clockwise holes and at
        most 7 decimals. Properties (same type in every feature), counted on the polygon as written
        (a points-in-polygon join on the file gives the same): region_id, keyword, label, label_rule and change
        (null: regionsearch run's lineage step fills them and makes region_id stable), measure, rank,
        level, parent_id, kind ("street": its POIs line one street, and it is drawn as a band of one
        width along it; else "area"), band_floor_per_km2, n_keyword_pois, n_pois, share, lift, area_m2
        (geodesic), keyword_density_per_km2, density_per_km2, density_ratio; from the region's
        members: member_pois, member_score_mean, member_score_max, spacing_m; margin_m, the shape
        check (empty_share, members_inside, shape_ok), p_value, q_value, and simplestyle fill, fill-opacity,
        stroke, stroke-width on the fixed density bins of the colour scale (darker = denser). The
        top-level member "regionsearch" records the tool version, CRS, input hashes and every
        stage's parameters (GIS tools ignore it).
        """

    public static func main() -> Never {
        ToolMain.run(definition.commandSpec(discussion: discussion)) { try run($0) }
    }

    static func run(_ cl: ParsedCommandLine) throws {
        var stage = try StageInvocation<RegionPolygonBuilder.Options>(cl, definition)
        let output = try stage.outputPath()
        if let format = OutputFormat(path: output), format != .geojson {
            throw UsageError(
                "--output \(output): this stage writes GeoJSON; name the \(format.rawValue) file as a manifest's "
                    + "output (regionsearch run converts the result) or convert the GeoJSON with ogr2ogr")
        }
        let files = try stage.inputs(["projected", "regions", "scores"])
        let (projectedFile, regionsFile, scoresFile) = (files[0], files[1], files[2])
        let points = try ProjectedPoints(artifact: projectedFile)
        let table = try RegionTable(artifact: regionsFile)
        let scores = try ScoreTable(artifact: scoresFile)
        guard scores.count == points.count else {
            throw ArtifactError.malformed(
                path: scoresFile.path,
                detail: "\(scores.count) score rows for \(points.count) projected points; rerun propagate")
        }
        guard let crs = try projectedFile.meta("crs").stringValue else {
            throw ArtifactError.malformed(path: projectedFile.path, detail: "metadata 'crs' is not a string")
        }
        let crsIsLocal = projectedFile.metadata["crs_is_local"]?.boolValue ?? true
        let keywords = (try regionsFile.meta("keywords").arrayValue ?? []).map { k in
            RegionFeatureSchema.KeywordFacts(
                query: k["query"]?.stringValue ?? "", baseRate: k["base_rate"]?.doubleValue ?? 0,
                typicalDensityPerKm2: k["typical_density_per_km2"]?.doubleValue ?? 0)
        }
        guard keywords.count == scores.keywords.count else {
            throw ArtifactError.malformed(
                path: regionsFile.path,
                detail: "\(keywords.count) keywords, the scores artifact has \(scores.keywords.count); rerun regions")
        }
        let measure =
            regionsFile.metadata["method"]?.stringValue == "dbscan"
            ? "dbscan" : (regionsFile.metadata["measure"]?.stringValue ?? "lift")
        for r in table.regions {
            guard r.keyword < keywords.count else {
                throw ArtifactError.malformed(
                    path: regionsFile.path, detail: "region keyword index \(r.keyword) out of range")
            }
            for v in r.members where Int(v) >= points.count {
                throw ArtifactError.malformed(
                    path: regionsFile.path, detail: "member \(v) out of range of the projected points; rerun regions")
            }
        }
        let builder = RegionPolygonBuilder(options: stage.options)
        let (built, dropped) = try stage.summary.time(.hulls) {
            try builder.build(table: table, points: points, crs: crs, crsIsLocal: crsIsLocal)
        }
        // The levels written (all of them by default); counted below on what is written.
        let polygons = try stage.summary.time(.hulls) {
            try stage.options.levels.select(built, table: table, points: points)
        }

        // Counts inside the polygons as written (a GIS points-in-polygon join gives the same).
        let census = PointCensus(lon: points.lon, lat: points.lat, near: polygons.map(\.polygons))
        // Polygons on all threads (one GEOS context each), counts kept in polygon order.
        let counts = try stage.summary.time(.hulls) {
            try PointCensus.countAll(census, polygons.map(\.polygons)) {
                scores.matches[table.regions[polygons[$0].region].keyword]
            }
        }
        let layer = RegionFeatureSchema.layer(
            polygons: polygons, table: table, keywords: keywords, measure: measure, counts: counts)
        let provenance = stage.provenance(inputs: [projectedFile, regionsFile])
        let foreign: [(String, JSONValue)] = [
            (
                "regionsearch",
                .object([
                    ("version", .string(RegionSearchVersion.current)),
                    ("crs", .string(crs)),
                    ("regions", .number(Double(layer.count))),
                    ("dropped_covered", .number(Double(dropped))),
                    ("provenance", provenance),
                ])
            )
        ]
        try stage.summary.time(.write) {
            try AtomicFile.write(GeoJSONWriter.document(layer, foreignMembers: foreign), to: output)
        }
        stage.summary.set(.regions, layer.count)
        stage.summary.set(.droppedCovered, dropped)
        let selected = stage.options.levels == .all ? "" : " (levels \"\(stage.options.levels)\" of \(built.count))"
        Log.info(
            "wrote \(layer.count) region polygon(s)\(selected) "
                + "to \(output)\(dropped > 0 ? " (\(dropped) covered by better-ranked regions dropped)" : "")"
        )
        try stage.finish()
    }
}
