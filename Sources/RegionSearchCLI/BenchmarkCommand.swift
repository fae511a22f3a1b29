import Foundation
import RegionSearchBenchmark
import RegionSearchCore
import RegionSearchGraph
import RegionSearchStages

/// `regionsearch-bench`: the benchmark suite. Generates synthetic cities, runs every stage as its
/// own process (release build), and reports wall time, CPU, throughput, peak RSS, artifact sizes,
/// input-load share, growth with n, the PROJ baseline and, optionally, the Python reference.
public enum BenchmarkCommand {
    /// The benchmark's defaults, which the options override.
    static var defaults: BenchmarkRunner.Options { .init() }

    static let sizesOption = CommandSpec.Option(
        "sizes", .list(.text), default: .value(.array(defaults.sizes.map { .string($0.label) })), placeholder: "LIST",
        help: "POI counts: 10k, 100k, 1m, 10m or plain integers.")
    static let repeatsOption = CommandSpec.Option(
        "repeats", .integer(1...Int.max), default: .value(.number(Double(defaults.repeats))),
        help: "Runs of every stage per size; medians are reported.")
    static let methodsOption = CommandSpec.Option(
        "methods", .list(.choice(GraphMethod.allCases.map(\.rawValue))),
        default: .value(.array(defaults.methods.map { .string($0) })), placeholder: "LIST", help: "Graph methods.")
    static let kOption = CommandSpec.Option(
        "k", .integer(1...Int.max), default: .value(.number(Double(defaults.k))), placeholder: "K",
        help: "Neighbours for the knn graph.")
    static let keywordsOption = CommandSpec.Option(
        "keywords", .list(.integer(1...BenchmarkPlan.keywordPool.count)),
        default: .value(.array(defaults.keywordCounts.map { .number(Double($0)) })), placeholder: "COUNTS",
        help: "Keyword counts to propagate, e.g. 1,16.")
    static let seedOption = CommandSpec.Option(
        "seed", .integer(0...Int.max), default: .value(.number(Double(defaults.seed))), placeholder: "S",
        help: "Generator seed.")
    static let workOption = CommandSpec.Option(
        "work", .path, default: .value(.string(defaults.workDirectory)), placeholder: "DIR",
        help: "Work directory for inputs, artifacts and reports.")
    static let binOption = CommandSpec.Option(
        "bin", .path, default: .computed("this executable's directory"), placeholder: "DIR",
        help: "Directory of the stage executables.")
    static let markdownOption = CommandSpec.Option(
        "markdown", .path, default: .computed("WORK/benchmark.md"), help: "Where to write the Markdown report.")
    static let jsonOption = CommandSpec.Option(
        "json", .path, default: .computed("WORK/benchmark.json"), help: "Where to write the JSON record.")
    static let referencePythonOption = CommandSpec.Option(
        "reference-python", .path, help: "Python interpreter with the reference's requirements (optional).")
    static let referenceScriptOption = CommandSpec.Option(
        "reference-script", .path, help: "The reference's refpipe.py (optional; with --reference-python).")
    static let referenceMaxNOption = CommandSpec.Option(
        "reference-max-n", .integer(1...Int.max), default: .value(.number(Double(defaults.referenceMaxN))),
        help: "Largest size the reference runs at.")
    static let largeNOption = CommandSpec.Option(
        "large-n", .integer(1...Int.max), default: .value(.number(Double(defaults.largeN))),
        help: "Sizes above N run --large-repeats times, with at most 2 keywords and no thread check.")
    static let largeRepeatsOption = CommandSpec.Option(
        "large-repeats", .integer(1...Int.max), default: .value(.number(Double(defaults.largeRepeats))),
        help: "Repeats for sizes above --large-n.")
    static let verifyThreadsOption = CommandSpec.Option(
        "verify-threads", .flag,
        help: "Also run every stage once with --threads 1 and check that all outputs are byte-identical.")
    static let projBaselineOption = CommandSpec.Option(
        "proj-baseline", .path, placeholder: "POIS.rsa",
        help: "Internal: only measure PROJ's bulk rate on this pois artifact (with --crs) and print JSON.")
    static let crsOption = CommandSpec.Option(
        "crs", .text, placeholder: "CRS", help: "Internal: target CRS for --proj-baseline.")
    static let partsOption = CommandSpec.Option(
        "parts", .list(.choice(["user", "stages"])),
        default: .value(.array(["user", "stages"].filter(defaults.parts.contains).map { .string($0) })),
        placeholder: "LIST",
        help: "What to measure: user (regionsearch run as a whole process, cold and warm, in alternation with "
            + "the reference), stages (every stage process alone).")
    static let userRepeatsOption = CommandSpec.Option(
        "user-repeats", .integer(1...Int.max), default: .value(.number(Double(defaults.userRepeats))),
        help: "Repeats of the user path at sizes up to --large-n (min/median/max are reported).")
    static let referenceGeneratorOption = CommandSpec.Option(
        "reference-generator", .path,
        help: "Generate the inputs with the reference's gen.py (run by --reference-python) instead of "
            + "regionsearch-generate, e.g. with --seed 77.")
    static let userPathOption = CommandSpec.Option(
        "user-path", .flag,
        help: "The table of BENCHMARKS.md's \"The user's path\" in one command (--parts user, three runs into one "
            + "report): 1M POIs from the reference's gen.py (seed 77) with Delaunay and kNN and 2 keywords, the "
            + "reference beside each, 5 repeats; the same input with Delaunay and 16 keywords, 3 repeats; 10M POIs "
            + "from regionsearch-generate (seed 4242) with both methods and 2 keywords, 1 repeat. Needs "
            + "--reference-python and --reference-script (--reference-generator: gen.py beside the script); "
            + "sizes, methods, keywords, seed and repeats come from the table, not from their options.")
    static let bandwidthProbeOption = CommandSpec.Option(
        "bandwidth-probe", .flag, help: "Internal: only measure the memory bandwidth (STREAM triad) and print JSON.")
    static let threadsOption = CommandSpec.Option.threads(
        "Passed to every stage (by default the stages use all cores).")

    static let spec = CommandSpec(
        name: "regionsearch-bench",
        abstract: "benchmark every stage and the whole pipeline on synthetic cities (build with -c release first)",
        discussion: """
            For each size, the input CSV is generated once with regionsearch-generate (seed 42 by default;
            cached as WORK/inputs/city_<n>_seed<seed>.csv), or with the reference's gen.py
            (--reference-generator; WORK/inputs/gen_<n>_seed<seed>.csv).

            The user's path (--parts user): a manifest per graph method and keyword count (no maps),
            then --user-repeats times: 'regionsearch run MANIFEST --force' as one process (wall, CPU of
            it and all its stages, peak RSS of the largest process), a warm rerun with nothing to do,
            and, for 2 keywords, the reference on the same CSV right after (A B A B …); every figure
            as min/median/max, the reference/ours ratio pair by pair, the load average before each
            run, and each stage's seconds and the hashing time from run.json. The memory bandwidth
            (STREAM triad, one thread and all) is measured for the propagation's bound.

            The stages (--parts stages), --repeats times: ingest, project,
            and for each graph method the graph and, for each keyword count, propagate → regions →
            hulls, every stage as its own process started with posix_spawn and reaped with wait4 (wall
            time spawn to exit, CPU time and ru_maxrss of that child). Keyword sets are the first N of
            咖啡, bank, cafe, restaurant, 美食, 银行, hotel, 酒店, school, 学校, shop, supermarket, 超市,
            便利店, pharmacy, gym. Reported: medians over repeats; peak RSS as the largest; input-load
            and output-write shares from each stage's --summary; whether every repeat wrote the same
            bytes. End to end = the sum of a pipeline's six process walls in one repeat.

            PROJ baseline: proj_trans_generic on the same points and CRS pair, one thread and all
            threads, timed in a child process. With --reference-python and --reference-script, the
            Python reference (refpipe.py) runs on the same CSV with keywords 咖啡,bank for each method,
            and a 2-keyword pipeline is added to ours for the side-by-side ratio.

            Results go to WORK/benchmark.md and WORK/benchmark.json (rewritten after every size).
            Benchmarks are not tests: nothing here has a time limit.
            """,
        options: [
            Self.sizesOption,
            Self.repeatsOption,
            Self.methodsOption,
            Self.kOption,
            Self.keywordsOption,
            Self.seedOption,
            Self.workOption,
            Self.binOption,
            Self.markdownOption,
            Self.jsonOption,
            Self.referencePythonOption,
            Self.referenceScriptOption,
            Self.referenceMaxNOption,
            Self.largeNOption,
            Self.largeRepeatsOption,
            Self.verifyThreadsOption,
            Self.projBaselineOption,
            Self.crsOption,
            Self.partsOption,
            Self.userRepeatsOption,
            Self.userPathOption,
            Self.referenceGeneratorOption,
            Self.bandwidthProbeOption,
            Self.threadsOption,
        ])

    /// Entry point of `regionsearch-bench`.
    public static func main() -> Never {
        ToolMain.run(spec) { cl in try run(cl) }
    }

    /// "10k" → 10 000, "1m" → 1 000 000, "250000" → 250 000.
    static func parseSize(_ text: String) throws -> (String, Int) {
        let t = text.lowercased()
        let multiplier: Int
        var digits = Substring(t)
        switch t.last {
        case "k":
            multiplier = 1_000
            digits = t.dropLast()
        case "m":
            multiplier = 1_000_000
            digits = t.dropLast()
        default: multiplier = 1
        }
        guard let v = ValueSyntax.integer(digits), v > 0 else {
            throw UsageError("--sizes: expected sizes like 10k, 1m or 250000, got \"\(text)\"")
        }
        return (t, v * multiplier)
    }

    static func run(_ cl: ParsedCommandLine) throws {
        Parallel.configure(threads: cl.optionalInteger(Self.threadsOption))
        if let pois = cl.value(Self.projBaselineOption) {
            let crs = try cl.required(Self.crsOption)
            let result = try PROJBaseline.measure(poisPath: pois, crs: crs, repeats: cl.integer(Self.repeatsOption))
            print(result.json.serialized(sortedKeys: true, pretty: true))
            return
        }
        if cl.flag(Self.bandwidthProbeOption) {
            print(BandwidthProbe.measure().serialized(sortedKeys: true, pretty: true))
            return
        }
        var options = BenchmarkRunner.Options()
        options.parts = Set(cl.list(Self.partsOption).compactMap(\.stringValue))
        options.userRepeats = cl.integer(Self.userRepeatsOption)
        options.referenceGenerator = cl.value(Self.referenceGeneratorOption)
        options.sizes = try cl.list(Self.sizesOption).compactMap(\.stringValue).map { try parseSize($0) }
        options.methods = cl.list(Self.methodsOption).compactMap(\.stringValue)
        options.k = cl.integer(Self.kOption)
        options.repeats = cl.integer(Self.repeatsOption)
        options.keywordCounts = cl.list(Self.keywordsOption).compactMap(\.intValue)
        options.seed = UInt64(cl.integer(Self.seedOption))
        // Absolute: the user path's manifests name their files under it, and a manifest's
        // relative paths resolve against the manifest's own folder, not the current one.
        let work = cl.string(Self.workOption)
        options.workDirectory = work.hasPrefix("/") ? work : FileManager.default.currentDirectoryPath + "/" + work
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: options.workDirectory, isDirectory: &isFolder), !isFolder.boolValue {
            throw UsageError("--work \"\(work)\": is a file, not a folder; give a folder for the benchmark's files")
        }
        options.binDirectory = cl.value(Self.binOption) ?? CurrentExecutable.directory
        options.threads = cl.optionalInteger(Self.threadsOption)
        options.verifyThreads = cl.flag(Self.verifyThreadsOption)
        options.referencePython = cl.value(Self.referencePythonOption)
        options.referenceScript = cl.value(Self.referenceScriptOption)
        if (options.referencePython == nil) != (options.referenceScript == nil) {
            throw UsageError("--reference-python and --reference-script go together")
        }
        if options.referenceGenerator != nil && options.referencePython == nil {
            throw UsageError("--reference-generator needs --reference-python")
        }
        options.referenceMaxN = cl.integer(Self.referenceMaxNOption)
        options.largeN = cl.integer(Self.largeNOption)
        options.largeRepeats = cl.integer(Self.largeRepeatsOption)
        if options.referencePython != nil && !options.keywordCounts.contains(2) {
            options.keywordCounts.append(2)  // the reference's keywords, 咖啡,bank
        }
        let plans = cl.flag(Self.userPathOption) ? try Self.userPathPlans(options) : [options]
        for stage in Pipeline.stages.map({ $0.executable }) + ["regionsearch-generate", "regionsearch"] {
            guard FileManager.default.isExecutableFile(atPath: options.binDirectory + "/" + stage) else {
                throw UsageError(
                    "--bin: \(options.binDirectory)/\(stage) not found; build with 'swift build -c release' and pass "
                        + "its bin directory"
                )
            }
        }
        try FileManager.default.createDirectory(atPath: options.workDirectory, withIntermediateDirectories: true)
        let markdownPath = cl.value(Self.markdownOption) ?? options.workDirectory + "/benchmark.md"
        let jsonPath = cl.value(Self.jsonOption) ?? options.workDirectory + "/benchmark.json"
        // Checked before the hours of measuring, not after: the report written over the other
        // (`--markdown r --json r` kept only the JSON and said both were written), or over what
        // the benchmark reads (its cached cities in WORK/inputs, the reference's scripts).
        let inputsFolder = options.workDirectory + "/inputs"
        let cached = ((try? FileManager.default.contentsOfDirectory(atPath: inputsFolder)) ?? []).sorted().map {
            ("the cached input", inputsFolder + "/" + $0)
        }
        let tools = [
            ("--reference-python", options.referencePython), ("--reference-script", options.referenceScript),
            ("--reference-generator", options.referenceGenerator),
        ].compactMap { label, path in path.map { (label, $0) } }
        try OutputCollision.check(
            outputs: [("--markdown", markdownPath), ("--json", jsonPath)], inputs: cached + tools)
        let floor = MeasuredProcess.rssFloor()
        let commandLine = (["regionsearch-bench"] + CommandLine.arguments.dropFirst()).map(shellQuoted).joined(
            separator: " ")
        var done: [BenchmarkResults] = []
        for plan in plans {
            _ = try BenchmarkRunner(options: plan).run { result in
                done.append(result)
                let report = BenchmarkReport(
                    results: done, commandLine: commandLine, threads: plan.threads ?? Parallel.threadCount,
                    rssFloor: floor,
                    repeats: plan.repeats)
                try AtomicFile.write(report.markdown(), to: markdownPath)
                try AtomicFile.write(report.json().serialized(pretty: true) + "\n", to: jsonPath)
                Log.info("\(result.label): results written to \(markdownPath) and \(jsonPath)")
            }
        }
    }

    /// The three runs of `--user-path`, from the options given (binaries, work directory, threads,
    /// the reference): each row group of BENCHMARKS.md's table of the user's path.
    static func userPathPlans(_ given: BenchmarkRunner.Options) throws -> [BenchmarkRunner.Options] {
        guard let script = given.referenceScript, given.referencePython != nil else {
            throw UsageError(
                "--user-path runs the reference beside RegionSearch: give --reference-python and --reference-script "
                    + "(../shared/reference/refpipe.py)")
        }
        var base = given
        base.parts = ["user"]
        // The table's repeats: 1M is not "large" (5 and 3 repeats, the reference beside it).
        base.largeN = 1_000_000
        base.referenceMaxN = 1_000_000
        base.referenceGenerator =
            given.referenceGenerator ?? (URL(fileURLWithPath: script).deletingLastPathComponent().path + "/gen.py")
        var million = base
        million.sizes = [("1m", 1_000_000)]
        million.seed = 77
        million.methods = ["delaunay", "knn"]
        million.keywordCounts = [2]
        million.userRepeats = 5
        var sixteen = million
        sixteen.methods = ["delaunay"]
        sixteen.keywordCounts = [16]
        sixteen.userRepeats = 3
        var tenMillion = base
        tenMillion.sizes = [("10m", 10_000_000)]
        tenMillion.seed = 4242
        tenMillion.referenceGenerator = nil
        tenMillion.methods = ["delaunay", "knn"]
        tenMillion.keywordCounts = [2]
        tenMillion.largeRepeats = 1
        return [million, sixteen, tenMillion]
    }

    static func shellQuoted(_ s: String) -> String {
        if !s.isEmpty,
            s.utf8.allSatisfy({ c in
                (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a)
                    || "-_=,./:+".utf8.contains(c)
            })
        {
            return s
        }
        return "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
