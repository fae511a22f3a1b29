import Foundation
import RegionSearchCore

/// Runs the benchmark plan of each size: generates (or reuses) the input, runs every stage process
/// `repeats` times, measures the PROJ baseline and, when configured, the Python reference.
public struct BenchmarkRunner {
    public struct Options {
        public var sizes: [(label: String, n: Int)] = [("10k", 10_000), ("100k", 100_000), ("1m", 1_000_000)]
        public var seed: UInt64 = 42
        public var methods = ["delaunay", "knn"]
        public var k = 8
        public var keywordCounts = [1, 16]
        public var repeats = 3
        public var workDirectory = "bench-work"
        public var binDirectory = "."
        public var threads: Int?
        public var referencePython: String?
        public var referenceScript: String?
        /// Largest size the reference runs at (it needs ~1.2 GB per million POIs).
        public var referenceMaxN = 1_000_000
        /// Sizes above this run `largeRepeats` times, with at most two keywords and no thread check
        /// (a 10M pipeline takes about a minute per method; 16 keywords there need several GB).
        public var largeN = 1_000_000
        public var largeRepeats = 1
        public var verifyThreads = false
        /// What to measure: `stages` (every stage process alone), `user` (``UserPathBenchmark``).
        public var parts: Set<String> = ["stages", "user"]
        /// Repeats of the user path (each in alternation with the reference).
        public var userRepeats = 5
        /// The reference's `gen.py`, to generate the inputs with instead of `regionsearch-generate`
        /// (with `referencePython`).
        public var referenceGenerator: String?
        public init() {}
    }

    public let options: Options

    public init(options: Options) { self.options = options }

    /// The cached input CSV of a size: `WORK/inputs/city_<n>_seed<seed>.csv`, generated when missing.
    /// (With `referenceGenerator`: `WORK/inputs/gen_<n>_seed<seed>.csv`, from the reference's gen.py.)
    func input(n: Int) throws -> String {
        let directory = options.workDirectory + "/inputs"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let reference = options.referenceGenerator.flatMap { g in options.referencePython.map { ($0, g) } }
        let prefix = "\(directory)/\(reference == nil ? "city" : "gen")_\(n)_seed\(options.seed)"
        let files = [".csv", ".truth.geojson", ".truth_members.csv"].map { prefix + $0 }
        if files.allSatisfy({ FileManager.default.fileExists(atPath: $0) }) { return files[0] }
        Log.info("generating \(groupedCount(n)) POIs (seed \(options.seed)) into \(prefix).csv")
        let usage: MeasuredProcess.Usage
        if let (python, generator) = reference {
            usage = try MeasuredProcess.run(
                python, [generator, "--n", String(n), "--seed", String(options.seed), "-o", prefix],
                stderrPath: prefix + ".log")
        } else {
            usage = try MeasuredProcess.run(
                options.binDirectory + "/regionsearch-generate",
                ["--out", prefix, "--n", String(n), "--seed", String(options.seed)], stderrPath: prefix + ".log")
        }
        guard usage.status == 0 else {
            throw ToolFailure("generating the input failed (exit \(usage.status)); see \(prefix).log")
        }
        return files[0]
    }

    /// Runs every size and returns the results, size by size (`report` is called after each).
    public func run(report: (BenchmarkResults) throws -> Void) throws -> [BenchmarkResults] {
        var all: [BenchmarkResults] = []
        for (label, n) in options.sizes {
            let result = try runSize(label: label, n: n)
            try report(result)
            all.append(result)
        }
        return all
    }

    func runSize(label: String, n: Int) throws -> BenchmarkResults {
        let csv = try input(n: n)
        let directory = "\(options.workDirectory)/runs/\(label)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let large = n > options.largeN
        let keywordCounts = large ? options.keywordCounts.filter { $0 <= 2 } : options.keywordCounts
        let repeats = large ? options.largeRepeats : options.repeats
        let plan = BenchmarkPlan(
            csv: csv, directory: directory, methods: options.methods, k: options.k, keywordCounts: keywordCounts,
            threads: options.threads)
        var result = BenchmarkResults(
            label: label, n: n, inputPath: csv, inputBytes: Self.fileSize(csv),
            steps: plan.steps.map { BenchmarkResults.StepResult(step: $0) }, pipelines: plan.pipelines,
            loadBefore: Self.loadAverage())
        if options.parts.contains("user") {
            result.bandwidth = try bandwidth(directory: directory)
            result.userPath = try UserPathBenchmark(options: options).run(
                label: label, n: n, csv: csv, keywordCounts: keywordCounts,
                repeats: large ? options.largeRepeats : options.userRepeats)
        }
        if !options.parts.contains("stages") {
            result.steps = []
            result.pipelines = []
            result.loadAfter = Self.loadAverage()
            return result
        }
        for r in 0..<repeats {
            Log.info("\(label): repeat \(r + 1) of \(repeats)")
            for i in 0..<plan.steps.count {
                let m = try measure(plan.steps[i])
                result.steps[i].runs.append(m)
                Log.info(
                    String(
                        format: "  %-26@ %8.3f s  %8.1f MB", plan.steps[i].id as NSString, m.wall,
                        Double(m.peakRSS) / 1e6))
                if r == 0 && plan.steps[i].stage == "project" {
                    result.projBaseline = try projBaseline(
                        pois: directory + "/pois.rsa", summary: m.summary, directory: directory)
                }
            }
        }
        if options.verifyThreads && !large {
            result.threadMismatches = try verifyOneThread(csv: csv, directory: directory, reference: result)
        }
        if let python = options.referencePython, let script = options.referenceScript, n <= options.referenceMaxN {
            for r in 0..<options.repeats {
                for method in options.methods {
                    let run = try reference(
                        python: python, script: script, csv: csv, method: method, directory: directory)
                    Log.info(
                        String(
                            format: "  reference %-16@ %8.3f s  %8.1f MB  (repeat %d)", method as NSString, run.wall,
                            Double(run.peakRSS) / 1e6, r + 1))
                    result.reference.append(run)
                }
            }
        }
        result.loadAfter = Self.loadAverage()
        return result
    }

    /// Runs one stage process and collects its measurements.
    func measure(_ step: BenchmarkPlan.Step) throws -> BenchmarkResults.Measurement {
        let log = step.summaryPath.replacingOccurrences(of: ".summary.json", with: ".log")
        let usage = try MeasuredProcess.run(
            options.binDirectory + "/regionsearch-" + step.stage, step.arguments, stderrPath: log,
            environment: StageEnvironment.forStage(step.stage))
        guard usage.status == 0 else {
            let tail =
                (try? String(contentsOfFile: log, encoding: .utf8))?.split(separator: "\n").suffix(5).joined(
                    separator: "\n") ?? ""
            throw ToolFailure("\(step.id) failed with exit status \(usage.status):\n\(tail)\n(full log: \(log))")
        }
        let summary = StageSummary(
            json: (try? JSONParser.parse(String(contentsOfFile: step.summaryPath, encoding: .utf8))) ?? .object([]))
        var hashes: [UInt64] = []
        var bytes = 0
        for output in step.outputs {
            bytes += Self.fileSize(output)
            hashes.append(try Self.hashFile(output))
        }
        return BenchmarkResults.Measurement(
            wall: usage.wall, cpu: usage.cpu, peakRSS: usage.peakRSS, loadSeconds: summary.seconds(.load),
            writeSeconds: summary.seconds(.write), outputBytes: bytes, outputHashes: hashes, summary: summary)
    }

    /// The machine's memory bandwidth (``BandwidthProbe``), measured in a child process.
    func bandwidth(directory: String) throws -> JSONValue? {
        let out = directory + "/bandwidth.json"
        var args = ["--bandwidth-probe"]
        if let t = options.threads { args += ["--threads", String(t)] }
        let usage = try MeasuredProcess.run(
            CurrentExecutable.path, args, stdoutPath: out, stderrPath: directory + "/bandwidth.log")
        guard usage.status == 0 else { return nil }
        return try? JSONParser.parse(String(contentsOfFile: out, encoding: .utf8))
    }

    /// PROJ's own bulk rate for the CRS the project stage chose, measured in a child process.
    func projBaseline(pois: String, summary: StageSummary, directory: String) throws -> JSONValue? {
        guard let crs = summary.detail("crs")?.stringValue else { return nil }
        let out = directory + "/proj-baseline.json"
        var args = ["--proj-baseline", pois, "--crs", crs, "--repeats", String(max(3, options.repeats))]
        if let t = options.threads { args += ["--threads", String(t)] }
        let usage = try MeasuredProcess.run(
            CurrentExecutable.path, args, stdoutPath: out, stderrPath: directory + "/proj-baseline.log")
        guard usage.status == 0 else { throw ToolFailure("PROJ baseline failed; see \(directory)/proj-baseline.log") }
        return try JSONParser.parse(String(contentsOfFile: out, encoding: .utf8))
    }

    /// Reruns the plan once with `--threads 1` and lists the steps whose outputs differ.
    func verifyOneThread(csv: String, directory: String, reference: BenchmarkResults) throws -> [String] {
        let single = directory + "/threads1"
        try FileManager.default.createDirectory(atPath: single, withIntermediateDirectories: true)
        let plan = BenchmarkPlan(
            csv: csv, directory: single, methods: options.methods, k: options.k, keywordCounts: options.keywordCounts,
            threads: 1)
        var mismatches: [String] = []
        for step in plan.steps {
            let m = try measure(step)
            // Outputs embed their own paths nowhere, so bytes must match the multi-threaded run.
            if reference.step(step.id)?.runs.first?.outputHashes != m.outputHashes { mismatches.append(step.id) }
        }
        Log.info(
            "--threads 1 check: "
                + "\(mismatches.isEmpty ? "all outputs identical" : "DIFFERENT: " + mismatches.joined(separator: ", "))"
        )
        return mismatches
    }

    /// One run of the Python reference (`refpipe.py`) on the same CSV with keywords 咖啡,bank.
    func reference(python: String, script: String, csv: String, method: String, directory: String) throws
        -> BenchmarkResults.ReferenceRun
    {
        let timings = "\(directory)/reference.\(method).json"
        var args = [
            script, csv, "--keywords", "咖啡,bank", "--graph", method, "-o", "\(directory)/reference.\(method).geojson",
            "--timings", timings,
        ]
        if method == "knn" { args += ["--k", String(options.k)] }
        let usage = try MeasuredProcess.run(python, args, stderrPath: "\(directory)/reference.\(method).log")
        guard usage.status == 0 else {
            throw ToolFailure(
                "reference pipeline (\(method)) failed with exit "
                    + "status \(usage.status); see \(directory)/reference.\(method).log"
            )
        }
        let meta = try JSONParser.parse(String(contentsOfFile: timings, encoding: .utf8))
        let stages: [(String, Double)] = (meta["stages"]?.arrayValue ?? []).compactMap { s in
            guard let name = s["stage"]?.stringValue, let t = s["wall_s"]?.doubleValue else { return nil }
            return (name, t)
        }
        return .init(
            method: method, wall: usage.wall, peakRSS: usage.peakRSS, cpu: usage.cpu, stageSeconds: stages,
            regions: meta["n_regions"]?.intValue ?? 0)
    }

    static func fileSize(_ path: String) -> Int {
        var st = stat()
        return stat(path, &st) == 0 ? Int(st.st_size) : 0
    }

    /// XXH64 of a file, streamed through a fixed buffer so the benchmark's own RSS stays small.
    static func hashFile(_ path: String) throws -> UInt64 {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ToolFailure("cannot open \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var hasher = XXHash64(seed: 0)
        let size = 1 << 20
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 64)
        defer { buffer.deallocate() }
        while true {
            let n = read(fd, buffer, size)
            if n < 0 && errno == EINTR { continue }
            if n < 0 { throw ToolFailure("cannot read \(path): \(String(cString: strerror(errno)))") }
            if n == 0 { break }
            hasher.update(UnsafeRawBufferPointer(start: buffer, count: n))
        }
        return hasher.finalize()
    }

    static func loadAverage() -> Double {
        #if os(Linux)
            guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8),
                let first = text.split(separator: " ").first, let v = Double(first)
            else { return .nan }
            return v
        #else
            // No /proc on macOS: the same 1-minute average from getloadavg(3).
            var load = [0.0]
            return getloadavg(&load, 1) == 1 ? load[0] : .nan
        #endif
    }
}
