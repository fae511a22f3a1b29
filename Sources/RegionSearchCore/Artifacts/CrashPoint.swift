import Foundation
import Synchronization

/// Deterministic crash injection for the crash-safety tests.
///
/// With `REGIONSEARCH_CRASH_AT=<scope>:<point>:<n>` in the environment, the n-th time (1-based)
/// this process reaches `point`, it kills its whole process group with SIGKILL, exactly as if
/// the machine had lost power or the run had been killed at that moment. `scope` is the stage
/// name inside a stage executable (`ingest` … `hulls`) and `run` inside the `regionsearch` driver.
///
/// Points reached by every ``AtomicFile``: `write` (half of a block written to the temporary
/// file), `fsync` (before the flush), `rename` (flushed, before the rename), `renamed` (after the
/// rename, before the directory sync). Points of the driver are listed in docs/RUNNING.md.
///
/// With `REGIONSEARCH_CRASH_TRACE=<file>`, every arrival is instead appended to that file as
/// `<scope>:<point>:<n>`, so a test can enumerate the points an uninterrupted run reaches.
///
/// Killing the process group (not only the process) takes the driver down together with the
/// stage it is running, so only use this on a run started in its own process group (as a shell
/// job or the test harness starts it). Without the variable every check is a single load.
public enum CrashPoint {
    /// The environment variable read once at start-up.
    static let environmentVariable = "REGIONSEARCH_CRASH_AT"
    /// The environment variable naming a file that records every point reached.
    static let traceVariable = "REGIONSEARCH_CRASH_TRACE"

    private struct Target {
        var scope: String
        var point: String
        var occurrence: Int
    }

    private static let target: Target? = parse(environmentVariable)

    /// The environment variable naming the point at which this process sends itself SIGTERM
    /// (``signalIfDue(_:)``).
    static let signalVariable = "REGIONSEARCH_SIGNAL_AT"
    private static let signalTarget: Target? = parse(signalVariable)
    /// Arrivals per point at the points ``signalIfDue(_:)`` counts.
    private static let signalCounts = Mutex<[String: Int]>([:])

    /// `<scope>:<point>:<n>` from the environment variable `variable`; nil when unset or malformed.
    private static func parse(_ variable: String) -> Target? {
        guard let spec = ProcessInfo.processInfo.environment[variable], !spec.isEmpty else { return nil }
        let parts = spec.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, let n = Int(parts[2]), n >= 1 else {
            Log.warning("ignoring \(variable)=\(spec): expected <scope>:<point>:<n>")
            return nil
        }
        return Target(scope: parts[0], point: parts[1], occurrence: n)
    }

    /// With `REGIONSEARCH_SIGNAL_AT=<scope>:<point>:<n>`, the n-th arrival at `point` sends this
    /// process SIGTERM, as a service manager stopping the job at that moment would (the signal
    /// tests). Without the variable a single load.
    public static func signalIfDue(_ point: String) {
        guard let signalTarget, signalTarget.point == point, signalTarget.scope == scope else { return }
        if arrival(at: point, in: signalCounts) == signalTarget.occurrence { kill(getpid(), SIGTERM) }
    }

    private static let traceFile: String? = {
        guard let path = ProcessInfo.processInfo.environment[traceVariable], !path.isEmpty else { return nil }
        return path
    }()

    /// Arrivals per point in this process.
    private static let counts = Mutex<[String: Int]>([:])

    /// Whether crash injection or tracing is configured at all (so callers can skip bookkeeping).
    static var isArmed: Bool { target != nil || traceFile != nil }

    /// The scope of this process: the stage name in `regionsearch-<stage>`, `run` in the driver.
    static var scope: String {
        let tool = Log.toolName
        if tool.hasPrefix("regionsearch-") { return String(tool.dropFirst("regionsearch-".count)) }
        return "run"
    }

    /// Counts one arrival at `point` in `counts` and returns its number (1-based).
    private static func arrival(at point: String, in counts: borrowing Mutex<[String: Int]>) -> Int {
        counts.withLock { counts in
            let n = (counts[point] ?? 0) + 1
            counts[point] = n
            return n
        }
    }

    /// Counts one arrival at `point` and reports whether this is the arrival to crash at.
    /// Callers that must do something first (write half a block) call ``crash()`` themselves.
    static func isDue(_ point: String) -> Bool {
        guard isArmed else { return false }
        let scope = self.scope
        if let target, target.point != point || target.scope != scope { return false }
        let n = arrival(at: point, in: counts)
        if let traceFile {
            // One short O_APPEND write per line, so lines of concurrent processes never interleave.
            let fd = open(traceFile, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
            if fd >= 0 {
                let line = "\(scope):\(point):\(n)\n"
                _ = line.withCString { write(fd, $0, strlen($0)) }
                close(fd)
            }
        }
        return n == target?.occurrence
    }

    /// Counts one arrival at `point` and crashes when it is the configured one.
    public static func reached(_ point: String) {
        if isDue(point) { crash() }
    }

    /// Kills the process group (and, should that fail, this process) with SIGKILL.
    public static func crash() -> Never {
        kill(0, SIGKILL)
        kill(getpid(), SIGKILL)
        // SIGKILL cannot be caught; this line is never reached.
        abort()
    }
}
