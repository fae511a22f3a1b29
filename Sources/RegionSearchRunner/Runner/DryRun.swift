import RegionSearchCore
import RegionSearchStages

/// `regionsearch run --dry-run`: which stages a run would execute and why, decided as `run`
/// decides (``StatusReport``), without taking the lock or writing anything.
public struct DryRun {
    /// What a run would do with one stage.
    public struct Step {
        public var stage: String
        /// Whether it would execute.
        public var runs: Bool
        /// `up to date`, `stale: …`, `forced (--from graph)`, `not selected (--until regions)`.
        public var why: [String]
    }

    /// The steps of one pipeline (one per combination of an experiment), in order.
    public var pipelines: [(name: String, steps: [Step], writesOutput: String?)] = []

    public init(_ manifest: Manifest, options: RunOptions) throws {
        let window = try options.window()
        // What the run would refuse before anything, the dry run refuses too.
        try WorkDirectory(path: manifest.workDirectory).checkOwnership()
        // The lineage file too (damaged, or another manifest's), as the run reads it before any stage.
        if window.until == Pipeline.stages.count - 1 {
            _ = try LineageStep.previousState(manifest, fresh: options.freshLineage, adopt: options.adoptLineage)
        }
        let builds = BuildIdentity(toolDirectory: CurrentExecutable.directory)
        let work = WorkDirectory(path: manifest.workDirectory)
        let variants: [(String, Manifest)] =
            manifest.experiment.map { e in e.combinations.map { ($0.name, manifest.variant(for: $0)) } }
            ?? [(manifest.name, manifest)]
        for (name, m) in variants {
            // A combination is compared with its own last run (never run: missing, not stale).
            let report = StatusReport(
                manifest: m, builds: builds, combinationState: m.isCombination ? work.combinationState(name) : nil)
            var steps: [Step] = []
            var upstreamRuns = false
            for (i, s) in report.stages.enumerated() {
                if i > window.until {
                    steps.append(Step(stage: s.stage, runs: false, why: ["not selected (--until \(options.until!))"]))
                    continue
                }
                if let from = window.forcedFrom, i >= from {
                    let flag = options.force ? "--force" : "--from \(options.from!)"
                    steps.append(Step(stage: s.stage, runs: true, why: ["forced (\(flag))"]))
                    upstreamRuns = true
                    continue
                }
                switch s.state {
                case .upToDate:
                    let why =
                        upstreamRuns ? "up to date; runs again only if an earlier stage's output changes" : "up to date"
                    steps.append(Step(stage: s.stage, runs: false, why: [why] + s.reasons))
                default:
                    steps.append(Step(stage: s.stage, runs: true, why: ["\(s.state.rawValue): "] + s.reasons))
                    upstreamRuns = true
                }
            }
            let reachesEnd = window.until == Pipeline.stages.count - 1
            let writes = reachesEnd && (upstreamRuns || report.outputState != .upToDate) ? m.output : nil
            pipelines.append((name, steps, writes))
        }
    }

    /// Whether anything would run or be written.
    public var isNoOp: Bool { pipelines.allSatisfy { p in p.writesOutput == nil && !p.steps.contains(where: \.runs) } }

    /// The report for people.
    public var text: String {
        var out = ""
        for p in pipelines {
            if pipelines.count > 1 { out += "\(p.name):\n" }
            for (i, s) in p.steps.enumerated() {
                let head = "  [\(i + 1)/\(p.steps.count)] \(s.stage): " + (s.runs ? "would run" : "would skip")
                var why = s.why
                if let first = why.first, first.hasSuffix(": ") {
                    why[0] = String(first.dropLast(2)) + (why.count > 1 ? " — " + why[1] : "")
                    if why.count > 1 { why.remove(at: 1) }
                }
                out += head + (why.isEmpty ? "" : " (\(why[0]))") + "\n"
                for more in why.dropFirst() { out += "        \(more)\n" }
            }
            out += p.writesOutput.map { "  would write \($0)\n" } ?? "  output: nothing to write\n"
        }
        return out
    }
}
