#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What to do about a failed file operation, from its reason (the `strerror` text the error
/// carries): a missing directory is not a full disk, and the advice says which it is.
public enum FileErrorAdvice {
    /// The reason a folder cannot be made where something that is no folder stands (its own
    /// advice included: `strerror`'s "File exists" reads like any other failure).
    public static let notAFolder =
        "a file (or a link to one) stands at that name, where a folder is needed; move it away or choose another path"

    /// "; …" to append to a message whose reason is `reason` (nothing when it says what to do).
    public static func suffix(forReason reason: String) -> String {
        if reason.contains(notAFolder) { return "" }
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
        if reason.contains(text(EISDIR)) {
            return "; a folder stands at that name: give a file path (or move the folder away)"
        }
        if reason.contains(text(EPIPE)) {
            return "; the reader at the other end (a pipe, `| head`) closed it before everything was written"
        }
        return "; check free disk space and permissions"
    }
}
