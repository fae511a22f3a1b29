#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Directory listings on plain POSIX calls, in one order everywhere (bytewise), so that whatever
/// is derived from a listing — a folder input's content hash, what a cleanup removes — does not
/// depend on the file system's order.
public enum DirectoryListing {
    /// The names in a directory (no `.` and `..`), sorted bytewise; empty when it cannot be read.
    public static func names(_ path: String) -> [String] {
        guard let dir = opendir(path) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.baseAddress!.assumingMemoryBound(to: CChar.self))
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    /// The regular files (symbolic links followed) directly in a directory, sorted bytewise.
    public static func regularFiles(_ path: String) -> [String] {
        names(path).filter { name in
            var st = stat()
            return stat(path + "/" + name, &st) == 0 && (st.st_mode & S_IFMT) == S_IFREG
        }
    }
}
