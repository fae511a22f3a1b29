import RegionSearchCore
import RegionSearchRunner
import RegionSearchStages
import RegionSearchTiles

/// `regionsearch plan` and `regionsearch tile`: tiled runs on a workflow engine or a cluster
/// scheduler (docs/TILES.md).
public enum TileCommands {
    static let tilesOption = CommandSpec.Option(
        "tiles", .text, default: .required, placeholder: "N|auto",
        help: "Number of tiles, 1 to 4096; auto: one per 5 million POIs (from the last run's count or the input sizes)."
    )
    static let emitOption = CommandSpec.Option(
        "emit", .choice(WorkflowWriter.Engine.allCases.map(\.rawValue)), default: .required,
        help: "snakefile: DIR/Snakefile and DIR/profiles/slurm; sbatch: DIR/sbatch/*.sbatch and DIR/submit.sh.")
    static let partitionOption = CommandSpec.Option(
        "partition", .text, default: .value(.string(TilePlanner.Request.defaultPartition)), placeholder: "NAME",
        help: "Slurm partition of every job (letters, digits, _ and -).")
    static let pointsOption = CommandSpec.Option(
        "points", .integer(1...Int(Int32.max)), help: "Size the jobs for N POIs instead of the estimate.")
    /// The most tiles a plan cuts a run into.
    static let maxTiles = TilePlan.maximumTiles

    static let planSpec = CommandSpec(
        name: "regionsearch plan",
        abstract: "write a tiled workflow of a manifest for Snakemake or plain Slurm sbatch",
        positionals: ["MANIFEST DIR"],
        discussion: """
            Writes DIR/plan.json and the engine's files. The workflow has five steps, each a
            'regionsearch tile STEP' job: prepare (ingest and project the whole data), graph (one job per
            tile), gather-graph (the graph and the propagation windows), propagate (one job per tile) and
            finish (regions, hulls and maps on the whole data). Its output and every artifact are
            byte-identical to 'regionsearch run MANIFEST', and land in the manifest's work directory, so
            a later run finds them up to date. Memory and time per job come from a size estimate
            (docs/TILES.md, "Cost model"). The Snakefile reruns from prepare when the content of the
            manifest or of an input file changed, whatever the files' dates (state/inputs.json, updated
            by 'regionsearch tile inputs' each time Snakemake starts); after changing the data of an
            sbatch plan, run submit.sh --fresh.

              regionsearch plan pipelines/default.json --tiles 4 --emit snakefile out/wf
              snakemake -s out/wf/Snakefile --cores 2
              snakemake -s out/wf/Snakefile --profile out/wf/profiles/slurm
              regionsearch plan pipelines/default.json --tiles 4 --emit sbatch out/wf && out/wf/submit.sh
            """,
        options: [
            tilesOption, emitOption, partitionOption, TileArtifacts.haloOption, TileArtifacts.pointsPerCellOption,
            pointsOption,
        ])

    static let planOption = CommandSpec.Option(
        "plan", .path, default: .required, placeholder: "PLAN", help: "The plan.json written by 'regionsearch plan'.")
    static let tileOption = CommandSpec.Option(
        "tile", .integer(0...(maxTiles - 1)), placeholder: "I", help: "The tile (graph and propagate steps), 0-based.")
    static let threadsOption = CommandSpec.Option.threads("Results are identical.")

    /// Not a job: the step the Snakefile runs when Snakemake starts, so that the prepare rule
    /// follows its inputs' content rather than their dates (``TileInputsKey``).
    static let inputsStep = "inputs"

    static let tileSpec = CommandSpec(
        name: "regionsearch tile",
        abstract: "run one step of a tiled workflow (the jobs 'regionsearch plan' writes)",
        positionals: [(TileEstimate.steps + [inputsStep]).joined(separator: "|")],
        discussion: """
            inputs        the content key of the manifest and its input files (state/inputs.json), rewritten
                          only when their content changed; the Snakefile runs it whenever Snakemake starts
            prepare       ingest and project the whole data through the runner (state/prepared.json)
            graph         one tile's graph rows (graph/graph-part-I.rsa)
            gather-graph  the graph object from the parts, then every tile's propagation window
            propagate     one tile's scores (propagate/scores-part-I.rsa)
            finish        the scores object from the parts, then regions, hulls, the GeoJSON and maps
            Global steps take the work directory's lock (waiting for another holder); tile steps only read it.
            """,
        options: [planOption, tileOption, threadsOption])

    static func plan(_ cl: ParsedCommandLine) throws {
        guard cl.positionals.count == 2 else {
            throw UsageError("give the manifest and the directory to write: \(cl.spec.shortUsage)")
        }
        let tilesText = try cl.required(tilesOption)
        var tiles: Int?
        if tilesText != "auto" {
            guard let n = ValueSyntax.integer(tilesText), (1...maxTiles).contains(n) else {
                throw UsageError("--tiles: expected auto or an integer in [1, \(maxTiles)], got \"\(tilesText)\"")
            }
            tiles = n
        }
        guard let engine = cl.optionalChoice(emitOption, as: WorkflowWriter.Engine.self) else {
            throw UsageError("--emit: expected snakefile or sbatch")
        }
        var request = TilePlanner.Request(
            manifest: cl.positionals[0], tiles: tiles, directory: cl.positionals[1], engine: engine)
        let partition = cl.string(partitionOption)
        guard !partition.isEmpty, partition.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }) else {
            throw UsageError("--partition: expected a partition name (letters, digits, _ and -), got \"\(partition)\"")
        }
        request.partition = partition
        request.haloCells = cl.integer(TileArtifacts.haloOption)
        request.pointsPerCell = cl.integer(TileArtifacts.pointsPerCellOption)
        request.points = cl.optionalInteger(pointsOption)
        let (plan, files) = try TilePlanner.plan(request)
        let e = plan.estimate
        Log.info(
            "\(plan.tiles) tiles for \(groupedCount(e.points)) POIs (\(e.source)); propagation reach \(e.reach) hops")
        for step in TileEstimate.steps {
            let r = e.resources(step)
            Log.info("  \(step): \(r.memoryMB) MB, \(r.runtimeMinutes) min, \(r.threads) threads per job")
        }
        for f in files { Log.info("wrote \(f)") }
        switch engine {
        case .snakefile:
            Log.info("run: snakemake -s \(plan.directory)/Snakefile --cores 2")
            Log.info(
                "  or on Slurm: snakemake -s \(plan.directory)/Snakefile --profile \(plan.directory)/profiles/slurm")
        case .sbatch:
            Log.info("run: \(plan.directory)/submit.sh   (rerun it to resume; --fresh after changing the data)")
        }
    }

    static func tile(_ cl: ParsedCommandLine) throws {
        guard cl.positionals.count == 1 else { throw UsageError("give one step: \(cl.spec.shortUsage)") }
        let plan = try TilePlan.load(try cl.required(planOption))
        if cl.positionals[0] == inputsStep {
            // Content only: it reads neither the manifest's settings nor the work directory, so it
            // runs (and a manifest with an error still gets its changed key) wherever Snakemake starts.
            let key = TileInputsKey(plan: plan)
            let changed = try key.update()
            Log.info(
                changed
                    ? "inputs changed (or first checked): \(key.path) rewritten, so the prepare step runs again"
                    : "inputs unchanged since \(key.path) was written")
            return
        }
        var steps = try TileSteps(plan: plan, threads: cl.optionalInteger(threadsOption))
        steps.quiet = cl.flag(.quiet)
        func tileNumber() throws -> Int {
            guard let tile = cl.optionalInteger(tileOption) else {
                throw UsageError("--tile: this step runs one tile; give its number")
            }
            guard tile < plan.tiles else {
                throw UsageError("--tile: expected an integer in [0, \(plan.tiles - 1)], got \(tile)")
            }
            return tile
        }
        let t0 = monotonicSeconds()
        let step = cl.positionals[0]
        switch step {
        case "prepare": try steps.prepare()
        case "graph": try steps.graph(tile: try tileNumber())
        case "gather-graph": try steps.gatherGraph()
        case "propagate": try steps.propagate(tile: try tileNumber())
        case "finish": try steps.finish()
        default:
            let names = TileEstimate.steps + [inputsStep]
            let hint = closestMatch(step, in: names).map { " (did you mean '\($0)'?)" } ?? ""
            throw UsageError("'\(step)' is not a step\(hint); steps: \(names.joined(separator: ", "))")
        }
        Log.info("tile step \(step) done in \(Runner.seconds(monotonicSeconds() - t0))")
    }
}
