#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What a path names on disk: its device and inode, after symbolic links. Two paths with the
/// same identity are one file, however they are spelt (a symbolic or hard link, `..`, a bind
/// mount of the same device).
public struct FileIdentity: Hashable, Sendable {
    public var device: UInt64
    public var inode: UInt64
    /// Whether it is a regular file (not a device such as `/dev/null`, a pipe or a directory:
    /// two outputs may both go to `/dev/null`).
    public var isRegularFile: Bool

    /// The identity of an existing path; nil when it cannot be `stat`ed.
    public init?(path: String) {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        // dev_t is signed on Darwin (network volumes give negative ones, which UInt64(_:) would
        // trap on), unsigned on Linux: as FileSignature reads it.
        device = UInt64(truncatingIfNeeded: st.st_dev)
        inode = UInt64(st.st_ino)
        isRegularFile = (st.st_mode & S_IFMT) == S_IFREG
    }

    /// The first pair of `paths` (indices, earlier first) that name the same existing file; nil
    /// when all differ. Paths that do not exist are skipped.
    ///
    /// - Parameter reads: what is read of each path (a layer, an SQL statement, a filter), when
    ///   given: one file read two ways (two layers of a GeoPackage) is no repeat.
    public static func firstRepeat(_ paths: [String], reads: [String]? = nil) -> (first: Int, repeated: Int)? {
        struct Read: Hashable {
            var file: FileIdentity
            var what: String
        }
        var seen: [Read: Int] = [:]
        for (i, path) in paths.enumerated() {
            guard let id = FileIdentity(path: path) else { continue }
            let read = Read(file: id, what: reads?[i] ?? "")
            if let j = seen[read] { return (j, i) }
            seen[read] = i
        }
        return nil
    }
}
