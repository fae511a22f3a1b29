import Foundation
import RegionSearchCore
import RegionSearchExperiments
import RegionSearchRunner
import RegionSearchStages

/// The `regionsearch` executable: `run`, `status` and `clean` over a manifest, `help`, and
/// dispatch of `regionsearch STAGE ARGS…` to `regionsearch-STAGE` in the same directory (as git
/// does with its subcommands), passing the exit status through.
public enum Driver {
    /// The options of `regionsearch run`.
    enum RunFlags {
        static let force = CommandSpec.Option(
            "force", .flag, help: "Rerun every stage (up to --until) even when up to date.")
        static let from = CommandSpec.Option(
            "from", .choice(Pipeline.stages.map(\.name)), placeholder: "STAGE",
            help: "Rerun STAGE and every later stage even when up to date.")
        static let until = CommandSpec.Option(
            "until", .choice(Pipeline.stages.map(\.name)), placeholder: "STAGE",
            help: "Stop after STAGE (the outputs are written only when hulls is reached).")
        static let threads = CommandSpec.Option.threads("For every stage; results are identical for any N.")
        static let wait = CommandSpec.Option(
            "wait", .flag,
            help: "If another run holds the work directory, wait for it instead of exiting with status 5.")
        static let freshLineage = CommandSpec.Option(
            "fresh-lineage", .flag,
            help:
                "Start a new lineage: ignore the lineage file of the previous result (region ids numbered afresh, "
                + "every region new); also takes over a lineage file another manifest keeps, which is refused "
                + "otherwise (--adopt-lineage takes it over keeping the ids).")
        static let adoptLineage = CommandSpec.Option(
            "adopt-lineage", .flag,
            help:
                "Go on from a lineage file another manifest keeps (refused otherwise): its region ids continue, and "
                + "the file becomes this manifest's, so the other is refused from then on.")
        static let dryRun = CommandSpec.Option(
            "dry-run", .flag,
            help: "Say which stages would run and why, and whether the output would be written; run nothing.")
    }

    /// Overrides of the manifest, for `run` and `status`.
    enum OverrideFlags {
        static let set = CommandSpec.Option(
            "set", .text, repeatable: true, placeholder: "STAGE.PARAMETER=VALUE",
            help:
                "Override one parameter of the manifest for this run (e.g. --set graph.k=10); validated as the manifest is."
        )
        static let input = CommandSpec.Option(
            "input", .path, repeatable: true,
            help:
                "Read this file instead of the manifest's input (one --input per input, in order; format options are "
                + "kept), e.g. tonight's dump.")
    }

    /// The options of `regionsearch clean`.
    enum CleanFlags {
        static let unused = CommandSpec.Option(
            "unused", .flag, help: "Keep what the latest run used; remove other stage runs (older parameter settings).")
        static let wait = CommandSpec.Option(
            "wait", .flag, help: "Wait for a running run on the work directory instead of exiting with status 5.")
    }

    /// `regionsearch status --json`.
    static let statusJSON = CommandSpec.Option("json", .flag, help: "Print the report as JSON on stdout.")
    /// `regionsearch status --check`.
    static let statusCheck = CommandSpec.Option(
        "check", .flag,
        help:
            "Print nothing (unless --json) and exit 0 when everything is up to date and the output current, 1 otherwise "
            + "(as make -q).")

    static let runSpec = CommandSpec(
        name: "regionsearch run", abstract: "bring every stage of a pipeline manifest up to date and write its outputs",
        positionals: ["MANIFEST"],
        discussion: """
            Stages whose inputs (by content hash), parameters and versions match their last successful
            run, and whose outputs still verify, are skipped; the others run in order, each into a
            staging directory that replaces the work directory's object only when complete. An
            interrupted or failed run resumes where it stopped. Finally the regions (and, with
            poi_output, the scored POIs) are written in the output's format: GeoJSON, GeoJSONSeq,
            GeoPackage, FlatGeobuf, Shapefile, KML or PostGIS (see README, Formats), and beside them
            the maps (<output stem>.png, .svg and .html; the manifest's "maps" section chooses them,
            see docs/MAPS.md). With "lineage": true in the manifest, region ids stay the same from run to
            run while a region is the same place, matched against the previous result's lineage file
            (<output stem>.lineage.json; --fresh-lineage starts anew), and <output stem>.changes.json beside
            every output says what changed (docs/RUNNING.md, "Night after night"). A lineage file is one
            manifest's: a run of another manifest naming it is refused (exit 2) before any stage runs
            (--adopt-lineage takes it over with its ids). An experiment manifest runs every combination
            of its input sets and parameter grid, computing shared stages once, and writes one GeoJSON
            per combination, results.csv, results.md and plots. See docs/RUNNING.md.
            """,
        options: [
            RunFlags.force, RunFlags.from, RunFlags.until, RunFlags.threads, RunFlags.wait, RunFlags.dryRun,
            RunFlags.freshLineage, RunFlags.adoptLineage, OverrideFlags.set, OverrideFlags.input,
        ])

    static let statusSpec = CommandSpec(
        name: "regionsearch status",
        abstract:
            "show which stages of a manifest are up to date, stale (and why), missing or failed (an experiment's "
            + "combinations also not run yet, or interrupted)",
        positionals: ["MANIFEST"],
        options: [statusJSON, statusCheck, OverrideFlags.set, OverrideFlags.input])

    static let cleanSpec = CommandSpec(
        name: "regionsearch clean",
        abstract: "remove a manifest's intermediate artifacts, run records and leftover temporary files",
        positionals: ["MANIFEST"],
        discussion:
            "The output GeoJSON is kept. With --unused, only the stage runs "
            + "that the latest run did not use are removed.",
        options: [CleanFlags.unused, CleanFlags.wait])

    static var commands: [(String, CommandSpec)] {
        [
            ("run", runSpec), ("status", statusSpec), ("clean", cleanSpec), ("diff", DiffCommand.spec),
            ("plan", TileCommands.planSpec), ("tile", TileCommands.tileSpec),
        ]
    }

    /// Entry point of `regionsearch`.
    public static func main() -> Never {
        ToolMain.prepareStandardStreams()
        Log.toolName = "regionsearch"
        let status = run(Array(CommandLine.arguments.dropFirst()))
        // The overview, --version and help text are printed here, outside ToolMain's commands.
        exit(ToolMain.flushed(status).rawValue)
    }

    /// Runs one command line (without the program name) and returns its exit status.
    public static func run(_ arguments: [String]) -> ExitStatus {
        guard let command = arguments.first else {
            // A usage error (no command): the overview goes where errors go, as the exit says.
            Log.write(overview)
            return .usage
        }
        let rest = Array(arguments.dropFirst())
        switch command {
        case "--help", "-h":
            print(overview, terminator: "")
            return .success
        case "--version", "version":
            print("regionsearch \(RegionSearchVersion.current)")
            return .success
        case "help":
            return help(rest)
        case "run":
            return ToolMain.execute(runSpec, rest) { cl in try runCommand(cl) }
        case "status":
            return ToolMain.execute(statusSpec, rest) { cl in try statusCommand(cl) }
        case "clean":
            return ToolMain.execute(cleanSpec, rest) { cl in try cleanCommand(cl) }
        case "diff":
            return ToolMain.execute(DiffCommand.spec, rest) { cl in try DiffCommand.run(cl) }
        case "plan":
            return ToolMain.execute(TileCommands.planSpec, rest) { cl in try TileCommands.plan(cl) }
        case "tile":
            return ToolMain.execute(TileCommands.tileSpec, rest) { cl in try TileCommands.tile(cl) }
        default:
            if Pipeline.stage(named: command) != nil || tools.contains(where: { $0.0 == command }) {
                return dispatch(stage: command, arguments: rest)
            }
            let names = commands.map { $0.0 } + Pipeline.stages.map { $0.name } + tools.map { $0.0 } + ["help"]
            let hint = closestMatch(command, in: names).map { " (did you mean '\($0)'?)" } ?? ""
            Log.error("'\(command)' is not a command or stage\(hint)")
            Log.write("Run 'regionsearch --help' for the list.\n")
            return .usage
        }
    }

    /// The overview's usage lines, from the commands' declarations.
    static var usageLines: String {
        var lines = commands.map { "  " + $0.1.shortUsage }
        lines.append("  regionsearch STAGE [ARGS...]     run the stage executable regionsearch-STAGE directly")
        lines.append("  regionsearch help [COMMAND|STAGE]")
        return lines.joined(separator: "\n") + "\n"
    }

    static var overview: String {
        let width = Pipeline.stages.map { $0.name.count }.max() ?? 9
        var out = """
            regionsearch \(RegionSearchVersion.current) — find the regions where keywords are dense, from POI files to GeoJSON

            Usage:
            \(usageLines)
            Commands:

            """
        for (name, spec) in commands {
            out += "  " + name.padding(toLength: width + 2, withPad: " ", startingAt: 0) + spec.abstract + "\n"
        }
        out +=
            "  " + "help".padding(toLength: width + 2, withPad: " ", startingAt: 0)
            + "show a command's or a stage's help\n"
        out += "\nStages (in pipeline order; 'regionsearch help STAGE' shows each one's options and parameters):\n"
        for stage in Pipeline.stages {
            out += "  " + stage.name.padding(toLength: width + 2, withPad: " ", startingAt: 0) + stage.abstract + "\n"
        }
        out += "\nTools (regionsearch TOOL … runs regionsearch-TOOL):\n"
        for (name, abstract) in tools {
            out += "  " + name.padding(toLength: width + 2, withPad: " ", startingAt: 0) + abstract + "\n"
        }
        out += """

            A manifest (JSON, see pipelines/) names the inputs, the work directory, the output and each
            stage's parameters. The run model (content-keyed resumable runs, crash safety) is described in
            docs/RUNNING.md.

            """
        out += "\n" + ExitStatus.helpText + "\n"
        return out
    }

    private static func manifestArgument(_ cl: ParsedCommandLine) throws -> Manifest {
        guard cl.positionals.count == 1 else {
            throw UsageError(
                cl.positionals.isEmpty
                    ? "give the manifest file: \(cl.spec.shortUsage)"
                    : "expected one manifest file, got \(cl.positionals.count) arguments")
        }
        // A ManifestError exits with status 2 and already names file, key and position.
        var manifest = try Manifest.load(path: cl.positionals[0])
        if cl.spec.options.contains(OverrideFlags.set) {
            for assignment in cl.all(OverrideFlags.set) { try manifest.override(assignment) }
            try manifest.replaceInputs(
                cl.all(OverrideFlags.input), relativeTo: FileManager.default.currentDirectoryPath)
        }
        return manifest
    }

    static func runCommand(_ cl: ParsedCommandLine) throws {
        let manifest = try manifestArgument(cl)
        var options = RunOptions()
        options.force = cl.flag(RunFlags.force)
        options.from = cl.value(RunFlags.from)
        options.until = cl.value(RunFlags.until)
        options.wait = cl.flag(RunFlags.wait)
        options.quiet = cl.flag(.quiet)
        options.strict = cl.flag(.strict)
        options.freshLineage = cl.flag(RunFlags.freshLineage)
        options.adoptLineage = cl.flag(RunFlags.adoptLineage)
        if options.freshLineage && options.adoptLineage {
            throw UsageError(
                "--fresh-lineage and --adopt-lineage contradict each other: the first numbers the ids afresh, the "
                    + "second keeps them; give one")
        }
        options.logFormat = Log.format
        options.threads = cl.optionalInteger(RunFlags.threads)
        if cl.flag(RunFlags.dryRun) {
            let plan = try DryRun(manifest, options: options)
            print(plan.text, terminator: "")
            return
        }
        if manifest.experiment != nil {
            let runner = ExperimentRunner(manifest: manifest, toolDirectory: CurrentExecutable.directory)
            let t0 = monotonicSeconds()
            let outcome = try runner.run(options)
            let all = outcome.combinations.flatMap { $0.outcome.stages }
            let ran = all.filter { $0.status == .ran }.count
            let skipped = all.filter { $0.status == .upToDate }.count
            Log.info(
                "finished in \(Runner.seconds(monotonicSeconds() - t0)): \(outcome.combinations.count) "
                    + "combination(s), \(ran) stage run(s), \(skipped) up to date or shared (hashing and "
                    + "verification \(Runner.seconds(runner.hashingSeconds)))"
            )
            return
        }
        let runner = Runner(manifest: manifest, toolDirectory: CurrentExecutable.directory)
        let t0 = monotonicSeconds()
        let outcome = try runner.run(options)
        let ran = outcome.stages.filter { $0.status == .ran }.count
        let skipped = outcome.stages.filter { $0.status == .upToDate }.count
        Log.info(
            "finished in \(Runner.seconds(monotonicSeconds() - t0)): \(ran) stage(s) ran, \(skipped) up to date "
                + "(hashing and verification \(Runner.seconds(runner.hashingSeconds)))"
        )
    }

    static func statusCommand(_ cl: ParsedCommandLine) throws {
        let manifest = try manifestArgument(cl)
        let check = cl.flag(statusCheck)
        let upToDate: Bool
        if manifest.experiment != nil {
            let report = ExperimentStatus(manifest: manifest)
            if cl.flag(statusJSON) {
                print(report.json.serialized(pretty: true))
            } else if !check {
                print(report.text, terminator: "")
            }
            upToDate = report.isUpToDate
        } else {
            let report = StatusReport(manifest: manifest)
            if cl.flag(statusJSON) {
                print(report.json.serialized(pretty: true))
            } else if !check {
                print(report.text, terminator: "")
            }
            upToDate = report.isUpToDate
        }
        // Exit 1 without an error line: the answer, not a failure.
        if check && !upToDate { throw SilentExit(.failure) }
    }

    static func cleanCommand(_ cl: ParsedCommandLine) throws {
        let manifest = try manifestArgument(cl)
        let result = try Cleaner.clean(manifest, unusedOnly: cl.flag(CleanFlags.unused), wait: cl.flag(CleanFlags.wait))
        Log.info(
            "removed \(result.objects) stage output(s), \(result.records) record(s) and \(result.temporaries) "
                + "temporary file(s) from \(manifest.workDirectory)"
        )
    }

    static func help(_ arguments: [String]) -> ExitStatus {
        guard let topic = arguments.first, !["--help", "-h"].contains(topic) else {
            print(overview, terminator: "")
            return .success
        }
        if topic == "--version" {
            print("regionsearch \(RegionSearchVersion.current)")
            return .success
        }
        guard arguments.count == 1 else {
            Log.error("help takes one topic, got \(arguments.count): \(arguments.joined(separator: " "))")
            Log.write("Run 'regionsearch help' for the list of topics.\n")
            return .usage
        }
        if let spec = commands.first(where: { $0.0 == topic })?.1 {
            print(spec.helpText, terminator: "")
            return .success
        }
        if Pipeline.stage(named: topic) != nil || tools.contains(where: { $0.0 == topic }) {
            return dispatch(stage: topic, arguments: ["--help"])
        }
        let names = commands.map { $0.0 } + Pipeline.stages.map { $0.name } + tools.map { $0.0 }
        let hint = closestMatch(topic, in: names).map { " (did you mean '\($0)'?)" } ?? ""
        Log.error("no help for '\(topic)'\(hint); topics: \(names.joined(separator: ", "))")
        return .usage
    }

    /// Executables beside the stages that `regionsearch NAME` also dispatches to.
    static let tools: [(String, String)] = [
        ("evaluate", "score region GeoJSON against ground truth, or compare two region files"),
        ("generate", "write a synthetic city with planted keyword clusters and its truth"),
        ("bench", "time every stage and the whole pipeline at several sizes"),
        ("preview", "draw a region GeoJSON as a map image (PNG/SVG/PDF) and an offline web map (HTML)"),
    ]

    /// Replaces this process with `regionsearch-STAGE` (so its exit status is ours).
    static func dispatch(stage: String, arguments: [String]) -> ExitStatus {
        let executable = CurrentExecutable.directory + "/regionsearch-" + stage
        guard FileSystem.isExecutable(executable) else {
            Log.error(RunnerError.executableMissing(path: executable).description)
            return .failure
        }
        fflush(nil)
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        execv(executable, argv)
        Log.error("cannot run \(executable): \(String(cString: strerror(errno)))")
        return .failure
    }
}
