import Foundation
import RegionSearchCore
import RegionSearchStages

/// `regionsearch status`: for each stage whether it is up to date, stale (and why, against its
/// last record), missing or failed — computed exactly as `run` decides, without running anything.
public struct StatusReport {
    /// The state of one stage.
    public enum State: String {
        case upToDate = "up to date"
        case stale
        case missing
        case failed
    }

    public struct Stage {
        public var stage: String
        public var state: State
        /// Why it is stale or failed; for an up-to-date stage, its counts.
        var reasons: [String]
        /// The key it would run with, when its inputs are known.
        public var key: ContentHash?
    }

    public var manifest: Manifest
    public var stages: [Stage]
    /// One line about the latest run (from run.json and the lock).
    var lastRun: String
    /// Whether the manifest output holds the current final stage's GeoJSON.
    public var output: String

    /// Evaluates every stage of `manifest`.
    public init(manifest: Manifest) {
        self.manifest = manifest
        let work = WorkDirectory(path: manifest.workDirectory)
        let planner = StagePlanner(manifest: manifest, work: work)
        let runState = RunState.load(work)
        lastRun = Self.describeLastRun(runState, lock: WorkLock.state(of: work))
        stages = []
        var completed: [String: StagePlanner.Completed] = [:]
        var staleUpstream: [String] = []
        for stage in Pipeline.stages {
            let parameters = manifest.parameters(for: stage.name)
            let inputs: [StageKey.Input]?
            var inputProblem: String?
            if stage.inputs.isEmpty {
                do {
                    inputs = try planner.rawInputs()
                } catch {
                    inputs = nil
                    inputProblem = error.description
                }
            } else {
                inputs = planner.artifactInputs(of: stage, completed: completed)
            }
            let last = planner.lastRecord(of: stage.name)
            let lastFailure = runState?[stage.name].status == .failed ? runState?[stage.name].error : nil
            guard let inputs else {
                // An upstream stage reruns first, so this stage's inputs are not known yet.
                let upstream = stage.inputs.compactMap { $0.producer }.filter { staleUpstream.contains($0) }
                var reasons =
                    upstream.isEmpty ? [] : ["waits for \(Self.unique(upstream).joined(separator: ", ")) to rerun"]
                if let inputProblem { reasons.append(inputProblem) }
                if let last {
                    reasons += StagePlanner.parameterDifferences(
                        stage: stage.name, from: last.key.parameters, to: parameters.canonical)
                }
                if let lastFailure { reasons.append("last run failed: \(lastFailure)") }
                stages.append(
                    Stage(
                        stage: stage.name, state: lastFailure != nil ? .failed : (last == nil ? .missing : .stale),
                        reasons: reasons, key: nil))
                staleUpstream.append(stage.name)
                continue
            }
            let key = StageKey(stage: stage, parameters: parameters, inputs: inputs)
            let hash = key.hash
            switch planner.check(stage, key: hash) {
            case .upToDate(let record):
                completed[stage.name] = .init(
                    key: hash, objectPath: StagePlanner.objectPath(stage: stage.name, key: hash), record: record)
                let counts = Runner.countsText(record.summary)
                stages.append(
                    Stage(stage: stage.name, state: .upToDate, reasons: counts.isEmpty ? [] : [counts], key: hash))
                continue
            case .damaged(let reason):
                stages.append(
                    Stage(stage: stage.name, state: .stale, reasons: ["output damaged: \(reason)"], key: hash))
            case .absent:
                if let failure = planner.failure(of: stage.name, key: hash) {
                    stages.append(
                        Stage(stage: stage.name, state: .failed, reasons: [failure.failure ?? "failed"], key: hash))
                } else if let last {
                    var reasons = StagePlanner.differences(from: last.key, to: key)
                    if reasons.isEmpty { reasons = ["its record is missing"] }
                    stages.append(Stage(stage: stage.name, state: .stale, reasons: reasons, key: hash))
                } else {
                    stages.append(Stage(stage: stage.name, state: .missing, reasons: ["never run"], key: hash))
                }
            }
            staleUpstream.append(stage.name)
        }
        let publisher = Publisher(manifest: manifest, work: work, planner: planner)
        var lines: [String] = []
        for group in Publisher.destinations(manifest.outputTargets) {
            let at = group[0].display
            guard let final = Pipeline.stages.last, completed[final.name] != nil else {
                lines.append("\(at): " + (FileSystem.exists(group[0].path) ? "out of date" : "missing"))
                continue
            }
            switch publisher.isUpToDate(group, completed) {
            case .some(true): lines.append("\(at): up to date")
            case .some(false):
                lines.append(
                    "\(at): " + (FileSystem.exists(group[0].path) ? "differs from the current result" : "missing")
                        + "; 'regionsearch run' writes it")
            case .none: lines.append("\(at): written on every run")
            }
        }
        output = lines.joined(separator: "\n        ")
    }

    private static func unique(_ names: [String]) -> [String] {
        var out: [String] = []
        for n in names where !out.contains(n) { out.append(n) }
        return out
    }

    static func describeLastRun(_ state: RunState?, lock: WorkLock.State) -> String {
        if case .held(let holder) = lock {
            return "running now (\(holder.map { "\($0)" } ?? "pid unknown"))"
        }
        guard let state else { return "never run" }
        switch state.status {
        case "ok": return "ok, started \(state.started), finished \(state.finished ?? "?")"
        case "failed":
            let stage =
                state.stages.first { $0.status == .failed }?.stage
                ?? state.combinations?.first { $0.status == "failed" }.map { "combination \($0.name)" } ?? "?"
            return "failed at \(stage), started \(state.started)"
        default:
            let stage =
                state.stages.first { $0.status == .running }?.stage
                ?? state.combinations?.first { $0.status == "running" }.map { "combination \($0.name)" }
            return
                "interrupted (pid \(state.pid) ended without finishing)\(stage.map { " during \($0)" } ?? ""), started \(state.started)"
        }
    }

    /// The human-readable report.
    public var text: String {
        var out = "\(manifest.file) (\(manifest.name))\n"
        out += "work directory: \(manifest.workDirectory)\n"
        out += "last run: \(lastRun)\n"
        let width = Pipeline.stages.map { $0.name.count }.max() ?? 8
        for (i, s) in stages.enumerated() {
            let name = s.stage.padding(toLength: width, withPad: " ", startingAt: 0)
            let state = s.state.rawValue.padding(toLength: 10, withPad: " ", startingAt: 0)
            let first = s.reasons.first ?? ""
            out += "  [\(i + 1)/\(stages.count)] \(name)  \(state)  \(first)\n"
            for more in s.reasons.dropFirst() {
                out += String(repeating: " ", count: 8 + width + 2 + 10 + 2) + more + "\n"
            }
        }
        out += "output: \(output)\n"
        return out
    }

    /// The machine-readable report (`status --json`).
    public var json: JSONValue {
        .object([
            ("manifest", .string(manifest.file)),
            ("work_dir", .string(manifest.workDirectory)),
            ("last_run", .string(lastRun)),
            (
                "stages",
                .array(
                    stages.map { s in
                        .object([
                            ("stage", .string(s.stage)),
                            ("state", .string(s.state == .upToDate ? "up_to_date" : s.state.rawValue)),
                            ("key", s.key.map { .string($0.description) } ?? .null),
                            ("reasons", .array(s.reasons.map { .string($0) })),
                        ])
                    })
            ),
            ("output", .string(output)),
        ])
    }
}
