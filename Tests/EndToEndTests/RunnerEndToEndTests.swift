import Foundation
import XCTest

@testable import RegionSearchCore
@testable import RegionSearchRunner
@testable import RegionSearchStages
@testable import RegionSearchTestSupport

/// `regionsearch run/status/clean` on a small synthetic city, with the built executables.
final class RunnerEndToEndTests: XCTestCase {
    private let stageNames = Pipeline.stages.map { $0.name }

    private func freshRun(_ fixture: PipelineFixture, file: StaticString = #filePath, line: UInt = #line) throws {
        let result = try fixture.run()
        XCTAssertEqual(result.status, 0, result.output, file: file, line: line)
    }

    func testFirstRunRecordsEveryStageAndSecondRunSkipsAll() throws {
        let f = try PipelineFixture()
        defer { f.remove() }
        let first = try f.run()
        XCTAssertEqual(first.status, 0, first.output)
        XCTAssertEqual(try f.ranStages(), stageNames)
        XCTAssertTrue(first.output.contains("regionsearch: [3/6] graph …"), first.output)
        XCTAssertTrue(first.output.contains("regionsearch: [6/6] hulls: done in "), first.output)
        let state = try f.runState()
        XCTAssertEqual(state.status, "ok")
        // The output is a copy of the lineage step's regions (the hulls object with stable ids,
        // labels and change), and run.json records its digest.
        let geojson = try f.output()
        let step = try XCTUnwrap(FileSystem.list(f.work.lineage).first)
        XCTAssertEqual(
            geojson, try Data(contentsOf: URL(fileURLWithPath: f.work.lineage + "/" + step + "/regions.geojson")))
        XCTAssertEqual(state.output?.digest.size, geojson.count)
        XCTAssertTrue(String(decoding: geojson, as: UTF8.self).contains("\"FeatureCollection\""))

        // Records: key, hashes and sizes of every input and output, parameters, times, counts.
        let manifest = try f.manifest()
        let planner = StagePlanner(manifest: manifest, work: f.work)
        var previousOutputs: [String: StageRecord] = [:]
        for stage in Pipeline.stages {
            let key = try XCTUnwrap(state[stage.name].key)
            let record = try XCTUnwrap(try StageRecord.load(f.work.recordPath(stage: stage.name, key: key)))
            XCTAssertEqual(record.keyHash, key)
            XCTAssertEqual(record.key.hash, key, "the key is a function of the recorded inputs and parameters")
            XCTAssertEqual(record.key.parameters, manifest.parameters(for: stage.name).canonical)
            XCTAssertEqual(record.toolVersion, RegionSearchVersion.current)
            XCTAssertFalse(record.started.isEmpty)
            XCTAssertGreaterThanOrEqual(record.finished, record.started)
            XCTAssertEqual(record.outputs.map { $0.file }, stage.outputs.map { $0.fileName })
            XCTAssertNil(planner.verify(stage, record: record))
            for (output, port) in zip(record.outputs, stage.outputs) {
                let path = f.work.objectDirectory(stage: stage.name, key: key) + "/" + output.file
                // Artifacts are recorded by their identity (directory and column checksums, each
                // column verified here), other files by the hash of their bytes.
                if port.kind != nil {
                    XCTAssertEqual(try FileDigest.ofArtifact(path: path, verifyingColumns: true), output.digest)
                    XCTAssertNotEqual(try FileDigest.of(path: path), output.digest)
                } else {
                    XCTAssertEqual(try FileDigest.of(path: path), output.digest)
                }
            }
            // Each input is its producer's recorded output.
            for input in record.key.inputs {
                if let producer = input.producer {
                    let upstream = try XCTUnwrap(previousOutputs[producer])
                    XCTAssertEqual(upstream.outputs.first { input.path.hasSuffix("/" + $0.file) }?.digest, input.digest)
                } else {
                    XCTAssertEqual(input.path, f.csvPath.replacingOccurrences(of: "//", with: "/"))
                    XCTAssertEqual(input.digest, try FileDigest.of(path: f.csvPath))
                }
            }
            previousOutputs[stage.name] = record
        }
        XCTAssertEqual(previousOutputs["ingest"]?.summary.count(.accepted), 3_000)
        XCTAssertGreaterThan(previousOutputs["graph"]?.summary.count(.edges) ?? 0, 3_000)
        XCTAssertGreaterThan(previousOutputs["propagate"]?.summary.count(.iterations) ?? 0, 0)
        XCTAssertNotNil(previousOutputs["regions"]?.summary.count(.regions))
        // No timestamps in artifacts or GeoJSON: the records' start times appear nowhere.
        let day = String(try XCTUnwrap(previousOutputs["ingest"]).started.prefix(10))
        for (name, data) in try f.objectFiles() {
            XCTAssertNil(data.range(of: Data(day.utf8)), "\(name) holds a date")
        }

        let second = try f.run()
        XCTAssertEqual(second.status, 0, second.output)
        XCTAssertEqual(try f.ranStages(), [])
        XCTAssertEqual(try f.statuses().values.filter { $0 == .upToDate }.count, 6)
        XCTAssertTrue(second.output.contains("regionsearch: [3/6] graph: up to date, skipped"), second.output)
        XCTAssertEqual(try f.output(), geojson)

        let status = try f.tool(["status", f.manifestPath])
        XCTAssertEqual(status.status, 0)
        for (i, name) in stageNames.enumerated() {
            XCTAssertTrue(
                status.output.contains(
                    "[\(i + 1)/6] \(name.padding(toLength: 9, withPad: " ", startingAt: 0))  up to date"), status.output
            )
        }
        XCTAssertTrue(status.output.contains("output: \(f.outputPath): up to date"), status.output)
    }

    /// Editing one parameter of stage k reruns k, nothing before it, and each later stage whose
    /// inputs changed as a result. A later stage whose inputs come out byte-identical keeps its
    /// key and is not rerun (its output could not differ); the oracle for "changed" is the
    /// previous run's records.
    func testChangingOneParameterRerunsExactlyThatStageAndItsSuccessors() throws {
        let f = try PipelineFixture()
        defer { f.remove() }
        try freshRun(f)
        let edits: [(String, String, JSONValue)] = [
            ("ingest", "max_reject_ratio", .number(0.2)),
            ("project", "crs", .string("EPSG:32650")),
            ("graph", "k", .number(10)),
            ("propagate", "alpha", .number(0.8)),
            ("regions", "z_core", .number(3)),
            ("hulls", "min_extent_m", .number(25)),
        ]
        var sections: [(String, JSONValue)] = []
        var cascades = 0
        for (k, (stage, key, value)) in edits.enumerated() {
            let before = try f.runState()
            let beforeRecords = try Dictionary(
                uniqueKeysWithValues: Pipeline.stages.map { s in
                    (
                        s.name,
                        try XCTUnwrap(
                            try StageRecord.load(
                                f.work.recordPath(stage: s.name, key: try XCTUnwrap(before[s.name].key))))
                    )
                })
            sections.append((stage, .object([(key, value)])))
            try f.writeManifest(sections: sections)
            let result = try f.run()
            XCTAssertEqual(result.status, 0, result.output)
            let after = try f.runState()
            let ran = try f.ranStages()
            XCTAssertEqual(ran.first, stage, "after editing \(stage).\(key)")
            XCTAssertEqual(
                after.stages.filter { $0.status == .upToDate }.map { $0.stage }.prefix(k), ArraySlice(stageNames[..<k]))
            XCTAssertNotEqual(after[stage].key, before[stage].key)
            // Every later stage ran exactly when one of its inputs differs from the last run's.
            for later in Pipeline.stages[(k + 1)...] {
                let record = try XCTUnwrap(
                    try StageRecord.load(
                        f.work.recordPath(stage: later.name, key: try XCTUnwrap(after[later.name].key))))
                let inputsChanged =
                    record.key.inputs.map { $0.digest } != beforeRecords[later.name]!.key.inputs.map { $0.digest }
                XCTAssertEqual(ran.contains(later.name), inputsChanged, "\(later.name) after editing \(stage).\(key)")
                XCTAssertEqual(after[later.name].key != before[later.name].key, inputsChanged)
                if inputsChanged { cascades += 1 }
            }
            XCTAssertNil(f.temporaries().first)
        }
        XCTAssertGreaterThan(cascades, 5, "edits do propagate downstream")
        // Going back to the first settings reuses the stored objects: nothing runs.
        try f.writeManifest()
        XCTAssertEqual(try f.run().status, 0)
        XCTAssertEqual(try f.ranStages(), [])
        // Spelling out a default, reordering and reformatting change nothing either.
        try f.writeManifest(sections: [("graph", .object([])), ("propagate", .object([("alpha", .number(0.9))]))])
        XCTAssertEqual(try f.run().status, 0)
        XCTAssertEqual(try f.ranStages(), [])
    }

    func testChangedInputFileOrInputOptionsRerunFromIngest() throws {
        let f = try PipelineFixture()
        defer { f.remove() }
        try freshRun(f)
        // Input options are part of ingest's key.
        try f.writeManifest(
            input: .object([("path", .string("../data/city.csv")), ("format", .string("csv")), ("header", .bool(true))])
        )
        var status = try f.tool(["status", f.manifestPath])
        XCTAssertTrue(
            status.output.contains(#"options of inputs[0] changed: {"format":"csv"} → {"format":"csv","header":true}"#),
            status.output)
        XCTAssertEqual(try f.run().status, 0)
        XCTAssertEqual(try f.ranStages().first, "ingest")
        // Content, not timestamps: touching the file changes nothing; editing one name does.
        let csv = f.csvPath
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: 3600)], ofItemAtPath: csv)
        XCTAssertEqual(try f.run().status, 0)
        XCTAssertEqual(try f.ranStages(), [])
        var text = try String(contentsOfFile: csv, encoding: .utf8)
        let lineEnd = try XCTUnwrap(text.firstIndex(of: "\n"))
        let secondLine = text[text.index(after: lineEnd)...].prefix { $0 != "\n" }
        let fields = secondLine.split(separator: ",", omittingEmptySubsequences: false)
        text = text.replacingOccurrences(
            of: String(secondLine), with: ([fields[0], "Renamed POI"] + fields[2...]).joined(separator: ","))
        try text.write(toFile: csv, atomically: true, encoding: .utf8)
        status = try f.tool(["status", f.manifestPath])
        XCTAssertTrue(status.output.contains("input file inputs[0] (\(csv)) changed"), status.output)
        XCTAssertTrue(status.output.contains("waits for ingest to rerun"), status.output)
        XCTAssertEqual(try f.run().status, 0)
        XCTAssertEqual(try f.ranStages().first, "ingest")
    }

    func testStatusExplainsWhatChanged() throws {
        let f = try PipelineFixture()
        defer { f.remove() }
        var status = try f.tool(["status", f.manifestPath, "--json"])
        XCTAssertEqual(status.status, 0, status.output)
        let before = try JSONParser.parse(status.output)
        XCTAssertEqual(
            before["stages"]?.arrayValue?.map { $0["state"]?.stringValue ?? "" },
            ["missing"] + Array(repeating: "missing", count: 5))
        try freshRun(f)
        try f.writeManifest(sections: [
            ("graph", .object([("k", .number(10))])), ("hulls", .object([("hull", .string("concave"))])),
        ])
        status = try f.tool(["status", f.manifestPath, "--json"])
        let report = try JSONParser.parse(status.output)
        let stages = try XCTUnwrap(report["stages"]?.arrayValue)
        XCTAssertEqual(
            stages.map { $0["state"]?.stringValue ?? "" },
            ["up_to_date", "up_to_date", "stale", "stale", "stale", "stale"])
        XCTAssertEqual(stages[2]["reasons"], .array([.string("parameter graph.k: 8 → 10")]))
        XCTAssertEqual(stages[3]["reasons"], .array([.string("waits for graph to rerun")]))
        XCTAssertEqual(
            stages[5]["reasons"],
            .array([
                .string("waits for regions, propagate to rerun"),
                .string(#"parameter hulls.hull: "convex" → "concave""#),
            ]))
        let text = try f.tool(["status", f.manifestPath]).output
        XCTAssertTrue(text.contains("[3/6] graph      stale       parameter graph.k: 8 → 10"), text)
    }

    /// A copied or freshly checked-out work directory is still up to date (keys are content
    /// hashes, not paths or timestamps).
    func testCopiedDirectoryIsUpToDate() throws {
        let f = try PipelineFixture()
        defer { f.remove() }
        try freshRun(f)
        let copy = f.root + "-copy"
        defer { try? FileManager.default.removeItem(atPath: copy) }
        XCTAssertEqual(try ChildProcess.run("/bin/cp", ["-R", f.root, copy]), .exited(0))
        let moved = PipelineFixture(copyAt: copy)
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSinceNow: -86400)], ofItemAtPath: moved.csvPath)
        let result = try moved.run()
        XCTAssertEqual(result.status, 0, result.output)
        XCTAssertEqual(try moved.ranStages(), [])
        XCTAssertEqual(try moved.output(), try f.output())
    }

    /// Flip a byte in, truncate, or delete each output of each stage: the runner names the file
    /// and what is wrong, reruns the producing stage, and the result is identical again.
    func testDamagedOutputsAreDetectedNamedAndRebuilt() throws {
        let f = try PipelineFixture()
        defer { f.remove() }
        try freshRun(f)
        let reference = try f.objectFiles()
        let geojson = try f.output()
        for (k, stage) in Pipeline.stages.enumerated() {
            for port in stage.outputs {
                for damage in ["flip", "truncate", "delete"] {
                    let path = try f.objectPath(stage.name, port.fileName)
                    var data = try Data(contentsOf: URL(fileURLWithPath: path))
                    if data.isEmpty && damage != "delete" { continue }  // an empty rejects file has no byte to damage
                    switch damage {
                    case "flip": data[data.count / 2] ^= 0x20
                    case "truncate": data = data.prefix(data.count - 1 - data.count / 3)
                    default: break
                    }
                    if damage == "delete" { unlink(path) } else { try data.write(to: URL(fileURLWithPath: path)) }
                    let context = "\(damage) \(stage.name)/\(port.fileName)"

                    let status = try f.tool(["status", f.manifestPath, "--json"])
                    let states = try JSONParser.parse(status.output)["stages"]?.arrayValue ?? []
                    XCTAssertEqual(states[k]["state"]?.stringValue, "stale", context)
                    XCTAssertTrue(
                        (states[k]["reasons"]?.arrayValue?.first?.stringValue ?? "").contains(path),
                        "\(context): \(status.output)")

                    let result = try f.run()
                    XCTAssertEqual(result.status, 0, "\(context): \(result.output)")
                    XCTAssertTrue(result.output.contains(path), "\(context): the file is named: \(result.output)")
                    let expected: String
                    switch (damage, port.kind) {
                    case ("delete", _): expected = "output is missing"
                    case ("flip", .some): expected = "checksum mismatch"
                    case ("truncate", .some): expected = "truncated"
                    default: expected = "content differs from its run record"
                    }
                    XCTAssertTrue(
                        result.output.contains(expected), "\(context): expected '\(expected)' in \(result.output)")
                    XCTAssertTrue(
                        result.output.contains("[\(k + 1)/6] \(stage.name): output damaged, rerunning"), context)
                    // Only the damaged stage reruns: its output is byte-identical again, so every
                    // later key is unchanged.
                    XCTAssertEqual(try f.ranStages(), [stage.name], context)
                    XCTAssertEqual(try f.objectFiles(), reference, context)
                    XCTAssertEqual(try f.output(), geojson, context)
                }
            }
        }
        // The published GeoJSON itself: damaged or deleted, the next run rewrites it.
        try Data("{}".utf8).write(to: URL(fileURLWithPath: f.outputPath))
        XCTAssertEqual(try f.run().status, 0)
        XCTAssertEqual(try f.output(), geojson)
    }

    /// The stages themselves reject a damaged artifact with exit status 4, naming the file; the
    /// driver passes the status through.
    func testStagesRejectDamagedArtifactsThroughTheDriver() throws {
        let f = try PipelineFixture()
        defer { f.remove() }
        try freshRun(f)
        let pois = try f.objectPath("ingest", "pois.rsa")
        let damaged = f.root + "/damaged.rsa"
        var data = try Data(contentsOf: URL(fileURLWithPath: pois))
        data = data.prefix(data.count / 2)
        try data.write(to: URL(fileURLWithPath: damaged))
        let result = try f.tool(["project", "--input", damaged, "--output", f.root + "/p.rsa"])
        XCTAssertEqual(result.status, 4, result.output)
        XCTAssertTrue(
            result.output.contains("\(damaged): artifact is truncated or was not completely written"), result.output)
        XCTAssertFalse(FileManager.default.fileExists(atPath: f.root + "/p.rsa"))
    }

    func testStageFailureIsMarkedAndTheNextRunResumesThere() throws {
        let f = try PipelineFixture()
        defer { f.remove() }
        try f.writeManifest(sections: [("project", .object([("crs", .string("EPSG:999999"))]))])
        let failed = try f.run()
        XCTAssertEqual(failed.status, 2, "the stage's own status (bad parameter) passes through: " + failed.output)
        // The stage's own message, then the runner's.
        let stageMessage = try XCTUnwrap(failed.output.range(of: "regionsearch-project: error:"), failed.output)
        let runnerMessage = try XCTUnwrap(
            failed.output.range(of: "regionsearch: error: stage project failed (exit status"), failed.output)
        XCTAssertLessThan(stageMessage.lowerBound, runnerMessage.lowerBound)
        let statuses = try f.statuses()
        XCTAssertEqual(statuses["ingest"], .ran)
        XCTAssertEqual(statuses["project"], .failed)
        XCTAssertEqual(statuses["graph"], .pending)
        XCTAssertEqual(try f.runState().status, "failed")
        XCTAssertTrue(try f.runState()["project"].error?.contains("stage project failed") ?? false)
        // Earlier results are intact and the failure is visible in status.
        let ingestKey = try XCTUnwrap(try f.runState()["ingest"].key)
        XCTAssertNotNil(try StageRecord.load(f.work.recordPath(stage: "ingest", key: ingestKey)))
        let status = try f.tool(["status", f.manifestPath])
        XCTAssertTrue(status.output.contains("last run: failed at project"), status.output)
        XCTAssertTrue(status.output.contains("[2/6] project    failed      exit status"), status.output)
        XCTAssertTrue(status.output.contains("EPSG:999999"), status.output)
        XCTAssertTrue(f.temporaries().isEmpty, "\(f.temporaries())")

        try f.writeManifest(sections: [("project", .object([("crs", .string("EPSG:32650"))]))])
        let resumed = try f.run()
        XCTAssertEqual(resumed.status, 0, resumed.output)
        XCTAssertEqual(try f.statuses()["ingest"], .upToDate)
        XCTAssertEqual(try f.ranStages(), Array(stageNames.dropFirst()))
        // The failure record of the bad setting stays (status shows it if that setting returns).
        try f.writeManifest(sections: [("project", .object([("crs", .string("EPSG:999999"))]))])
        XCTAssertTrue(try f.tool(["status", f.manifestPath]).output.contains("[2/6] project    failed"))
    }

    func testMissingInputFileIsAnInputError() throws {
        let f = try PipelineFixture()
        defer { f.remove() }
        unlink(f.csvPath)
        let result = try f.run()
        XCTAssertEqual(result.status, 3, result.output)
        XCTAssertTrue(
            result.output.contains(
                "\(f.manifestPath): inputs[0].path: cannot read \(f.csvPath): No such file or directory"),
            result.output)
        let status = try f.tool(["status", f.manifestPath])
        XCTAssertTrue(status.output.contains("cannot read \(f.csvPath)"), status.output)
    }

    /// An input that changes while its stage runs: the result is not recorded, and the next run
    /// reruns the stage on the new content.
    func testInputChangedWhileTheStageRanIsNotRecorded() throws {
        let f = try PipelineFixture()
        defer { f.remove() }
        struct Meddler: StageLauncher {
            let csv: String
            func launch(stage: StageDefinition, executable: String, arguments: [String]) throws(RunnerError)
                -> StageLaunch
            {
                let result = try ProcessStageLauncher().launch(
                    stage: stage, executable: executable, arguments: arguments)
                if stage.name == "ingest" {
                    // Another process appends a row while ingest runs (after it read the file).
                    let h = FileHandle(forWritingAtPath: csv)!
                    h.seekToEndOfFile()
                    h.write(Data("999999,Late Cafe,cafe,116.40,39.90\n".utf8))
                    h.closeFile()
                }
                return result
            }
        }
        let manifest = try f.manifest()
        let before = try FileDigest.of(path: f.csvPath)
        let runner = Runner(
            manifest: manifest, toolDirectory: PipelineFixture.toolDirectory, launcher: Meddler(csv: f.csvPath))
        var options = RunOptions()
        options.quiet = true
        XCTAssertThrowsError(try runner.run(options)) { error in
            XCTAssertEqual((error as? RunnerError)?.exitStatus, .failure)
            XCTAssertEqual(
                "\(error)",
                "input inputs[0] of stage ingest (\(f.csvPath)) changed while the stage ran, so its result was not "
                    + "recorded; run again once the input is stable"
            )
        }
        let oldKey = StageKey(
            stage: IngestStage.definition, parameters: manifest.parameters(for: "ingest"),
            inputs: [
                .init(
                    name: "inputs[0]", producer: nil, path: f.csvPath, digest: before,
                    options: StageKey.inputOptions(manifest.inputs[0].spec))
            ]
        ).hash
        XCTAssertFalse(FileManager.default.fileExists(atPath: f.work.recordPath(stage: "ingest", key: oldKey)))
        XCTAssertFalse(FileManager.default.fileExists(atPath: f.work.objectDirectory(stage: "ingest", key: oldKey)))
        XCTAssertEqual(try f.statuses()["ingest"], .failed)
        let result = try f.run()
        XCTAssertEqual(result.status, 0, result.output)
        XCTAssertEqual(try f.ranStages(), stageNames)
        let record = try XCTUnwrap(
            try StageRecord.load(
                try f.objectPath("ingest", "pois.rsa").replacingOccurrences(of: "/objects/", with: "/records/")
                    .replacingOccurrences(of: "/pois.rsa", with: ".json")))
        XCTAssertEqual(record.summary.count(.accepted), 3_001)
    }

    func testFromUntilAndForce() throws {
        let f = try PipelineFixture()
        defer { f.remove() }
        var result = try f.run(["--until", "graph"])
        XCTAssertEqual(result.status, 0, result.output)
        XCTAssertEqual(try f.ranStages(), ["ingest", "project", "graph"])
        XCTAssertEqual(try f.statuses()["propagate"], .notSelected)
        XCTAssertFalse(FileManager.default.fileExists(atPath: f.outputPath), "no output before hulls ran")
        result = try f.run()
        XCTAssertEqual(try f.ranStages(), ["propagate", "regions", "hulls"])
        let reference = try f.objectFiles()
        result = try f.run(["--from", "regions"])
        XCTAssertEqual(result.status, 0, result.output)
        XCTAssertEqual(try f.ranStages(), ["regions", "hulls"])
        result = try f.run(["--force", "--until", "project"])
        XCTAssertEqual(try f.ranStages(), ["ingest", "project"])
        result = try f.run(["--force"])
        XCTAssertEqual(try f.ranStages(), stageNames)
        XCTAssertEqual(try f.objectFiles(), reference, "forced reruns reproduce the same bytes")
        result = try f.run(["--from", "hulls", "--until", "graph"])
        XCTAssertEqual(result.status, 2)
        XCTAssertTrue(result.output.contains("--from hulls comes after --until graph"), result.output)
        result = try f.run(["--until", "grpah"])
        XCTAssertEqual(result.status, 2)
        XCTAssertTrue(
            result.output.contains(
                "--until: expected one of ingest, project, graph, propagate, regions, hulls, got \"grpah\" (did you mean 'graph'?)"
            ),
            result.output)
    }

    /// Same inputs and parameters, different thread counts and work directories: identical bytes.
    func testDeterministicAcrossThreadCountsAndWorkDirectories() throws {
        let f = try PipelineFixture()
        defer { f.remove() }
        XCTAssertEqual(try f.run(["--threads", "1"]).status, 0)
        let first = try f.objectFiles()
        let firstOutput = try f.output()
        let firstState = try f.runState()
        try FileManager.default.moveItem(atPath: f.workPath, toPath: f.root + "/work-1")
        unlink(f.outputPath)
        let second = try f.run(["--threads", "2"])
        XCTAssertEqual(second.status, 0, second.output)
        XCTAssertEqual(try f.ranStages(), stageNames, "a fresh work directory")
        XCTAssertEqual(first.count, 7)
        XCTAssertEqual(try f.objectFiles(), first, "same keys, same bytes")
        XCTAssertEqual(try f.output(), firstOutput)
        XCTAssertEqual(try f.runState().stages.map { $0.key }, firstState.stages.map { $0.key })
        let record = try XCTUnwrap(
            try StageRecord.load(f.work.recordPath(stage: "graph", key: try XCTUnwrap(f.runState()["graph"].key))))
        XCTAssertEqual(record.threads, 2)
    }

    func testCleanRemovesIntermediatesButKeepsTheOutput() throws {
        let f = try PipelineFixture()
        defer { f.remove() }
        try freshRun(f)
        try f.writeManifest(sections: [("hulls", .object([("min_extent_m", .number(30))]))])
        try freshRun(f)
        XCTAssertEqual(FileSystem.list(f.work.objects).count, 7)
        // Leftovers of an interrupted write in every place the runner cleans, as the runner names them.
        let entry = "graph-0123456789abcdeffedcba9876543210"
        for path in [
            f.work.objects + "/.\(entry).tmp-99999", f.work.records + "/.\(entry).json.tmp-1-0",
            f.root + "/out/.test.geojson.tmp-5-0",
        ] {
            XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data("partial".utf8)))
        }
        var result = try f.tool(["clean", f.manifestPath, "--unused"])
        XCTAssertEqual(result.status, 0, result.output)
        XCTAssertTrue(
            result.output.contains("removed 1 stage output(s), 1 record(s) and 3 temporary file(s)"), result.output)
        XCTAssertEqual(FileSystem.list(f.work.objects).count, 6)
        XCTAssertEqual(try f.run().status, 0)
        XCTAssertEqual(try f.ranStages(), [])
        result = try f.tool(["clean", f.manifestPath])
        XCTAssertEqual(result.status, 0, result.output)
        XCTAssertEqual(FileSystem.list(f.workPath), ["lock"])
        XCTAssertTrue(FileManager.default.fileExists(atPath: f.outputPath))
        XCTAssertTrue(f.temporaries().isEmpty)
        XCTAssertEqual(try f.run().status, 0)
        XCTAssertEqual(try f.ranStages(), stageNames)
    }

    func testManifestErrorsThroughTheDriver() throws {
        let f = try PipelineFixture()
        defer { f.remove() }
        try f.writeManifest(sections: [("regions", .object([("z_cor", .number(2))]))])
        let result = try f.run()
        XCTAssertEqual(result.status, 2)
        let known = RegionsStage.definition.parameters.map { $0.key }.joined(separator: ", ")
        let text = try String(contentsOfFile: f.manifestPath, encoding: .utf8)
        let line =
            try XCTUnwrap(
                text.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.contains("z_cor") }) + 1
        XCTAssertTrue(
            result.output.contains(
                "regionsearch: error: \(f.manifestPath):\(line):5: regions.z_cor: unknown key (did you mean "
                    + "'z_core'?); known keys: \(known)"
            ),
            result.output)
        XCTAssertFalse(FileManager.default.fileExists(atPath: f.workPath), "nothing is created for a bad manifest")
        XCTAssertEqual(try f.tool(["run"]).status, 2)
        XCTAssertEqual(try f.tool(["run", f.manifestPath, "--thread", "2"]).status, 2)
        XCTAssertEqual(try f.tool(["run", f.root + "/none.json"]).status, 2)
    }

    func testHelpAndDispatch() throws {
        let f = try PipelineFixture()
        defer { f.remove() }
        let help = try f.tool(["--help"])
        XCTAssertEqual(help.status, 0)
        for stage in Pipeline.stages { XCTAssertTrue(help.output.contains("  \(stage.name)"), stage.name) }
        for command in ["run", "status", "clean", "help"] {
            XCTAssertTrue(help.output.contains("  \(command) "), command)
        }
        for stage in Pipeline.stages {
            let viaDriver = try f.tool(["help", stage.name])
            let direct = try f.tool(["--help"], executable: PipelineFixture.toolDirectory + "/" + stage.executable)
            XCTAssertEqual(viaDriver.status, 0)
            XCTAssertEqual(viaDriver.output, direct.output)
        }
        XCTAssertTrue(try f.tool(["help", "run"]).output.contains("--until STAGE"))
        // Dispatch passes the stage's exit status through.
        let bad = try f.tool(["graph", "--no-such-option"])
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.output.contains("regionsearch-graph: error: unknown option '--no-such-option'"), bad.output)
        let unknown = try f.tool(["grpah"])
        XCTAssertEqual(unknown.status, 2)
        XCTAssertTrue(
            unknown.output.contains("'grpah' is not a command or stage (did you mean 'graph'?)"), unknown.output)
        // A command's usage error points at the command's own help.
        let noManifest = try f.tool(["run"])
        XCTAssertEqual(noManifest.status, 2, noManifest.output)
        XCTAssertTrue(noManifest.output.contains("Run 'regionsearch run --help' for usage."), noManifest.output)
        let mode = try f.tool(["evaluate", "trut", "a.geojson", "b.geojson"])
        XCTAssertEqual(mode.status, 2, mode.output)
        XCTAssertTrue(mode.output.contains("unknown mode 'trut' (did you mean 'truth'?)"), mode.output)
        // `help --help` is help; extra topics are a usage error (they were ignored).
        XCTAssertEqual(try f.tool(["help", "--help"]).status, 0)
        let extra = try f.tool(["help", "run", "extra"])
        XCTAssertEqual(extra.status, 2, extra.output)
        XCTAssertTrue(extra.output.contains("help takes one topic"), extra.output)
        // No command at all is a usage error: the overview goes to standard error, not output.
        let out = f.root + "/none.out"
        let err = f.root + "/none.err"
        let bare = try ChildProcess(
            executable: PipelineFixture.regionsearch, arguments: [], output: .files(stdout: out, stderr: err)
        ).wait()
        XCTAssertEqual("\(bare)", "\(ChildProcess.Termination.exited(2))")
        XCTAssertEqual(try String(contentsOfFile: out, encoding: .utf8), "")
        XCTAssertTrue(try String(contentsOfFile: err, encoding: .utf8).contains("Usage:"))
    }
}

extension PipelineFixture {
    /// A fixture over an existing copy (for the copied-directory test).
    init(copyAt root: String) {
        self.root = root
    }
}
