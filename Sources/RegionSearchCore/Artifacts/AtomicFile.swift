import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes a file so that readers only ever see the previous complete version or the new
/// complete version: the bytes go to a temporary file in the same directory, are flushed with
/// `fsync`, and the temporary file is renamed over the target; the directory is then synced so
/// the rename survives a power cut (both syncs only when ``durable``). A crash leaves at most a
/// `*.tmp-*` file that no stage reads.
///
/// What is at the path decides how (``Target``): a symbolic link is written through — the file
/// it points to is replaced, the link stays — and a pipe, a character device or a standard
/// stream (`-`, `/dev/stdout`) is written in place, never replaced; a directory, block device
/// or socket is refused.
public final class AtomicFile {
    /// How a path is written.
    public enum Target: Equatable, Sendable {
        /// A regular file, or nothing yet, at this path (symbolic links resolved): written to a
        /// temporary file beside it and renamed over it.
        case replace(String)
        /// A pipe, a character device or a standard stream: written in place (the descriptor
        /// when it is one of this process's, e.g. 1 for `-` and `/dev/stdout`).
        case writeThrough(String, descriptor: Int32?)

        /// Classifies `path`; throws for what is never written (a directory, a block device, a
        /// socket, a symbolic link to nothing).
        public init(_ path: String) throws(ArtifactError) {
            if let fd = Self.standardDescriptor(path) {
                self = .writeThrough(path, descriptor: fd)
                return
            }
            var st = stat()
            guard lstat(path, &st) == 0 else {
                self = .replace(path)  // nothing there yet (or unreachable: creating it says why)
                return
            }
            var type = st.st_mode & S_IFMT
            var resolved = path
            if type == S_IFLNK {
                guard stat(path, &st) == 0 else {
                    let what = errno == ELOOP ? "a loop of symbolic links" : "a symbolic link to a missing file"
                    throw ArtifactError.writeFailed(
                        path: path, reason: "is \(what); not replaced (remove it or fix it)")
                }
                type = st.st_mode & S_IFMT
                if type == S_IFREG, let real = realpath(path, nil) {
                    resolved = String(cString: real)
                    free(real)
                }
            }
            switch type {
            case S_IFREG: self = .replace(resolved)
            case S_IFIFO, S_IFCHR: self = .writeThrough(path, descriptor: nil)
            case S_IFDIR:
                throw ArtifactError.writeFailed(path: path, reason: "is a directory; give a file name")
            case S_IFBLK:
                throw ArtifactError.writeFailed(path: path, reason: "is a block device; not written")
            default:
                throw ArtifactError.writeFailed(path: path, reason: "is not a file, pipe or character device")
            }
        }

        /// The path written (the resolved file for ``replace(_:)``).
        public var path: String {
            switch self {
            case .replace(let p), .writeThrough(let p, _): return p
            }
        }

        /// Whether the output is replaced by rename (else written in place).
        public var isReplaced: Bool {
            if case .replace = self { return true }
            return false
        }

        /// `-`, `/dev/stdout`, `/dev/stderr`, `/dev/fd/N` and `/proc/self/fd/N` name this
        /// process's descriptors: written to the descriptor itself (opening the path again
        /// would truncate a file the shell opened for appending).
        static func standardDescriptor(_ path: String) -> Int32? {
            switch path {
            case "-", "/dev/stdout": return 1
            case "/dev/stderr": return 2
            default:
                for prefix in ["/dev/fd/", "/proc/self/fd/"] where path.hasPrefix(prefix) {
                    return Int32(path.dropFirst(prefix.count))
                }
                return nil
            }
        }
    }

    public let path: String
    /// The file renamed over (`path` with a symbolic link resolved).
    let destination: String
    let temporaryPath: String
    /// Whether this writes in place (a pipe or device) instead of by rename.
    public let writesThrough: Bool
    private var fd: Int32
    private var buffer: [UInt8] = []
    private static let bufferLimit = 1 << 20
    private(set) var bytesWritten: Int = 0
    private var finished = false

    private static let syncing = Atomic<Bool>(true)

    /// Whether ``commit()`` makes the file durable (`fsync` of the file and of its directory);
    /// true by default. The stages that `regionsearch run` starts write without (`--no-sync`): a
    /// sync costs about as much as writing (30 ms for 80 MB here), and the runner checks every
    /// object's content hash before it relies on it, so a file a power cut left short or empty
    /// is found and rebuilt, never used. Files a user reads directly (the published GeoJSON and
    /// maps, a stage run by hand) stay durable. The rename is atomic either way.
    public static var durable: Bool {
        get { syncing.load(ordering: .relaxed) }
        set { syncing.store(newValue, ordering: .relaxed) }
    }

    /// The temporary-file marker; `regionsearch clean` and the runner remove leftovers with it.
    public static let temporaryMarker = ".tmp-"

    /// Overrides ``durable`` for this file (nil: the process-wide setting).
    let durable: Bool?

    /// Creates the temporary file beside `path` (beside the file a symbolic link points to), or
    /// opens a pipe or device for writing in place (see ``Target``); `durable` overrides the
    /// process-wide setting.
    public init(path: String, durable: Bool? = nil) throws {
        self.path = path
        self.durable = durable
        let target = try Target(path)
        if case .writeThrough(let p, let standard) = target {
            let descriptor = standard.map { dup($0) } ?? open(p, O_WRONLY | O_CLOEXEC)
            guard descriptor >= 0 else {
                throw ArtifactError.writeFailed(path: path, reason: String(cString: strerror(errno)))
            }
            fd = descriptor
            temporaryPath = ""
            destination = p
            writesThrough = true
            return
        }
        writesThrough = false
        let real = target.path
        destination = real
        let dir = AtomicFile.directory(of: real)
        let base = String(real.split(separator: "/", omittingEmptySubsequences: false).last ?? "")
        var tmp = ""
        var descriptor: Int32 = -1
        for attempt in 0..<16 {
            tmp =
                (dir == "." && !real.hasPrefix("./") ? "" : dir + "/") + "." + base + AtomicFile.temporaryMarker
                + String(getpid()) + "-" + String(attempt)
            descriptor = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            if descriptor >= 0 || errno != EEXIST { break }
        }
        guard descriptor >= 0 else {
            throw ArtifactError.writeFailed(path: path, reason: String(cString: strerror(errno)))
        }
        fd = descriptor
        temporaryPath = tmp
        buffer.reserveCapacity(AtomicFile.bufferLimit)
    }

    deinit {
        if !finished { discard() }
    }

    /// The last component of a path ("" for "/" or ""; a trailing slash ends no component).
    public static func baseName(of path: String) -> String {
        String(path.split(separator: "/", omittingEmptySubsequences: true).last ?? "")
    }

    /// The directory part of a path ("." when there is none).
    public static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let d = String(path[..<slash])
        return d.isEmpty ? "/" : d
    }

    /// Appends bytes (buffered).
    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        if bytes.count >= AtomicFile.bufferLimit {
            try flushBuffer()
            try writeAll(bytes)
            return
        }
        if buffer.count + bytes.count > AtomicFile.bufferLimit { try flushBuffer() }
        // Typed view: appending a raw buffer would copy byte by byte; this is one memcpy.
        buffer.append(
            contentsOf: UnsafeBufferPointer(
                start: bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), count: bytes.count))
    }

    public func write(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { (raw) throws in try write(raw) }
    }

    public func write(_ string: String) throws {
        var s = string
        try s.withUTF8 { (buf) throws in try write(UnsafeRawBufferPointer(buf)) }
    }

    /// Writes the buffered bytes to the temporary file, so that a full disk fails here rather
    /// than in ``commit()``: a command that replaces several files as one set writes and flushes
    /// them all before it commits any.
    public func flush() throws {
        try flushBuffer()
    }

    private func flushBuffer() throws {
        if buffer.isEmpty { return }
        try buffer.withUnsafeBytes { (raw) throws in try writeAll(raw) }
        buffer.removeAll(keepingCapacity: true)
    }

    private func writeAll(_ bytes: UnsafeRawBufferPointer) throws {
        var bytes = bytes
        var crashAfterWrite = false
        if CrashPoint.isArmed && CrashPoint.isDue("write") {
            // Crash test: leave a half-written temporary file behind.
            bytes = UnsafeRawBufferPointer(rebasing: bytes[0..<(bytes.count / 2)])
            crashAfterWrite = true
        }
        defer { if crashAfterWrite { CrashPoint.crash() } }
        var offset = 0
        while offset < bytes.count {
            #if canImport(Glibc)
                let n = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            #else
                let n = Darwin.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            #endif
            if n < 0 {
                if errno == EINTR { continue }
                throw ArtifactError.writeFailed(path: path, reason: String(cString: strerror(errno)))
            }
            offset += n
        }
        bytesWritten += bytes.count
    }

    /// Flushes, syncs and renames the temporary file over the target (a pipe or device: flushes).
    ///
    /// Every result counts: a failed `fsync` or `close` (a full disk or quota on NFS reports
    /// there, after every `write` succeeded) leaves the target as it was and throws.
    public func commit() throws {
        try flushBuffer()
        if writesThrough {
            let rc = close(fd)
            fd = -1
            finished = true
            if rc != 0 {
                throw ArtifactError.writeFailed(path: path, reason: "close: " + String(cString: strerror(errno)))
            }
            return
        }
        CrashPoint.reached("fsync")
        let durable = self.durable ?? AtomicFile.durable
        if durable && fsync(fd) != 0 {
            throw ArtifactError.writeFailed(path: path, reason: "fsync: " + String(cString: strerror(errno)))
        }
        if close(fd) != 0 {
            let reason = String(cString: strerror(errno))
            fd = -1
            unlink(temporaryPath)
            finished = true
            throw ArtifactError.writeFailed(path: path, reason: "close: " + reason)
        }
        fd = -1
        CrashPoint.reached("rename")
        if rename(temporaryPath, destination) != 0 {
            let reason = String(cString: strerror(errno))
            unlink(temporaryPath)
            finished = true
            throw ArtifactError.writeFailed(path: path, reason: "rename: " + reason)
        }
        finished = true
        CrashPoint.reached("renamed")
        if durable { try AtomicFile.syncDirectory(AtomicFile.directory(of: destination)) }
    }

    /// Removes the temporary file without touching the target.
    public func discard() {
        if fd >= 0 {
            close(fd)
            fd = -1
        }
        if !writesThrough { unlink(temporaryPath) }
        finished = true
    }

    /// Makes a completed rename durable: `fsync` of the directory. A file system that cannot
    /// sync a directory (EINVAL, ENOTSUP) has nothing to make durable there; any other failure
    /// (EIO) throws.
    public static func syncDirectory(_ dir: String) throws {
        let dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard dfd >= 0 else {
            throw ArtifactError.writeFailed(path: dir, reason: "open directory: " + String(cString: strerror(errno)))
        }
        defer { close(dfd) }
        if fsync(dfd) != 0 && errno != EINVAL && errno != ENOTSUP {
            throw ArtifactError.writeFailed(path: dir, reason: "fsync directory: " + String(cString: strerror(errno)))
        }
    }

    /// Writes a whole file atomically (`durable`: see ``durable``).
    public static func write(_ bytes: [UInt8], to path: String, durable: Bool? = nil) throws {
        let f = try AtomicFile(path: path, durable: durable)
        try f.write(bytes)
        try f.commit()
    }

    /// Writes a whole text file atomically.
    public static func write(_ text: String, to path: String, durable: Bool? = nil) throws {
        try write(Array(text.utf8), to: path, durable: durable)
    }
}
