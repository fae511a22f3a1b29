import RegionSearchCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The content hash and size of a file: what a run record stores for every input and output,
/// and what the runner compares to decide that a file is unchanged (never timestamps).
public struct FileDigest: Equatable, Sendable, CustomStringConvertible {
    public var hash: ContentHash
    public var size: Int

    public init(hash: ContentHash, size: Int) {
        self.hash = hash
        self.size = size
    }

    public var description: String { "\(hash) (\(groupedCount(size)) bytes)" }

    /// Why a file could not be hashed.
    public struct Failure: Error, CustomStringConvertible {
        public var path: String
        public var reason: String
        /// Whether the file does not exist (as opposed to being unreadable).
        public var isMissing: Bool
        public var description: String { "\(path): \(reason)" }
    }

    /// Hashes a file's whole content with ``ContentHasher``. Only regular files: `/dev/zero`
    /// never ends, a FIFO cannot be read twice (once to hash, once by the stage) and opening one
    /// blocks until a writer comes, so it is opened non-blocking and refused.
    public static func of(path: String) throws(Failure) -> FileDigest { try hashed(path: path).digest }

    /// Hashes a file like ``of(path:)`` and also returns its ``FileSignature`` when the hash is
    /// known to describe every later state of the file with that signature (see
    /// ``FileSignature``); nil when the file changed while it was read or too recently to tell.
    public static func hashed(path: String) throws(Failure) -> (digest: FileDigest, signature: FileSignature?) {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else {
            let e = errno
            throw Failure(path: path, reason: String(cString: strerror(e)), isMissing: e == ENOENT)
        }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            throw Failure(path: path, reason: String(cString: strerror(errno)), isMissing: false)
        }
        switch st.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: throw Failure(path: path, reason: "is a directory, expected a file", isMissing: false)
        default:
            throw Failure(
                path: path,
                reason:
                    "is not a regular file (a device, FIFO or socket); give a file, e.g. save a stream to disk first",
                isMissing: false)
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        #if os(Linux)
            _ = posix_fadvise(fd, 0, 0, Int32(POSIX_FADV_SEQUENTIAL))
        #endif
        let chunk = 4 << 20
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 64)
        defer { buffer.deallocate() }
        let before = FileSignature(st)
        var hasher = ContentHasher()
        var size = 0
        while true {
            let n = read(fd, buffer.baseAddress, chunk)
            if n < 0 {
                if errno == EINTR { continue }
                throw Failure(path: path, reason: String(cString: strerror(errno)), isMissing: false)
            }
            if n == 0 { break }
            hasher.updateLanesInParallel(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
            size += n
        }
        let digest = FileDigest(hash: hasher.finalize(), size: size)
        var after = stat()
        guard fstat(fd, &after) == 0, FileSignature(after) == before, before.isSettled(at: FileSignature.now())
        else { return (digest, nil) }
        return (digest, before)
    }

    /// The record form: `{"hash": "…", "size": N}` members.
    public var jsonMembers: [(String, JSONValue)] {
        [("hash", .string(hash.description)), ("size", .number(Double(size)))]
    }

    /// Reads the record form; nil when the members are missing or malformed.
    public init?(json: JSONValue) {
        guard let text = json["hash"]?.stringValue, let h = ContentHash(hex: text), let s = json["size"]?.intValue
        else { return nil }
        hash = h
        size = s
    }
}

extension FileSignature {
    /// The kernel's coarse wall clock (the clock file times come from), nanoseconds. macOS has no
    /// coarse clock; its file times come from the wall clock.
    static func now() -> Int64 {
        var ts = timespec()
        #if os(Linux)
            clock_gettime(CLOCK_REALTIME_COARSE, &ts)
        #else
            clock_gettime(CLOCK_REALTIME, &ts)
        #endif
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }

    /// Whether both file times are strictly before the clock tick `now`: a later write would then
    /// give a later status-change time.
    func isSettled(at now: Int64) -> Bool { modified < now && changed < now }
}

/// The content digests of the files hashed during one `regionsearch run`, by file identity, so
/// that each file is read once per run: after a stage ran, its inputs are checked by `stat`
/// against the signature they had when they were hashed, and only rehashed when it differs (or
/// was not settled). An edited, truncated or replaced file always has another signature.
final class DigestCache {
    private var known: [String: (FileSignature, FileDigest)] = [:]
    /// Files hashed, and bytes read, by this cache (for the tests and the summary).
    private(set) var hashedFiles = 0
    private(set) var hashedBytes = 0

    private static func identity(_ s: FileSignature) -> String { "\(s.device):\(s.inode)" }

    /// Hashes the file and remembers its digest under its signature. An artifact (`artifact`)
    /// is identified by ``ArtifactFile/identity(path:verifyingColumns:)`` instead — a few
    /// kilobytes read — and with `verifyingColumns` its columns are checked against their
    /// checksums too.
    func digest(path: String, artifact: Bool = false, verifyingColumns: Bool = true) throws(FileDigest.Failure)
        -> FileDigest
    {
        if artifact {
            let signature = FileSignature.current(path: path)
            let digest = try FileDigest.ofArtifact(path: path, verifyingColumns: verifyingColumns)
            if verifyingColumns {
                hashedFiles += 1
                hashedBytes += digest.size
            }
            if let signature, signature.isSettled(at: FileSignature.now()) {
                known[Self.identity(signature)] = (signature, digest)
            }
            return digest
        }
        let (digest, signature) = try FileDigest.hashed(path: path)
        hashedFiles += 1
        hashedBytes += digest.size
        if let signature { known[Self.identity(signature)] = (signature, digest) }
        return digest
    }

    /// The file's digest now: the remembered one when its signature is the one it had when it
    /// was hashed, else hashed again.
    func current(path: String) throws(FileDigest.Failure) -> FileDigest {
        if let now = FileSignature.current(path: path), let (signature, known) = known[Self.identity(now)],
            signature == now
        {
            return known
        }
        return try digest(path: path)
    }

    /// Whether the file still has `digest`: true without reading it when its signature is the one
    /// it had when it was hashed with that digest; otherwise it is hashed (an artifact: its
    /// identity taken) again. An artifact's columns are not rehashed here: every stage checks
    /// each column it reads against its checksum, so content altered behind an unchanged identity
    /// stops the stage that reads it rather than passing into a result.
    func hasDigest(path: String, _ digest: FileDigest, artifact: Bool = false) -> Bool {
        if let now = FileSignature.current(path: path), let (signature, known) = known[Self.identity(now)],
            signature == now, known == digest
        {
            return true
        }
        return (try? self.digest(path: path, artifact: artifact, verifyingColumns: false)) == digest
    }
}

extension FileDigest {
    /// An artifact's recorded digest: its identity (see ``ArtifactFile/identity``) and size.
    static func ofArtifact(path: String, verifyingColumns: Bool) throws(Failure) -> FileDigest {
        do {
            let (hash, size) = try ArtifactFile.identity(path: path, verifyingColumns: verifyingColumns)
            return FileDigest(hash: hash, size: size)
        } catch {
            var st = stat()
            let missing = stat(path, &st) != 0 && errno == ENOENT
            throw Failure(
                path: path, reason: missing ? "No such file or directory" : error.description, isMissing: missing)
        }
    }
}
