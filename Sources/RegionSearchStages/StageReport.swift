import RegionSearchCore

/// Counts and timings of one stage run, printed on stderr and, with `--summary PATH`, written as
/// JSON for the runner's record.
public struct StageReport {
    public let stage: String
    private var values: [(String, JSONValue)] = []
    private let start = monotonicSeconds()

    public init(stage: String) { self.stage = stage }

    public mutating func set(_ key: String, _ value: JSONValue) {
        if let i = values.firstIndex(where: { $0.0 == key }) { values[i].1 = value } else { values.append((key, value)) }
    }

    public mutating func set(_ key: String, _ value: Int) { set(key, .number(Double(value))) }
    public mutating func set(_ key: String, _ value: Double) { set(key, .number(value)) }
    public mutating func set(_ key: String, _ value: String) { set(key, .string(value)) }

    /// The report as JSON, with the elapsed seconds and peak RSS added.
    public var json: JSONValue {
        var all = values
        all.append(("seconds", .number(((monotonicSeconds() - start) * 1000).rounded() / 1000)))
        all.append(("peak_rss_bytes", .number(Double(peakResidentBytes()))))
        return .object(all)
    }

    /// Writes the report to `path` (atomically) when given.
    public func write(to path: String?) throws {
        guard let path else { return }
        try AtomicFile.write(json.serialized(sortedKeys: true, pretty: true) + "\n", to: path)
    }
}
