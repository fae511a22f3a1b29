import Foundation
import RegionSearchCore
import RegionSearchGraph
import RegionSearchPipeline
import RegionSearchStages

/// `regionsearch-bench`: the benchmark suite. Generates synthetic cities, runs every stage as its
/// own process (release build), and reports wall time, CPU, throughput, peak RSS, artifact sizes,
/// input-load share, growth with n, the PROJ baseline and, optionally, the Python reference.
public enum BenchmarkCommand {
    static let sizesOption = CommandSpec.Option(
        "sizes", .value, placeholder: "LIST",
        help: "POI counts: 10k, 100k, 1m, 10m or plain integers (default 10k,100k,1m).")
    static let repeatsOption = CommandSpec.Option(
        "repeats", .value, placeholder: "N", help: "Runs of every stage per size; medians are reported (default 3).")
    static let methodsOption = CommandSpec.Option(
        "methods", .value, placeholder: "LIST", help: "Graph methods (default delaunay,knn).")
    static let kOption = CommandSpec.Option(
        "k", .value, placeholder: "K", help: "Neighbours for the knn graph (default 8).")
    static let keywordsOption = CommandSpec.Option(
        "keywords", .value, placeholder: "COUNTS",
        help: "Keyword counts to propagate, e.g. 1,16 (default 1,16; at most 16).")
    static let seedOption = CommandSpec.Option("seed", .value, placeholder: "S", help: "Generator seed (default 42).")
    static let workOption = CommandSpec.Option(
        "work", .value, placeholder: "DIR",
        help: "Work directory for inputs, artifacts and reports (default ./bench-work).")
    static let binOption = CommandSpec.Option(
        "bin", .value, placeholder: "DIR",
        help: "Directory of the stage executables (default: this executable's directory).")
    static let markdownOption = CommandSpec.Option(
        "markdown", .value, placeholder: "PATH", help: "Where to write the Markdown report (default WORK/benchmark.md)."
    )
    static let jsonOption = CommandSpec.Option(
        "json", .value, placeholder: "PATH", help: "Where to write the JSON record (default WORK/benchmark.json).")
    static let referencePythonOption = CommandSpec.Option(
        "reference-python", .value, placeholder: "PATH",
        help: "Python interpreter with the reference's requirements (optional).")
    static let referenceScriptOption = CommandSpec.Option(
        "reference-script", .value, placeholder: "PATH",
        help: "The reference's refpipe.py (optional; with --reference-python).")
    static let referenceMaxNOption = CommandSpec.Option(
        "reference-max-n", .value, placeholder: "N", help: "Largest size the reference runs at (default 1000000).")
    static let largeNOption = CommandSpec.Option(
        "large-n", .value, placeholder: "N",
        help: "Sizes above N run --large-repeats times, with at most 2 keywords and no thread check (default 1000000).")
    static let largeRepeatsOption = CommandSpec.Option(
        "large-repeats", .value, placeholder: "N", help: "Repeats for sizes above --large-n (default 1).")
    static let verifyThreadsOption = CommandSpec.Option(
        "verify-threads", .flag,
        help: "Also run every stage once with --threads 1 and check that all outputs are byte-identical.")
    static let projBaselineOption = CommandSpec.Option(
        "proj-baseline", .value, placeholder: "POIS.rsa",
        help: "Internal: only measure PROJ's bulk rate on this pois artifact (with --crs) and print JSON.")
    static let crsOption = CommandSpec.Option(
        "crs", .value, placeholder: "CRS", help: "Internal: target CRS for --proj-baseline.")
    static let partsOption = CommandSpec.Option(
        "parts", .value, placeholder: "LIST",
        help: "What to measure: user (regionsearch run as a whole process, cold and warm, in alternation with "
            + "the reference), stages (every stage process alone); default user,stages.")
    static let userRepeatsOption = CommandSpec.Option(
        "user-repeats", .value, placeholder: "N",
        help: "Repeats of the user path at sizes up to --large-n (default 5; min/median/max are reported).")
    static let referenceGeneratorOption = CommandSpec.Option(
        "reference-generator", .value, placeholder: "PATH",
        help: "Generate the inputs with the reference's gen.py (run by --reference-python) instead of "
            + "regionsearch-generate, e.g. with --seed 77.")
    static let bandwidthProbeOption = CommandSpec.Option(
        "bandwidth-probe", .flag, help: "Internal: only measure the memory bandwidth (STREAM triad) and print JSON.")
    static let threadsOption = CommandSpec.Option(
        "threads", .value, placeholder: "N",
        help: "Worker threads passed to every stage (default: the stages' default, all cores).")

    static let spec = CommandSpec(
        name: "regionsearch-bench",
        abstract: "benchmark every stage and the whole pipeline on synthetic cities (build with -c release first)",
        usage:
            "regionsearch-bench [--sizes 10k,100k,1m,10m] [--repeats N] [--work DIR] [--reference-python PY "
            + "--reference-script refpipe.py] …",
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
            Self.referenceGeneratorOption,
            Self.bandwidthProbeOption,
            Self.threadsOption,
        ])

    /// Entry point of `regionsearch-bench`.
    public static func main() -> Never {
        ToolMain.run(spec) { cl in try run(cl) }
    }

    static func integer(_ cl: ParsedCommandLine, _ option: CommandSpec.Option, min: Int = 1) throws -> Int? {
        guard let v = cl.value(option) else { return nil }
        guard let n = Int(v), n >= min else {
            throw UsageError("--\(option.name): expected an integer ≥ \(min), got \"\(v)\"")
        }
        return n
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
        guard let v = Int(digits), v > 0 else {
            throw UsageError("--sizes: expected sizes like 10k, 1m or 250000, got \"\(text)\"")
        }
        return (t, v * multiplier)
    }

    static func run(_ cl: ParsedCommandLine) throws {
        try Parallel.configure(from: cl.value(Self.threadsOption))
        if let pois = cl.value(Self.projBaselineOption) {
            let crs = try cl.required(Self.crsOption)
            let result = try PROJBaseline.measure(
                poisPath: pois, crs: crs, repeats: try integer(cl, Self.repeatsOption) ?? 3)
            print(result.json.serialized(sortedKeys: true, pretty: true))
            return
        }
        if cl.flag(Self.bandwidthProbeOption) {
            print(BandwidthProbe.measure().serialized(sortedKeys: true, pretty: true))
            return
        }
        var options = BenchmarkRunner.Options()
        if let v = cl.value(Self.partsOption) {
            options.parts = Set(v.split(separator: ",").map(String.init))
            for p in options.parts where p != "user" && p != "stages" {
                throw UsageError("--parts: unknown part \"\(p)\" (user, stages)")
            }
        }
        if let v = try integer(cl, Self.userRepeatsOption) { options.userRepeats = v }
        options.referenceGenerator = cl.value(Self.referenceGeneratorOption)
        if let v = cl.value(Self.sizesOption) {
            options.sizes = try v.split(separator: ",").map { try parseSize(String($0)) }
        }
        if let v = cl.value(Self.methodsOption) {
            options.methods = v.split(separator: ",").map(String.init)
            for m in options.methods where GraphMethod(rawValue: m) == nil {
                throw UsageError("--methods: unknown graph method \"\(m)\" (delaunay, knn)")
            }
        }
        if let v = try integer(cl, Self.kOption) { options.k = v }
        if let v = try integer(cl, Self.repeatsOption) { options.repeats = v }
        if let v = cl.value(Self.keywordsOption) {
            options.keywordCounts = try v.split(separator: ",").map { s in
                guard let c = Int(s), c >= 1, c <= BenchmarkPlan.keywordPool.count else {
                    throw UsageError(
                        "--keywords: expected counts between 1 and \(BenchmarkPlan.keywordPool.count), got \"\(s)\"")
                }
                return c
            }
        }
        if let v = cl.value(Self.seedOption) {
            guard let s = UInt64(v) else { throw UsageError("--seed: expected a non-negative integer, got \"\(v)\"") }
            options.seed = s
        }
        options.workDirectory = cl.value(Self.workOption) ?? "bench-work"
        options.binDirectory = cl.value(Self.binOption) ?? CurrentExecutable.directory
        options.threads = try integer(cl, Self.threadsOption)
        options.verifyThreads = cl.flag(Self.verifyThreadsOption)
        options.referencePython = cl.value(Self.referencePythonOption)
        options.referenceScript = cl.value(Self.referenceScriptOption)
        if (options.referencePython == nil) != (options.referenceScript == nil) {
            throw UsageError("--reference-python and --reference-script go together")
        }
        if options.referenceGenerator != nil && options.referencePython == nil {
            throw UsageError("--reference-generator needs --reference-python")
        }
        if let v = try integer(cl, Self.referenceMaxNOption) { options.referenceMaxN = v }
        if let v = try integer(cl, Self.largeNOption) { options.largeN = v }
        if let v = try integer(cl, Self.largeRepeatsOption) { options.largeRepeats = v }
        if options.referencePython != nil && !options.keywordCounts.contains(2) {
            options.keywordCounts.append(2)  // the reference's keywords, 咖啡,bank
        }
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
        let floor = MeasuredProcess.rssFloor()
        let commandLine = (["regionsearch-bench"] + CommandLine.arguments.dropFirst()).map(shellQuoted).joined(
            separator: " ")
        var done: [BenchmarkResults] = []
        _ = try BenchmarkRunner(options: options).run { result in
            done.append(result)
            let report = BenchmarkReport(
                results: done, commandLine: commandLine, threads: options.threads ?? Parallel.threadCount,
                rssFloor: floor,
                repeats: options.repeats)
            try AtomicFile.write(report.markdown(), to: markdownPath)
            try AtomicFile.write(report.json().serialized(pretty: true) + "\n", to: jsonPath)
            Log.info("\(result.label): results written to \(markdownPath) and \(jsonPath)")
        }
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
