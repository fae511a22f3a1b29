#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The exclusive lock of a work directory: `flock` on `WORK/lock`, with the holder's pid and
/// start time written inside for the message another run prints.
///
/// The kernel drops an `flock` when its holder dies, however it dies, so a lock left by a killed
/// run is never in the way: the next run takes it and only finds the dead run's pid in the
/// file, which it reports as an interrupted run.
public final class WorkLock {
    public let path: String
    private var fd: Int32
    /// The pid found in the lock file when it was taken: a run that ended without releasing it.
    let interruptedHolder: Holder?

    /// What the lock file says about its holder.
    public struct Holder: Equatable, Sendable, CustomStringConvertible {
        public var pid: Int32
        public var started: String
        public var description: String { "pid \(pid)" + (started.isEmpty ? "" : ", started \(started)") }
    }

    private init(path: String, fd: Int32, interruptedHolder: Holder?) {
        self.path = path
        self.fd = fd
        self.interruptedHolder = interruptedHolder
    }

    deinit { release() }

    /// Takes the lock of `work`.
    ///
    /// - Parameters:
    ///   - wait: block until the holder finishes instead of failing.
    ///   - onWait: called once, with the holder, before blocking.
    /// - Throws: ``RunnerError/busy`` (exit status 5) when another run holds it and `wait` is false;
    ///   ``RunnerError/notAWorkDirectory(path:names:)`` or ``RunnerError/foreignFile(path:workDirectory:what:)``
    ///   (exit status 2) for a folder that is not the runner's to write in.
    static func acquire(_ work: WorkDirectory, wait: Bool, onWait: (Holder?) -> Void = { _ in }) throws(RunnerError)
        -> WorkLock
    {
        // The lock file is the first thing every run and clean writes into the folder: a folder
        // that is someone else's is refused before it.
        try work.checkOwnership()
        do {
            try FileSystem.createDirectories(work.path)
        } catch {
            throw RunnerError.fileSystem(error)
        }
        let path = work.lockFile
        // The lock file is truncated and written: never through a link to some other file.
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard fd >= 0 else {
            let reason =
                errno == ELOOP
                ? "is a symbolic link; the lock file is written, so it must be a plain file: remove the link"
                : String(cString: strerror(errno))
            throw RunnerError.fileSystem(.init(path: path, operation: "open lock file", reason: reason))
        }
        var st = stat()
        if fstat(fd, &st) != 0 || (st.st_mode & S_IFMT) != S_IFREG || st.st_nlink > 1 {
            close(fd)
            throw RunnerError.fileSystem(
                .init(
                    path: path, operation: "open lock file",
                    reason: "is not a plain file of its own (a hard link or a special file); remove it"))
        }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK else {
                let reason = String(cString: strerror(errno))
                close(fd)
                throw RunnerError.fileSystem(.init(path: path, operation: "lock", reason: reason))
            }
            let holder = readLiveHolder(fd)
            guard wait else {
                close(fd)
                throw RunnerError.busy(workDirectory: work.path, holder: holder)
            }
            onWait(holder)
            while flock(fd, LOCK_EX) != 0 {
                if errno == EINTR { continue }
                let reason = String(cString: strerror(errno))
                close(fd)
                throw RunnerError.fileSystem(.init(path: path, operation: "lock", reason: reason))
            }
        }
        // We hold the lock; anything still in the file is from a holder that died.
        let previous = readHolder(fd)
        let text = "pid \(getpid())\nstarted \(Timestamp.now())\n"
        _ = ftruncate(fd, 0)
        _ = text.withCString { pwrite(fd, $0, strlen($0), 0) }
        return WorkLock(path: path, fd: fd, interruptedHolder: previous)
    }

    /// Releases the lock (idempotent) and clears the pid, so the next run knows this one ended.
    public func release() {
        guard fd >= 0 else { return }
        _ = ftruncate(fd, 0)
        flock(fd, LOCK_UN)
        close(fd)
        fd = -1
    }

    /// Whether a run holds a work directory's lock.
    public enum State: Equatable {
        case free
        /// Held; the holder is nil when its pid is not (yet) written.
        case held(Holder?)
    }

    /// Whether a run holds `work`'s lock right now (a shared probe that never blocks).
    public static func state(of work: WorkDirectory) -> State {
        let fd = open(work.lockFile, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return .free }
        defer { close(fd) }
        if flock(fd, LOCK_SH | LOCK_NB) == 0 {
            flock(fd, LOCK_UN)
            return .free
        }
        return .held(readLiveHolder(fd))
    }

    /// The holder of a lock that is held: it writes its pid right after taking the lock, so an
    /// empty file or a dead pid (its predecessor's) only means we looked in between; look again.
    private static func readLiveHolder(_ fd: Int32) -> Holder? {
        for _ in 0..<100 {
            if let holder = readHolder(fd), kill(holder.pid, 0) == 0 || errno == EPERM { return holder }
            usleep(5_000)
        }
        return readHolder(fd)
    }

    private static func readHolder(_ fd: Int32) -> Holder? {
        var buffer = [UInt8](repeating: 0, count: 512)
        let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { return nil }
        var pid: Int32?
        var started = ""
        for line in String(decoding: buffer[0..<n], as: UTF8.self).split(separator: "\n") {
            if line.hasPrefix("pid ") { pid = Int32(line.dropFirst(4)) }
            if line.hasPrefix("started ") { started = String(line.dropFirst(8)) }
        }
        return pid.map { Holder(pid: $0, started: started) }
    }
}
