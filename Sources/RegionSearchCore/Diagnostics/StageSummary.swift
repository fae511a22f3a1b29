import Foundation

/// What one stage run did: its counts, the seconds of each phase, total seconds and peak memory.
///
/// Every stage executable fills one and writes it with `--summary PATH` (JSON); the runner keeps
/// it in the stage's run record, and `status`, experiments and the benchmark read it back through
/// this type, so there is one spelling of every count and one timing convention: phases are a
/// closed set (``Phase``), each timed in seconds, rounded to the millisecond.
public struct StageSummary: Sendable, Equatable {
    /// The phases a stage's time is split into, in the order they usually run.
    public enum Phase: String, CaseIterable, Sendable {
        /// Ingest: opening and hashing the raw inputs.
        case open
        /// Ingest: reading, validating and building the POI table.
        case read
        /// Opening and verifying input artifacts.
        case load
        /// Graph: collapsing coincident points.
        case duplicates
        case triangulate
        case knn
        /// Graph: local spacing of every point.
        case scale
        /// Graph: building the compressed adjacency.
        case csr
        case prune
        /// Propagate: matching the keywords against every POI.
        case match
        case project
        case propagate
        case regions
        case hulls
        /// Writing the output artifact or file.
        case write
    }

    /// A count a later reader relies on (the runner's one-line report, experiments, benchmark).
    public enum Count: String, CaseIterable, Sendable {
        // ingest
        case read, accepted, rejected
        case mergedDuplicates = "merged_duplicates"
        case droppedDuplicates = "dropped_duplicates"
        case keptDuplicates = "kept_duplicates"
        case blankLines = "blank_lines"
        case inputBytes = "input_bytes"
        /// Records whose id an earlier input had (handled by the duplicate policy).
        case crossInputDuplicates = "cross_input_duplicates"
        /// Rejects counted but not copied into the rejects file (its cap was reached).
        case rejectsNotWritten = "rejects_not_written"
        /// Keyword values left out because a POI's keyword text reached its cap.
        case keywordValuesDropped = "keyword_values_dropped"
        // project
        case inputPoints = "input_points"
        case projectedPoints = "projected_points"
        case failedPoints = "failed_points"
        // graph
        case nodes, locations
        case duplicatesLinked = "duplicates_linked"
        case edgesBeforePruning = "edges_before_pruning"
        case droppedMaxEdge = "dropped_max_edge"
        case droppedLocalScale = "dropped_local_scale"
        case droppedEmptyBand = "dropped_empty_band"
        case edges
        case isolatedNodes = "isolated_nodes"
        case lateInsertions = "late_insertions"
        // propagate
        case iterations
        // regions, hulls
        case candidates, regions
        case droppedCovered = "dropped_covered"
    }

    public let stage: String
    public private(set) var counts: [(Count, Int)] = []
    private(set) var phases: [(Phase, Double)] = []
    /// Stage-specific facts that are not counts (the chosen CRS, per-input or per-keyword
    /// details), kept as JSON.
    private(set) var details: [(String, JSONValue)] = []
    /// Seconds from the start of the stage to the summary's serialisation (or as read back).
    public private(set) var seconds: Double?
    private(set) var peakRSSBytes: Int?
    private let start = monotonicSeconds()

    public init(stage: String) { self.stage = stage }

    public static func == (a: StageSummary, b: StageSummary) -> Bool {
        a.stage == b.stage && a.counts.elementsEqual(b.counts, by: { $0 == $1 })
            && a.phases.elementsEqual(b.phases, by: { $0 == $1 })
            && a.details.elementsEqual(b.details, by: { $0 == $1 })
            && a.seconds == b.seconds && a.peakRSSBytes == b.peakRSSBytes
    }

    public mutating func set(_ count: Count, _ value: Int) {
        if let i = counts.firstIndex(where: { $0.0 == count }) {
            counts[i].1 = value
        } else {
            counts.append((count, value))
        }
    }

    public func count(_ count: Count) -> Int? { counts.first { $0.0 == count }?.1 }

    /// Adds `seconds` to `phase` (a phase may run in several pieces).
    public mutating func add(_ phase: Phase, seconds: Double) {
        if let i = phases.firstIndex(where: { $0.0 == phase }) {
            phases[i].1 += seconds
        } else {
            phases.append((phase, seconds))
        }
    }

    public func seconds(_ phase: Phase) -> Double? { phases.first { $0.0 == phase }?.1 }

    /// Runs `body` and adds its wall time to `phase`.
    @discardableResult
    public mutating func time<T>(_ phase: Phase, _ body: () throws -> T) rethrows -> T {
        let t0 = monotonicSeconds()
        defer { add(phase, seconds: monotonicSeconds() - t0) }
        return try body()
    }

    public mutating func setDetail(_ key: String, _ value: JSONValue) {
        if let i = details.firstIndex(where: { $0.0 == key }) {
            details[i].1 = value
        } else {
            details.append((key, value))
        }
    }

    public func detail(_ key: String) -> JSONValue? { details.first { $0.0 == key }?.1 }

    /// The summary with the seconds since it was created and this process's peak RSS filled in
    /// (what a stage writes when it finishes).
    public func finished() -> StageSummary {
        var s = self
        s.seconds = monotonicSeconds() - start
        s.peakRSSBytes = peakResidentBytes()
        return s
    }

    /// `{stage, counts, phase_seconds, details, seconds, peak_rss_bytes}` (the last two once known).
    public var json: JSONValue {
        func ms(_ s: Double) -> JSONValue { .number((s * 1000).rounded() / 1000) }
        var members: [(String, JSONValue)] = [
            ("stage", .string(stage)),
            ("counts", .object(counts.map { ($0.0.rawValue, .number(Double($0.1))) })),
            ("phase_seconds", .object(phases.map { ($0.0.rawValue, ms($0.1)) })),
            ("details", .object(details)),
        ]
        if let seconds { members.append(("seconds", ms(seconds))) }
        if let peakRSSBytes { members.append(("peak_rss_bytes", .number(Double(peakRSSBytes)))) }
        return .object(members)
    }

    /// Reads a summary back; unknown counts and phases (from another version) are ignored.
    public init(json: JSONValue) {
        stage = json["stage"]?.stringValue ?? ""
        for (k, v) in json["counts"]?.objectValue ?? [] {
            if let c = Count(rawValue: k), let n = v.intValue { counts.append((c, n)) }
        }
        for (k, v) in json["phase_seconds"]?.objectValue ?? [] {
            if let p = Phase(rawValue: k), let s = v.doubleValue { phases.append((p, s)) }
        }
        details = json["details"]?.objectValue ?? []
        seconds = json["seconds"]?.doubleValue
        peakRSSBytes = json["peak_rss_bytes"]?.intValue
    }

    /// Writes the ``finished()`` summary to `path` (atomically) when given.
    public func write(to path: String?) throws {
        guard let path else { return }
        try AtomicFile.write(finished().json.serialized(sortedKeys: true, pretty: true) + "\n", to: path)
    }
}
