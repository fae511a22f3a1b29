#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What to do about a failed file operation, from its reason (the `strerror` text the error
/// carries): a missing directory is not a full disk, and the advice says which it is.
public enum FileErrorAdvice {
    /// "; …" to append to a message whose reason is `reason`.
    public static func suffix(forReason reason: String) -> String {
        func text(_ code: Int32) -> String { String(cString: strerror(code)) }
        if reason.contains(text(ENOENT)) || reason.contains(text(ENOTDIR)) {
            return "; a directory on the way does not exist (or is a file): create it or give another path"
        }
        if reason.contains(text(ENOSPC)) || reason.contains(text(EDQUOT)) {
            return "; the file system is full: free disk space (or raise the quota) and run again"
        }
        if reason.contains(text(EACCES)) || reason.contains(text(EPERM)) || reason.contains(text(EROFS)) {
            return "; check the permissions (or whether the file system is read-only)"
        }
        if reason.contains(text(EIO)) {
            return "; the device reported an I/O error: check the disk"
        }
        return "; check free disk space and permissions"
    }
}
