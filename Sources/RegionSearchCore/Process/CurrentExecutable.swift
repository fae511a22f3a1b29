import Foundation

/// Where the running executable is: the stage executables and tools are installed beside it.
public enum CurrentExecutable {
    /// The absolute path of the running executable (`/proc/self/exe`, else `argv[0]` resolved
    /// against the current directory or `PATH`).
    public static var path: String {
        var buffer = [UInt8](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = buffer.withUnsafeMutableBufferPointer { b in
            b.baseAddress!.withMemoryRebound(to: CChar.self, capacity: b.count) {
                readlink("/proc/self/exe", $0, b.count - 1)
            }
        }
        if n > 0 { return String(decoding: buffer[0..<n], as: UTF8.self) }
        let argv0 = CommandLine.arguments.first ?? "regionsearch"
        if argv0.hasPrefix("/") { return argv0 }
        if argv0.contains("/") { return FileManager.default.currentDirectoryPath + "/" + argv0 }
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            if access("\(dir)/\(argv0)", X_OK) == 0 { return "\(dir)/\(argv0)" }
        }
        return argv0
    }

    /// The directory of the running executable.
    public static var directory: String { AtomicFile.directory(of: path) }
}
