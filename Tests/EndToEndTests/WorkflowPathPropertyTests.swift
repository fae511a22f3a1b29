import Foundation
import XCTest

@testable import RegionSearchCore
@testable import RegionSearchRunner
@testable import RegionSearchTiles

/// Issue 21, findings 1–3: the plan writers against hostile paths. Random plan directories,
/// manifests, inputs and executable directories — quotes, `\`, CR, LF, `$( )`, backticks, braces,
/// `;`, spaces, `\x27` as text, non-ASCII — are either refused with a clear error, or written so
/// that `snakemake -n` and `bash -n` run nothing, and the jobs themselves (Snakemake's prepare
/// rule, the sbatch scripts run by bash) call `regionsearch` with exactly the plan's paths.
///
/// A fake `regionsearch` in the random executable directory records its arguments; a `$(touch
/// MARKER)` or backtick in any path would create MARKER if any file let a shell or Python read
/// it as code. Snakemake comes from scripts/workflow-env (skipped without root, which may have to
/// install it).
final class WorkflowPathPropertyTests: XCTestCase {

    /// Pieces random names are made of: shell and Python syntax, braces, non-ASCII …
    static let hostile = [
        "'", "\"", "\\", "\\x27", "$(touch MARKER)", "`touch MARKER`", "{x}", "}", "{", ";touch MARKER;", " ",
        "a b", "$HOME", "*", "?", "#", "%", "!", "&", "|", "<", ">", "é", "美食", "🙂", "'\"'\"'", "\\n", "--x",
        "-", "\\'", "\"\"\"", "#{", "%(x)s",
    ]
    /// … control characters (every one must be refused) …
    static let controls = ["\r", "\n", "\t", "\u{1B}[2J", "\u{85}", "\u{2028}", "\r\nimport os#"]
    /// … and plain text.
    static let plain = ["a", "b", "data", "wf", "x1", "_", ".", "..x", "Ü"]

    func snakemake() throws -> String? { try WorkflowEnvironment.snakemake() }

    func testRandomPathsAreRefusedOrReachTheJobsExactly() throws {
        let snakemake = try snakemake()
        var random = SeededRandom(seed: 21)
        func name() -> String {
            var s = ""
            for k in 0..<(2 + random.below(4)) {
                let r = random.below(16)
                let pool = r == 0 ? Self.controls : k == 0 || r < 9 ? Self.hostile : Self.plain
                s += pool[random.below(pool.count)]
            }
            // A component may not be empty, "." or "..", nor hold "/" (none of the pieces does).
            return s.replacingOccurrences(of: "/", with: "_")
        }
        var refused = 0
        var written = 0
        for round in 0..<14 {
            let root = NSTemporaryDirectory() + "rs-wf-\(getpid())-\(round)"
            try? FileManager.default.removeItem(atPath: root)
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: root) }
            let marker = root + "/MARKER"
            // Paths relative to root hold MARKER relative to the current directory of whatever
            // would run them: make that root too.
            func component() -> String { name().replacingOccurrences(of: "MARKER", with: marker) }
            // Normalised, as the planner's paths are (PathResolver).
            func hostilePath(_ base: String) -> String { PathResolver.normalize(base + "/" + component()) }
            let tools = hostilePath(root)
            let directory = hostilePath(hostilePath(root))
            let manifestDir = hostilePath(root)
            let manifest = hostilePath(manifestDir) + ".json"
            let inputs = (0..<(1 + random.below(2))).map { _ in hostilePath(manifestDir) + ".csv" }
            for dir in [tools, manifestDir] {
                try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            }
            for file in [manifest] + inputs {
                try FileManager.default.createDirectory(
                    atPath: AtomicFile.directory(of: file), withIntermediateDirectories: true)
                XCTAssertTrue(FileManager.default.createFile(atPath: file, contents: Data("x".utf8)))
            }
            let calls = root + "/calls"
            self.calls = calls
            try fakeTool(at: tools + "/regionsearch")

            for engine in WorkflowWriter.Engine.allCases {
                let defaults = TilePlanner.Request(manifest: manifest, tiles: 2, directory: directory, engine: engine)
                let plan = TilePlan(
                    manifest: manifest, directory: directory, toolDirectory: tools, tiles: 2,
                    haloCells: defaults.haloCells, pointsPerCell: defaults.pointsPerCell,
                    estimate: TileEstimate(points: 1000, source: "given", keywords: 1, tiles: 2, reach: 38),
                    partition: defaults.partition, inputs: [manifest] + inputs)
                let all = [manifest, directory, tools] + inputs
                let control = all.first { $0.unicodeScalars.contains(where: WorkflowWriter.forbidden) }
                let brace = ([manifest] + inputs).first { $0.contains("{") || $0.contains("}") }
                do {
                    try plan.write()
                    try WorkflowWriter.write(plan, engine: engine)
                } catch let refusal as WorkflowWriter.Refusal {
                    refused += 1
                    if let control {
                        XCTAssertTrue(refusal.description.contains("control character"), refusal.description)
                        XCTAssertTrue(refusal.description.contains(PrintableText.of(control, limit: 300)))
                    } else {
                        XCTAssertEqual(engine, .snakefile, "refused: \(refusal)")
                        XCTAssertNotNil(brace, "refused without a brace: \(refusal)")
                        XCTAssertTrue(refusal.description.contains("brace"), refusal.description)
                    }
                    // Nothing in a refusal can act on a terminal.
                    XCTAssertFalse(refusal.description.unicodeScalars.contains { $0 == "\r" || $0 == "\u{1B}" })
                    continue
                } catch {
                    // Creating a directory with a hostile name may fail for other reasons (a name
                    // over 255 bytes); that is the file system's refusal, not the writer's.
                    XCTAssertNotNil(control, "\(error)")
                    continue
                }
                XCTAssertNil(control, "a path with a control character was written: \(PrintableText.of(control ?? ""))")
                if engine == .snakefile { XCTAssertNil(brace) }
                written += 1
                try? FileManager.default.removeItem(atPath: calls)
                let expected = [tools + "/regionsearch", "tile", "prepare", "--plan", directory + "/plan.json"]
                switch engine {
                case .snakefile:
                    guard let snakemake else { continue }
                    let snakefile = directory + "/Snakefile"
                    let dry = try runLogged(snakemake, ["-s", snakefile, "-n", "--quiet", "rules"], in: root)
                    XCTAssertTrue(dry.ok, "snakemake -n: \(dry.text)")
                    // Snakemake's start updates the inputs' content key, with the plan's exact
                    // paths; -n runs no job.
                    let inputs = [tools + "/regionsearch", "tile", "inputs", "--plan", directory + "/plan.json"]
                    XCTAssertEqual(try recorded(calls), [inputs], "snakemake -n ran a job")
                    try? FileManager.default.removeItem(atPath: calls)
                    let run = try runLogged(snakemake, ["-s", snakefile, "--cores", "1", "prepare"], in: root)
                    XCTAssertTrue(run.ok, "snakemake prepare: \(run.text)")
                    XCTAssertEqual(try recorded(calls).map { Array($0.prefix(5)) }, [inputs, expected])
                    XCTAssertTrue(FileManager.default.fileExists(atPath: directory + "/logs/prepare.log"))
                case .sbatch:
                    for script in ["submit.sh"] + TileEstimate.steps.map({ "sbatch/\($0).sbatch" }) {
                        let check = try runLogged("/bin/bash", ["-n", directory + "/" + script], in: root)
                        XCTAssertTrue(check.ok, "bash -n \(script): \(check.text)")
                    }
                    XCTAssertFalse(FileManager.default.fileExists(atPath: calls))
                    let prepare = try runLogged("/bin/bash", [directory + "/sbatch/prepare.sbatch"], in: root)
                    XCTAssertTrue(prepare.ok, prepare.text)
                    let graph = try runLogged(
                        "/bin/bash", [directory + "/sbatch/graph.sbatch"], in: root,
                        environment: ["SLURM_ARRAY_TASK_ID": "1"])
                    XCTAssertTrue(graph.ok, graph.text)
                    let got = try recorded(calls)
                    XCTAssertEqual(got.first.map { Array($0.prefix(5)) }, expected)
                    XCTAssertEqual(
                        got.dropFirst().first.map { Array($0.prefix(7)) },
                        [tools + "/regionsearch", "tile", "graph", "--plan", directory + "/plan.json", "--tile", "1"])
                }
                XCTAssertFalse(FileManager.default.fileExists(atPath: marker), "a path ran as code (\(engine))")
            }
            XCTAssertFalse(FileManager.default.fileExists(atPath: marker))
        }
        // Both outcomes happen with this seed (16 refused, 12 written): the property is exercised
        // both ways.
        XCTAssertGreaterThan(refused, 4)
        XCTAssertGreaterThan(written, 4)
    }

    /// A `regionsearch` that appends its arguments (NUL-separated, one call per record) to
    /// `calls`, and writes the inputs' key and the prepare step's marker where Snakemake expects
    /// them.
    func fakeTool(at path: String) throws {
        let script = """
            #!/bin/bash
            printf '%s\\0' "$0" "$@" >> "$RS_CALLS"
            printf '\\n' >> "$RS_CALLS"
            if [ "$2" = inputs ]; then mkdir -p state && : > state/inputs.json; fi
            if [ "$2" = prepare ] && [ -d state ]; then : > state/prepared.json; fi
            echo "fake regionsearch $2" >&2

            """
        try script.write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o755)
    }

    /// Where the fake tool records its calls (passed to it as RS_CALLS).
    var calls = ""

    /// The calls recorded by the fake tool, each as its argv.
    func recorded(_ calls: String) throws -> [[String]] {
        let data = (try? Data(contentsOf: URL(fileURLWithPath: calls))) ?? Data()
        var out: [[String]] = []
        var current: [String] = []
        var field: [UInt8] = []
        var afterNUL = false
        for b in data {
            if b == 0 {
                current.append(String(decoding: field, as: UTF8.self))
                field = []
                afterNUL = true
            } else if b == 0x0A && afterNUL && field.isEmpty {
                out.append(current)
                current = []
            } else {
                field.append(b)
                afterNUL = false
            }
        }
        return out
    }

    /// Runs a program in `directory` (through bash's `cd`), returning whether it succeeded and
    /// its output.
    func runLogged(
        _ executable: String, _ arguments: [String], in directory: String, environment: [String: String] = [:]
    )
        throws -> (ok: Bool, text: String)
    {
        let log = directory + "/.run-log"
        defer { unlink(log) }
        var env = ProcessInfo.processInfo.environment
        env["RS_CALLS"] = calls
        for (k, v) in environment { env[k] = v }
        let t = try ChildProcess(
            executable: "/bin/bash",
            arguments: ["-c", "cd \"$1\" && shift && exec \"$@\"", "bash", directory, executable]
                + arguments, environment: env, output: .file(log)
        ).wait()
        return (
            t.succeeded,
            String(PrintableText.message((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").suffix(3000))
        )
    }
}
