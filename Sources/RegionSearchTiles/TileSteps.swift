import RegionSearchCore
import RegionSearchRunner
import RegionSearchStages

/// The steps of a tiled run (`regionsearch tile STEP --plan PLAN`), each one workflow job.
///
/// The global steps go through the ``Runner`` on the manifest's work directory — so keys, records,
/// crash safety and the work-directory lock are the single run's — with a launcher that turns the
/// graph and propagate stages into gathers of the tile parts (``TileGatherLauncher``). The tile
/// steps run one stage executable in tile mode on objects the global steps verified; they take no
/// lock (they only read the work directory) and write only their own part, atomically.
public struct TileSteps {
    public let plan: TilePlan
    public let manifest: Manifest
    public var threads: Int?
    public var quiet = false

    public init(plan: TilePlan, threads: Int? = nil) throws {
        self.plan = plan
        manifest = try Manifest.load(path: plan.manifest)
        self.threads = threads
    }

    /// What `prepare` found: the objects the tile steps read.
    struct Prepared {
        var pois: String
        var projected: String
        var points: Int

        var json: JSONValue {
            .object([
                ("pois", .string(pois)), ("projected", .string(projected)), ("points", .number(Double(points))),
            ])
        }

        init(pois: String, projected: String, points: Int) {
            self.pois = pois
            self.projected = projected
            self.points = points
        }

        init(_ path: String) throws {
            guard let bytes = try? FileSystem.read(path),
                let json = try? bytes.withUnsafeBufferPointer({ (b) throws(JSONParseError) -> JSONValue in
                    try JSONParser.parse(bytes: b)
                }),
                let pois = json["pois"]?.stringValue, let projected = json["projected"]?.stringValue,
                let points = json["points"]?.intValue
            else {
                throw ToolFailure("\(path): missing or damaged; run the prepare step first", status: .failure)
            }
            self.init(pois: pois, projected: projected, points: points)
        }
    }

    private func runner() -> Runner {
        Runner(manifest: manifest, toolDirectory: plan.toolDirectory, launcher: TileGatherLauncher(plan: plan))
    }

    /// Runs the global step through the runner. A failed stage resumes by rerunning the
    /// workflow's step, not by `regionsearch run` (which would compute the graph in one piece and
    /// leave the tile parts unused).
    private func run(_ options: RunOptions, step: String) throws -> Runner.Outcome {
        do {
            return try runner().run(options)
        } catch let error as RunnerError {
            guard let failure = error.stageFailure else { throw error }
            throw ToolFailure(
                failure + ". Earlier stages are kept; after fixing the cause, rerun the workflow (snakemake reruns the "
                    + "\(step) step and the steps after it)",
                status: error.exitStatus)
        }
    }

    private func options(until: String? = nil) -> RunOptions {
        var o = RunOptions()
        o.until = until
        o.threads = threads
        o.quiet = quiet
        o.logFormat = Log.format
        // Steps of one workflow may overlap (a retried job): queue rather than fail.
        o.wait = true
        return o
    }

    /// The absolute path of a stage's output from a run's outcome.
    private func object(_ outcome: Runner.Outcome, stage: String, file: String) throws -> String {
        guard let key = outcome.stages.first(where: { $0.stage == stage })?.key else {
            throw ToolFailure("internal error: \(stage) did not complete", status: .internalError)
        }
        return manifest.workDirectory + "/" + StagePlanner.objectPath(stage: stage, key: key) + "/" + file
    }

    private func writeState(_ json: JSONValue, to path: String) throws {
        try FileSystem.createDirectories(plan.stateDirectory)
        try AtomicFile.write(json.serialized(pretty: true) + "\n", to: path)
    }

    /// Ingest and project the whole data once (the CRS, the extent and the Hilbert order depend
    /// on all of it).
    public func prepare() throws {
        let outcome = try run(options(until: "project"), step: "prepare")
        let projected = try object(outcome, stage: "project", file: "projected.rsa")
        let pois = try object(outcome, stage: "ingest", file: "pois.rsa")
        let points = outcome.records["project"]?.summary.count(.projectedPoints) ?? 0
        try FileSystem.createDirectories(plan.graphParts)
        try FileSystem.createDirectories(plan.propagateDirectory)
        try writeState(Prepared(pois: pois, projected: projected, points: points).json, to: plan.preparedPath)
        Log.info("prepared \(groupedCount(points)) points for \(plan.tiles) tiles")
    }

    private func tile(_ t: Int) throws {
        guard t >= 0 && t < plan.tiles else {
            throw UsageError("--tile: give a tile number from 0 to \(plan.tiles - 1)")
        }
    }

    /// Runs a stage executable in a tile mode; its summary (counts, phases, peak memory) goes to
    /// `DIR/logs/SUMMARY.summary.json`.
    private func spawn(_ stage: StageDefinition, _ arguments: [String], what: String, summary: String) throws {
        var args = arguments
        args += manifest.parameters(for: stage.name).commandLine(specs: stage.parameters)
        try FileSystem.createDirectories(plan.directory + "/logs")
        args += ["--summary", plan.directory + "/logs/" + summary + ".summary.json"]
        if let threads { args += ["--threads", String(threads)] }
        if quiet { args.append("--quiet") }
        if Log.format != .human { args += ["--log-format", Log.format.rawValue] }
        let executable = plan.toolDirectory + "/" + stage.executable
        guard FileSystem.isExecutable(executable) else { throw RunnerError.executableMissing(path: executable) }
        let termination: ChildProcess.Termination
        do {
            termination = try ChildProcess.run(executable, args)
        } catch {
            throw RunnerError.spawnFailed(executable: executable, reason: error.reason)
        }
        guard termination.succeeded else {
            throw ToolFailure("\(stage.executable) (\(what)) failed: \(termination)", status: .stageFailed)
        }
    }

    /// One tile of the graph.
    public func graph(tile t: Int) throws {
        try tile(t)
        let prepared = try Prepared(plan.preparedPath)
        try FileSystem.createDirectories(plan.graphParts)
        let part = TileArtifacts.graphPart(plan.graphParts, t)
        try spawn(
            GraphStage.definition,
            [
                "--input", prepared.projected, "--tile", String(t), "--tiles", String(plan.tiles), "--output", part,
                "--halo-cells", String(plan.haloCells), "--points-per-cell", String(plan.pointsPerCell),
            ], what: "graph tile \(t)", summary: "graph-" + plan.tileName(t))
        removeLeftovers(besides: part)
    }

    /// Removes what killed runs of this step left beside its part (`.<part>.tmp-<pid>-<n>`, up to
    /// a part's size each, which no other step sweeps: the tile steps write outside the work
    /// directory), once the step has written the part.
    private func removeLeftovers(besides part: String) {
        _ = try? WorkDirectory.removeTemporaries(besides: part, sparingLiveWriters: true)
    }

    /// The graph object from the tile parts, then every tile's propagation window.
    public func gatherGraph() throws {
        let outcome = try run(options(until: "graph"), step: "gather-graph")
        let graph = try object(outcome, stage: "graph", file: "graph.rsa")
        let prepared = try Prepared(plan.preparedPath)
        try spawn(
            PropagateStage.definition,
            [
                "--pois", prepared.pois, "--projected", prepared.projected, "--graph", graph, "--write-windows",
                plan.propagateDirectory, "--tiles", String(plan.tiles),
            ], what: "propagation windows", summary: "windows")
        for t in 0..<plan.tiles { removeLeftovers(besides: TileArtifacts.window(plan.propagateDirectory, t)) }
        try writeState(.object([("graph", .string(graph))]), to: plan.graphDonePath)
    }

    /// One tile of the propagation.
    public func propagate(tile t: Int) throws {
        try tile(t)
        try spawn(
            PropagateStage.definition,
            [
                "--window", TileArtifacts.window(plan.propagateDirectory, t), "--output",
                TileArtifacts.scoresPart(plan.propagateDirectory, t),
            ], what: "propagate tile \(t)", summary: "propagate-" + plan.tileName(t))
        removeLeftovers(besides: TileArtifacts.scoresPart(plan.propagateDirectory, t))
    }

    /// The scores object from the tile parts, then regions, hulls and maps: the run's output.
    public func finish() throws {
        let outcome = try run(options(), step: "finish")
        guard outcome.stages.count == Pipeline.stages.count else {
            throw ToolFailure("internal error: the run stopped early", status: .internalError)
        }
        // The files the run published (none for PostGIS or standard output, whose rows the
        // publisher wrote); a file's digest shows which bytes the workflow produced.
        var files: [JSONValue] = []
        for target in manifest.outputTargets {
            for path in target.files where FileSystem.exists(path) {
                files.append(.object([("path", .string(path))] + (try FileDigest.of(path: path)).jsonMembers))
            }
        }
        try writeState(
            .object([("output", .string(manifest.outputTarget.display)), ("files", .array(files))]),
            to: plan.finishedPath)
        Log.info("tiled run of \(manifest.file) complete: \(manifest.outputTarget.display)")
    }
}

/// The runner's launcher in a tiled run: the graph and propagate stages gather their tile parts
/// (`--from-tiles`) instead of computing; every other stage runs as usual.
struct TileGatherLauncher: StageLauncher {
    let plan: TilePlan
    private let base = ProcessStageLauncher()

    init(plan: TilePlan) { self.plan = plan }

    func launch(stage: StageDefinition, executable: String, arguments: [String]) throws(RunnerError) -> StageLaunch {
        var args = arguments
        switch stage.name {
        case GraphStage.definition.name:
            args += ["--from-tiles", plan.graphParts, "--tiles", String(plan.tiles)]
        case PropagateStage.definition.name:
            args += ["--from-tiles", plan.propagateDirectory, "--tiles", String(plan.tiles)]
        default:
            break
        }
        return try base.launch(stage: stage, executable: executable, arguments: args)
    }
}
