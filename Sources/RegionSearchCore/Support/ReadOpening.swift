import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Opening a file to read it when it may be a named pipe.
///
/// A plain `open` of a named pipe waits until some process opens it to write, for ever and
/// without a word when none does (`regionsearch diff fifo x` hung with no message). The pipe is
/// opened without waiting and given ``writerWait`` seconds for a writer to write (or to come and
/// go); then a warning says what the command waits for, and it waits on: a writer that is there
/// but slow (`(sleep 12; cat a.geojson) > fifo &`) is not refused. An unnamed pipe (`<(…)`),
/// whose writer is there from the start, reads as it comes.
public enum ReadOpening {
    /// Seconds a named pipe is given for a writer: 10, or what a test sets.
    public static var writerWait: Double {
        get { Double(waitMilliseconds.load(ordering: .relaxed)) / 1000 }
        set { waitMilliseconds.store(Int(newValue * 1000), ordering: .relaxed) }
    }
    private static let waitMilliseconds = Atomic<Int>(10_000)

    /// Why a file could not be opened.
    public enum Failure: Error {
        /// `open` failed with this `errno`.
        case system(Int32)

        /// The reason, for a message that names the path.
        public var reason: String {
            switch self {
            case .system(let code): return String(cString: strerror(code))
            }
        }
    }

    /// A descriptor open for reading, blocking, on `path` (close it when done).
    public static func descriptor(_ path: String) -> Result<Int32, Failure> {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return .failure(.system(errno)) }
        var st = stat()
        // Only a pipe with a name in a file system: an unnamed one (`<(…)`, a /dev/fd link to
        // `pipe:[…]`, which has no real path) has its writer already, who may take long to write.
        if fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFIFO, let real = realpath(path, nil) {
            free(real)
            // Ready once a writer has written or gone; until then (no writer yet) nothing is.
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&entry, 1, Int32(writerWait * 1000)) == 0 {
                Log.warning(
                    "\(path) is a named pipe no process has written to yet; waiting for its writer (start it, or "
                        + "stop this with Ctrl-C)")
                while poll(&entry, 1, -1) < 0 && errno == EINTR {}
            }
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        return .success(fd)
    }
}
