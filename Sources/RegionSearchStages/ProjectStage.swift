import Foundation
import RegionSearchCore
import RegionSearchProjection

/// The `project` stage: WGS84 lon/lat → a metric CRS (PROJ), then Hilbert-curve order.
public enum ProjectStage {
    public static let parameters: [ParameterSpec] = [
        ParameterSpec(
            "crs", .string, default: .string("auto"),
            help: "Target CRS in metres: \"auto\" picks the UTM zone of the data when it fits one zone, an equal-area continental or polar projection when it does not, and Equal Earth for worldwide data (the choice and its reason are recorded); or anything PROJ accepts, e.g. \"EPSG:3067\".")
    ]

    public static let definition = StageDefinition(
        name: "project",
        abstract: "project POIs from WGS84 to a metric CRS with PROJ and order them along a Hilbert curve",
        version: 1,
        inputs: [.init(option: "input", fileName: "pois.rsa", kind: .pois, producer: "ingest")],
        outputs: [.init(option: "output", fileName: "projected.rsa", kind: .projected)],
        parameters: parameters)

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
        var stage = try StageInvocation(cl, definition)
        let params = stage.parameters, output = stage.output, t0 = stage.start
        let pois = try stage.input("input")
        let input = pois.path
        let lon = try pois.column("lon", as: Double.self)
        let lat = try pois.column("lat", as: Double.self)
        guard lon.count == pois.rowCount, lat.count == pois.rowCount else {
            throw ArtifactError.malformed(path: input, detail: "lon/lat columns do not match the row count")
        }
        let tLoad = monotonicSeconds()
        let result = try Projector.project(lon: lon, lat: lat, crs: params.string("crs"))
        let tProject = monotonicSeconds()
        Log.info("CRS \(result.choice.definition) — \(result.choice.explanation)")
        var failedExamples: [JSONValue] = []
        if !result.failedRows.isEmpty {
            let ids = try pois.strings("id", count: pois.rowCount)
            for r in result.failedRows.prefix(20) {
                failedExamples.append(
                    .object([("id", .string(ids[r])), ("lon", .number(lon[r])), ("lat", .number(lat[r]))]))
            }
            Log.warning(
                "\(groupedCount(result.failedRows.count)) of \(groupedCount(pois.rowCount)) points could not be projected to \(result.choice.definition) and were left out (first: \(failedExamples.prefix(3).map { $0.serialized() }.joined(separator: ", "))); choose a CRS that covers the data or use \"auto\"")
        }
        if result.points.count == 0 {
            throw ToolFailure("no point could be projected to \(result.choice.definition); choose a CRS that covers the data or use \"auto\"", status: .inputData)
        }
        var meta: [(String, JSONValue)] = [
            ("stage", .string("project")),
            ("parameters", params.canonical),
            ("crs", .string(result.choice.definition)),
            ("crs_name", .string(result.crsName)),
            ("crs_explanation", .string(result.choice.explanation)),
            ("crs_is_local", .bool(result.choice.isLocal)),
            ("order", .string("hilbert")),
            ("input_points", .number(Double(pois.rowCount))),
            ("projected_points", .number(Double(result.points.count))),
            ("failed_points", .number(Double(result.failedRows.count))),
            ("failed_examples", .array(failedExamples)),
            ("provenance", Provenance.chain(
                inputs: [pois], stage: "project",
                entry: Provenance.entry(definition, params, extra: [("crs", .string(result.choice.definition))]))),
        ]
        if let e = result.extent {
            meta.append(("extent", .object([
                ("west", .number(e.west)), ("width_deg", .number(e.width)),
                ("south", .number(e.south)), ("north", .number(e.north)),
            ])))
        }
        try result.points.writer(metadata: .object(meta)).write(to: output)
        let tWrite = monotonicSeconds()
        stage.report.set("input_points", pois.rowCount)
        stage.report.set("projected_points", result.points.count)
        stage.report.set("failed_points", result.failedRows.count)
        stage.report.set("crs", result.choice.definition)
        stage.report.set("load_seconds", tLoad - t0)
        stage.report.set("project_seconds", tProject - tLoad)
        stage.report.set("write_seconds", tWrite - tProject)
        Log.info("projected \(groupedCount(result.points.count)) points in \(String(format: "%.3f", tProject - tLoad)) s (load \(String(format: "%.3f", tLoad - t0)) s, write \(String(format: "%.3f", tWrite - tProject)) s)")
        try stage.finish()
    }
}
