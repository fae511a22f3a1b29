import Foundation
import Synchronization

/// Progress and diagnostics on stderr. Standard output stays free for machine-readable results.
///
/// Two formats (``Format``): lines for people, `tool: message`, and with `--log-format json`
/// one JSON object per line — `{"tool","level","stage","phase","message","counts","seconds"}`,
/// the last four only when known — for log collectors. The runner passes the format to the
/// stages it starts, whose lines it copies through, so a whole run is one stream of events.
public enum Log {
    private static let quietFlag = Atomic<Bool>(false)
    private static let jsonFlag = Atomic<Bool>(false)
    private static let strictFlag = Atomic<Bool>(false)
    private static let name = Mutex<String>("regionsearch")
    private static let stageName = Mutex<String?>(nil)
    private static let lock = NSLock()

    /// How lines are written.
    public enum Format: String, CaseIterable, Sendable {
        case human
        case json
    }

    /// The current format.
    public static var format: Format {
        get { jsonFlag.load(ordering: .relaxed) ? .json : .human }
        set { jsonFlag.store(newValue == .json, ordering: .relaxed) }
    }

    /// Whether warnings about the data are errors (`--strict`, ``strictWarning(_:)``).
    public static var strict: Bool {
        get { strictFlag.load(ordering: .relaxed) }
        set { strictFlag.store(newValue, ordering: .relaxed) }
    }

    /// The stage the events belong to (a stage executable's name; the runner names the stage
    /// of each event itself).
    public static var stage: String? {
        get { stageName.withLock { $0 } }
        set { stageName.withLock { $0 = newValue } }
    }

    /// Applies `--quiet`, `--log-format` and `--strict` from a parsed command line.
    public static func configure(_ parsed: ParsedCommandLine) {
        quiet = parsed.flag(.quiet)
        strict = parsed.flag(.strict)
        format = parsed.choice(.logFormat, as: Format.self)
    }

    /// An event: a progress line in the human format; in JSON, its fields.
    public static func event(
        _ message: String, level: String = "info", stage: String? = nil, phase: String? = nil,
        counts: [(String, Int)] = [], seconds: Double? = nil, extra: [(String, JSONValue)] = []
    ) {
        if level == "info" && quiet { return }
        guard format == .json else {
            let prefix = level == "info" ? "" : level + ": "
            // A path or a field quoted in a message cannot move the cursor or start a new line:
            // a message's later lines are indented, so only the tool's own lines start with its
            // name (a file named "x\nregionsearch: finished" cannot forge one).
            let text = PrintableText.message(message).replacingOccurrences(of: "\n", with: "\n  ")
            write("\(toolName): \(prefix)\(text)\n")
            return
        }
        var members: [(String, JSONValue)] = [("tool", .string(toolName)), ("level", .string(level))]
        if let s = stage ?? Log.stage { members.append(("stage", .string(s))) }
        if let phase { members.append(("phase", .string(phase))) }
        members.append(("message", .string(message)))
        if !counts.isEmpty { members.append(("counts", .object(counts.map { ($0.0, .number(Double($0.1))) }))) }
        if let seconds { members.append(("seconds", .number((seconds * 1000).rounded() / 1000))) }
        members += extra
        write(JSONValue.object(members).serialized() + "\n")
    }

    /// A warning about the data; with `--strict` an error that stops the tool (exit status 3).
    /// Without it the warning is also kept (``dataWarnings``) for the stage summary, so that a
    /// later `run --strict` does not take a result with warnings for up to date.
    public static func strictWarning(_ message: String) throws(ToolFailure) {
        if strict {
            throw ToolFailure(message + " (an error because of --strict)", status: .inputData)
        }
        warnings.withLock { $0.append(message) }
        warning(message)
    }

    private static let warnings = Mutex<[String]>([])

    /// The data warnings given so far (``strictWarning(_:)``).
    public static var dataWarnings: [String] { warnings.withLock { $0 } }

    /// Forgets the data warnings (a stage run starts with none, also when tests run several in
    /// one process).
    public static func clearDataWarnings() { warnings.withLock { $0.removeAll() } }

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
    public static func info(_ message: String) { event(message) }

    /// A warning; always printed.
    public static func warning(_ message: String) { event(message, level: "warning") }

    /// An error; always printed.
    public static func error(_ message: String) { event(message, level: "error") }

    /// Writes `text` to standard error. A log that cannot be written (stderr closed, `/dev/full`,
    /// a log file on a full disk) is given up, never fatal: the run goes on and its exit status
    /// still says how it ended. (`FileHandle.write` traps on a failed write: every tool died
    /// with SIGILL, exit 132, at its first line.)
    public static func write(_ text: String) {
        lock.lock()
        defer { lock.unlock() }
        guard !logLost else { return }
        var text = text
        text.withUTF8 { bytes in
            var done = 0
            var waits = 0
            while done < bytes.count {
                let n = Foundation.write(2, bytes.baseAddress! + done, bytes.count - done)
                if n > 0 {
                    done += n
                } else if n < 0 && errno == EINTR {
                    continue
                } else if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && waits < 2000 {
                    // A stderr another process made non-blocking, its pipe full for now: wait.
                    waits += 1
                    usleep(1000)
                } else {
                    logLost = true
                    return
                }
            }
        }
    }

    /// Set once a write to standard error failed (guarded by `lock`).
    nonisolated(unsafe) private static var logLost = false
}

/// Monotonic wall clock in seconds.
public func monotonicSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
}

/// Rate-limited progress reporting for long loops ("ingest: 1200000 rows, 85 MB/s").
///
/// With the share done known, a line also gives the percentage and the time left at the rate
/// so far. On a terminal the line is redrawn in place; otherwise (a log file, a pipe) each
/// report is its own line, and in the JSON format an event with `phase: progress`, `fraction`
/// and `eta_seconds`.
public struct ProgressReporter {
    private let label: String
    private let start = monotonicSeconds()
    private var last: Double
    private let interval: Double
    private var drewInPlace = false
    /// Whether stderr is a terminal (decided once).
    private let terminal = isatty(2) == 1

    public init(_ label: String, interval: Double = 1.0) {
        self.label = label
        self.interval = interval
        last = start
    }

    /// Prints `message()` when at least `interval` seconds passed since the last line;
    /// `fraction` (0…1) is the share of the work done, when known.
    public mutating func tick(_ message: @autoclosure () -> String, fraction: Double? = nil) {
        if Log.quiet { return }
        let now = monotonicSeconds()
        guard now - last >= interval else { return }
        last = now
        let elapsed = now - start
        let (text, eta) = Self.line(label: label, message: message(), fraction: fraction, elapsed: elapsed)
        if Log.format == .json {
            var extra: [(String, JSONValue)] = []
            if let fraction { extra.append(("fraction", .number((fraction * 1000).rounded() / 1000))) }
            if let eta { extra.append(("eta_seconds", .number(eta.rounded()))) }
            Log.event(text, phase: "progress", seconds: elapsed, extra: extra)
        } else if terminal {
            // Redrawn in place: one line, every control character of a path in it escaped.
            Log.write("\r\u{1B}[K\(Log.toolName): \(PrintableText.of(text, limit: Int.max))")
            drewInPlace = true
        } else {
            Log.info(text)
        }
    }

    /// The text of a progress report and the estimated seconds left: `ingest: 12 MB — 40%, about
    /// 3 s left (2.0 s)`.
    static func line(label: String, message: String, fraction: Double?, elapsed: Double) -> (String, Double?) {
        var text = "\(label): \(message)"
        var eta: Double?
        if let f = fraction, f > 0, f <= 1 {
            eta = elapsed * (1 - f) / f
            text += " — \(Int((f * 100).rounded()))%, about \(duration(eta!)) left"
        }
        text += " (\(String(format: "%.1f", elapsed)) s)"
        return (text, eta)
    }

    /// Ends a line drawn in place, so the next output starts on its own line.
    public mutating func finish() {
        if drewInPlace {
            Log.write("\n")
            drewInPlace = false
        }
    }

    /// "12 s", "3 min 5 s", "2 h 10 min".
    static func duration(_ s: Double) -> String {
        let t = Int(s.rounded())
        if t < 60 { return "\(t) s" }
        if t < 3600 { return "\(t / 60) min \(t % 60) s" }
        return "\(t / 3600) h \(t % 3600 / 60) min"
    }

    var elapsed: Double { monotonicSeconds() - start }
}

/// Peak resident set size of this process in bytes (from getrusage).
func peakResidentBytes() -> Int {
    var usage = rusage()
    #if canImport(Glibc)
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    #else
        getrusage(RUSAGE_SELF, &usage)
    #endif
    return Int(usage.ru_maxrss) * maxRSSUnit
}

/// The unit of `ru_maxrss` in bytes: kilobytes on Linux, bytes on macOS (getrusage(2) there).
#if canImport(Darwin)
    let maxRSSUnit = 1
#else
    let maxRSSUnit = 1024
#endif

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
