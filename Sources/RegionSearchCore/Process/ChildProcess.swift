#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin

    /// The address of `environ`, which Darwin's headers do not declare for a program to use
    /// (environ(7): `_NSGetEnviron()` in <crt_externs.h>), declared here as the Swift runtime's own
    /// tests declare it.
    @_silgen_name("_NSGetEnviron")
    private func darwinEnviron() -> UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>
#endif

/// A child process started with `posix_spawn`: the stage executables the runner starts, the
/// processes the benchmark measures, and the `regionsearch` runs the end-to-end tests start (in
/// their own process group, so that a test can kill a whole run the way a crash would).
///
/// The one process spawner of the package: children start with default signal handling (but
/// for the signals this process was started ignoring, ``SignalForwarding/ignoredAtStart``, which
/// stay ignored) and an empty signal mask, and are reaped with `wait4`, so their resource usage is
/// theirs alone.
public final class ChildProcess {
    /// Why a child could not be started.
    public struct SpawnError: ExitCoded {
        public var executable: String
        public var reason: String
        public var description: String { "cannot start \(executable): \(reason)" }
        public var exitStatus: ExitStatus { .failure }
    }

    /// What a finished child used, from `wait4`.
    public struct Usage: Sendable {
        /// Seconds from spawn to reap.
        public var wall: Double
        /// User plus system CPU seconds (all threads, and reaped grandchildren).
        public var cpu: Double
        /// `ru_maxrss` in bytes (see `MeasuredProcess` for why a benchmark may prefer GNU time's).
        /// Linux gives it in KiB, macOS in bytes (``maxRSSUnit``).
        public var peakRSS: Int
    }

    /// How a child ended.
    public enum Termination: Equatable, CustomStringConvertible, Sendable {
        case exited(Int32)
        case signaled(Int32)

        public var description: String {
            switch self {
            case .exited(let code): return "exit status \(code)"
            case .signaled(let signal):
                let name = [
                    SIGKILL: "SIGKILL", SIGTERM: "SIGTERM", SIGINT: "SIGINT", SIGSEGV: "SIGSEGV",
                    SIGABRT: "SIGABRT", SIGBUS: "SIGBUS", SIGILL: "SIGILL", SIGTRAP: "SIGTRAP",
                ][signal]
                return "killed by signal \(signal)\(name.map { " (\($0))" } ?? "")"
            }
        }

        public var succeeded: Bool { self == .exited(0) }
    }

    /// Where the child's standard output and error go.
    public enum Output {
        /// Shared with this process.
        case inherit
        /// Both into this file (created or truncated).
        case file(String)
        /// Standard output and standard error into their own files (created or truncated), and
        /// standard input from /dev/null.
        case files(stdout: String, stderr: String)
        /// Through a pipe that ``wait()`` copies to this process's stderr as it arrives, keeping
        /// the last `tail` bytes for ``tail``.
        case tee(tail: Int)
    }

    public let pid: pid_t
    public let executable: String
    private var pipeFD: Int32 = -1
    private let tailLimit: Int
    /// The last bytes the child wrote, with `.tee` output.
    public private(set) var tail: [UInt8] = []
    public private(set) var termination: Termination?
    /// Resource usage, once ``wait()`` has reaped the child.
    public private(set) var usage: Usage?
    private let started = monotonicSeconds()

    /// Starts `executable` with `arguments` (argv[0] is the executable path).
    ///
    /// - Parameters:
    ///   - environment: the complete environment; nil inherits this process's.
    ///   - newProcessGroup: make the child the leader of a new process group.
    public init(
        executable: String, arguments: [String], environment: [String: String]? = nil,
        newProcessGroup: Bool = false, output: Output = .inherit
    ) throws(SpawnError) {
        self.executable = executable
        // Darwin declares both as opaque pointers (imported as optionals), glibc as structs.
        #if canImport(Darwin)
            var actions: posix_spawn_file_actions_t? = nil
            var attributes: posix_spawnattr_t? = nil
        #else
            var actions = posix_spawn_file_actions_t()
            var attributes = posix_spawnattr_t()
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }

        // Children start with default signal handling and an empty mask, whatever ours are,
        // except the signals this process was started ignoring (`nohup`).
        var flags = Int32(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)
        if newProcessGroup {
            flags |= Int32(POSIX_SPAWN_SETPGROUP)
            posix_spawnattr_setpgroup(&attributes, 0)
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        // Signals this process was started ignoring stay ignored in the child (``SignalForwarding``).
        let ignored = SignalForwarding.ignoredAtStart
        for s in [SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT] where !ignored.contains(s) { sigaddset(&defaults, s) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)

        var readEnd: Int32 = -1
        switch output {
        case .inherit:
            tailLimit = 0
        case .file(let path):
            tailLimit = 0
            posix_spawn_file_actions_addopen(&actions, 1, path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        case .files(let stdout, let stderr):
            tailLimit = 0
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        case .tee(let limit):
            tailLimit = limit
            var fds: [Int32] = [-1, -1]
            guard pipe(&fds) == 0 else {
                throw SpawnError(executable: executable, reason: "pipe: " + String(cString: strerror(errno)))
            }
            // Neither end may leak into other children; dup2 in the child clears the flag.
            _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
            _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
            readEnd = fds[0]
            posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
            posix_spawn_file_actions_adddup2(&actions, fds[1], 2)
            pipeFD = fds[1]
        }

        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        var envStrings: [UnsafeMutablePointer<CChar>?]? = nil
        if let environment {
            envStrings = environment.keys.sorted().map { strdup("\($0)=\(environment[$0]!)") } + [nil]
        }
        defer { for p in envStrings ?? [] { free(p) } }

        var child: pid_t = 0
        let rc: Int32
        if var envStrings {
            rc = posix_spawn(&child, executable, &actions, &attributes, argv, &envStrings)
        } else {
            #if canImport(Darwin)
                rc = posix_spawn(&child, executable, &actions, &attributes, argv, darwinEnviron().pointee)
            #else
                rc = posix_spawn(&child, executable, &actions, &attributes, argv, environ)
            #endif
        }
        if pipeFD >= 0 {
            close(pipeFD)
            pipeFD = readEnd
        }
        guard rc == 0 else {
            if pipeFD >= 0 { close(pipeFD) }
            throw SpawnError(executable: executable, reason: String(cString: strerror(rc)))
        }
        pid = child
    }

    deinit {
        if pipeFD >= 0 { close(pipeFD) }
    }

    /// Waits for the child to end (copying `.tee` output meanwhile) and returns how it ended.
    @discardableResult
    public func wait() -> Termination {
        if let termination { return termination }
        if pipeFD >= 0 {
            var chunk = [UInt8](repeating: 0, count: 1 << 14)
            while true {
                let n = chunk.withUnsafeMutableBytes { read(pipeFD, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                chunk.withUnsafeBytes { raw in
                    var done = 0
                    while done < n {
                        let w = write(2, raw.baseAddress! + done, n - done)
                        if w < 0 && errno == EINTR { continue }
                        if w <= 0 { break }
                        done += w
                    }
                }
                tail.append(contentsOf: chunk[0..<n])
                if tail.count > tailLimit { tail.removeFirst(tail.count - tailLimit) }
            }
            close(pipeFD)
            pipeFD = -1
        }
        var status: Int32 = 0
        var resources = rusage()
        while wait4(pid, &status, 0, &resources) < 0 {
            if errno != EINTR {
                // Not our child any more (already reaped): report it as failed.
                termination = .exited(-1)
                return termination!
            }
        }
        let result: Termination
        if status & 0x7F == 0 {
            result = .exited((status >> 8) & 0xFF)
        } else {
            result = .signaled(status & 0x7F)
        }
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) * 1e-6 }
        usage = Usage(
            wall: monotonicSeconds() - started, cpu: seconds(resources.ru_utime) + seconds(resources.ru_stime),
            peakRSS: Int(resources.ru_maxrss) * maxRSSUnit)
        termination = result
        return result
    }

    /// Sends `signal` to the child, or to its whole process group.
    public func kill(_ signal: Int32, group: Bool = false) {
        #if canImport(Glibc)
            _ = Glibc.kill(group ? -pid : pid, signal)
        #else
            _ = Darwin.kill(group ? -pid : pid, signal)
        #endif
    }

    /// The lines of the `.tee` tail that carry an error (`…: error: …`), or its last line.
    public var errorLines: [String] {
        let lines = String(decoding: tail, as: UTF8.self).split(separator: "\n").map(String.init)
        let errors = lines.filter { $0.contains(": error: ") || $0.hasPrefix("error: ") }
        if !errors.isEmpty { return Array(errors.suffix(5)) }
        return lines.suffix(1).map { $0 }
    }

    /// Runs to completion and returns how it ended (a convenience for tests and tools).
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil, output: Output = .inherit
    ) throws(SpawnError) -> Termination {
        try ChildProcess(executable: executable, arguments: arguments, environment: environment, output: output).wait()
    }
}
