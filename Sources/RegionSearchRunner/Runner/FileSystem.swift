import RegionSearchCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The few file-system operations the runner needs, on plain POSIX calls so that errors carry
/// `strerror` text and nothing is cached behind the runner's back.
public enum FileSystem {
    /// Why a file-system operation failed.
    public struct Failure: Error, CustomStringConvertible {
        public var path: String
        /// What was attempted (`write`, `rename`, …).
        public var operation: String
        public var reason: String
        public var description: String { "\(path): cannot \(operation): \(reason)" }

        public init(path: String, operation: String, reason: String) {
            self.path = path
            self.operation = operation
            self.reason = reason
        }
    }

    private static func failure(_ path: String, _ operation: String) -> Failure {
        Failure(path: path, operation: operation, reason: String(cString: strerror(errno)))
    }

    public static func exists(_ path: String) -> Bool {
        var st = stat()
        return lstat(path, &st) == 0
    }

    /// Whether `path`, links followed, names something (a link to nothing does not).
    public static func targetExists(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0
    }

    public static func isDirectory(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
    }

    public static func isExecutable(_ path: String) -> Bool {
        access(path, X_OK) == 0 && !isDirectory(path)
    }

    /// Creates a directory and its missing parents.
    public static func createDirectories(_ path: String) throws(Failure) {
        if isDirectory(path) { return }
        let parent = AtomicFile.directory(of: path)
        if parent != path && parent != "." && parent != "/" { try createDirectories(parent) }
        if mkdir(path, 0o755) != 0 {
            // Kept at once: the `stat` of `isDirectory` below may set errno again.
            let code = errno
            if code == EEXIST && isDirectory(path) { return }
            // Something that is no folder stands at the name: said as what it is (strerror's
            // "File exists" reads like a full disk's or a permission's failure).
            if code == EEXIST {
                throw Failure(path: path, operation: "create directory", reason: FileErrorAdvice.notAFolder)
            }
            throw Failure(path: path, operation: "create directory", reason: String(cString: strerror(code)))
        }
    }

    /// The names in a directory (no `.` and `..`), sorted bytewise; empty when it does not exist.
    public static func list(_ path: String) -> [String] { DirectoryListing.names(path) }

    /// Removes a file or a directory tree; a path that does not exist is not an error.
    static func removeTree(_ path: String) throws(Failure) {
        var st = stat()
        guard lstat(path, &st) == 0 else {
            if errno == ENOENT { return }
            throw failure(path, "inspect")
        }
        if (st.st_mode & S_IFMT) == S_IFDIR {
            for name in list(path) { try removeTree(path + "/" + name) }
            if rmdir(path) != 0 && errno != ENOENT { throw failure(path, "remove directory") }
        } else if unlink(path) != 0 && errno != ENOENT {
            throw failure(path, "remove")
        }
    }

    /// Renames `from` to `to` (same file system; replaces a file or an empty directory).
    public static func rename(_ from: String, to: String) throws(Failure) {
        #if canImport(Glibc)
            let result = Glibc.rename(from, to)
        #else
            let result = Darwin.rename(from, to)
        #endif
        if result != 0 { throw failure(from, "rename to \(to)") }
    }

    /// Reads a whole file.
    public static func read(_ path: String) throws(Failure) -> [UInt8] {
        do {
            return try Manifest.readFile(path)
        } catch {
            throw Failure(path: path, operation: "read", reason: error.reason)
        }
    }
}
