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
    public static func of(path: String) throws(Failure) -> FileDigest {
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
        var hasher = ContentHasher()
        var size = 0
        while true {
            let n = read(fd, buffer.baseAddress, chunk)
            if n < 0 {
                if errno == EINTR { continue }
                throw Failure(path: path, reason: String(cString: strerror(errno)), isMissing: false)
            }
            if n == 0 { break }
            hasher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
            size += n
        }
        return FileDigest(hash: hasher.finalize(), size: size)
    }

    /// The record form: `{"hash": "…", "size": N}` members.
    var jsonMembers: [(String, JSONValue)] {
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
