import Foundation
import RegionSearchCore
import RegionSearchProjection

/// The `project` stage: WGS84 lon/lat → a metric CRS (PROJ), then Hilbert-curve order.
public enum ProjectStage {
    public static let definition = StageDefinition(
        name: "project",
        abstract: "project POIs from WGS84 to a metric CRS with PROJ and order them along a Hilbert curve",
        version: 1,
        inputs: [IngestStage.definition.provides("output", as: "input")],
        outputs: [.init(option: "output", fileName: "projected.rsa", kind: .projected)],
        options: ProjectionOptions.self)

    static let discussion = """
        Reads the pois artifact, transforms every point with one PROJ transformation applied in bulk
        (proj_trans_generic, one PROJ context per thread), drops and reports points whose projection is
        not finite, and writes the projected artifact with the points sorted along a Hilbert curve (so
        later stages work on neighbouring points in neighbouring memory). Each point keeps its POI row.
        """

    public static func main() -> Never {
        ToolMain.run(definition.commandSpec(discussion: discussion)) { try run($0) }
    }

    static func run(_ cl: ParsedCommandLine) throws {
        var stage = try StageInvocation<ProjectionOptions>(cl, definition)
        let output = try stage.outputPath()
        let pois = try stage.input("input")
        let input = pois.path
        let lon = try pois.column("lon", as: Double.self)
        let lat = try pois.column("lat", as: Double.self)
        guard lon.count == pois.rowCount, lat.count == pois.rowCount else {
            throw ArtifactError.malformed(path: input, detail: "lon/lat columns do not match the row count")
        }
        let result = try stage.summary.time(.project) {
            try Projector.project(lon: lon, lat: lat, crs: stage.options.crs)
        }
        Log.info("CRS \(result.choice.definition) — \(result.choice.explanation)")
        var failedExamples: [JSONValue] = []
        if !result.failedRows.isEmpty {
            let ids = try pois.strings("id", count: pois.rowCount)
            for r in result.failedRows.prefix(20) {
                failedExamples.append(
                    .object([("id", .string(ids[r])), ("lon", .number(lon[r])), ("lat", .number(lat[r]))]))
            }
            Log.warning(
                "\(groupedCount(result.failedRows.count)) of \(groupedCount(pois.rowCount)) points could not be "
                    + "projected to \(result.choice.definition) and were left out (first: "
                    + "\(failedExamples.prefix(3).map { $0.serialized() }.joined(separator: ", "))); choose a CRS "
                    + "that covers the data or use \"auto\""
            )
        }
        if result.points.count == 0 {
            throw ToolFailure(
                "no point could be projected to \(result.choice.definition); choose a CRS that covers the data or "
                    + "use \"auto\"",
                status: .inputData)
        }
        var meta: [(String, JSONValue)] = [
            ("stage", .string("project")),
            ("parameters", stage.parameters.canonical),
            ("crs", .string(result.choice.definition)),
            ("crs_name", .string(result.crsName)),
            ("crs_explanation", .string(result.choice.explanation)),
            ("crs_is_local", .bool(result.choice.isLocal)),
            ("order", .string("hilbert")),
            ("input_points", .number(Double(pois.rowCount))),
            ("projected_points", .number(Double(result.points.count))),
            ("failed_points", .number(Double(result.failedRows.count))),
            ("failed_examples", .array(failedExamples)),
            ("provenance", stage.provenance(inputs: [pois], extra: [("crs", .string(result.choice.definition))])),
        ]
        if let e = result.extent {
            meta.append(
                (
                    "extent",
                    .object([
                        ("west", .number(e.west)), ("width_deg", .number(e.width)),
                        ("south", .number(e.south)), ("north", .number(e.north)),
                    ])
                ))
        }
        try stage.summary.time(.write) { try result.points.writer(metadata: .object(meta)).write(to: output) }
        stage.summary.set(.inputPoints, pois.rowCount)
        stage.summary.set(.projectedPoints, result.points.count)
        stage.summary.set(.failedPoints, result.failedRows.count)
        stage.summary.setDetail("crs", .string(result.choice.definition))
        let seconds = { (phase: StageSummary.Phase) in String(format: "%.3f", stage.summary.seconds(phase) ?? 0) }
        Log.info(
            "projected \(groupedCount(result.points.count)) points in \(seconds(.project)) s (load \(seconds(.load)) "
                + "s, write \(seconds(.write)) s)"
        )
        try stage.finish()
    }
}
