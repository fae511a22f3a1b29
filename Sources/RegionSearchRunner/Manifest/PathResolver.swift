import Foundation
import RegionSearchCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Turns the relative paths of a manifest into absolute ones, independent of the current
/// directory: they are relative to the manifest file's directory.
public enum PathResolver {
    /// The current working directory.
    public static func currentDirectory() -> String {
        FileManager.default.currentDirectoryPath
    }

    /// The directory that holds `file`, absolute and with symbolic links resolved, so that
    /// `..` in the manifest means what the file system means by it.
    public static func directory(ofFile file: String) -> String {
        let dir = AtomicFile.directory(of: absolute(file, relativeTo: currentDirectory()))
        if let real = realpath(dir, nil) {
            defer { free(real) }
            return String(cString: real)
        }
        return dir
    }

    /// `path` made absolute against `base` (an absolute directory), with `.`, `..` and repeated
    /// slashes removed.
    public static func absolute(_ path: String, relativeTo base: String) -> String {
        normalize(path.hasPrefix("/") ? path : base + "/" + path)
    }

    /// Removes `.` and empty components and resolves `..` lexically in an absolute path.
    public static func normalize(_ path: String) -> String {
        var parts: [Substring] = []
        for part in path.split(separator: "/", omittingEmptySubsequences: true) {
            if part == "." { continue }
            if part == ".." {
                if !parts.isEmpty { parts.removeLast() }
                continue
            }
            parts.append(part)
        }
        return "/" + parts.joined(separator: "/")
    }

    /// `realpath` of `path`, or of its deepest existing ancestor with the rest appended: what a
    /// path that may not exist yet will be, whatever links spell it (`/tmp/link/work` for
    /// `/tmp/real/work` when `link` points to `real`). Two spellings of one place give the same
    /// answer, so folders can be compared before they are made.
    public static func resolvingLinks(_ path: String) -> String {
        var head = normalize(path)
        var tail: [String] = []
        while true {
            if let real = realpath(head, nil) {
                defer { free(real) }
                let base = String(cString: real)
                return normalize(([base] + tail.reversed()).joined(separator: "/"))
            }
            guard head != "/" else { return normalize(path) }
            tail.append(AtomicFile.baseName(of: head))
            head = AtomicFile.directory(of: head)
        }
    }
}
