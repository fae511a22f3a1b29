import Foundation
import XCTest

@testable import RegionSearchCore
@testable import RegionSearchStages
@testable import RegionSearchTiles

/// A tiled run (`regionsearch plan`, then every `regionsearch tile` step as the workflow jobs run
/// them, no engine) writes exactly the single run's bytes: every object in the work directory
/// (same keys, same files) and the GeoJSON — for 1, 2, 7 and 16 tiles, α 0.8 / 0.9 / 0.95, both
/// graph methods, stacked points, a near-lattice, worldwide data across the antimeridian, and a
/// first halo too small to certify anything.
final class TiledRunEndToEndTests: XCTestCase {
    /// CSV text of `points` (lon, lat, category), ids in order.
    private static func csv(_ points: [(Double, Double, String)]) -> String {
        var out = "id,name,category,lon,lat\n"
        for (i, p) in points.enumerated() {
            out += "\(i + 1),poi \(i + 1),\(p.2),\(String(format: "%.7f", p.0)),\(String(format: "%.7f", p.1))\n"
        }
        return out
    }

    /// A city around Helsinki: uniform background, dense cafe and bank blobs, a river band with no
    /// POIs, and stacked points (several POIs at one address).
    static let city: String = {
        var rng = SeededRandom(seed: 99)
        var p: [(Double, Double, String)] = []
        let categories = ["shop", "office", "restaurant", "school"]
        for i in 0..<4_000 {
            var lat = 60.15 + rng.uniform(0, 0.06)
            let lon = 24.90 + rng.uniform(0, 0.12)
            if abs(lat - 60.18) < 0.002 { lat += 0.005 }  // the river
            p.append((lon, lat, categories[i % 4]))
        }
        for (clon, clat, kw, n) in [
            (24.94, 60.17, "cafe", 300), (24.99, 60.20, "cafe", 200), (24.96, 60.16, "bank", 150),
        ] {
            for _ in 0..<n { p.append((clon + 0.002 * rng.normal(), clat + 0.001 * rng.normal(), kw)) }
        }
        for s in 0..<60 {
            let base = p[s * 37]
            for k in 0..<(2 + s % 5) { p.append((base.0, base.1, k % 2 == 0 ? "cafe" : "office")) }
        }
        return csv(p)
    }()

    /// Worldwide points, with dense clusters on both sides of the antimeridian (Fiji) and in the
    /// far north (Equal Earth).
    static let world: String = {
        var rng = SeededRandom(seed: 5)
        var p: [(Double, Double, String)] = []
        for i in 0..<2_500 {
            p.append((rng.uniform(-180, 180), rng.uniform(-60, 75), i % 3 == 0 ? "airport" : "town"))
        }
        for (clon, clat, n) in [(179.7, -17.5, 250), (-179.8, -16.8, 250), (-150.0, 61.0, 200)] {
            for _ in 0..<n {
                var lon = clon + 0.6 * rng.normal()
                if lon > 180 { lon -= 360 }
                if lon < -180 { lon += 360 }
                p.append((lon, clat + 0.4 * rng.normal(), "heliport"))
            }
        }
        return csv(p)
    }()

    /// A regular grid in degrees (nearly cocircular after projection), with keyword rows.
    static let grid: String = {
        var p: [(Double, Double, String)] = []
        for r in 0..<60 {
            for c in 0..<60 {
                // Two 8 × 8 blocks of cafés among 3,600 points: dense for the keyword.
                let block = (r / 8, c / 8)
                let cafe = block == (2, 2) || block == (5, 4)
                p.append((24.9 + Double(c) * 0.001, 60.15 + Double(r) * 0.0005, cafe ? "cafe" : "shop"))
            }
        }
        return csv(p)
    }()

    private func fixture(_ csv: String, keywords: [String], sections: [(String, JSONValue)]) throws -> PipelineFixture {
        let f = try PipelineFixture()
        try csv.write(toFile: f.csvPath, atomically: true, encoding: .utf8)
        try f.writeManifest(sections: sections + [("maps", .bool(false))], keywords: keywords)
        return f
    }

    /// Runs the data once as a single run and once tiled, and compares every byte.
    @discardableResult
    private func assertTiledEqualsSingle(
        _ csv: String, keywords: [String], sections: [(String, JSONValue)] = [], tiles: Int, halo: Int = 1,
        pointsPerCell: Int = 256, label: String, file: StaticString = #filePath, line: UInt = #line
    ) throws -> (plan: String, tiled: PipelineFixture) {
        let single = try fixture(csv, keywords: keywords, sections: sections)
        let tiled = try fixture(csv, keywords: keywords, sections: sections)
        defer { single.remove() }
        let r = try single.run()
        XCTAssertEqual(r.status, 0, "\(label): single run: \(r.output)", file: file, line: line)
        let dir = tiled.root + "/wf"
        let plan = dir + "/plan.json"
        var steps: [[String]] = [
            [
                "plan", tiled.manifestPath, "--tiles", String(tiles), "--emit", "snakefile", dir, "--halo-cells",
                String(halo), "--points-per-cell", String(pointsPerCell),
            ],
            ["tile", "prepare", "--plan", plan],
        ]
        steps += (0..<tiles).map { ["tile", "graph", "--plan", plan, "--tile", String($0)] }
        steps.append(["tile", "gather-graph", "--plan", plan])
        steps += (0..<tiles).map { ["tile", "propagate", "--plan", plan, "--tile", String($0)] }
        steps.append(["tile", "finish", "--plan", plan])
        for step in steps {
            let s = try tiled.tool(step + ["--threads", "2"].filter { _ in step[0] == "tile" })
            XCTAssertEqual(s.status, 0, "\(label): \(step.joined(separator: " ")): \(s.output)", file: file, line: line)
            if s.status != 0 { return (plan, tiled) }
        }
        let a = try single.objectFiles()
        let b = try tiled.objectFiles()
        XCTAssertEqual(a.keys.sorted(), b.keys.sorted(), "\(label): the same stage keys", file: file, line: line)
        for (name, bytes) in a where b[name] != bytes {
            XCTFail("\(label): \(name) differs", file: file, line: line)
        }
        XCTAssertEqual(try single.output(), try tiled.output(), "\(label): GeoJSON", file: file, line: line)
        XCTAssertNotNil(
            try tiled.output().range(of: Data("Polygon".utf8)), "\(label): no region at all (the test would be weak)",
            file: file, line: line)
        // A single run on the tiled work directory finds everything up to date.
        let status = try tiled.tool(["status", tiled.manifestPath, "--check"])
        XCTAssertEqual(status.status, 0, "\(label): not up to date after the tiled run", file: file, line: line)
        return (plan, tiled)
    }

    func testCityInTilesForEveryAlphaAndMethod() throws {
        let kw = ["cafe", "bank"]
        try assertTiledEqualsSingle(Self.city, keywords: kw, tiles: 1, label: "1 tile").tiled.remove()
        try assertTiledEqualsSingle(
            Self.city, keywords: kw,
            sections: [("propagate", .object([("alpha", .number(0.8)), ("solver", .string("jacobi"))]))], tiles: 2,
            label: "2 tiles, α 0.8, Jacobi"
        ).tiled.remove()
        try assertTiledEqualsSingle(
            Self.city, keywords: kw,
            sections: [
                ("graph", .object([("method", .string("knn"))])), ("regions", .object([("measure", .string("lift"))])),
            ], tiles: 7, label: "7 tiles, kNN, lift"
        ).tiled.remove()
        try assertTiledEqualsSingle(
            Self.city, keywords: kw,
            sections: [("propagate", .object([("alpha", .number(0.95))]))], tiles: 16, label: "16 tiles, α 0.95"
        ).tiled.remove()
    }

    /// The nested levels are cut from the keyword densities, which only a nested run propagates:
    /// the tiles' windows and parts carry them (and the levels) byte for byte as a single run.
    func testNestedLevelsInTiles() throws {
        let (_, tiled) = try assertTiledEqualsSingle(
            // Level 0 cut from the propagated densities: the fixture then nests (its own-density level
            // 0 has no finer level inside), which is what this test needs to see written.
            Self.city, keywords: ["cafe", "bank"],
            sections: [("regions", .object([("nested", .bool(true)), ("level0", .string("propagated"))]))],
            tiles: 3, label: "3 tiles, nested levels")
        defer { tiled.remove() }
        let file = try ArtifactFile(path: try tiled.objectPath("propagate", "scores.rsa"), expected: .scores)
        XCTAssertTrue(file.hasColumn("density.0") && file.hasColumn("density.1"), "densities propagated")
    }

    func testWorldAcrossTheAntimeridianAndANearLattice() throws {
        try assertTiledEqualsSingle(Self.world, keywords: ["heliport", "airport"], tiles: 4, label: "world")
            .tiled.remove()
        try assertTiledEqualsSingle(
            Self.world, keywords: ["heliport"],
            sections: [
                ("graph", .object([("method", .string("knn"))])), ("propagate", .object([("alpha", .number(0.95))])),
            ],
            tiles: 7, label: "world, kNN, α 0.95"
        ).tiled.remove()
        try assertTiledEqualsSingle(Self.grid, keywords: ["cafe"], tiles: 4, label: "grid").tiled.remove()
    }

    /// With no halo and a fine grid, no tile can certify its first window; every tile grows and
    /// the bytes are still the single run's.
    func testASmallFirstHaloGrows() throws {
        let (plan, tiled) = try assertTiledEqualsSingle(
            Self.city, keywords: ["cafe"], tiles: 4, halo: 0, pointsPerCell: 16, label: "halo 0")
        defer { tiled.remove() }
        let dir = (plan as NSString).deletingLastPathComponent + "/graph"
        var rounds: [Int] = []
        for t in 0..<4 {
            let part = try ArtifactFile(path: TileArtifacts.graphPart(dir, t), expected: .graph)
            rounds.append(part.metadata["tile_part"]?["loaded_per_round"]?.arrayValue?.count ?? 0)
        }
        XCTAssertTrue(rounds.allSatisfy { $0 >= 2 }, "every tile should have grown its window: \(rounds)")
    }

    /// Parts made from other data or parameters are refused by the gather, naming the part and
    /// what to rerun.
    func testStalePartsAreRefused() throws {
        let (plan, tiled) = try assertTiledEqualsSingle(Self.grid, keywords: ["cafe"], tiles: 2, label: "grid, 2")
        defer { tiled.remove() }
        // Another graph parameter: the graph stage reruns, gathers the old parts, and must refuse.
        try tiled.writeManifest(
            sections: [("maps", .bool(false)), ("graph", .object([("prune_factor", .number(3))]))], keywords: ["cafe"])
        let r = try tiled.tool(["tile", "gather-graph", "--plan", plan])
        XCTAssertNotEqual(r.status, 0)
        XCTAssertTrue(r.output.contains("graph-part-0000.rsa"), r.output)
        XCTAssertTrue(r.output.contains("other parameters"), r.output)
        XCTAssertTrue(r.output.contains("rerun the tile jobs"), r.output)
        // A workflow's step resumes by rerunning the workflow, not by a single run.
        XCTAssertTrue(r.output.contains("rerun the workflow (snakemake reruns the gather-graph step"), r.output)
        XCTAssertFalse(r.output.contains("'regionsearch run' resumes"), r.output)

        // A damaged part (a byte flipped after its tile job ran): the advice had been to rerun the
        // stage that writes it, which a workflow never does while the part exists.
        try tiled.writeManifest(sections: [("maps", .bool(false))], keywords: ["cafe"])
        // The graph stage's result gone, so that the gather reads the parts again.
        for folder in [tiled.workPath + "/objects", tiled.workPath + "/records"] {
            for name in try FileManager.default.contentsOfDirectory(atPath: folder) where name.hasPrefix("graph-") {
                try FileManager.default.removeItem(atPath: folder + "/" + name)
            }
        }
        let part = tiled.root + "/wf/graph/graph-part-0001.rsa"
        let handle = try XCTUnwrap(FileHandle(forUpdatingAtPath: part))
        try handle.seek(toOffset: 100)
        let byte = try XCTUnwrap(handle.readData(ofLength: 1).first)
        try handle.seek(toOffset: 100)
        handle.write(Data([byte ^ 0x55]))
        try handle.close()
        let damaged = try tiled.tool(["tile", "gather-graph", "--plan", plan])
        XCTAssertEqual(damaged.status, 4, damaged.output)
        XCTAssertTrue(damaged.output.contains("graph-part-0001.rsa"), damaged.output)
        XCTAssertTrue(
            damaged.output.contains("this tile part is damaged: delete it and rerun the workflow"), damaged.output)
        XCTAssertFalse(damaged.output.contains("regionsearch run redoes it"), damaged.output)
    }

    /// What killed tile jobs left beside their parts (`.graph-part-0000.rsa.tmp-<pid>-<n>`, up to
    /// a part's size each) is removed when the step writes its part again; a file of another
    /// form stays. They stayed for good: only `submit.sh --fresh` removed them.
    func testATileStepRemovesWhatKilledRunsOfItLeft() throws {
        let (plan, tiled) = try assertTiledEqualsSingle(Self.grid, keywords: ["cafe"], tiles: 2, label: "grid, 2")
        defer { tiled.remove() }
        let dir = tiled.root + "/wf"
        let graph = dir + "/graph/graph-part-0000.rsa"
        let scores = dir + "/propagate/scores-part-0000.rsa"
        let leftovers = [
            dir + "/graph/.graph-part-0000.rsa.tmp-2147483000-0", dir + "/graph/.graph-part-0000.rsa.tmp-2147482999-3",
            dir + "/propagate/.scores-part-0000.rsa.tmp-2147483000-0",
        ]
        // Another form, and a temporary of a process that still runs (this one).
        let kept = dir + "/graph/.graph-part-0000.rsa.tmp-notes"
        let live = dir + "/graph/.graph-part-0000.rsa.tmp-\(getpid())-0"
        for path in leftovers + [kept, live] {
            XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data("x".utf8)))
        }
        let before = try [graph, scores].map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
        for step in [["graph"], ["propagate"]] {
            let r = try tiled.tool(["tile"] + step + ["--plan", plan, "--tile", "0"])
            XCTAssertEqual(r.status, 0, r.output)
        }
        for path in leftovers { XCTAssertFalse(FileManager.default.fileExists(atPath: path), path) }
        XCTAssertTrue(FileManager.default.fileExists(atPath: kept))
        XCTAssertTrue(FileManager.default.fileExists(atPath: live), "a running process's temporary")
        XCTAssertEqual(try [graph, scores].map { try Data(contentsOf: URL(fileURLWithPath: $0)) }, before)
    }

    /// `submit.sh --fresh` ran `rm -rf state graph propagate` in whatever folder was planned into:
    /// a folder of the user's with those subfolders lost its files. A folder whose step folders
    /// hold anything the steps do not write is refused, and --fresh removes the steps' files only.
    func testAPlanNeverTakesAUsersFolderAndFreshRemovesOnlyTheStepsFiles() throws {
        let f = try fixture(Self.grid, keywords: ["cafe"], sections: [])
        defer { f.remove() }
        let dir = f.root + "/proj"
        let fm = FileManager.default
        func write(_ relative: String) throws {
            try fm.createDirectory(
                atPath: ((dir + "/" + relative) as NSString).deletingLastPathComponent,
                withIntermediateDirectories: true)
            try Data("x".utf8).write(to: URL(fileURLWithPath: dir + "/" + relative))
        }
        try write("graph/figure1.txt")
        try write("state/notes.md")
        let refused = try f.tool(["plan", f.manifestPath, "--tiles", "2", "--emit", "sbatch", dir])
        XCTAssertEqual(refused.status, 2, refused.output)
        XCTAssertTrue(refused.output.contains("holds files a plan's steps do not write"), refused.output)
        XCTAssertTrue(refused.output.contains("graph/figure1.txt"), refused.output)
        XCTAssertFalse(fm.fileExists(atPath: dir + "/submit.sh"))

        // A user's own file of a workflow file's name is not written over (it was, exit 0).
        try fm.removeItem(atPath: dir)
        try write("submit.sh")
        let mine = try f.tool(["plan", f.manifestPath, "--tiles", "2", "--emit", "sbatch", dir])
        XCTAssertEqual(mine.status, 2, mine.output)
        XCTAssertTrue(mine.output.contains("submit.sh is not a file 'regionsearch plan' wrote"), mine.output)
        XCTAssertEqual(try String(contentsOfFile: dir + "/submit.sh", encoding: .utf8), "x")

        try fm.removeItem(atPath: dir)
        XCTAssertEqual(try f.tool(["plan", f.manifestPath, "--tiles", "2", "--emit", "sbatch", dir]).status, 0)
        // Planned again into its own folder: its own files are written over.
        XCTAssertEqual(try f.tool(["plan", f.manifestPath, "--tiles", "2", "--emit", "sbatch", dir]).status, 0)
        let steps = [
            "state/prepared.json", "state/graph.json", "state/finished.json", "state/inputs.json",
            "graph/graph-part-0000.rsa", "graph/.graph-part-0001.rsa.tmp-123-4", "propagate/window-0001.rsa",
            "propagate/scores-part-0000.rsa",
        ]
        let users = ["graph/figure1.txt", "notes.txt", "logs/mine.log", "propagate/README"]
        for file in steps { try write(file) }
        // Planned again over the steps' own files: accepted.
        let again = try f.tool(["plan", f.manifestPath, "--tiles", "2", "--emit", "sbatch", dir])
        XCTAssertEqual(again.status, 0, again.output)
        for file in users { try write(file) }
        // A stand-in for sbatch that only prints a job id.
        let bin = f.root + "/bin"
        try fm.createDirectory(atPath: bin, withIntermediateDirectories: true)
        try "#!/bin/sh\necho 123\n".write(toFile: bin + "/sbatch", atomically: true, encoding: .utf8)
        chmod(bin + "/sbatch", 0o755)
        let fresh = try ChildProcess(
            executable: "/bin/bash", arguments: [dir + "/submit.sh", "--fresh"],
            environment: PipelineFixture.environment(adding: [
                "PATH": bin + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
            ]), output: .file(f.root + "/fresh.log")
        ).wait()
        XCTAssertTrue(fresh.succeeded, (try? String(contentsOfFile: f.root + "/fresh.log", encoding: .utf8)) ?? "")
        for file in steps { XCTAssertFalse(fm.fileExists(atPath: dir + "/" + file), file) }
        for file in users { XCTAssertTrue(fm.fileExists(atPath: dir + "/" + file), file) }
    }

    /// The plan's engine files: a Snakefile with one rule per step and the Slurm profile with the
    /// squeue status check, or sbatch scripts chained by afterok that bash accepts.
    func testPlanWritesTheEngineFiles() throws {
        let f = try fixture(Self.grid, keywords: ["cafe"], sections: [])
        defer { f.remove() }
        let dir = f.root + "/wf"
        XCTAssertEqual(try f.tool(["plan", f.manifestPath, "--tiles", "3", "--emit", "snakefile", dir]).status, 0)
        let snakefile = try String(contentsOfFile: dir + "/Snakefile", encoding: .utf8)
        for rule in ["rule all:", "rule prepare:", "rule graph_tile:", "rule gather_graph:", "rule propagate_tile:"] {
            XCTAssertTrue(snakefile.contains(rule), rule)
        }
        XCTAssertTrue(snakefile.contains("TILES = [\"0000\", \"0001\", \"0002\"]"))
        let profile = try String(contentsOfFile: dir + "/profiles/slurm/config.yaml", encoding: .utf8)
        XCTAssertTrue(profile.contains("executor: slurm"))
        XCTAssertTrue(profile.contains("slurm-status-command: squeue"))
        XCTAssertTrue(profile.contains("  graph_tile:\n    mem_mb: "))
        XCTAssertEqual(try f.tool(["plan", f.manifestPath, "--tiles", "auto", "--emit", "sbatch", dir]).status, 0)
        let submit = try String(contentsOfFile: dir + "/submit.sh", encoding: .utf8)
        XCTAssertTrue(submit.contains("--dependency=afterok:"))
        XCTAssertTrue(submit.contains("--kill-on-invalid-dep=yes"))
        XCTAssertTrue(submit.contains("--array=\"$tiles\""))
        for script in ["submit.sh", "sbatch/graph.sbatch", "sbatch/finish.sbatch"] {
            let check = try ChildProcess.run("/bin/bash", ["-n", dir + "/" + script])
            XCTAssertTrue(check.succeeded, script)
        }
        let graphJob = try String(contentsOfFile: dir + "/sbatch/graph.sbatch", encoding: .utf8)
        XCTAssertTrue(graphJob.contains("#SBATCH --mem="))
        XCTAssertTrue(graphJob.contains("--tile \"$SLURM_ARRAY_TASK_ID\""))
        // auto: one tile for 3,600 POIs.
        XCTAssertEqual(try TilePlan.load(dir + "/plan.json").tiles, 1)
        // Experiment manifests and bad options are refused with status 2.
        XCTAssertEqual(try f.tool(["plan", f.manifestPath, "--tiles", "0", "--emit", "sbatch", dir]).status, 2)
        XCTAssertEqual(try f.tool(["plan", f.manifestPath, "--tiles", "2", "--emit", "make", dir]).status, 2)
        XCTAssertEqual(try f.tool(["tile", "graph", "--plan", dir + "/plan.json"]).status, 2)
        // A manifest given as the plan is named as a manifest (it read as a plan of another version).
        let manifestAsPlan = try f.tool(["tile", "prepare", "--plan", f.manifestPath])
        XCTAssertEqual(manifestAsPlan.status, 2, manifestAsPlan.output)
        XCTAssertTrue(manifestAsPlan.output.contains("is a manifest, not a plan"), manifestAsPlan.output)
        // A plan edited beyond what 'regionsearch plan' writes is refused as it is read.
        let planText = try String(contentsOfFile: dir + "/plan.json", encoding: .utf8)
        let edited = planText.replacingOccurrences(
            of: #""tiles": 1"#, with: #""tiles": 5000"#, options: [], range: nil)
        XCTAssertNotEqual(edited, planText)
        try edited.write(toFile: dir + "/plan.json", atomically: true, encoding: .utf8)
        let tooMany = try f.tool(["tile", "graph", "--plan", dir + "/plan.json", "--tile", "0"])
        XCTAssertEqual(tooMany.status, 2, tooMany.output)
        XCTAssertTrue(tooMany.output.contains("expected tiles in [1, 4096]"), tooMany.output)
        try planText.write(toFile: dir + "/plan.json", atomically: true, encoding: .utf8)
        // The workflow files never replace the manifest or an input, nor go into the work directory.
        let manifest = f.root + "/wf/plan.json"
        try FileManager.default.removeItem(atPath: manifest)
        try FileManager.default.copyItem(atPath: f.manifestPath, toPath: manifest)
        let before = try Data(contentsOf: URL(fileURLWithPath: manifest))
        let places = [("sbatch", dir), ("snakefile", f.work.objects + "/wf"), ("snakefile", f.workPath + "/wf")]
        for (emit, into) in places {
            let r = try f.tool(["plan", manifest, "--tiles", "2", "--emit", emit, into])
            XCTAssertEqual(r.status, 2, r.output)
            XCTAssertTrue(r.output.contains("choose another directory for the plan"), r.output)
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: manifest)), before)
        XCTAssertFalse(FileManager.default.fileExists(atPath: f.workPath + "/wf"), "no plan in the work directory")
    }

    /// A plan folder inside the manifest's work directory is refused (exit 2) however either is
    /// spelt — here the work directory through a link to its parent — and whether the work
    /// directory exists yet or not: a plan there made the work directory a folder of other files,
    /// which the first run then refused as not a work directory.
    func testPlanRefusesAPlanFolderInsideTheWorkDirectoryThroughALink() throws {
        let f = try fixture(Self.grid, keywords: ["cafe"], sections: [])
        defer { f.remove() }
        try FileManager.default.createDirectory(atPath: f.root + "/real", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: f.root + "/link", withDestinationPath: "real")
        let text = try String(contentsOfFile: f.manifestPath, encoding: .utf8)
            .replacingOccurrences(of: "\"../work\"", with: "\"../link/work\"")
        try text.write(toFile: f.manifestPath, atomically: true, encoding: .utf8)
        for exists in [false, true] {
            if exists {
                try FileManager.default.createDirectory(
                    atPath: f.root + "/real/work", withIntermediateDirectories: true)
            }
            for into in [f.root + "/real/work/wf", f.root + "/link/work/wf", f.root + "/real/work"] {
                let r = try f.tool(["plan", f.manifestPath, "--tiles", "2", "--emit", "snakefile", into])
                let label = "\(into) (work directory \(exists ? "exists" : "does not exist"))"
                XCTAssertEqual(r.status, 2, "\(label): \(r.output)")
                XCTAssertTrue(r.output.contains("is inside the work directory"), "\(label): \(r.output)")
                XCTAssertTrue(r.output.contains("outside it (e.g. beside the output: out/wf)"), "\(label): \(r.output)")
            }
            let real = try FileManager.default.contentsOfDirectory(atPath: f.root + "/real")
            XCTAssertEqual(real, exists ? ["work"] : [], "nothing written")
            if exists { XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: f.root + "/real/work"), []) }
        }
        // Beside it is fine, and the first run then takes the (empty) work directory.
        XCTAssertEqual(
            try f.tool(["plan", f.manifestPath, "--tiles", "2", "--emit", "snakefile", f.root + "/real/wf"]).status, 0)
    }

    /// Issue 21, findings 1–3: a path with a control character is refused by `plan` (exit 2) with
    /// the character shown escaped — the message never carries the raw CR — and a path with
    /// quotes, `$( )` and a space is written, with no path in the Snakefile's text.
    func testPlanRefusesControlCharactersAndKeepsPathsOutOfTheSnakefile() throws {
        let f = try fixture(Self.grid, keywords: ["cafe"], sections: [])
        defer { f.remove() }
        let bad = f.root + "/wf\\\r__import__('os').system('touch " + f.root + "/pwned')#"
        let r = try f.tool(["plan", f.manifestPath, "--tiles", "2", "--emit", "snakefile", bad])
        XCTAssertEqual(r.status, 2, r.output)
        XCTAssertFalse(r.output.contains("\r"), r.output)
        XCTAssertTrue(r.output.contains("U+000D"), r.output)
        XCTAssertFalse(FileManager.default.fileExists(atPath: bad), "nothing is written")
        let odd = f.root + "/my wf $(touch " + f.root + "/pwned) 'q' \\x27"
        XCTAssertEqual(try f.tool(["plan", f.manifestPath, "--tiles", "2", "--emit", "snakefile", odd]).status, 0)
        let snakefile = try String(contentsOfFile: odd + "/Snakefile", encoding: .utf8)
        XCTAssertFalse(snakefile.contains(f.root), "no path in the Snakefile's text")
        XCTAssertTrue(snakefile.contains("2> {log:q}"))
        XCTAssertEqual(try TilePlan.load(odd + "/plan.json").directory, odd)
        XCTAssertFalse(FileManager.default.fileExists(atPath: f.root + "/pwned"))
    }
}
