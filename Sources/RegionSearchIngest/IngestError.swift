import Foundation
import RegionSearchCore

/// Why ingest refused its inputs as a whole.
enum IngestError: Error, CustomStringConvertible, ExitCoded {
    case emptyInput(path: String, blankLines: Int)
    case noUsableRows(total: IngestCounts)
    case tooManyRejects(path: String, counts: IngestCounts, limit: Double, rejectsPath: String)
    case invariantBroken(String)

    public var description: String {
        switch self {
        case .emptyInput(let path, let blank):
            return "\(path): no records (the input is empty\(blank > 0 ? " apart from \(blank) blank lines" : ""))"
        case .noUsableRows(let total):
            let top = total.sortedReasons.prefix(3).map { "\($0.0) \(groupedCount($0.1))" }.joined(separator: ", ")
            return "no usable rows: all \(groupedCount(total.read)) records were rejected or duplicates"
                + (top.isEmpty ? "" : " (\(top))")
        case .tooManyRejects(let path, let c, let limit, let rejectsPath):
            let share = Double(c.rejected) / Double(max(1, c.read))
            let top = c.sortedReasons.prefix(3).map { "\($0.0) \(groupedCount($0.1))" }.joined(separator: ", ")
            return "\(path): \(groupedCount(c.rejected)) of \(groupedCount(c.read)) records rejected "
                + "(\(String(format: "%.1f", share * 100)) %, more than max_reject_ratio "
                + "\(JSONValue.formatNumber(limit))): \(top). "
                + "See \(rejectsPath); fix the column mapping or the data, or raise --max-reject-ratio"
        case .invariantBroken(let what): return "internal error: record counts do not add up: \(what)"
        }
    }

    public var exitStatus: ExitStatus {
        if case .invariantBroken = self { return .internalError }
        return .inputData
    }
}
