import RegionSearchCore
import RegionSearchStages

/// Measurements of one benchmark size: every repeat of every step, the PROJ baseline and the
/// reference runs, with the medians the tables print.
public struct BenchmarkResults {
    /// One run of one stage process.
    public struct Measurement {
        public var wall: Double
        public var cpu: Double
        public var peakRSS: Int
        /// Seconds the stage spent loading its input artifacts, from its `--summary`.
        var loadSeconds: Double?
        /// Seconds the stage spent writing its output, from its `--summary`.
        public var writeSeconds: Double?
        var outputBytes: Int
        /// XXH64 of each output file, in the step's output order.
        var outputHashes: [UInt64]
        public var summary: StageSummary
    }

    /// All repeats of one step and their medians.
    public struct StepResult {
        public var step: BenchmarkPlan.Step
        public var runs: [Measurement] = []

        public var wall: Double { BenchmarkStatistics.median(runs.map { $0.wall }) }
        public var cpu: Double { BenchmarkStatistics.median(runs.map { $0.cpu }) }
        /// The largest peak over the repeats (a limit must hold for every run).
        public var peakRSS: Int { runs.map { $0.peakRSS }.max() ?? 0 }
        var outputBytes: Int { runs.last?.outputBytes ?? 0 }
        var loadSeconds: Double? {
            let v = runs.compactMap { $0.loadSeconds }
            return v.isEmpty ? nil : BenchmarkStatistics.median(v)
        }
        public var writeSeconds: Double? {
            let v = runs.compactMap { $0.writeSeconds }
            return v.isEmpty ? nil : BenchmarkStatistics.median(v)
        }
        /// Whether every repeat wrote byte-identical outputs.
        public var deterministic: Bool { Set(runs.map { $0.outputHashes }).count <= 1 }
        public var summary: StageSummary { runs.last?.summary ?? StageSummary(stage: "") }
    }

    /// One run of the Python reference pipeline.
    public struct ReferenceRun {
        public var method: String
        public var wall: Double
        public var peakRSS: Int
        public var cpu = 0.0
        /// Per-stage seconds measured inside the reference process.
        var stageSeconds: [(String, Double)]
        public var regions: Int
    }

    public var label: String
    public var n: Int
    var inputPath: String
    public var inputBytes: Int
    public var steps: [StepResult]
    public var pipelines: [BenchmarkPlan.Pipeline]
    var projBaseline: JSONValue?
    public var reference: [ReferenceRun] = []
    /// Load average (1 min) before and after the size's runs.
    var loadBefore: Double
    var loadAfter: Double = 0
    /// Outputs compared with a `--threads 1` run: nil when not checked, else the step ids that differed.
    var threadMismatches: [String]?
    /// The user's path (``UserPathBenchmark``), when measured.
    public var userPath: [UserPathBenchmark.CaseResult] = []
    /// ``BandwidthProbe``'s figures, when measured.
    var bandwidth: JSONValue?

    public func step(_ id: String) -> StepResult? { steps.first { $0.step.id == id } }

    /// Median end-to-end wall time, peak RSS (the largest of its stages) and CPU of a pipeline:
    /// per repeat, the sum of its six process walls.
    func endToEnd(_ p: BenchmarkPlan.Pipeline) -> (wall: Double, peakRSS: Int, cpu: Double)? {
        let results = p.steps.compactMap { step($0) }
        guard results.count == p.steps.count, let repeats = results.map({ $0.runs.count }).min(), repeats > 0 else {
            return nil
        }
        var walls: [Double] = []
        var cpus: [Double] = []
        for r in 0..<repeats {
            walls.append(results.reduce(0) { $0 + $1.runs[r].wall })
            cpus.append(results.reduce(0) { $0 + $1.runs[r].cpu })
        }
        return (
            BenchmarkStatistics.median(walls), results.map { $0.peakRSS }.max() ?? 0, BenchmarkStatistics.median(cpus)
        )
    }

    /// Median wall and largest peak RSS of the reference per graph method.
    func referenceSummary(_ method: String) -> (wall: Double, peakRSS: Int, stages: [(String, Double)])? {
        let runs = reference.filter { $0.method == method }
        guard let last = runs.last else { return nil }
        var stages: [(String, Double)] = []
        for (name, _) in last.stageSeconds {
            stages.append(
                (name, BenchmarkStatistics.median(runs.compactMap { r in r.stageSeconds.first { $0.0 == name }?.1 })))
        }
        return (BenchmarkStatistics.median(runs.map { $0.wall }), runs.map { $0.peakRSS }.max() ?? 0, stages)
    }
}
