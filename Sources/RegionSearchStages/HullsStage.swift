import Foundation
import RegionSearchCore
import RegionSearchModel
import RegionSearchOutput

/// The `hulls` stage: region polygons through GEOS, written as RFC 7946 GeoJSON.
public enum HullsStage {
    public static let parameters: [ParameterSpec] = [
        ParameterSpec(
            "hull", .choice(["convex", "concave"]), default: .string("convex"),
            help: "Polygon of a region's matching POIs: \"convex\" hull, or GEOS \"concave\" hull (street-shaped clusters stay streets)."),
        ParameterSpec(
            "concave_ratio", .number(min: 0, max: 1), default: .number(0.3),
            help: "Concave hull tightness: 1 = convex hull, smaller = follows the POIs more closely."),
        ParameterSpec(
            "margin_m", .number(min: 0, max: nil), default: .null,
            help: "Metres added around the hull so it covers its edge POIs' surroundings; default: half the region's median POI spacing."),
        ParameterSpec(
            "min_extent_m", .number(min: 0, max: nil), default: .number(20),
            help: "Smallest polygon size in metres: a region whose POIs are stacked at one address or lie on a line becomes a disc or band this wide."),
    ]

    public static let definition = StageDefinition(
        name: "hulls",
        abstract: "build region polygons with GEOS and write them as RFC 7946 GeoJSON",
        version: 1,
        inputs: [
            .init(option: "projected", fileName: "projected.rsa", kind: .projected, producer: "project"),
            .init(option: "regions", fileName: "regions.rsa", kind: .regions, producer: "regions"),
        ],
        outputs: [.init(option: "output", fileName: "regions.geojson", kind: nil)],
        parameters: parameters)

    static let discussion = """
        One Polygon feature per region (a MultiPolygon only when a region crosses the antimeridian):
        the convex or concave hull of the region's matching POIs plus a margin, at least min_extent_m
        wide, valid (GEOS isValid), not overlapping better-ranked regions of the same keyword, in
        WGS84 lon/lat with counter-clockwise rings and at most 7 decimals. Properties (same type in
        every feature): region_id, keyword, rank, n_pois, n_keyword_pois, n_footprint, share, lift,
        score_sum, score_mean, score_max, p_value, q_value, area_m2 (geodesic), density_per_km2, and
        simplestyle fill, fill-opacity, stroke, stroke-width - darker and more opaque for denser
        regions. The top-level member "regionsearch" records the tool version, CRS, input hashes
        and every stage's parameters (GIS tools ignore it).
        """

    public static func main() -> Never {
        ToolMain.run(definition.commandSpec(discussion: discussion)) { try run($0) }
    }

    static func run(_ cl: ParsedCommandLine) throws {
        var stage = try StageInvocation(cl, definition)
        let params = stage.parameters, output = stage.output, t0 = stage.start
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
                throw ArtifactError.malformed(path: regionsFile.path, detail: "region keyword index \(r.keyword) out of range")
            }
            for v in r.members where Int(v) >= points.count {
                throw ArtifactError.malformed(
                    path: regionsFile.path, detail: "member \(v) out of range of the projected points; rerun regions")
            }
        }
        let tLoad = monotonicSeconds()
        let builder = RegionPolygonBuilder(options: .init(
            concave: params.string("hull") == "concave", concaveRatio: params.double("concave_ratio"),
            margin: params.optionalDouble("margin_m"), minExtent: params.double("min_extent_m")))
        let (polygons, dropped) = try builder.build(table: table, points: points, crs: crs, crsIsLocal: crsIsLocal)
        let tBuild = monotonicSeconds()

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
            features.append(GeoJSONWriter.Feature(rings: p.rings, properties: [
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
                ("p_value", .number(Self.significant(r.pValue))),
                ("q_value", .number(Self.significant(r.qValue))),
                ("area_m2", round(p.areaM2, 10)),
                ("density_per_km2", round(density, 100)),
                ("fill", .string(colour)),
                ("fill-opacity", .number(ColorRamp.opacity(depth: depth))),
                ("stroke", .string(colour)),
                ("stroke-width", .number(1)),
            ]))
        }
        let provenance = Provenance.chain(
            inputs: [projectedFile, regionsFile], stage: "hulls", entry: Provenance.entry(definition, params))
        let foreign: [(String, JSONValue)] = [
            ("regionsearch", .object([
                ("version", .string(RegionSearchVersion.current)),
                ("crs", .string(crs)),
                ("regions", .number(Double(features.count))),
                ("dropped_covered", .number(Double(dropped))),
                ("provenance", provenance),
            ]))
        ]
        try AtomicFile.write(GeoJSONWriter.document(features: features, foreignMembers: foreign), to: output)
        let tWrite = monotonicSeconds()
        stage.report.set("regions", features.count)
        stage.report.set("dropped_covered", dropped)
        stage.report.set("load_seconds", tLoad - t0)
        stage.report.set("hulls_seconds", tBuild - tLoad)
        stage.report.set("write_seconds", tWrite - tBuild)
        Log.info("wrote \(features.count) region polygon(s) to \(output)\(dropped > 0 ? " (\(dropped) covered by better-ranked regions dropped)" : "")")
        try stage.finish()
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
