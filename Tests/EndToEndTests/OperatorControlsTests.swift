import Foundation
import XCTest

@testable import RegionSearchCore
@testable import RegionSearchRunner
@testable import RegionSearchStages

/// The controls a nightly job needs: --version everywhere, status --check and its JSON,
/// run --dry-run, --set, --input, --strict and --log-format json.
final class OperatorControlsTests: XCTestCase {
    func testEveryExecutableHasVersion() throws {
        let f = try PipelineFixture()
        defer { f.remove() }
        let names =
            ["regionsearch", "regionsearch-evaluate", "regionsearch-generate", "regionsearch-bench"]
            + Pipeline.stages.map(\.executable)
        for name in names {
            let r = try f.tool(["--version"], executable: PipelineFixture.toolDirectory + "/" + name)
            XCTAssertEqual(r.status, 0, name + ": " + r.output)
            XCTAssertEqual(r.output, "\(name) \(RegionSearchVersion.current)\n", name)
        }
        XCTAssertEqual(try f.tool(["run", "--version"]).output, "regionsearch \(RegionSearchVersion.current)\n")
    }

    /// `regionsearch-bench --work bw` (and its default `bench-work`, also relative) ran every user
    /// path case with paths relative to the current folder in a manifest, which resolves them
    /// against its own: exit 1, "cannot read …/bw/user/…/bw/inputs/…".
    func testTheBenchmarkTakesARelativeWorkFolder() throws {
        let f = try PipelineFixture()
        defer { f.remove() }
        let bench = PipelineFixture.toolDirectory + "/regionsearch-bench"
        let r = try f.tool(
            ["-c", "cd \"$0\" && exec \"$1\" --sizes 2000 --work bw --parts user --user-repeats 1", f.root, bench],
            executable: "/bin/sh")
        XCTAssertEqual(r.status, 0, r.output)
        let report = try JSONParser.parse(String(contentsOfFile: f.root + "/bw/benchmark.json", encoding: .utf8))
        XCTAssertNotNil(report.objectValue, r.output)
        XCTAssertTrue(FileManager.default.fileExists(atPath: f.root + "/bw/user"), r.output)
    }

    /// `regionsearch diff` on a named pipe no process has written to waited in the open for ever,
    /// with no word: after 10 s it says what it waits for, and reads the pipe when it is written.
    func testDiffOnANamedPipeSaysItWaitsForItsWriter() throws {
        let f = try PipelineFixture()
        defer { f.remove() }
        XCTAssertEqual(try f.run().status, 0)
        let fifo = f.root + "/tonight.geojson"
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let log = f.root + "/diff.log"
        let diff = try ChildProcess(
            executable: PipelineFixture.regionsearch,
            arguments: ["diff", f.outputPath, fifo, "--json", f.root + "/d.json"],
            output: .file(log))
        var said = ""
        for _ in 0..<300 where !said.contains("waiting for its writer") {
            Thread.sleep(forTimeInterval: 0.1)
            said = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        }
        XCTAssertTrue(said.contains("is a named pipe no process has written to yet; waiting for its writer"), said)
        let fd = open(fifo, O_WRONLY)
        let bytes = try f.output()
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        XCTAssertEqual(
            "\(diff.wait())", "\(ChildProcess.Termination.exited(0))",
            (try? String(contentsOfFile: log, encoding: .utf8)) ?? "")
    }

    /// A file as the benchmark's --work folder gave Foundation's raw error with exit 1, and an
    /// empty preview --out wrote hidden `.png`, `.svg` and `.html` with exit 0: both are usage
    /// errors now, said in words, with nothing written.
    func testAFileAsTheBenchFolderAndAnEmptyPreviewStemAreRefused() throws {
        let f = try PipelineFixture()
        defer { f.remove() }
        let bench = try f.tool(
            ["--work", f.csvPath, "--sizes", "1000"], executable: PipelineFixture.toolDirectory + "/regionsearch-bench")
        XCTAssertEqual(bench.status, 2, bench.output)
        XCTAssertTrue(bench.output.contains("is a file, not a folder"), bench.output)
        XCTAssertEqual(try f.run().status, 0)
        for stem in ["", f.root + "/", f.root + "/out"] {
            let r = try f.tool(["preview", f.outputPath, "--out", stem], executable: PipelineFixture.regionsearch)
            XCTAssertEqual(r.status, 2, "\(stem): \(r.output)")
            XCTAssertTrue(r.output.contains("expected a path stem that ends in a name"), r.output)
        }
        let hidden = try FileManager.default.contentsOfDirectory(atPath: f.root + "/out").filter { $0.hasPrefix(".") }
        XCTAssertFalse(hidden.contains(".png") || hidden.contains(".html"), "\(hidden)")
    }

    /// `regionsearch-bench --markdown r --json r` measured for as long as it took, then wrote the
    /// JSON over the Markdown and said both were written; `--json` naming a city the benchmark had
    /// cached in WORK/inputs replaced it, and every later run with that work folder failed. Both
    /// are refused before anything is measured.
    func testTheBenchmarkReportsReplaceNeitherEachOtherNorItsInputs() throws {
        let f = try PipelineFixture()
        defer { f.remove() }
        let bench = PipelineFixture.toolDirectory + "/regionsearch-bench"
        let work = f.root + "/bw"
        let same = try f.tool(
            ["--work", work, "--sizes", "1000", "--markdown", f.root + "/r", "--json", f.root + "/r"],
            executable: bench)
        XCTAssertEqual(same.status, 2, same.output)
        XCTAssertTrue(same.output.contains("--json and --markdown both name"), same.output)
        XCTAssertFalse(FileManager.default.fileExists(atPath: f.root + "/r"))
        try FileManager.default.createDirectory(atPath: work + "/inputs", withIntermediateDirectories: true)
        let city = work + "/inputs/city_1000_seed42.csv"
        try "id,name,category,lon,lat\n".write(toFile: city, atomically: true, encoding: .utf8)
        let over = try f.tool(["--work", work, "--sizes", "1000", "--json", city], executable: bench)
        XCTAssertEqual(over.status, 2, over.output)
        XCTAssertTrue(over.output.contains("which is read"), over.output)
        XCTAssertEqual(try String(contentsOfFile: city, encoding: .utf8), "id,name,category,lon,lat\n")
    }

    /// An empty planted keyword planted clusters with no keyword to find (exit 0).
    func testGenerateRefusesAnEmptyKeyword() throws {
        let f = try PipelineFixture()
        defer { f.remove() }
        let r = try f.tool(["generate", "--out", f.root + "/city", "--n", "2000", "--keywords", "cafe,,bank"])
        XCTAssertEqual(r.status, 2, r.output)
        XCTAssertTrue(r.output.contains("--keywords: keyword 2 is empty"), r.output)
        XCTAssertFalse(FileManager.default.fileExists(atPath: f.root + "/city.csv"))
    }

    /// Background shares over 1 in all, an extent of 1e9 km (its coordinates wrapped round the
    /// globe) and a city reaching past 85° of latitude were written with exit 0. A city at the
    /// largest extent still is.
    func testGenerateRefusesALayoutItCannotWrite() throws {
        let f = try PipelineFixture()
        defer { f.remove() }
        let refused: [([String], String)] = [
            (["--background-rate", "cafe=0.8", "--background-rate", "bank=0.9"], "the shares add up to 1.7"),
            (["--extent-km", "1e9"], "--extent-km 1000000000: at most 2000 km"),
            (["--center", "0,84"], "would reach past 85° of latitude"),
            (["--center", "181,0"], "beyond ±180"),
        ]
        for (options, message) in refused {
            let r = try f.tool(["generate", "--out", f.root + "/city", "--n", "2000"] + options)
            XCTAssertEqual(r.status, 2, "\(options): \(r.output)")
            XCTAssertTrue(r.output.contains(message), "\(options): \(r.output)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: f.root + "/city.csv"))
        }
        let widest = try f.tool(["generate", "--out", f.root + "/city", "--n", "2000", "--extent-km", "2000"])
        XCTAssertEqual(widest.status, 0, widest.output)
        let rows = try String(contentsOfFile: f.root + "/city.csv", encoding: .utf8).split(separator: "\n").dropFirst()
        let latitudes = rows.compactMap { $0.split(separator: ",").last.flatMap { Double($0) } }
        XCTAssertEqual(latitudes.count, 2000)
        // 2000 km of latitude round 39.9° N: within ±9° of it, no wrap.
        XCTAssertLessThan(latitudes.map { abs($0 - 39.9) }.max() ?? 99, 9.5)
    }

    func testStatusCheckAndMachineReadableJSON() throws {
        let f = try PipelineFixture()
        defer { f.remove() }
        var check = try f.tool(["status", f.manifestPath, "--check"])
        XCTAssertEqual(check.status, 1)
        XCTAssertEqual(check.output, "", "--check prints nothing, as make -q")
        XCTAssertEqual(try f.run().status, 0)
        check = try f.tool(["status", f.manifestPath, "--check"])
        XCTAssertEqual(check.status, 0, check.output)
        // JSON: fixed words and ISO times, no prose.
        let r = try f.tool(["status", f.manifestPath, "--json"])
        let json = try JSONParser.parse(r.output)
        XCTAssertEqual(json["up_to_date"], .bool(true))
        let last = try XCTUnwrap(json["last_run"])
        XCTAssertEqual(last["state"]?.stringValue, "ok")
        for key in ["started", "finished"] {
            let t = try XCTUnwrap(last[key]?.stringValue, key)
            XCTAssertNotNil(t.range(of: #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$"#, options: .regularExpression), t)
        }
        XCTAssertEqual(json["output"]?["state"]?.stringValue, "up_to_date")
        XCTAssertEqual(json["stages"]?.arrayValue?.first?["counts"]?["accepted"]?.intValue, 3_000)
        // A changed parameter: not up to date.
        try f.writeManifest(sections: [("graph", .object([("prune_factor", .number(3))]))])
        XCTAssertEqual(try f.tool(["status", f.manifestPath, "--check"]).status, 1)
        let stale = try JSONParser.parse(try f.tool(["status", f.manifestPath, "--json", "--check"]).output)
        XCTAssertEqual(stale["up_to_date"], .bool(false))
        XCTAssertEqual(stale["stages"]?.arrayValue?[2]["state"]?.stringValue, "stale")
    }

    func testDryRunSaysWhatWouldRunAndRunsNothing() throws {
        let f = try PipelineFixture()
        defer { f.remove() }
        var dry = try f.run(["--dry-run"])
        XCTAssertEqual(dry.status, 0, dry.output)
        XCTAssertTrue(dry.output.contains("[1/6] ingest: would run (missing — never run)"), dry.output)
        XCTAssertTrue(dry.output.contains("would write \(f.outputPath)"), dry.output)
        XCTAssertFalse(FileSystem.exists(f.workPath), "a dry run writes nothing, not even the lock")
        XCTAssertEqual(try f.run().status, 0)
        dry = try f.run(["--dry-run"])
        XCTAssertEqual(dry.output.components(separatedBy: "would skip (up to date").count - 1, 6, dry.output)
        XCTAssertTrue(dry.output.contains("output: nothing to write"), dry.output)
        dry = try f.run(["--dry-run", "--set", "graph.prune_factor=3"])
        XCTAssertTrue(dry.output.contains("[2/6] project: would skip"), dry.output)
        XCTAssertTrue(
            dry.output.contains("[3/6] graph: would run (stale — parameter graph.prune_factor: 2 → 3)"), dry.output)
        dry = try f.run(["--dry-run", "--from", "regions"])
        XCTAssertTrue(dry.output.contains("[5/6] regions: would run (forced (--from regions))"), dry.output)
        XCTAssertEqual(try f.ranStages(), stageNamesRanFirst, "the dry runs changed nothing")
    }

    private var stageNamesRanFirst: [String] { Pipeline.stages.map(\.name) }

    func testSetAndInputOverrideTheManifestForOneRun() throws {
        let f = try PipelineFixture()
        defer { f.remove() }
        XCTAssertEqual(try f.run().status, 0)
        var r = try f.run(["--set", "graph.prune_factor=3"])
        XCTAssertEqual(r.status, 0, r.output)
        XCTAssertEqual(try f.ranStages(), ["graph", "propagate", "regions", "hulls"])
        XCTAssertEqual(try f.tool(["status", f.manifestPath, "--check", "--set", "graph.prune_factor=3"]).status, 0)
        XCTAssertEqual(try f.tool(["status", f.manifestPath, "--check"]).status, 1)
        // Bad overrides are usage errors before anything runs.
        for bad in [["--set", "graph.prune_factr=3"], ["--set", "graph.k=-1"], ["--set", "nothing"]] {
            r = try f.run(bad)
            XCTAssertEqual(r.status, 2, "\(bad): " + r.output)
        }
        XCTAssertTrue(try f.run(["--set", "graph.prune_factr=3"]).output.contains("did you mean 'prune_factor'"))
        // Tonight's dump: the same manifest over another file (its first 2,000 rows).
        let lines = String(decoding: PipelineFixture.csvBytes, as: UTF8.self).split(
            separator: "\n", omittingEmptySubsequences: false)
        let tonight = f.root + "/tonight.csv"
        try (lines.prefix(2_001).joined(separator: "\n") + "\n").write(
            toFile: tonight, atomically: true, encoding: .utf8)
        r = try f.run(["--input", tonight])
        XCTAssertEqual(r.status, 0, r.output)
        XCTAssertEqual(try f.runState()["ingest"].status, .ran)
        let key = try XCTUnwrap(try f.runState()["ingest"].key)
        let record = try XCTUnwrap(try StageRecord.load(f.work.recordPath(stage: "ingest", key: key)))
        XCTAssertEqual(record.summary.count(.accepted), 2_000)
        XCTAssertEqual(record.key.inputs.first?.path, tonight)
        XCTAssertEqual(try f.run(["--input", tonight, "--input", tonight]).status, 2, "one --input per input")
        XCTAssertEqual(try f.run(["--input", f.outputPath]).status, 2, "an input may not be the output")
    }

    func testStrictTurnsDataWarningsIntoErrors() throws {
        let f = try PipelineFixture()
        defer { f.remove() }
        try f.writeManifest(keywords: ["cafe", "nosuchkeyword"])
        var r = try f.run()
        XCTAssertEqual(r.status, 0, r.output)
        XCTAssertTrue(r.output.contains("warning: keyword \"nosuchkeyword\" matches no POI"), r.output)
        // Up to date, but made with a warning: not good enough for --strict.
        r = try f.run(["--strict"])
        XCTAssertEqual(r.status, 3, r.output)
        XCTAssertTrue(r.output.contains("propagate is up to date, but its run warned"), r.output)
        // Fresh: the stage itself fails.
        try FileManager.default.removeItem(atPath: f.workPath)
        r = try f.run(["--strict"])
        XCTAssertEqual(r.status, 3, r.output)
        XCTAssertTrue(r.output.contains("matches no POI; its scores are all 0"), r.output)
        XCTAssertTrue(r.output.contains("(an error because of --strict)"), r.output)
        XCTAssertEqual(try f.statuses()["propagate"], .failed)
    }

    func testJSONLogFormatGivesOneEventPerLineThroughTheRunner() throws {
        let f = try PipelineFixture()
        defer { f.remove() }
        let r = try f.run(["--log-format", "json"])
        XCTAssertEqual(r.status, 0, r.output)
        var events: [JSONValue] = []
        for line in r.output.split(separator: "\n") {
            guard let e = try? JSONParser.parse(String(line)), e.objectValue != nil else {
                return XCTFail("not a JSON event: \(line)")
            }
            XCTAssertNotNil(e["tool"]?.stringValue)
            XCTAssertNotNil(e["level"]?.stringValue)
            XCTAssertNotNil(e["message"]?.stringValue)
            events.append(e)
        }
        let done = events.filter { $0["tool"]?.stringValue == "regionsearch" && $0["phase"]?.stringValue == "done" }
        XCTAssertEqual(done.compactMap { $0["stage"]?.stringValue }, Pipeline.stages.map(\.name))
        XCTAssertEqual(done.first?["counts"]?["accepted"]?.intValue, 3_000)
        XCTAssertNotNil(done.first?["seconds"]?.doubleValue)
        // The stages' own events come through, with their stage.
        XCTAssertTrue(
            events.contains { $0["tool"]?.stringValue == "regionsearch-graph" && $0["stage"]?.stringValue == "graph" })
        XCTAssertEqual(try f.run(["--log-format", "xml"]).status, 2)
        // A command line that does not parse still reports in JSON when it asks for JSON (the
        // error had come in the human format).
        for arguments in [["--log-format", "json", "--bogus"], ["--bogus", "--log-format=json"]] {
            let bad = try f.run(arguments)
            XCTAssertEqual(bad.status, 2, bad.output)
            let lines = bad.output.split(separator: "\n")
            XCTAssertEqual(lines.count, 1, bad.output)
            let event = try JSONParser.parse(String(lines.first ?? ""))
            XCTAssertEqual(event["level"]?.stringValue, "error")
            XCTAssertEqual(event["message"]?.stringValue, "unknown option '--bogus'")
        }
    }
}
