import Foundation
import RegionSearchCore

/// One measured run of a child process: started with `posix_spawn`, reaped with `wait4`, so the
/// wall time covers process start to exit and the resource usage is that child's alone.
///
/// Peak RSS: Linux carries the spawning process's own high-water mark into a child started with
/// vfork semantics (glibc's `posix_spawn`), so `ru_maxrss` from our own `wait4` is never below the
/// benchmark's own peak. When GNU time is installed (`/usr/bin/time`), the child is therefore
/// started through it: time forks from its own small address space, so its `%M` is the child's
/// true peak. Without it, `ru_maxrss` is used and the floor (``MeasuredProcess/rssFloor()``) is
/// reported next to the numbers. Wall and CPU time always come from our `posix_spawn`/`wait4`
/// (CPU includes the grandchild that time reaps).
public struct MeasuredProcess {
    /// What a finished child used.
    public struct Usage: Sendable {
        /// Seconds from spawn to reap.
        public var wall: Double
        /// User plus system CPU seconds (all threads).
        public var cpu: Double
        /// Peak resident set size in bytes.
        public var peakRSS: Int
        /// Exit status, or 128 + signal number when the child was killed.
        public var status: Int32
    }

    /// Why a child could not be run.
    public struct SpawnError: ExitCoded {
        public var message: String
        public var description: String { message }
        public var exitStatus: ExitStatus { .failure }
    }

    /// Runs `executable` with `arguments`, stdout to `stdoutPath` (or /dev/null) and stderr to
    /// `stderrPath`, and waits for it.
    /// `environment`: the child's complete environment (nil: this process's).
    public static func run(
        _ executable: String, _ arguments: [String], stdoutPath: String = "/dev/null",
        stderrPath: String, environment: [String: String]? = nil
    ) throws(SpawnError) -> Usage {
        guard let time = gnuTime else {
            return try spawn(
                executable, arguments, stdoutPath: stdoutPath, stderrPath: stderrPath, environment: environment)
        }
        let rssFile = stderrPath == "/dev/null" ? "/dev/null" : stderrPath + ".maxrss"
        var usage = try spawn(
            time, ["-f", "%M", "-o", rssFile, "--", executable] + arguments, stdoutPath: stdoutPath,
            stderrPath: stderrPath, environment: environment)
        // GNU time exits with the child's status (or 128 + signal); %M is in KiB.
        if let text = try? String(contentsOfFile: rssFile, encoding: .utf8),
            let kib = text.split(separator: "\n").last(where: { Int($0) != nil }).flatMap({ Int($0) })
        {
            usage.peakRSS = kib * 1024
        }
        return usage
    }

    /// GNU time, when installed (it accepts -f and -o).
    static let gnuTime: String? = {
        let path = "/usr/bin/time"
        guard access(path, X_OK) == 0 else { return nil }
        guard
            let probe = try? spawn(path, ["-f", "%M", "-o", "/dev/null", "--", "/bin/true"], stderrPath: "/dev/null"),
            probe.status == 0
        else { return nil }
        return path
    }()

    /// How peak RSS is measured, for the report.
    static var rssMethod: String {
        gnuTime != nil
            ? "GNU time's %M (maximum resident set size of the stage process; /usr/bin/time forks it from its own "
                + "small address space)"
            : "ru_maxrss from wait4 (never below the benchmark's own footprint at spawn time, see the floor)"
    }

    static func spawn(
        _ executable: String, _ arguments: [String], stdoutPath: String = "/dev/null",
        stderrPath: String, environment: [String: String]? = nil
    ) throws(SpawnError) -> Usage {
        let child: ChildProcess
        do {
            child = try ChildProcess(
                executable: executable, arguments: arguments, environment: environment,
                output: .files(stdout: stdoutPath, stderr: stderrPath))
        } catch {
            throw SpawnError(message: error.description)
        }
        let code: Int32
        switch child.wait() {
        case .exited(let status): code = status
        case .signaled(let signal): code = 128 + signal
        }
        let usage = child.usage!
        return Usage(wall: usage.wall, cpu: usage.cpu, peakRSS: usage.peakRSS, status: code)
    }

    /// The smallest peak RSS a spawned child can report: that of `/bin/true` started the same way.
    public static func rssFloor() -> Int {
        let probe = NSTemporaryDirectory() + "/regionsearch-bench-floor-\(getpid())"
        defer {
            unlink(probe + ".maxrss")
            unlink(probe)
        }
        return (try? run("/bin/true", [], stderrPath: probe).peakRSS) ?? 0
    }
}
