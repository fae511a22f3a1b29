import RegionSearchCore
import RegionSearchPipeline

/// `regionsearch plan` and `regionsearch tile`: tiled runs on a workflow engine or a cluster
/// scheduler (docs/TILES.md).
public enum TileCommands {
    static let tilesOption = CommandSpec.Option(
        "tiles", .value, placeholder: "N|auto",
        help: "Number of tiles; auto: one per 5 million POIs (from the last run's count or the input sizes).")
    static let emitOption = CommandSpec.Option(
        "emit", .value, placeholder: "snakefile|sbatch",
        help: "snakefile: DIR/Snakefile and DIR/profiles/slurm; sbatch: DIR/sbatch/*.sbatch and DIR/submit.sh.")
    static let partitionOption = CommandSpec.Option(
        "partition", .value, placeholder: "NAME", help: "Slurm partition of every job (default local).")
    static let haloOption = CommandSpec.Option(
        "halo-cells", .value, placeholder: "H",
        help: "Rings of grid cells a graph tile loads around its own at first (default 2; tiles grow as needed).")
    static let densityOption = CommandSpec.Option(
        "points-per-cell", .value, placeholder: "P", help: "Density of the graph tiles' grid (default 256).")
    static let pointsOption = CommandSpec.Option(
        "points", .value, placeholder: "N", help: "Size the jobs for N POIs instead of the estimate.")

    static let planSpec = CommandSpec(
        name: "regionsearch plan",
        abstract: "write a tiled workflow of a manifest for Snakemake or plain Slurm sbatch",
        usage:
            "regionsearch plan MANIFEST --tiles N|auto --emit snakefile|sbatch DIR [--partition NAME] "
            + "[--halo-cells H] [--points-per-cell P] [--points N]",
        discussion: """
            Writes DIR/plan.json and the engine's files. The workflow has five steps, each a
            'regionsearch tile STEP' job: prepare (ingest and project the whole data), graph (one job per
            tile), gather-graph (the graph and the propagation windows), propagate (one job per tile) and
            finish (regions, hulls and maps on the whole data). Its output and every artifact are
            byte-identical to 'regionsearch run MANIFEST', and land in the manifest's work directory, so
            a later run finds them up to date. Memory and time per job come from a size estimate
            (docs/TILES.md, "Cost model").

              regionsearch plan pipelines/default.json --tiles 4 --emit snakefile out/wf
              snakemake -s out/wf/Snakefile --cores 2
              snakemake -s out/wf/Snakefile --profile out/wf/profiles/slurm
              regionsearch plan pipelines/default.json --tiles 4 --emit sbatch out/wf && out/wf/submit.sh
            """,
        options: [tilesOption, emitOption, partitionOption, haloOption, densityOption, pointsOption],
        acceptsPositionals: true)

    static let planOption = CommandSpec.Option(
        "plan", .value, placeholder: "PLAN", help: "The plan.json written by 'regionsearch plan'.")
    static let tileOption = CommandSpec.Option(
        "tile", .value, placeholder: "I", help: "The tile (graph and propagate steps), 0-based.")
    static let threadsOption = CommandSpec.Option(
        "threads", .value, placeholder: "N", help: "Worker threads (default: all cores). Results are identical.")

    static let tileSpec = CommandSpec(
        name: "regionsearch tile",
        abstract: "run one step of a tiled workflow (the jobs 'regionsearch plan' writes)",
        usage: "regionsearch tile prepare|graph|gather-graph|propagate|finish --plan PLAN [--tile I] [--threads N]",
        discussion: """
            prepare       ingest and project the whole data through the runner (state/prepared.json)
            graph         one tile's graph rows (graph/graph-part-I.rsa)
            gather-graph  the graph object from the parts, then every tile's propagation window
            propagate     one tile's scores (propagate/scores-part-I.rsa)
            finish        the scores object from the parts, then regions, hulls, the GeoJSON and maps
            Global steps take the work directory's lock (waiting for another holder); tile steps only read it.
            """,
        options: [planOption, tileOption, threadsOption], acceptsPositionals: true)

    static func plan(_ cl: ParsedCommandLine) throws {
        guard cl.positionals.count == 2 else {
            throw UsageError("give the manifest and the directory to write: \(cl.spec.usage)")
        }
        guard let tilesText = cl.value(tilesOption) else { throw UsageError("--tiles: give N or auto") }
        var tiles: Int?
        if tilesText != "auto" {
            guard let n = Int(tilesText), n >= 1, n <= 4096 else {
                throw UsageError("--tiles: expected auto or an integer in [1, 4096], got \"\(tilesText)\"")
            }
            tiles = n
        }
        guard let emit = cl.value(emitOption), let engine = WorkflowWriter.Engine(rawValue: emit) else {
            throw UsageError("--emit: expected snakefile or sbatch")
        }
        var request = TilePlanner.Request(
            manifest: cl.positionals[0], tiles: tiles, directory: cl.positionals[1], engine: engine)
        if let p = cl.value(partitionOption) {
            guard !p.isEmpty, p.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }) else {
                throw UsageError("--partition: expected a partition name (letters, digits, _ and -), got \"\(p)\"")
            }
            request.partition = p
        }
        request.haloCells = try integer(cl, haloOption, default: 2, range: 0...1000)
        request.pointsPerCell = try integer(cl, densityOption, default: 256, range: 1...1_000_000)
        if cl.value(pointsOption) != nil {
            request.points = try integer(cl, pointsOption, default: 0, range: 1...Int(Int32.max))
        }
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
        guard cl.positionals.count == 1 else { throw UsageError("give one step: \(cl.spec.usage)") }
        guard let planPath = cl.value(planOption) else { throw UsageError("--plan: give the plan.json") }
        let plan = try TilePlan.load(planPath)
        var threads: Int?
        if cl.value(threadsOption) != nil { threads = try integer(cl, threadsOption, default: 0, range: 1...1024) }
        var steps = try TileSteps(plan: plan, threads: threads)
        steps.quiet = cl.flag(.quiet)
        func tileNumber() throws -> Int {
            guard cl.value(tileOption) != nil else {
                throw UsageError("--tile: this step runs one tile; give its number")
            }
            return try integer(cl, tileOption, default: 0, range: 0...(plan.tiles - 1))
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
            let names = ["prepare", "graph", "gather-graph", "propagate", "finish"]
            let hint = closestMatch(step, in: names).map { " (did you mean '\($0)'?)" } ?? ""
            throw UsageError("'\(step)' is not a step\(hint); steps: \(names.joined(separator: ", "))")
        }
        Log.info("tile step \(step) done in \(Runner.seconds(monotonicSeconds() - t0))")
    }

    static func integer(_ cl: ParsedCommandLine, _ option: CommandSpec.Option, default d: Int, range: ClosedRange<Int>)
        throws(UsageError) -> Int
    {
        guard let text = cl.value(option) else { return d }
        guard let v = Int(text), range.contains(v) else {
            throw UsageError(
                "--\(option.name): expected an integer in [\(range.lowerBound), \(range.upperBound)], got \"\(text)\"")
        }
        return v
    }
}
