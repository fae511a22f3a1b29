import Foundation
import RegionSearchCore
import RegionSearchRunner
import RegionSearchStages

/// The user's path: `regionsearch run MANIFEST --force` timed as one whole process (the driver,
/// its six stage processes, hashing and verification, the published GeoJSON), then a warm rerun
/// with nothing to do, and — in alternation with it, on the same CSV — the Python reference
/// (`refpipe.py`), so that both see the same machine from one minute to the next.
///
/// Per repeat and case (graph method × keyword count): ours cold, ours warm, the reference (for
/// the reference's keywords 咖啡,bank). Wall time is spawn to reap; CPU is user + system of the
/// process and every process it waited for; peak RSS is the largest single process (GNU time's
/// `%M`, see ``MeasuredProcess``). The 1-minute load average is recorded before every run.
/// Manifests write no maps (`"maps": false`): the maps are a separate product with their own
/// cost (docs/MAPS.md).
public struct UserPathBenchmark {
    /// One pipeline configuration.
    public struct Case {
        public var method: String
        public var keywordCount: Int
        public var manifest: String
        public var name: String { "\(method), \(keywordCount) keyword\(keywordCount == 1 ? "" : "s")" }
    }

    /// One measured process and the load average just before it.
    public struct Run {
        public var usage: MeasuredProcess.Usage
        public var loadBefore: Double
    }

    /// All repeats of one case.
    public struct CaseResult {
        public var testCase: Case
        public var cold: [Run] = []
        public var warm: [Run] = []
        public var reference: [Run] = []
        /// Per cold run: each stage's seconds and the runner's hashing seconds (from `run.json`).
        public var stageSeconds: [[String: Double]] = []
        public var hashingSeconds: [Double] = []
        /// sha256-free identity of the published GeoJSON of every cold run (XXH64): the same bytes
        /// every time.
        public var outputHashes: [UInt64] = []
    }

    let options: BenchmarkRunner.Options

    init(options: BenchmarkRunner.Options) { self.options = options }

    /// The manifest of one case, written into `directory`.
    static func manifest(csv: String, directory: String, method: String, k: Int, keywords: [String]) -> JSONValue {
        var graph: [(String, JSONValue)] = [("method", .string(method))]
        if method == "knn" { graph.append(("k", .number(Double(k)))) }
        return .object([
            ("name", .string("bench-\(method)-\(keywords.count)kw")),
            ("inputs", .array([.object([("path", .string(csv))])])),
            ("work_dir", .string(directory + "/work")),
            ("output", .string(directory + "/regions.geojson")),
            ("keywords", .array(keywords.map { .string($0) })),
            ("graph", .object(graph)),
            ("maps", .bool(false)),
        ])
    }

    /// Runs every case `repeats` times in alternation with the reference.
    func run(label: String, n: Int, csv: String, keywordCounts: [Int], repeats: Int) throws -> [CaseResult] {
        var results: [CaseResult] = []
        let root = "\(options.workDirectory)/user/\(label)"
        for method in options.methods {
            for count in keywordCounts {
                let directory = "\(root)/\(method)-\(count)kw"
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                let manifestPath = directory + "/manifest.json"
                let keywords = Array(BenchmarkPlan.keywordPool.prefix(count))
                let json = Self.manifest(
                    csv: csv, directory: directory, method: method, k: options.k, keywords: keywords)
                try AtomicFile.write(json.serialized(pretty: true) + "\n", to: manifestPath)
                results.append(
                    CaseResult(testCase: Case(method: method, keywordCount: count, manifest: manifestPath)))
            }
        }
        let withReference =
            options.referencePython != nil && options.referenceScript != nil && n <= options.referenceMaxN
        let driver = options.binDirectory + "/regionsearch"
        let threads = options.threads.map { ["--threads", String($0)] } ?? []
        for r in 0..<repeats {
            for i in results.indices {
                let c = results[i].testCase
                let directory = AtomicFile.directory(of: c.manifest)
                let log = directory + "/run.log"
                let load = BenchmarkRunner.loadAverage()
                let cold = try MeasuredProcess.run(
                    driver, ["run", c.manifest, "--force", "--quiet"] + threads, stderrPath: log)
                guard cold.status == 0 else {
                    throw ToolFailure("regionsearch run \(c.manifest) failed (exit \(cold.status)); see \(log)")
                }
                results[i].cold.append(Run(usage: cold, loadBefore: load))
                if let state = RunState.load(path: directory + "/work/run.json") {
                    var seconds: [String: Double] = [:]
                    for s in state.stages { seconds[s.stage] = s.seconds }
                    results[i].stageSeconds.append(seconds)
                    results[i].hashingSeconds.append(state.hashingSeconds ?? .nan)
                }
                results[i].outputHashes.append(try BenchmarkRunner.hashFile(directory + "/regions.geojson"))
                let warmLoad = BenchmarkRunner.loadAverage()
                let warm = try MeasuredProcess.run(driver, ["run", c.manifest, "--quiet"] + threads, stderrPath: log)
                guard warm.status == 0 else {
                    throw ToolFailure("regionsearch run \(c.manifest) (rerun) failed (exit \(warm.status)); see \(log)")
                }
                results[i].warm.append(Run(usage: warm, loadBefore: warmLoad))
                Log.info(
                    String(
                        format: "  user path %-22@ cold %7.3f s (CPU %6.2f s, %7.1f MB), warm %6.3f s, load %.2f",
                        c.name as NSString, cold.wall, cold.cpu, Double(cold.peakRSS) / 1e6, warm.wall, load))
                if withReference && c.keywordCount == 2, let python = options.referencePython,
                    let script = options.referenceScript
                {
                    let refLoad = BenchmarkRunner.loadAverage()
                    var args = [
                        script, csv, "--keywords", "咖啡,bank", "--graph", c.method, "-o",
                        directory + "/reference.geojson",
                    ]
                    if c.method == "knn" { args += ["--k", String(options.k)] }
                    let ref = try MeasuredProcess.run(python, args, stderrPath: directory + "/reference.log")
                    guard ref.status == 0 else {
                        throw ToolFailure(
                            "reference (\(c.method)) failed (exit \(ref.status)); see \(directory)/reference.log")
                    }
                    results[i].reference.append(Run(usage: ref, loadBefore: refLoad))
                    Log.info(
                        String(
                            format: "  reference %-22@ %7.3f s (CPU %6.2f s, %7.1f MB), load %.2f  (repeat %d)",
                            c.method as NSString, ref.wall, ref.cpu, Double(ref.peakRSS) / 1e6, refLoad, r + 1))
                }
            }
        }
        return results
    }
}

extension UserPathBenchmark.CaseResult {
    /// (min, median, max) of a figure over runs.
    static func spread(_ values: [Double]) -> (min: Double, median: Double, max: Double)? {
        guard !values.isEmpty else { return nil }
        return (values.min()!, BenchmarkStatistics.median(values), values.max()!)
    }

    var coldWall: (min: Double, median: Double, max: Double)? { Self.spread(cold.map { $0.usage.wall }) }
    var coldCPU: (min: Double, median: Double, max: Double)? { Self.spread(cold.map { $0.usage.cpu }) }
    var warmWall: (min: Double, median: Double, max: Double)? { Self.spread(warm.map { $0.usage.wall }) }
    var referenceWall: (min: Double, median: Double, max: Double)? { Self.spread(reference.map { $0.usage.wall }) }
    var referenceCPU: (min: Double, median: Double, max: Double)? { Self.spread(reference.map { $0.usage.cpu }) }
    /// Reference ÷ ours, pair by pair (repeat r of each), so drift of the machine cancels.
    var wallRatio: (min: Double, median: Double, max: Double)? {
        Self.spread(zip(reference, cold).map { $0.usage.wall / $1.usage.wall })
    }
    var cpuRatio: (min: Double, median: Double, max: Double)? {
        Self.spread(zip(reference, cold).map { $0.usage.cpu / $1.usage.cpu })
    }
    var peakRSS: Int { cold.map { $0.usage.peakRSS }.max() ?? 0 }
    var referencePeakRSS: Int { reference.map { $0.usage.peakRSS }.max() ?? 0 }
    var loads: (min: Double, median: Double, max: Double)? {
        Self.spread((cold + warm + reference).map { $0.loadBefore }.filter { $0.isFinite })
    }
    /// Median seconds of each stage over the cold runs, in pipeline order.
    var medianStageSeconds: [(String, Double)] {
        Pipeline.stages.map { s in
            (s.name, BenchmarkStatistics.median(stageSeconds.compactMap { $0[s.name] }))
        }
    }
    /// Whether every cold run published the same GeoJSON bytes.
    var deterministic: Bool { Set(outputHashes).count <= 1 }
}
