import Foundation
import RegionSearchCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A private copy of a GeoPackage or SQLite database together with its write-ahead log, which
/// ingest reads instead of the user's files.
///
/// A database in WAL mode that a writer has open (QGIS editing a GeoPackage) or left behind
/// (a killed script) keeps its latest commits in `<file>-wal`. GDAL reading such a file checkpoints
/// the log into the main file (GDAL 3.6 opens it for that even when asked to read), so the read
/// would write to an input and race its writer. The copy is read instead: SQLite rebuilds the
/// log's index in the copy's folder and reads the commits whose frames are whole, one consistent
/// state; the user's files are only read. The files' signatures are compared before and after
/// the copy, so a checkpoint by the writer in between (which rewrites the main file) is a changed
/// input rather than a torn copy. The folder is removed when the snapshot goes away.
final class DatabaseSnapshot {
    /// The copy of the main file, under the same name as the original (the content hash names
    /// each file by its base name, so the copy hashes as the original does).
    let path: String
    private let directory: String

    /// Copies `path` and its log `log` into a new private folder under the temporary directory
    /// (`TMPDIR`).
    ///
    /// - Parameter stamps: the originals' signatures taken before their hash; a file that no
    ///   longer has its signature after the copy throws ``InputError/changedWhileRead(path:)``.
    init(copying path: String, log: String, stamps: [(path: String, stamp: FileSignature?)]) throws {
        var template = Array((NSTemporaryDirectory() + "/regionsearch-snapshot-XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw InputError.cannotOpen(
                path: path,
                reason:
                    "it has a write-ahead log (\(Self.baseName(log))), read from a copy, and no folder for the "
                    + "copy could be made in \(NSTemporaryDirectory()): \(String(cString: strerror(errno))); set TMPDIR "
                    + "to a writable folder")
        }
        directory = String(cString: made)
        let name = Self.baseName(path)
        self.path = directory + "/" + name
        if let failure = Self.copy(path, to: self.path) ?? Self.copy(log, to: self.path + "-wal") {
            Self.remove(directory)
            throw InputError.cannotOpen(
                path: path,
                reason:
                    "it has a write-ahead log (\(Self.baseName(log))), read from a copy in "
                    + "\(NSTemporaryDirectory()), and the copy failed: \(failure); free space there or set "
                    + "TMPDIR to a folder with room for the database")
        }
        for (file, stamp) in stamps where OpenedInput.stamp(of: file) != stamp {
            Self.remove(directory)
            throw InputError.changedWhileRead(path: file)
        }
    }

    deinit { Self.remove(directory) }

    private static func baseName(_ path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: true).last.map(String.init) ?? path
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
