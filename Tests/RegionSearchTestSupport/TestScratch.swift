import Foundation

/// One folder per test process that every test's scratch files go in, removed when the process
/// exits.
///
/// Why: XCTest keeps each test case object alive until the process ends, so a scratch folder
/// removed in `deinit` never was, and `/tmp` is not emptied on a CI machine. Each run of the
/// suite left about 1 GB behind (the web map tests' million-POI run, 239 MB; 180 ingest scratch
/// folders) until the disk was full and the next build failed.
enum TestScratch {
    /// The process's folder, made on first use; `atexit` removes it (XCTest ends the process with
    /// `exit`, after every test).
    static let root: String = {
        let path = NSTemporaryDirectory() + "regionsearch-tests-\(getpid())-" + UUID().uuidString
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        atexit { TestScratch.removeRoot() }
        return path
    }()

    static func removeRoot() { try? FileManager.default.removeItem(atPath: root) }
}
