import Foundation
import RegionSearchCore
import RegionSearchModel
import RegionSearchOutput

/// The `hulls` stage: region polygons through GEOS, written as RFC 7946 GeoJSON.
public enum HullsStage {
    public static let definition = StageDefinition(
        name: "hulls",
        abstract: "build region polygons with GEOS and write them as RFC 7946 GeoJSON",
        version: 2,
        inputs: [
            ProjectStage.definition.provides("output", as: "projected"),
            RegionsStage.definition.provides("output", as: "regions"),
        ],
        outputs: [.init(option: "output", fileName: "regions.geojson", kind: nil)],
        options: RegionPolygonBuilder.Options.self)

    static let discussion = """
        One MultiPolygon feature per region (one part, or two when a region crosses the antimeridian):
        the convex or concave hull of the region's matching POIs plus a margin, at least min_extent_m
        wide, valid (GEOS isValid), not overlapping better-ranked regions of the same keyword, in
        WGS84 lon/lat with counter-clockwise rings and at most 7 decimals. Properties (same type in
        every feature): region_id, keyword, rank, n_pois, n_keyword_pois, n_footprint, share, lift,
        score_sum, score_mean, score_max, p_value, q_value, area_m2 (geodesic), density_per_km2, and
        simplestyle fill, fill-opacity, stroke, stroke-width - darker and more opaque for denser
        regions; reals are always written as reals. The top-level member "regionsearch" records the
        tool version, CRS, input hashes and every stage's parameters (GIS tools ignore it).
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
        let files = try stage.inputs(["projected", "regions"])
        let (projectedFile, regionsFile) = (files[0], files[1])
        let points = try ProjectedPoints(artifact: projectedFile)
        let table = try RegionTable(artifact: regionsFile)
        guard let crs = try projectedFile.meta("crs").stringValue else {
            throw ArtifactError.malformed(path: projectedFile.path, detail: "metadata 'crs' is not a string")
        }
        let crsIsLocal = projectedFile.metadata["crs_is_local"]?.boolValue ?? true
        let keywords = (try regionsFile.meta("keywords").arrayValue ?? []).map { $0["query"]?.stringValue ?? "" }
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
        let (polygons, dropped) = try stage.summary.time(.hulls) {
            try builder.build(table: table, points: points, crs: crs, crsIsLocal: crsIsLocal)
        }

        let layer = RegionFeatureSchema.layer(polygons: polygons, table: table, keywords: keywords)
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
        Log.info(
            "wrote \(layer.count) region polygon(s) to \(output)\(dropped > 0 ? " (\(dropped) covered by better-ranked regions dropped)" : "")"
        )
        try stage.finish()
    }
}
