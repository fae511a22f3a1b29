import XCTest

@testable import RegionSearchCore
@testable import RegionSearchPropagation
@testable import RegionSearchRunner
@testable import RegionSearchStages
@testable import RegionSearchTestSupport

final class StageKeyTests: XCTestCase {
    private func digest(_ text: String) -> FileDigest {
        var h = ContentHasher()
        Array(text.utf8).withUnsafeBytes { h.update($0) }
        return FileDigest(hash: h.finalize(), size: text.utf8.count)
    }

    private func graphKey(
        k: Double = 8, input: String = "points", path: String = "objects/project-x/projected.rsa", version: Int? = nil
    ) -> StageKey {
        var definition = PropagateStage.definition
        if let version { definition.version = version }
        let params = Parameters(values: [("keywords", .array([.string("cafe")])), ("alpha", .number(k / 10))])
        return StageKey(
            stage: definition, parameters: params,
            inputs: [
                .init(name: "graph", producer: "graph", path: path, digest: digest(input))
            ])
    }

    func testKeyDependsOnContentParametersAndVersionsOnly() {
        let base = graphKey().hash
        XCTAssertEqual(graphKey().hash, base, "deterministic")
        XCTAssertNotEqual(graphKey(k: 9).hash, base, "parameter value")
        XCTAssertNotEqual(graphKey(input: "points!").hash, base, "input content")
        XCTAssertNotEqual(graphKey(version: PropagateStage.definition.version + 1).hash, base, "stage version")
        XCTAssertEqual(graphKey(path: "/elsewhere/projected.rsa").hash, base, "where the input lies does not matter")
        var format = graphKey()
        format.formatVersion += 1
        XCTAssertNotEqual(format.hash, base, "artifact format version")
        var renamed = graphKey()
        renamed.inputs[0].name = "scores"
        XCTAssertNotEqual(renamed.hash, base, "which port the content arrives on")
        // Parameter order is irrelevant: the canonical form sorts keys.
        let reordered = StageKey(
            stage: PropagateStage.definition,
            parameters: Parameters(values: [("alpha", .number(0.8)), ("keywords", .array([.string("cafe")]))]),
            inputs: graphKey().inputs)
        XCTAssertEqual(reordered.hash, base)
    }

    func testRawInputOptionsCountButNotThePath() {
        func key(_ spec: JSONValue, content: String = "id,lon,lat\n") -> ContentHash {
            StageKey(
                stage: IngestStage.definition, parameters: Parameters(values: []),
                inputs: [
                    .init(
                        name: "inputs[0]", producer: nil, path: spec["path"]?.stringValue ?? "",
                        digest: digest(content),
                        options: StageKey.inputOptions(spec))
                ]
            ).hash
        }
        let a = key(.object([("path", .string("/a/pois.csv")), ("format", .string("csv"))]))
        XCTAssertEqual(
            key(.object([("path", .string("/b/pois.csv")), ("format", .string("csv"))])), a,
            "the directory does not count")
        XCTAssertNotEqual(
            key(.object([("path", .string("/a/copy.csv")), ("format", .string("csv"))])), a,
            "the file name does: it is recorded in the outputs' provenance")
        XCTAssertNotEqual(
            key(.object([("path", .string("/a/pois.csv")), ("format", .string("csv")), ("header", .bool(true))])), a)
        XCTAssertNotEqual(
            key(
                .object([("path", .string("/a/pois.csv")), ("format", .string("csv"))]), content: "id,lon,lat\n1,2,3\n"),
            a)
        XCTAssertEqual(
            StageKey.inputOptions(
                .object([("path", .string("/a")), ("format", .string("csv")), ("delimiter", .string(";"))])),
            .object([("format", .string("csv")), ("delimiter", .string(";"))]))
    }

    func testTheBuildOfTheStageExecutableCounts() throws {
        var other = graphKey()
        other.build = "xxh128:0123"
        XCTAssertNotEqual(other.hash, graphKey().hash)
        XCTAssertEqual(
            StagePlanner.differences(from: graphKey(), to: other),
            ["another build of regionsearch-propagate (executable changed)"])
        // The identity is the executable's content: the same bytes anywhere, other bytes otherwise.
        let dir = TestSupport.temporaryDirectory()
        let copy = TestSupport.temporaryDirectory()
        for d in [dir, copy] {
            try "#!/bin/sh\n".write(toFile: d + "/regionsearch-graph", atomically: true, encoding: .utf8)
        }
        let a = BuildIdentity(toolDirectory: dir).of(GraphStage.definition)
        XCTAssertTrue(a.hasPrefix("xxh128:"), a)
        XCTAssertEqual(BuildIdentity(toolDirectory: copy).of(GraphStage.definition), a)
        try "#!/bin/sh\n#\n".write(toFile: copy + "/regionsearch-graph", atomically: true, encoding: .utf8)
        XCTAssertNotEqual(BuildIdentity(toolDirectory: copy).of(GraphStage.definition), a)
        XCTAssertEqual(BuildIdentity(toolDirectory: dir + "/none").of(GraphStage.definition), "missing")
        // Records keep it, so a record's key is rebuilt with it.
        let record = StageRecord(
            key: other, succeeded: true, outputs: [], started: "", finished: "", seconds: 0, threads: nil,
            summary: StageSummary(stage: "propagate"))
        let reread = try StageRecord(json: record.json, path: "x")
        XCTAssertEqual(reread.key.hash, other.hash)
    }

    /// A run remembers the executables' identities in its work directory and a later run takes
    /// them from there without reading the executables — until a file is rewritten in place
    /// (same size) or replaced; a damaged store is ignored. Every identity taken from the store
    /// equals the one hashing gives.
    func testBuildIdentitiesAreRememberedByFileSignature() throws {
        let dir = TestSupport.temporaryDirectory()
        let work = TestSupport.temporaryDirectory()
        defer {
            try? FileManager.default.removeItem(atPath: dir)
            try? FileManager.default.removeItem(atPath: work)
        }
        let store = work + "/" + BuildIdentity.storeName
        let tool = dir + "/regionsearch-graph"
        try "#!/bin/sh\necho one\n".write(toFile: tool, atomically: true, encoding: .utf8)
        usleep(30_000)  // past the coarse clock tick of the write
        let first = BuildIdentity(toolDirectory: dir, store: store)
        let identity = first.of(GraphStage.definition)
        XCTAssertEqual(identity, BuildIdentity(toolDirectory: dir).of(GraphStage.definition))
        XCTAssertEqual(first.hashed, 1)
        XCTAssertTrue(FileManager.default.fileExists(atPath: store))
        let second = BuildIdentity(toolDirectory: dir, store: store)
        XCTAssertEqual(second.of(GraphStage.definition), identity)
        XCTAssertEqual(second.hashed, 0, "an unchanged executable is not read again")

        // Rewritten in place, same size, other bytes: hashed again, another identity.
        let fd = open(tool, O_WRONLY)
        XCTAssertEqual(pwrite(fd, "t", 1, 15), 1)
        close(fd)
        let third = BuildIdentity(toolDirectory: dir, store: store)
        let rewritten = third.of(GraphStage.definition)
        XCTAssertEqual(third.hashed, 1)
        XCTAssertNotEqual(rewritten, identity)
        XCTAssertEqual(rewritten, BuildIdentity(toolDirectory: dir).of(GraphStage.definition))

        // Replaced by a file with the original bytes (another inode): hashed again, the first
        // identity again, and remembered for the run after.
        try "#!/bin/sh\necho one\n".write(toFile: dir + "/new", atomically: false, encoding: .utf8)
        XCTAssertEqual(rename(dir + "/new", tool), 0)
        usleep(30_000)
        let replaced = BuildIdentity(toolDirectory: dir, store: store)
        XCTAssertEqual(replaced.of(GraphStage.definition), identity)
        XCTAssertEqual(replaced.hashed, 1)
        let after = BuildIdentity(toolDirectory: dir, store: store)
        XCTAssertEqual(after.of(GraphStage.definition), identity)
        XCTAssertEqual(after.hashed, 0)

        // A damaged store is ignored.
        try "{\"version\": 1, \"executables\": {\"\(tool)\": {\"identity\": 7".write(
            toFile: store, atomically: true, encoding: .utf8)
        let afterDamage = BuildIdentity(toolDirectory: dir, store: store)
        XCTAssertEqual(afterDamage.of(GraphStage.definition), identity)
        XCTAssertEqual(afterDamage.hashed, 1)
    }

    func testDifferencesNameWhatChanged() {
        var old = graphKey()
        var new = graphKey(k: 9, input: "other")
        let version = PropagateStage.definition.version
        new.stageVersion = version + 2
        XCTAssertEqual(
            StagePlanner.differences(from: old, to: new),
            [
                "stage version \(version) → \(version + 2)",
                "parameter propagate.alpha: 0.8 → 0.9",
                "input graph (projected.rsa from graph) changed",
            ])
        old.inputs.append(.init(name: "inputs[1]", producer: nil, path: "/d/b.csv", digest: digest("b")))
        new = old
        new.inputs[1].digest = digest("c")
        new.inputs[1].options = .object([("format", .string("csv"))])
        XCTAssertEqual(
            StagePlanner.differences(from: old, to: new),
            [
                "input file inputs[1] (/d/b.csv) changed: \(digest("b")) → \(digest("c"))",
                #"options of inputs[1] changed: null → {"format":"csv"}"#,
            ])
        new.inputs.removeLast()
        XCTAssertEqual(StagePlanner.differences(from: old, to: new), ["input inputs[1] removed (was /d/b.csv)"])
        XCTAssertEqual(StagePlanner.differences(from: new, to: old), ["input inputs[1] added (/d/b.csv)"])
        XCTAssertEqual(
            StagePlanner.parameterDifferences(
                stage: "hulls", from: .object([("margin_m", .null), ("hull", .string("convex"))]),
                to: .object([("margin_m", .number(5)), ("hull", .string("convex")), ("extra", .bool(true))])),
            ["parameter hulls.extra: (none) → true", "parameter hulls.margin_m: null → 5"])
    }

    func testRecordRoundTrip() throws {
        var key = graphKey()
        key.inputs.append(
            .init(
                name: "inputs[0]", producer: nil, path: "/data/a.csv", digest: digest("a"),
                options: .object([("format", .string("csv"))])))
        let record = StageRecord(
            key: key, succeeded: true,
            outputs: [.init(name: "output", file: "scores.rsa", digest: digest("scores"))],
            started: "2025-01-01T00:00:00.000Z", finished: "2025-01-01T00:00:01.500Z", seconds: 1.5, threads: 4,
            summary: StageSummary(
                json: .object([("stage", .string("propagate")), ("counts", .object([("iterations", .number(52))]))])))
        let dir = TestSupport.temporaryDirectory()
        let path = dir + "/r.json"
        try record.write(to: path)
        let loaded = try XCTUnwrap(try StageRecord.load(path))
        XCTAssertEqual(loaded.key, record.key)
        XCTAssertEqual(loaded.keyHash, key.hash)
        XCTAssertEqual(loaded.outputs, record.outputs)
        XCTAssertTrue(loaded.succeeded)
        XCTAssertEqual(loaded.threads, 4)
        XCTAssertEqual(loaded.seconds, 1.5)
        XCTAssertEqual(loaded.summary, record.summary)
        XCTAssertEqual(loaded.json, record.json)
        XCTAssertNil(try StageRecord.load(dir + "/none.json"))
        try "{\"stage\": 1}".write(toFile: path, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try StageRecord.load(path)) { error in
            XCTAssertEqual("\(error)", "\(path): unusable run record (missing or malformed members)")
        }
    }

    func testRunStateRoundTrip() throws {
        var state = RunState(manifest: "/p/m.json", name: "m", options: .object([("force", .bool(true))]))
        state["graph"].status = .failed
        state["graph"].key = graphKey().hash
        state["graph"].error = "stage graph failed"
        state["ingest"].status = .ran
        state["ingest"].seconds = 0.25
        state.output = ("/o.geojson", digest("geo"))
        let dir = TestSupport.temporaryDirectory()
        let work = WorkDirectory(path: dir)
        try state.write(work)
        let loaded = try XCTUnwrap(RunState.load(work))
        XCTAssertEqual(loaded.json, state.json)
        XCTAssertEqual(loaded["graph"].status, .failed)
        XCTAssertEqual(loaded["ingest"].seconds, 0.25)
        XCTAssertEqual(loaded.stages.map { $0.stage }, Pipeline.stages.map { $0.name })
    }

    func testStageCommandLines() {
        let propagate = StageCommand.arguments(
            stage: PropagateStage.definition,
            parameters: Parameters(values: [
                ("keywords", .array([.string("cafe"), .string("咖啡")])), ("alpha", .number(0.85)),
                ("tolerance", .number(1e-6)), ("max_iterations", .number(1000)),
                ("solver", .string("jacobi")),
            ]),
            inputPaths: ["/w/p.rsa", "/w/x.rsa", "/w/g.rsa"], rawInputs: [], outputDirectory: "/w/stage",
            threads: 2, quiet: true)
        XCTAssertEqual(
            propagate,
            [
                "--pois", "/w/p.rsa", "--projected", "/w/x.rsa", "--graph", "/w/g.rsa", "--output",
                "/w/stage/scores.rsa",
                "--keywords", "cafe", "--keywords", "咖啡", "--alpha", "0.85", "--tolerance", "1e-06", "--max-iterations",
                "1000",
                "--solver", "jacobi", "--summary", "/w/stage/.summary.json", "--no-sync", "--threads", "2",
                "--quiet",
            ])
        // Every value survives the round trip through the stage's own option parser (parameters
        // not given, density_alpha, density_tolerance, densities and scores, parse as their defaults).
        let parsed = try? PropagateStage.definition.commandSpec().parse(propagate).parameters()
        XCTAssertEqual(
            parsed?.canonical,
            Parameters(values: [
                ("keywords", .array([.string("cafe"), .string("咖啡")])), ("alpha", .number(0.85)),
                ("density_alpha", .number(PropagationOptions.defaultDensityAlpha)), ("densities", .bool(true)),
                ("density_tolerance", .number(PropagationOptions.defaultDensityTolerance)),
                ("tolerance", .number(1e-6)), ("max_iterations", .number(1000)), ("solver", .string("jacobi")),
                ("scores", .bool(true)),
            ]).canonical)
        let ingest = StageCommand.arguments(
            stage: IngestStage.definition, parameters: Parameters(values: []), inputPaths: [],
            rawInputs: [.object([("path", .string("/d/a.csv")), ("format", .string("csv"))])],
            outputDirectory: "/w/s", threads: nil, quiet: false)
        XCTAssertEqual(
            Array(ingest.prefix(6)),
            [
                "--input-spec", #"{"path":"/d/a.csv","format":"csv"}"#, "--output", "/w/s/pois.rsa", "--rejects",
                "/w/s/rejects.txt",
            ])
        XCTAssertEqual(Array(ingest.suffix(3)), ["--summary", "/w/s/.summary.json", "--no-sync"])
    }
}
