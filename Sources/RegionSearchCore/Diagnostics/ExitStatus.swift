/// Process exit codes shared by every RegionSearch executable.
///
/// They are stable and documented in `--help` and the README so scripts and the runner can act on
/// them: a 3 means "fix the input", a 4 means "rerun the stage that produced this artifact".
public enum ExitStatus: Int32, CaseIterable, Sendable {
    /// Success.
    case success = 0
    /// The work failed for a reason not covered below (e.g. a PROJ or GEOS failure).
    case failure = 1
    /// Bad command line or manifest: unknown option or key, bad value, missing argument.
    case usage = 2
    /// Unusable input data: unreadable file, unknown format, no usable rows, too many rejects.
    case inputData = 3
    /// An input artifact is missing, truncated, corrupt, of the wrong kind or version.
    case artifact = 4
    /// Another run holds the lock on the work directory.
    case busy = 5
    /// An output could not be written (disk full, permissions).
    case output = 6
    /// A stage run by `regionsearch run` failed; its own message and code are printed above.
    case stageFailed = 7
    /// A bug: an internal invariant did not hold. Please report it with the command line.
    case internalError = 70

    /// One line per code for `--help` texts.
    public static var helpText: String {
        """
        Exit status:
          0  success
          1  processing failed (message says why)
          2  bad command line or manifest (unknown option/key, bad value)
          3  unusable input data (unreadable, unknown format, no usable rows, too many rejects)
          4  input artifact missing, truncated, corrupt or of the wrong kind: rerun the stage before
          5  the work directory is locked by another run
          6  an output could not be written (disk full, permissions)
          7  (regionsearch run) a stage failed; its message is printed above
          70 internal error (a bug; please report it)
        """
    }
}

/// An error that knows which exit status it maps to.
public protocol ExitCoded: Error, CustomStringConvertible {
    var exitStatus: ExitStatus { get }
}

extension ArtifactError: ExitCoded {
    public var exitStatus: ExitStatus {
        switch self {
        case .writeFailed: return .output
        default: return .artifact
        }
    }
}

/// A command-line usage error; printed with a pointer to `--help`.
public struct UsageError: ExitCoded {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
    public var exitStatus: ExitStatus { .usage }
}

/// A general failure with a message that says what to do next.
public struct ToolFailure: ExitCoded {
    public var message: String
    public var exitStatus: ExitStatus
    public init(_ message: String, status: ExitStatus = .failure) {
        self.message = message
        exitStatus = status
    }
    public var description: String { message }
}

/// An exit status that is an answer, not a failure (`status --check` exits 1 when not up to
/// date): ``ToolMain`` returns it without printing an error.
public struct SilentExit: ExitCoded {
    public var exitStatus: ExitStatus
    public init(_ status: ExitStatus) { exitStatus = status }
    public var description: String { "exit status \(exitStatus.rawValue)" }
}
