import RegionSearchCore
import RegionSearchStages

/// Options of `regionsearch run`.
public struct RunOptions {
    /// Rerun every selected stage even when it is up to date.
    public var force = false
    /// Rerun this stage and every later one even when up to date (earlier ones run only if stale).
    public var from: String?
    /// Stop after this stage (the manifest output is only written when hulls ran or is current).
    public var until: String?
    /// Passed to every stage as `--threads N`; outputs are identical for any value.
    public var threads: Int?
    /// Wait for another run on the same work directory instead of failing with exit status 5.
    public var wait = false
    /// Only errors on stderr (passed to the stages as `--quiet`).
    public var quiet = false
    /// Passed to the stages as `--log-format json`, whose lines the runner copies through.
    public var logFormat = Log.Format.human
    /// Passed to the stages as `--strict`: a warning about the data fails the stage (status 3).
    public var strict = false
    /// Start a new lineage: ignore the previous result's lineage file (ids numbered afresh,
    /// every region `new`; the new lineage file replaces it).
    public var freshLineage = false
    /// Continue a lineage file another manifest keeps: its ids go on, and the file becomes this
    /// manifest's (the other is refused from then on). Without it such a file is refused.
    public var adoptLineage = false

    public init() {}

    /// Index of a stage named in an option; a usage error names the known stages.
    static func stageIndex(_ name: String, option: String) throws(UsageError) -> Int {
        guard let i = Pipeline.stages.firstIndex(where: { $0.name == name }) else {
            let names = Pipeline.stages.map { $0.name }
            let hint = closestMatch(name, in: names).map { " (did you mean '\($0)'?)" } ?? ""
            throw UsageError("\(option): unknown stage '\(name)'\(hint); stages: \(names.joined(separator: ", "))")
        }
        return i
    }

    /// The selected stage window and the first forced stage.
    public func window() throws(UsageError) -> (until: Int, forcedFrom: Int?) {
        let last = Pipeline.stages.count - 1
        let until = try until.map { (s) throws(UsageError) -> Int in try Self.stageIndex(s, option: "--until") } ?? last
        let from = try from.map { (s) throws(UsageError) -> Int in try Self.stageIndex(s, option: "--from") }
        if let from, from > until {
            throw UsageError("--from \(Pipeline.stages[from].name) comes after --until \(Pipeline.stages[until].name)")
        }
        return (until, force ? 0 : from)
    }

    public var json: JSONValue {
        .object([
            ("force", .bool(force)),
            ("from", from.map { .string($0) } ?? .null),
            ("until", until.map { .string($0) } ?? .null),
            ("threads", threads.map { .number(Double($0)) } ?? .null),
        ])
    }
}
