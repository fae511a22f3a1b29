#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What `stat` says about a file: device, inode, size and the modification and status-change
/// times (nanoseconds). Any write, truncation or replacement of the file changes it — a write
/// sets the status-change time to the kernel's current (coarse) clock, which no user can set
/// back — so a file whose signature is unchanged since it was hashed still has that hash, unless
/// the write fell into the same clock tick as the signature was taken. ``isSettled(at:)``
/// excludes that case: the runner only trusts a signature whose times lie strictly before the
/// tick in which the file was read to its end (git's "racy" index entries, handled the same way).
public struct FileSignature: Equatable, Sendable {
    public var device: UInt64
    public var inode: UInt64
    public var size: Int64
    /// Modification time, nanoseconds since the epoch (a user can set it: `touch`, `cp -p`).
    public var modified: Int64
    /// Status-change time, nanoseconds since the epoch (set by the kernel on every change).
    public var changed: Int64

    public init(device: UInt64, inode: UInt64, size: Int64, modified: Int64, changed: Int64) {
        self.device = device
        self.inode = inode
        self.size = size
        self.modified = modified
        self.changed = changed
    }

    public init(_ st: stat) {
        #if canImport(Darwin)
            let (m, c) = (st.st_mtimespec, st.st_ctimespec)
        #else
            let (m, c) = (st.st_mtim, st.st_ctim)
        #endif
        // dev_t is signed on Darwin (network volumes give negative ones), unsigned on Linux.
        device = UInt64(truncatingIfNeeded: st.st_dev)
        inode = UInt64(st.st_ino)
        size = Int64(st.st_size)
        modified = Int64(m.tv_sec) * 1_000_000_000 + Int64(m.tv_nsec)
        changed = Int64(c.tv_sec) * 1_000_000_000 + Int64(c.tv_nsec)
    }

    /// The signature as the JSON members a state file remembers it by: `device`, `inode`, `size`,
    /// `modified_ns`, `changed_ns`, integers as strings (device numbers and nanosecond times
    /// exceed what a JSON number, a double, holds exactly).
    public var jsonMembers: [(String, JSONValue)] {
        [
            ("device", .string(String(device))), ("inode", .string(String(inode))), ("size", .string(String(size))),
            ("modified_ns", .string(String(modified))), ("changed_ns", .string(String(changed))),
        ]
    }

    /// The signature in `json`'s members (``jsonMembers``); nil when one is missing or not an
    /// integer.
    public init?(json: JSONValue) {
        guard let device = json["device"]?.stringValue.flatMap({ UInt64($0) }),
            let inode = json["inode"]?.stringValue.flatMap({ UInt64($0) }),
            let size = json["size"]?.stringValue.flatMap({ Int64($0) }),
            let modified = json["modified_ns"]?.stringValue.flatMap({ Int64($0) }),
            let changed = json["changed_ns"]?.stringValue.flatMap({ Int64($0) })
        else { return nil }
        self.init(device: device, inode: inode, size: size, modified: modified, changed: changed)
    }

    /// The signature of the file at `path` now, following links; nil when it cannot be read.
    public static func current(path: String) -> FileSignature? {
        var st = stat()
        return stat(path, &st) == 0 ? FileSignature(st) : nil
    }
}
