import Foundation
import XCTest

@testable import RegionSearchCore
@testable import RegionSearchRunner
@testable import RegionSearchSynthetic
@testable import RegionSearchTestSupport

/// A small synthetic pipeline in a temporary directory, run with the built executables.
///
/// Layout: `DIR/data/city.csv` (3,000 POIs, four dense blobs of "cafe" over a city-like
/// background; id,name,category,lon,lat with a header), `DIR/pipelines/test.json`,
/// `DIR/work/` and `DIR/out/test.geojson`.
struct PipelineFixture {
    let root: String
    var manifestPath: String { root + "/pipelines/test.json" }
    var csvPath: String { root + "/data/city.csv" }
    var workPath: String { root + "/work" }
    var outputPath: String { root + "/out/test.geojson" }
    var work: WorkDirectory { WorkDirectory(path: workPath) }

    /// The directory holding `regionsearch` and the stage executables: next to the test bundle.
    static let toolDirectory: String = {
        var url = Bundle.main.bundleURL
        if url.pathExtension == "xctest" { url.deleteLastPathComponent() }
        var dir = url.path
        if !FileManager.default.isExecutableFile(atPath: dir + "/regionsearch") {
            // Some XCTest runners report the bundle's Contents directory or the test binary itself.
            for candidate in [
                Bundle(for: FixtureBundleToken.self).bundleURL.deletingLastPathComponent().path,
                URL(fileURLWithPath: CommandLine.arguments.first ?? "").deletingLastPathComponent().path,
            ] {
                if FileManager.default.isExecutableFile(atPath: candidate + "/regionsearch") {
                    dir = candidate
                    break
                }
            }
        }
        return dir
    }()

    static var regionsearch: String { toolDirectory + "/regionsearch" }

    /// The CSV every fixture uses, generated once per test process.
    static let csvBytes: Data = {
        var config = SyntheticCity.Config()
        config.n = 3_000
        config.clusters = 4
        config.keywords = ["cafe"]
        config.extentKm = 5
        config.seed = 7
        let dir = NSTemporaryDirectory() + "regionsearch-fixture-" + UUID().uuidString
        try! FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let city = try! SyntheticCity(config)
        try! city.writeCSV(to: dir + "/city.csv")
        let data = try! Data(contentsOf: URL(fileURLWithPath: dir + "/city.csv"))
        try? FileManager.default.removeItem(atPath: dir)
        return data
    }()

    /// Creates the directory with the CSV and a manifest (`sections` are stage sections).
    init(sections: [(String, JSONValue)] = [], name: String = #function) throws {
        root = NSTemporaryDirectory() + "regionsearch-e2e-" + UUID().uuidString
        for dir in ["data", "pipelines", "out"] {
            try FileManager.default.createDirectory(atPath: root + "/" + dir, withIntermediateDirectories: true)
        }
        try Self.csvBytes.write(to: URL(fileURLWithPath: csvPath))
        try writeManifest(sections: sections)
    }

    /// Rewrites the manifest with these stage sections (relative paths, as a user writes them).
    func writeManifest(sections: [(String, JSONValue)] = [], keywords: [String] = ["cafe"], input: JSONValue? = nil)
        throws
    {
        var members: [(String, JSONValue)] = [
            ("name", .string("test")),
            (
                "inputs",
                .array([input ?? .object([("path", .string("../data/city.csv")), ("format", .string("csv"))])])
            ),
            ("work_dir", .string("../work")),
            ("output", .string("../out/test.geojson")),
            ("keywords", .array(keywords.map { .string($0) })),
        ]
        members += sections
        try JSONValue.object(members).serialized(pretty: true).write(
            toFile: manifestPath, atomically: true, encoding: .utf8)
    }

    func manifest() throws -> Manifest { try Manifest.load(path: manifestPath) }

    /// Writes the generator's `scenario` (`regionsearch generate`: `n` POIs, `seed`, and further
    /// generator `options`) to `data/s.*` and points the manifest at its CSV with these keywords,
    /// maps off; returns the files' prefix (`DIR/data/s`: `.csv`, `.truth.geojson`, …). A generator
    /// failure is a test failure naming the scenario and seed.
    @discardableResult
    func useScenario(
        _ scenario: String, n: Int, seed: Int, keywords: [String], options: [String] = [],
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> String {
        let prefix = root + "/data/s"
        let generated = try tool(
            ["generate", "--scenario", scenario, "--n", "\(n)", "--seed", "\(seed)", "--out", prefix, "--quiet"]
                + options)
        XCTAssertEqual(
            generated.status, 0, "\(scenario) \(seed): generate: \(generated.output)", file: file, line: line)
        try writeManifest(
            sections: [("maps", .bool(false))], keywords: keywords,
            input: .object([("path", .string("../data/s.csv")), ("format", .string("csv"))]))
        return prefix
    }

    /// The result of running a tool.
    struct Result {
        var termination: ChildProcess.Termination
        /// stdout and stderr, interleaved.
        var output: String
        var status: Int32 {
            if case .exited(let code) = termination { return code }
            return -1
        }
    }

    /// Runs `regionsearch ARGS…` (or another tool) to completion.
    @discardableResult
    func tool(
        _ arguments: [String], executable: String = PipelineFixture.regionsearch, environment: [String: String]? = nil
    ) throws -> Result {
        let log = root + "/.log-" + UUID().uuidString
        defer { unlink(log) }
        let termination = try ChildProcess(
            executable: executable, arguments: arguments, environment: environment.map(Self.environment(adding:)),
            newProcessGroup: true, output: .file(log)
        ).wait()
        let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        return Result(termination: termination, output: output)
    }

    /// `regionsearch run MANIFEST OPTIONS…`.
    @discardableResult
    func run(_ options: [String] = [], environment: [String: String]? = nil) throws -> Result {
        try tool(["run", manifestPath] + options, environment: environment)
    }

    /// This process's environment plus `extra`.
    static func environment(adding extra: [String: String]) -> [String: String] {
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: CrashPoint.environmentVariable)
        for (k, v) in extra { env[k] = v }
        return env
    }

    /// The run.json of the latest run.
    func runState() throws -> RunState {
        guard let state = RunState.load(work) else {
            throw NSError(domain: "fixture", code: 1, userInfo: [NSLocalizedDescriptionKey: "no readable run.json"])
        }
        return state
    }

    /// Stage name → status in run.json.
    func statuses() throws -> [String: RunState.Status] {
        var out: [String: RunState.Status] = [:]
        for s in try runState().stages { out[s.stage] = s.status }
        return out
    }

    /// The stages that ran (in order) in the latest run.
    func ranStages() throws -> [String] {
        try runState().stages.filter { $0.status == .ran }.map { $0.stage }
    }

    /// Every file under `objects/` (relative path → bytes).
    func objectFiles() throws -> [String: Data] {
        var out: [String: Data] = [:]
        for dir in FileSystem.list(work.objects) {
            for file in FileSystem.list(work.objects + "/" + dir) {
                out[dir + "/" + file] = try Data(
                    contentsOf: URL(fileURLWithPath: work.objects + "/" + dir + "/" + file))
            }
        }
        return out
    }

    /// Path of the current output of `stage` (`file` inside its object directory), from run.json.
    func objectPath(_ stage: String, _ file: String) throws -> String {
        guard let key = try runState()[stage].key else { throw NSError(domain: "fixture", code: 2) }
        return work.objectDirectory(stage: stage, key: key) + "/" + file
    }

    /// Every `*.tmp-*` path under the fixture (leftovers of interrupted writes).
    func temporaries() -> [String] {
        var out: [String] = []
        func walk(_ dir: String) {
            for name in FileSystem.list(dir) {
                let path = dir + "/" + name
                if name.contains(AtomicFile.temporaryMarker) { out.append(path) }
                if FileSystem.isDirectory(path) { walk(path) }
            }
        }
        walk(root)
        return out
    }

    func output() throws -> Data { try Data(contentsOf: URL(fileURLWithPath: outputPath)) }

    /// A copy of the file at `path` (default the regions output) as `name` in the fixture's root:
    /// a published path is a link into its set, and copying the link would copy a relative link.
    /// Returns the copy's path.
    func copy(of path: String? = nil, as name: String) throws -> String {
        let copy = root + "/" + name
        try Data(contentsOf: URL(fileURLWithPath: path ?? outputPath)).write(to: URL(fileURLWithPath: copy))
        return copy
    }

    func remove() { try? FileManager.default.removeItem(atPath: root) }
}

/// Anchors `Bundle(for:)` to the test bundle.
private final class FixtureBundleToken {}
