import Foundation
import RegionSearchCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A private copy of an SQLite database (a GeoPackage, a SpatiaLite file) together with its
/// write-ahead log, read instead of the user's files.
///
/// A database in WAL mode that a writer has open (QGIS editing a GeoPackage) or left behind
/// (a killed script) keeps its latest commits in `<file>-wal`. GDAL reading such a file folds the
/// log into the main file and removes it (GDAL 3.6 does so even when asked only to read), so the
/// read would write to the user's file and race its writer; where it cannot write (a read-only
/// folder), it reads the main file without the log's commits. The copy is read instead: SQLite
/// rebuilds the log's index in the copy's folder and reads the commits whose frames are whole,
/// one consistent state; the user's files are only read. The files' signatures are compared
/// before and after the copy, so a checkpoint by the writer in between (which rewrites the main
/// file) is a changed input rather than a torn copy.
///
/// The folder, `regionsearch-snapshot-<pid>@<host>-XXXXXX` in the temporary directory (`TMPDIR`),
/// is removed when the snapshot goes away; one that a killed process left is removed by the next
/// snapshot made on that machine in that directory once no process of its number runs.
public final class DatabaseSnapshot {
    /// Why a snapshot could not be made.
    public enum Failure: Error, CustomStringConvertible {
        /// No folder for the copy, or the copy failed (a full disk): the reason says which.
        case cannotCopy(path: String, reason: String)
        /// A file of the database changed between its signature and the end of the copy.
        case changed(path: String)

        public var description: String {
            switch self {
            case .cannotCopy(let path, _), .changed(let path): return "\(path): \(reason)"
            }
        }

        /// What went wrong, without the path.
        public var reason: String {
            switch self {
            case .cannotCopy(_, let reason): return reason
            case .changed:
                return "the file changed while it was copied (a writer committed or checkpointed); run again"
            }
        }
    }

    /// The copy of the main file, under the same name as the original (a content hash names
    /// each file by its base name, so the copy hashes as the original does).
    public let path: String
    private let directory: String

    /// The first bytes of every SQLite 3 database file.
    static let header = Array("SQLite format 3\u{0}".utf8)

    /// Whether the file at `path` is an SQLite database (by its first 16 bytes, not its name: a
    /// GeoPackage can be called `pois.db` or have no extension at all).
    public static func isSQLite(_ path: String) -> Bool {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return false }
        var bytes = [UInt8](repeating: 0, count: header.count)
        return read(fd, &bytes, bytes.count) == bytes.count && bytes == header
    }

    /// The write-ahead log SQLite keeps for the database at `path`, whether or not it exists:
    /// `<file>-wal` beside the file the path resolves to (SQLite follows symbolic links to name
    /// its log); nil when the file is not an SQLite database.
    public static func writeAheadLog(of path: String) -> String? {
        guard isSQLite(path) else { return nil }
        guard let resolved = realpath(path, nil) else { return path + "-wal" }
        defer { free(resolved) }
        return String(cString: resolved) + "-wal"
    }

    /// The log of the database at `path` when it holds something: GDAL reads it with the main
    /// file. An empty one (SQLite makes one for every reader of a WAL-mode file) holds nothing.
    public static func committedLog(of path: String) -> String? {
        guard let log = writeAheadLog(of: path) else { return nil }
        var st = stat()
        return stat(log, &st) == 0 && (st.st_mode & S_IFMT) == S_IFREG && st.st_size > 0 ? log : nil
    }

    /// A snapshot of the database at `path` when it has a log with commits in it; nil otherwise
    /// (read the file itself: nothing is written to it then).
    public static func ifLogged(_ path: String) throws(Failure) -> DatabaseSnapshot? {
        guard let log = committedLog(of: path) else { return nil }
        let stamps = [path, log].map { ($0, FileSignature.current(path: $0)) }
        return try DatabaseSnapshot(copying: path, log: log, stamps: stamps)
    }

    /// Copies `path` and its log `log` into a new private folder under the temporary directory.
    ///
    /// - Parameter stamps: the originals' signatures taken before they were hashed; a file that
    ///   no longer has its signature after the copy throws ``Failure/changed(path:)``.
    public init(copying path: String, log: String, stamps: [(path: String, stamp: FileSignature?)]) throws(Failure) {
        let parent = NSTemporaryDirectory()
        Self.removeAbandoned(in: parent)
        var template = Array((parent + "/" + Self.prefix + "\(getpid())@\(Self.host)-XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw .cannotCopy(
                path: path,
                reason:
                    "it has a write-ahead log (\(AtomicFile.baseName(of: log))) with commits in it, read from a copy, and no "
                    + "folder for the copy could be made in \(parent): \(String(cString: strerror(errno))); set TMPDIR "
                    + "to a writable folder")
        }
        directory = String(cString: made)
        self.path = directory + "/" + AtomicFile.baseName(of: path)
        if let failure = Self.copy(path, to: self.path) ?? Self.copy(log, to: self.path + "-wal") {
            Self.remove(directory)
            throw .cannotCopy(
                path: path,
                reason:
                    "it has a write-ahead log (\(AtomicFile.baseName(of: log))) with commits in it, read from a copy in \(parent), "
                    + "and the copy failed: \(failure); free space there or set TMPDIR to a folder with room for "
                    + "the database")
        }
        for (file, stamp) in stamps where Self.signature(of: file) != stamp.flatMap(Self.counted) {
            Self.remove(directory)
            throw .changed(path: file)
        }
    }

    deinit { remove() }

    /// Removes the copy now (again: nothing). A process ends without running deinitialisers, so
    /// a command that exits after reading calls this when it has read (ingest does).
    public func remove() {
        Self.remove(directory)
    }

    static let prefix = "regionsearch-snapshot-"

    /// This machine's name (with `/` and `@`, which a folder name cannot hold unambiguously, as `_`).
    static let host: String = {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "localhost" }
        let name = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }.map {
            $0 == "/" || $0 == "@" ? "_" : $0
        }
        return name.isEmpty ? "localhost" : String(name)
    }()

    /// A file's signature as a change check counts it: none for a missing file, and for an
    /// empty write-ahead log (one a reader made, holding nothing).
    public static func signature(of path: String) -> FileSignature? {
        FileSignature.current(path: path).flatMap(counted)
    }

    static func counted(_ signature: FileSignature) -> FileSignature? { signature.size == 0 ? nil : signature }

    /// Removes the snapshot folders in `parent` whose process no longer runs (killed before it
    /// could remove its own).
    static func removeAbandoned(in parent: String) {
        for name in DirectoryListing.names(parent) where name.hasPrefix(prefix) {
            // `<pid>@<host>-XXXXXX`: only this machine's (a TMPDIR shared between hosts or
            // containers holds others' live snapshots under process numbers that mean nothing here).
            let rest = name.dropFirst(prefix.count)
            guard let at = rest.firstIndex(of: "@"), let pid = pid_t(rest[..<at]), pid > 0, pid != getpid(),
                let dash = rest.lastIndex(of: "-"), dash > at, rest[rest.index(after: at)..<dash] == host
            else { continue }
            if kill(pid, 0) == 0 || errno == EPERM { continue }
            remove(parent + "/" + name)
        }
    }

    /// Copies the bytes of `source` to a new file `target` (mode 0600), checking every read and
    /// write: a full disk is a failure, not a short copy. Returns what failed, nil on success.
    private static func copy(_ source: String, to target: String) -> String? {
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { return "\(source): \(String(cString: strerror(errno)))" }
        defer { close(input) }
        let output = open(target, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard output >= 0 else { return "\(target): \(String(cString: strerror(errno)))" }
        let chunk = 1 << 20
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: chunk, alignment: 16)
        defer { buffer.deallocate() }
        func failure(_ file: String) -> String {
            let reason = "\(file): \(String(cString: strerror(errno)))"
            close(output)
            return reason
        }
        while true {
            let n = read(input, buffer, chunk)
            if n < 0 {
                if errno == EINTR { continue }
                return failure(source)
            }
            if n == 0 { break }
            var written = 0
            while written < n {
                let w = write(output, buffer + written, n - written)
                if w < 0 {
                    if errno == EINTR { continue }
                    return failure(target)
                }
                written += w
            }
        }
        return close(output) == 0 ? nil : "\(target): \(String(cString: strerror(errno)))"
    }

    private static func remove(_ directory: String) {
        for name in DirectoryListing.names(directory) { unlink(directory + "/" + name) }
        rmdir(directory)
    }
}
