import RegionSearchCore

/// What happened to the records of one input (or of all inputs).
///
/// Invariant: `read == accepted + rejected + mergedDuplicates + droppedDuplicates`. Kept
/// duplicates (policy `keep_all`) are part of `accepted`. Blank lines are not records.
public struct IngestCounts: Sendable, Equatable {
    public var read = 0
    public var accepted = 0
    public var rejected = 0
    public var mergedDuplicates = 0
    public var droppedDuplicates = 0
    public var keptDuplicates = 0
    public var blankLines = 0
    /// Records whose id an earlier input had (with `id_scope: all`), handled by the duplicate
    /// policy: part of `mergedDuplicates`, `droppedDuplicates` or `keptDuplicates`.
    public var crossInputDuplicates = 0
    /// Rejects by kind (the reason up to its first ':').
    var rejectReasons: [String: Int] = [:]

    public init() {}

    var invariantHolds: Bool {
        read == accepted + rejected + mergedDuplicates + droppedDuplicates && keptDuplicates <= accepted
            && rejectReasons.values.reduce(0, +) == rejected
            && crossInputDuplicates <= mergedDuplicates + droppedDuplicates + keptDuplicates
    }

    /// The kind of a reject reason: the text before the first ": " (the whole text without one),
    /// without where in the file it is (" at line …").
    public static func kind(of reason: String) -> String {
        var kind = reason
        if let r = kind.range(of: ": ") { kind = String(kind[..<r.lowerBound]) }
        // Where in the file is the record's, not the kind's: "invalid JSON at line 5, column 3".
        if let r = kind.range(of: " at line ") { kind = String(kind[..<r.lowerBound]) }
        return kind
    }

    mutating func countReject(_ reason: String) {
        rejected += 1
        rejectReasons[Self.kind(of: reason), default: 0] += 1
    }

    public mutating func add(_ o: IngestCounts) {
        read += o.read
        accepted += o.accepted
        rejected += o.rejected
        mergedDuplicates += o.mergedDuplicates
        droppedDuplicates += o.droppedDuplicates
        keptDuplicates += o.keptDuplicates
        blankLines += o.blankLines
        crossInputDuplicates += o.crossInputDuplicates
        for (k, v) in o.rejectReasons { rejectReasons[k, default: 0] += v }
    }

    /// Reject kinds, most frequent first (ties by name), for messages and JSON.
    public var sortedReasons: [(String, Int)] {
        rejectReasons.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
    }

    public var json: JSONValue {
        var members: [(String, JSONValue)] = [
            ("read", .number(Double(read))), ("accepted", .number(Double(accepted))),
            ("rejected", .number(Double(rejected))), ("merged_duplicates", .number(Double(mergedDuplicates))),
            ("dropped_duplicates", .number(Double(droppedDuplicates))),
            ("kept_duplicates", .number(Double(keptDuplicates))),
            ("blank_lines", .number(Double(blankLines))),
        ]
        // Only when there are some: one input's metadata stays as it was.
        if crossInputDuplicates > 0 {
            members.append(("cross_input_duplicates", .number(Double(crossInputDuplicates))))
        }
        members.append(("reject_reasons", .object(sortedReasons.map { ($0.0, .number(Double($0.1))) })))
        return .object(members)
    }

    /// "read 12,204, accepted 10,890, rejected 151 (null island 151), merged duplicates 1,163"
    public var summary: String {
        var s = "read \(groupedCount(read)), accepted \(groupedCount(accepted)), rejected \(groupedCount(rejected))"
        if rejected > 0 {
            s +=
                " (" + sortedReasons.prefix(5).map { "\($0.0) \(groupedCount($0.1))" }.joined(separator: ", ")
                + (rejectReasons.count > 5 ? ", …" : "") + ")"
        }
        if mergedDuplicates > 0 { s += ", merged duplicates \(groupedCount(mergedDuplicates))" }
        if droppedDuplicates > 0 { s += ", dropped duplicates \(groupedCount(droppedDuplicates))" }
        if keptDuplicates > 0 { s += ", kept duplicates \(groupedCount(keptDuplicates))" }
        if crossInputDuplicates > 0 {
            s += " (\(groupedCount(crossInputDuplicates)) of them repeat ids of earlier inputs)"
        }
        if blankLines > 0 { s += ", blank lines skipped \(groupedCount(blankLines))" }
        return s
    }
}
