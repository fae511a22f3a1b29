import RegionSearchCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What identifies a file and changes with its content: device, inode, size and modification
/// time. An input is hashed first and parsed afterwards, both by its path, so ingest takes its
/// files' stamps before the hash and compares them once every record is read: a file written,
/// truncated, grown or replaced in between would otherwise give POIs that match neither the
/// recorded hash nor any one state of the file.
struct FileStamp: Equatable, Sendable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    /// Nanoseconds since the epoch.
    var modified: Int64

    /// The stamp of the file at `path` (links followed); nil when it cannot be read.
    static func of(_ path: String) -> FileStamp? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        #if canImport(Darwin)
            let time = st.st_mtimespec
        #else
            let time = st.st_mtim
        #endif
        return FileStamp(
            // dev_t is signed on Darwin (network volumes give negative ones), unsigned on Linux.
            device: UInt64(truncatingIfNeeded: st.st_dev), inode: UInt64(st.st_ino), size: Int64(st.st_size),
            modified: Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec))
    }
}
