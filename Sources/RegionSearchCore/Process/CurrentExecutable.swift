import Foundation

/// Where the running executable is: the stage executables and tools are installed beside it.
public enum CurrentExecutable {
    /// The absolute path of the running executable (`/proc/self/exe`; on macOS, which has no
    /// `/proc`, the loader's path of it with links resolved; else `argv[0]` resolved against the
    /// current directory or `PATH`).
    public static var path: String {
        #if canImport(Darwin)
            // A link to the executable (a Homebrew-style bin/ link) resolved, as /proc/self/exe is:
            // the tools are installed beside the file, not beside the link.
            if let executable = Bundle.main.executablePath, let real = realpath(executable, nil) {
                defer { free(real) }
                return String(cString: real)
            }
        #else
            var buffer = [UInt8](repeating: 0, count: Int(PATH_MAX) + 1)
            let n = buffer.withUnsafeMutableBufferPointer { b in
                b.baseAddress!.withMemoryRebound(to: CChar.self, capacity: b.count) {
                    readlink("/proc/self/exe", $0, b.count - 1)
                }
            }
            if n > 0 { return String(decoding: buffer[0..<n], as: UTF8.self) }
        #endif
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
