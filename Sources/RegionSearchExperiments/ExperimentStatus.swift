import RegionSearchCore
import RegionSearchRunner

/// `regionsearch status` on an experiment manifest: one line per combination (up to date, not
/// run yet, interrupted, or the first stage that is stale, missing or failed, with why), from a
/// ``StatusReport`` of each combination's pipeline — computed as `run` decides, without running
/// or locking anything.
public struct ExperimentStatus {
    /// One combination's state.
    public struct Combination {
        /// What `--json` gives as `state`.
        public enum State: String {
            case upToDate = "up_to_date"
            /// No run has started it (a run stopped or was killed before it): nothing of its own
            /// exists to be out of date.
            case notRun = "not_run"
            /// A run was killed or stopped while it ran this combination's stage.
            case interrupted
            case failed
            /// It ran, and its result is out of date (a parameter, input, build or upstream changed).
            case stale
            /// It ran, but a stage's result is gone (cleaned) and has to run again.
            case missing
            /// Every stage is up to date; its GeoJSON is missing or differs from the result.
            case outputOutOfDate = "output_out_of_date"
        }

        public var combination: ExperimentCombination
        public var report: StatusReport
        public var state: State
        /// Whether every stage is up to date and the GeoJSON is current.
        public var upToDate: Bool { state == .upToDate }
        /// One line: `up to date — 12 regions`, `not run yet`, `stale from regions: parameter …`, ….
        public var summary: String
    }

    public var manifest: Manifest
    public var combinations: [Combination]
    /// One line about the latest run.
    var lastRun: String
    var lastRunJSON: JSONValue

    /// Whether every combination is up to date and the results tables exist (`status --check`).
    public var isUpToDate: Bool { combinations.allSatisfy(\.upToDate) && results.allSatisfy(\.exists) }
    /// Paths of the results tables, with whether they exist.
    public var results: [(path: String, exists: Bool)]

    public init(manifest: Manifest) {
        self.manifest = manifest
        let experiment = manifest.experiment!
        let work = WorkDirectory(path: manifest.workDirectory)
        let state = RunState.load(work)
        let lock = WorkLock.state(of: work)
        lastRun = StatusReport.describeLastRun(state, lock: lock)
        lastRunJSON = StatusReport.lastRunJSON(state, lock: lock)
        let builds = BuildIdentity(toolDirectory: CurrentExecutable.directory)
        combinations = experiment.combinations.map { c in
            // Its own run state: whether a run started it, and how far it got.
            let statePath = work.combinationState(c.name)
            let own = RunState.load(path: statePath)
            let report = StatusReport(manifest: manifest.variant(for: c), builds: builds, combinationState: statePath)
            let outputCurrent = report.output.hasSuffix(": up to date")
            if let first = report.stages.first(where: { $0.state != .upToDate }) {
                let upToDate = report.stages.prefix { $0.state == .upToDate }.map(\.stage)
                let shared = upToDate.isEmpty ? "" : " (\(upToDate.joined(separator: ", ")) up to date)"
                if own == nil && first.state != .failed {
                    // Stages it shares with other combinations may be up to date; nothing of its
                    // own ran, so nothing of it is stale.
                    return Combination(
                        combination: c, report: report, state: .notRun, summary: "not run yet\(shared)")
                }
                if own?[first.stage].status == .running, lock == .free {
                    return Combination(
                        combination: c, report: report, state: .interrupted,
                        summary: "interrupted at \(first.stage)\(shared); 'regionsearch run' resumes there")
                }
                let verb = first.state == .failed ? "failed at" : "\(first.state.rawValue) from"
                let why = first.reasons.first.map { ": " + $0 } ?? ""
                let state: Combination.State =
                    switch first.state {
                    case .failed: .failed
                    case .missing: .missing
                    case .stale, .upToDate: .stale
                    }
                return Combination(
                    combination: c, report: report, state: state, summary: "\(verb) \(first.stage)\(why)")
            }
            let counts = report.stages.last?.reasons.first.map { " — " + $0 } ?? ""
            if !outputCurrent {
                return Combination(
                    combination: c, report: report, state: .outputOutOfDate,
                    summary: "stages up to date; \(AtomicFile.baseName(of: c.fileName)) "
                        + (FileSystem.exists(manifest.output + "/" + c.fileName)
                            ? "differs from the result" : "is missing") + "; 'regionsearch run' writes it")
            }
            return Combination(combination: c, report: report, state: .upToDate, summary: "up to date" + counts)
        }
        results = ["results.csv", "results.md"].map { name in
            let path = manifest.output + "/" + name
            return (path, FileSystem.exists(path))
        }
    }

    /// The human-readable report.
    public var text: String {
        let n = combinations.count
        let current = combinations.filter(\.upToDate).count
        var out =
            "\(manifest.file) (\(manifest.name)): experiment, \(n) combination\(n == 1 ? "" : "s"), "
            + "\(current) up to date\n"
        out += "work directory: \(manifest.workDirectory)\n"
        out += "last run: \(lastRun)\n"
        let width = combinations.map { $0.combination.name.count }.max() ?? 0
        let indexWidth = String(n).count * 2 + 3
        for c in combinations {
            let index = "[\(c.combination.index + 1)/\(n)]".padding(toLength: indexWidth, withPad: " ", startingAt: 0)
            out +=
                "  \(index) \(c.combination.name.padding(toLength: width, withPad: " ", startingAt: 0))  \(c.summary)\n"
        }
        for r in results { out += "results: \(r.path): \(r.exists ? "present" : "missing")\n" }
        return out
    }

    /// The machine-readable report (`status --json`): per combination its grid values and the
    /// pipeline's full status.
    public var json: JSONValue {
        .object([
            ("manifest", .string(manifest.file)),
            ("work_dir", .string(manifest.workDirectory)),
            ("up_to_date", .bool(isUpToDate)),
            ("last_run", lastRunJSON),
            (
                "combinations",
                .array(
                    combinations.map { c in
                        .object([
                            ("name", .string(c.combination.name)),
                            ("input", .string(c.combination.inputSet)),
                            ("parameters", .object(c.combination.assignments.map { ($0.key, $0.value) })),
                            ("up_to_date", .bool(c.upToDate)),
                            ("state", .string(c.state.rawValue)),
                            ("summary", .string(c.summary)),
                            ("stages", c.report.json["stages"] ?? .array([])),
                            ("output", c.report.json["output"] ?? .null),
                        ])
                    })
            ),
            ("results", .array(results.map { .object([("path", .string($0.path)), ("exists", .bool($0.exists))]) })),
        ])
    }
}
