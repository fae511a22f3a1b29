import Foundation
import Synchronization

/// Progress and diagnostics on stderr. Standard output stays free for machine-readable results.
public enum Log {
    private static let quietFlag = Atomic<Bool>(false)
    private static let name = Mutex<String>("regionsearch")
    private static let lock = NSLock()

    /// Whether progress lines are suppressed (`--quiet`); warnings and errors are always printed.
    public static var quiet: Bool {
        get { quietFlag.load(ordering: .relaxed) }
        set { quietFlag.store(newValue, ordering: .relaxed) }
    }

    /// The prefix of every line: the executable's name.
    public static var toolName: String {
        get { name.withLock { $0 } }
        set { name.withLock { $0 = newValue } }
    }

    /// A progress line, prefixed with the tool name; suppressed by `--quiet`.
    public static func info(_ message: String) {
        if quiet { return }
        write("\(toolName): \(message)\n")
    }

    /// A warning; always printed.
    public static func warning(_ message: String) {
        write("\(toolName): warning: \(message)\n")
    }

    /// An error; always printed.
    public static func error(_ message: String) {
        write("\(toolName): error: \(message)\n")
    }

    public static func write(_ text: String) {
        lock.lock()
        defer { lock.unlock() }
        FileHandle.standardError.write(text.data(using: .utf8)!)
    }
}

/// Monotonic wall clock in seconds.
public func monotonicSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
}

/// Rate-limited progress reporting for long loops ("ingest: 1200000 rows, 85 MB/s").
public struct ProgressReporter {
    private let label: String
    private let start = monotonicSeconds()
    private var last: Double
    private let interval: Double

    public init(_ label: String, interval: Double = 1.0) {
        self.label = label
        self.interval = interval
        last = start
    }

    /// Prints `message()` when at least `interval` seconds passed since the last line.
    public mutating func tick(_ message: @autoclosure () -> String) {
        if Log.quiet { return }
        let now = monotonicSeconds()
        if now - last >= interval {
            last = now
            Log.info("\(label): \(message()) (\(String(format: "%.1f", now - start)) s)")
        }
    }

    var elapsed: Double { monotonicSeconds() - start }
}

/// Peak resident set size of this process in bytes (from getrusage).
func peakResidentBytes() -> Int {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    return Int(usage.ru_maxrss) * 1024
}

/// Formats a count with thousands separators: 1234567 → "1,234,567".
public func groupedCount(_ n: Int) -> String {
    let s = String(abs(n))
    var out = ""
    for (i, c) in s.enumerated() {
        if i > 0 && (s.count - i) % 3 == 0 { out += "," }
        out.append(c)
    }
    return (n < 0 ? "-" : "") + out
}
