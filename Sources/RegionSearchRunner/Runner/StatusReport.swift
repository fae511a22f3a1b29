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
        public var reasons: [String]
        /// The key it would run with, when its inputs are known.
        public var key: ContentHash?
        /// An up-to-date stage's recorded summary (counts, seconds).
        var summary: StageSummary?
    }

    /// Whether the manifest output holds the current result.
    public enum OutputState: String {
        case upToDate = "up_to_date"
        /// It exists, with other bytes than the current result.
        case differs
        case missing
        /// The final stage is not up to date, so the output cannot be current.
        case outOfDate = "out_of_date"
        /// The lineage file the next run reads is damaged or unreadable: `run` stops on it.
        case lineageUnreadable = "lineage_unreadable"
        /// The lineage file the next run would advance is another manifest's: `run` stops on it.
        case lineageOfAnotherManifest = "lineage_of_another_manifest"
    }

    public var manifest: Manifest
    public var stages: [Stage]
    /// One line about the latest run (from run.json and the lock).
    var lastRun: String
    /// Whether the manifest output holds the current final stage's GeoJSON.
    public var output: String
    public var outputState: OutputState
    /// run.json and the lock, for the machine-readable report.
    var runState: RunState?
    var lock: WorkLock.State

    /// Whether every stage is up to date and the output holds the current result (`status
    /// --check` exits 0 exactly then).
    public var isUpToDate: Bool { outputState == .upToDate && stages.allSatisfy { $0.state == .upToDate } }

    /// Evaluates every stage of `manifest`; `builds` identifies the stage executables (their
    /// build is part of each key).
    ///
    /// - Parameter combinationState: for an experiment combination, its own run state
    ///   (``WorkDirectory/combinationState(_:)``): each stage is compared with the record that
    ///   combination last used, not with the latest record of the stage in the work directory —
    ///   another combination's, which made a combination that never ran look stale.
    public init(
        manifest: Manifest, builds: BuildIdentity = BuildIdentity(toolDirectory: CurrentExecutable.directory),
        combinationState: String? = nil
    ) {
        self.manifest = manifest
        let work = WorkDirectory(path: manifest.workDirectory)
        let planner = StagePlanner(manifest: manifest, work: work)
        let runState = combinationState.map { RunState.load(path: $0) } ?? RunState.load(work)
        self.runState = runState
        lock = WorkLock.state(of: work)
        lastRun = Self.describeLastRun(runState, lock: lock)
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
            let last =
                combinationState == nil
                ? planner.lastRecord(of: stage.name)
                : runState?[stage.name].key.flatMap { planner.record(stage.name, $0) }
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
            let key = StageKey(stage: stage, parameters: parameters, inputs: inputs, build: builds.of(stage))
            let hash = key.hash
            switch planner.check(stage, key: hash) {
            case .upToDate(let record):
                completed[stage.name] = .init(
                    key: hash, objectPath: StagePlanner.objectPath(stage: stage.name, key: hash), record: record)
                let counts = Runner.countsText(record.summary)
                stages.append(
                    Stage(
                        stage: stage.name, state: .upToDate, reasons: counts.isEmpty ? [] : [counts], key: hash,
                        summary: record.summary))
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
        var publisher = Publisher(manifest: manifest, work: work, planner: planner)
        if let final = Pipeline.stages.last, completed[final.name] != nil {
            publisher.identified = LineageStep(
                manifest: manifest, work: work, planner: planner, build: builds.of(executable: "regionsearch")
            ).stored(completed)
        }
        // Read whether or not the stages are current: `run` stops on a damaged file before them.
        let lineageProblem = LineageStep.lineageProblem(manifest)
        var lines: [String] = []
        // The worst state over all destinations (an output written on every run, such as a
        // database table, counts as up to date once the stages are).
        var worst = OutputState.upToDate
        func note(_ state: OutputState) {
            let order: [OutputState] = [
                .upToDate, .differs, .missing, .outOfDate, .lineageUnreadable, .lineageOfAnotherManifest,
            ]
            if order.firstIndex(of: state)! > order.firstIndex(of: worst)! { worst = state }
        }
        if let lineageProblem {
            lines.append(
                "lineage file: \(lineageProblem.reason) ('regionsearch run' stops on it with exit status "
                    + "\(lineageProblem.status.rawValue))")
            note(lineageProblem.status == .usage ? .lineageOfAnotherManifest : .lineageUnreadable)
        }
        for group in Publisher.destinations(manifest.outputTargets) {
            let at = group[0].display
            let exists = FileSystem.exists(group[0].path)
            guard let final = Pipeline.stages.last, completed[final.name] != nil else {
                lines.append("\(at): " + (exists ? "out of date" : "missing"))
                note(exists ? .outOfDate : .missing)
                continue
            }
            switch publisher.isUpToDate(group, completed) {
            case .some(true): lines.append("\(at): up to date")
            case .some(false) where group[0].format == .postgis:
                lines.append(
                    "\(at): its tables were not written with the current result (the last write failed, was "
                        + "stopped, or has not run); 'regionsearch run' writes them")
                note(.differs)
            case .some(false):
                lines.append(
                    "\(at): " + (exists ? "differs from the current result" : "missing")
                        + "; 'regionsearch run' writes it")
                note(exists ? .differs : .missing)
            case .none: lines.append("\(at): written on every run")
            }
        }
        if let final = Pipeline.stages.last, completed[final.name] != nil,
            let maps = publisher.areMapsUpToDate(completed)
        {
            let names = MapPublisher(manifest: manifest, work: work).paths.map { AtomicFile.baseName(of: $0) }
            if maps {
                lines.append("maps \(names.joined(separator: ", ")): up to date")
            } else {
                lines.append(
                    "maps \(names.joined(separator: ", ")): differ from the current result or are missing; "
                        + "'regionsearch run' draws them")
                note(.differs)
            }
        }
        output = lines.joined(separator: "\n        ")
        outputState = worst
    }

    private static func unique(_ names: [String]) -> [String] {
        var out: [String] = []
        for n in names where !out.contains(n) { out.append(n) }
        return out
    }

    public static func describeLastRun(_ state: RunState?, lock: WorkLock.State) -> String {
        if case .held(let holder) = lock {
            return "running now (\(holder.map { "\($0)" } ?? "pid unknown"))"
        }
        guard let state else { return "never run" }
        switch state.status {
        case "ok": return "ok, started \(state.started), finished \(state.finished ?? "?")"
        case "failed" where state.publishError != nil:
            return "failed publishing the outputs (every stage succeeded), started \(state.started)"
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
                "interrupted (pid \(state.pid) ended without finishing)\(stage.map { " during \($0)" } ?? ""), "
                + "started \(state.started)"
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
        if let changes = LineageStep.lastChanges(manifest) { out += "changes: \(changes.summary)\n" }
        return out
    }

    /// The machine-readable report (`status --json`): states as fixed words, times as ISO 8601
    /// UTC, counts as numbers; `reasons` are the human explanations.
    public var json: JSONValue {
        .object([
            ("manifest", .string(manifest.file)),
            ("work_dir", .string(manifest.workDirectory)),
            ("up_to_date", .bool(isUpToDate)),
            ("last_run", Self.lastRunJSON(runState, lock: lock)),
            (
                "stages",
                .array(
                    stages.map { s in
                        var members: [(String, JSONValue)] = [
                            ("stage", .string(s.stage)),
                            ("state", .string(s.state == .upToDate ? "up_to_date" : s.state.rawValue)),
                            ("key", s.key.map { .string($0.description) } ?? .null),
                            ("reasons", .array(s.reasons.map { .string($0) })),
                        ]
                        if let summary = s.summary {
                            members.append(
                                ("counts", .object(summary.counts.map { ($0.0.rawValue, .number(Double($0.1))) })))
                        }
                        return .object(members)
                    })
            ),
            (
                "output",
                .object([
                    ("path", .string(ConnectionSecrets.redacted(manifest.output))),
                    ("state", .string(outputState.rawValue)),
                ])
            ),
            ("changes", LineageStep.lastChanges(manifest)?.json ?? .null),
        ])
    }

    /// The latest run as fields: `state` (`never`, `running`, `ok`, `failed`, `interrupted`),
    /// `pid`, `started`, `finished`, `stage` (where it failed or was interrupted).
    public static func lastRunJSON(_ state: RunState?, lock: WorkLock.State) -> JSONValue {
        if case .held(let holder) = lock {
            return .object([
                ("state", .string("running")), ("pid", holder.map { .number(Double($0.pid)) } ?? .null),
                ("started", holder.map { .string($0.started) } ?? .null),
            ])
        }
        guard let state else { return .object([("state", .string("never"))]) }
        let word: String
        var stage: String?
        switch state.status {
        case "ok": word = "ok"
        case "failed":
            word = "failed"
            stage =
                state.stages.first { $0.status == .failed }?.stage
                ?? state.combinations?.first { $0.status == "failed" }?.name
        default:
            word = "interrupted"
            stage =
                state.stages.first { $0.status == .running }?.stage
                ?? state.combinations?.first { $0.status == "running" }?.name
        }
        return .object([
            ("state", .string(word)), ("pid", .number(Double(state.pid))), ("started", .string(state.started)),
            ("finished", state.finished.map { .string($0) } ?? .null), ("stage", stage.map { .string($0) } ?? .null),
        ])
    }
}
