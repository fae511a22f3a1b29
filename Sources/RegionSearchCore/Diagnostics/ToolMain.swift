// `stdout` is a mutable C global as Swift imports it: only the exit path below reads it, on the
// main thread, after all work is done.
#if canImport(Glibc)
    @preconcurrency import Glibc
#elseif canImport(Darwin)
    @preconcurrency import Darwin
#endif

/// The common `main` of every executable: parse, handle `--help`, run, map errors to exit codes.
public enum ToolMain {
    /// Runs `body` and exits the process with the matching ``ExitStatus``.
    public static func run(
        _ spec: CommandSpec, arguments: [String] = Array(CommandLine.arguments.dropFirst()),
        _ body: (ParsedCommandLine) throws -> Void
    ) -> Never {
        prepareStandardStreams()
        Log.toolName = spec.name
        exit(execute(spec, arguments, body).rawValue)
    }

    /// Makes the standard streams safe to write whatever they are: closed descriptors held open
    /// (``occupyClosedStandardDescriptors()``), and SIGPIPE ignored, so a log or a result whose
    /// reader has gone (`regionsearch run … 2>&1 | head -1`, a log shipper that crashed) fails a
    /// write (the log is given up; a result, exit 6) instead of killing the night's run with
    /// SIGPIPE (exit 141, nothing published).
    public static func prepareStandardStreams() {
        occupyClosedStandardDescriptors()
        _ = signal(SIGPIPE, SIG_IGN)
    }

    /// Opens each standard descriptor the process was started without (`2>&-`, `>&-`) on
    /// `/dev/null`, read-only. Left closed, the next file opened takes its number: the work
    /// directory's lock received the log lines, or the regions an output `-` should have sent to
    /// standard output (then truncated, exit 0). Read-only, so a write to it fails and is reported
    /// (an output `-` ends with exit 6) instead of vanishing.
    static func occupyClosedStandardDescriptors() {
        for fd: Int32 in 0...2 where fcntl(fd, F_GETFD) == -1 && errno == EBADF {
            let opened = open("/dev/null", O_RDONLY | O_CLOEXEC)
            guard opened >= 0 else { continue }
            if opened != fd {
                dup2(opened, fd)
                close(opened)
            } else {
                // Child processes inherit their standard descriptors: not close-on-exec.
                _ = fcntl(fd, F_SETFD, 0)
            }
        }
    }

    /// Parses `arguments`, answers `--help`, applies `--quiet` and runs `body`; returns the exit
    /// status (for a command of a driver that goes on, or exits, itself).
    public static func execute(
        _ spec: CommandSpec, _ arguments: [String], _ body: (ParsedCommandLine) throws -> Void
    ) -> ExitStatus {
        let parsed: ParsedCommandLine
        do {
            parsed = try spec.parse(arguments)
        } catch {
            // The command line did not parse, but a `--log-format json` on it still holds: a
            // program reading JSON events gets the error as one.
            if Self.asksForJSON(arguments) { Log.format = .json }
            Log.error(error.message)
            if Log.format == .human { Log.write("Run '\(spec.name) --help' for usage.\n") }
            return .usage
        }
        if parsed.flag(.help) {
            print(spec.helpText, terminator: "")
            return flushed(.success)
        }
        if parsed.flag(.version) {
            // The program's version: `regionsearch run --version` names regionsearch, as --version does.
            let program = spec.name.split(separator: " ").first.map(String.init) ?? spec.name
            print("\(program) \(RegionSearchVersion.current)")
            return flushed(.success)
        }
        Log.configure(parsed)
        return execute(usage: spec.name) { try body(parsed) }
    }

    /// Whether `arguments` hold `--log-format json` (or `--log-format=json`), read without the
    /// rest of the command line.
    static func asksForJSON(_ arguments: [String]) -> Bool {
        zip(arguments, arguments.dropFirst()).contains { $0 == "--log-format" && $1 == Log.Format.json.rawValue }
            || arguments.contains("--log-format=" + Log.Format.json.rawValue)
    }

    /// Runs `body`, prints any error, and returns the exit status it maps to; a usage error
    /// points at `usage --help` (the command's own, `regionsearch run --help`, where given).
    public static func execute(usage: String? = nil, _ body: () throws -> Void) -> ExitStatus {
        do {
            try body()
            return flushed(.success)
        } catch let e as SilentExit {
            return flushed(e.exitStatus)
        } catch let e as UsageError {
            Log.error(e.message)
            if Log.format == .human { Log.write("Run '\(usage ?? Log.toolName) --help' for usage.\n") }
            return .usage
        } catch let e as ExitCoded {
            Log.error(e.description)
            return e.exitStatus
        } catch {
            Log.error("\(error)")
            return .failure
        }
    }

    /// `status` once everything printed has been flushed, or ``ExitStatus/output`` (with an error
    /// on standard error) when a command that succeeded could not write all of its standard
    /// output: `regionsearch diff A B > changes.json` on a full disk must not leave a short file
    /// behind an exit status of 0. Another status is kept: it says what went wrong first.
    public static func flushed(_ status: ExitStatus) -> ExitStatus {
        errno = 0
        let flushFailed = fflush(nil) != 0
        let reason = errno != 0 ? String(cString: strerror(errno)) : "write error"
        guard flushFailed || ferror(stdout) != 0 else { return status }
        guard status == .success else { return status }
        Log.error("standard output: cannot write: \(reason)\(FileErrorAdvice.suffix(forReason: reason))")
        return .output
    }
}
