import Foundation
import XCTest

@testable import RegionSearchCore
@testable import RegionSearchLineage
@testable import RegionSearchRunner
@testable import RegionSearchTestSupport

/// Night after night: day 2 is day 1 with POIs moved, added and removed in known places. The
/// untouched regions keep their ids, each planted change gets its verdict, reruns give the same
/// bytes, and a split and a merge resolve the same way on any thread and tile count.
final class LineageEndToEndTests: XCTestCase {
    /// One POI: id, x and y in metres east and north of a point in Chicago, category.
    typealias POI = (id: String, x: Double, y: Double, category: String)

    /// The planted places, by what happens to them on day 2.
    enum Place: String, CaseIterable {
        case untouched1, untouched2, untouched3, grown, shrunk, retired, moved, split, merged
    }

    /// Day-1 centres (metres) of the places (a split's and a merge's centre between their lobes).
    static let centres: [Place: (Double, Double)] = [
        .untouched1: (1500, 1500), .untouched2: (4500, 1500), .untouched3: (7500, 1500), .grown: (1500, 4500),
        .shrunk: (4500, 4500), .retired: (7500, 4500), .moved: (1500, 7500), .split: (4500, 7500),
        .merged: (7400, 7500),
    ]
    static let newCentre = (3000.0, 3000.0)

    static func cluster(_ prefix: String, _ cx: Double, _ cy: Double, _ n: Int, _ r: Double, _ seed: UInt64) -> [POI] {
        var rng = SeededRandom(seed: seed)
        return (0..<n).map { i in
            let a = rng.uniform(0, 2 * Double.pi)
            let d = r * rng.uniform().squareRoot()
            return ("\(prefix)\(i)", cx + d * cos(a), cy + d * sin(a), "restaurant")
        }
    }

    static func street(_ prefix: String, _ x0: Double, _ x1: Double, _ y: Double, _ n: Int, _ seed: UInt64) -> [POI] {
        var rng = SeededRandom(seed: seed)
        return (0..<n).map { i in ("\(prefix)\(i)", rng.uniform(x0, x1), y + rng.uniform(-25, 25), "restaurant") }
    }

    /// Day 1 and day 2 (see the type's documentation for what changes).
    static let nights: (day1: [POI], day2: [POI]) = {
        var rng = SeededRandom(seed: 7)
        let background: [POI] = (0..<5_000).map { ("b\($0)", rng.uniform(0, 9_000), rng.uniform(0, 9_000), "shop") }
        let u1 = cluster("u1_", 1500, 1500, 40, 150, 1)
        let u2 = cluster("u2_", 4500, 1500, 40, 150, 2)
        let u3 = cluster("u3_", 7500, 1500, 40, 150, 3)
        let grown = cluster("g_", 1500, 4500, 40, 150, 4)
        let shrunk = cluster("s_", 4500, 4500, 60, 150, 5)
        let retired = cluster("r_", 7500, 4500, 40, 150, 6)
        let moved = cluster("m_", 1500, 7500, 40, 150, 7)
        // Two lobes joined by a street of restaurants, which closes on day 2. The street's 60
        // restaurants stand as dense as the lobes', so the three are one place on day 1 (with 25, the
        // lobes stand more than twice as dense as the street and are two regions already:
        // `regions.split_persistence`).
        let lobes = cluster("sl_", 4000, 7500, 35, 120, 8) + cluster("sr_", 5000, 7500, 35, 120, 9)
        let bridge = street("sb_", 4100, 4900, 7500, 60, 10)
        // Two lobes 1 km apart, joined by a new street on day 2 (as dense as the lobes, as above).
        let pair = cluster("ml_", 6900, 7500, 35, 120, 11) + cluster("mr_", 7900, 7500, 35, 120, 12)
        let day1 = background + u1 + u2 + u3 + grown + shrunk + retired + moved + lobes + bridge + pair
        let day2 =
            background + u1 + u2 + u3 + grown + cluster("gp_", 1500, 4500, 40, 200, 13) + Array(shrunk.prefix(25))
            + moved.map { ($0.id, $0.x + 500, $0.y, $0.category) } + lobes + pair
            + street("mb_", 7000, 7800, 7500, 60, 15) + cluster("n_", newCentre.0, newCentre.1, 40, 150, 14)
        return (day1, day2)
    }()

    static func csv(_ pois: [POI]) -> String {
        let metres = 6_371_008.8 * Double.pi / 180
        var out = "id,name,category,lon,lat\n"
        for p in pois {
            let lon = -87.65 + p.x / (metres * cos(41.85 * Double.pi / 180))
            let lat = 41.85 + p.y / metres
            out += "\(p.id),,\(p.category),\(String(format: "%.7f", lon)),\(String(format: "%.7f", lat))\n"
        }
        return out
    }

    /// A fixture with both nights' CSVs (day1.csv is the manifest's input).
    func fixture() throws -> PipelineFixture {
        let f = try PipelineFixture()
        try Self.csv(Self.nights.day1).write(toFile: f.root + "/data/day1.csv", atomically: true, encoding: .utf8)
        try Self.csv(Self.nights.day2).write(toFile: f.root + "/data/day2.csv", atomically: true, encoding: .utf8)
        try f.writeManifest(
            sections: [("maps", .bool(false)), ("lineage", .bool(true))], keywords: ["restaurant"],
            input: .object([("path", .string("../data/day1.csv"))]))
        return f
    }

    /// Tonight's dump instead of the manifest's input (as a nightly job passes it).
    func day2(_ f: PipelineFixture) -> [String] { ["--input", f.root + "/data/day2.csv"] }

    func read(_ path: String) throws -> JSONValue {
        try JSONParser.parse(String(contentsOfFile: path, encoding: .utf8))
    }

    /// The second night's report kept ids from the first (not a fresh lineage), and the lineage
    /// file is the set's link.
    func assertTheLineageWentOn(_ f: PipelineFixture, line: UInt = #line) throws {
        let changes = try read(f.root + "/out/test.changes.json")
        XCTAssertGreaterThan(
            changes["kept_ids"]?.intValue ?? 0, 0, "the regions kept their ids: \(changes["summary"] ?? .null)",
            line: line)
        XCTAssertNotEqual(changes["basis"]?.stringValue, "none", line: line)
        XCTAssertEqual(
            PublishedSet.linkText(f.root + "/out/test.lineage.json"),
            ".test.geojson.published/current/lineage/test.lineage.json", line: line)
    }

    /// The level-0 region whose polygon's bounding box holds the point (metres), from a regions file.
    static func region(at point: (Double, Double), in regions: JSONValue) -> JSONValue? {
        let metres = 6_371_008.8 * Double.pi / 180
        let lon = -87.65 + point.0 / (metres * cos(41.85 * Double.pi / 180))
        let lat = 41.85 + point.1 / metres
        for f in regions["features"]?.arrayValue ?? [] where f["properties"]?["level"]?.intValue == 0 {
            var lons: [Double] = []
            var lats: [Double] = []
            func walk(_ v: JSONValue) {
                if let a = v.arrayValue, a.count >= 2, let x = a[0].doubleValue, let y = a[1].doubleValue {
                    lons.append(x)
                    lats.append(y)
                } else {
                    for item in v.arrayValue ?? [] { walk(item) }
                }
            }
            walk(f["geometry"]?["coordinates"] ?? .null)
            if let a = lons.min(), let b = lons.max(), let c = lats.min(), let d = lats.max(),
                a <= lon, lon <= b, c <= lat, lat <= d
            {
                return f["properties"]
            }
        }
        return nil
    }

    func testPlantedChangesGetTheirVerdictsAndUntouchedRegionsKeepTheirIds() throws {
        let f = try fixture()
        defer { f.remove() }
        let out = f.root + "/out/"
        let first = try f.run()
        XCTAssertEqual(first.status, 0, first.output)
        let day1 = try read(out + "test.geojson")
        let firstChanges = try read(out + "test.changes.json")
        XCTAssertEqual(firstChanges["counts"]?["new"]?.intValue, day1["features"]?.arrayValue?.count)
        var ids: [Place: Int] = [:]
        for place in Place.allCases {
            let c = Self.centres[place]!
            // A split or merge is found by one of its lobes.
            let probe = place == .split || place == .merged ? (c.0 - 500, c.1) : c
            guard let id = Self.region(at: probe, in: day1)?["region_id"]?.intValue else {
                return XCTFail("day 1 has no region at \(place)")
            }
            ids[place] = id
        }
        let highWaterMark = try read(out + "test.lineage.json")["regionsearch_lineage"]?["high_water_mark"]?.intValue
        XCTAssertNotNil(highWaterMark)
        _ = try f.copy(of: out + "test.lineage.json", as: "day1.lineage.json")

        let second = try f.run(day2(f))
        XCTAssertEqual(second.status, 0, second.output)
        XCTAssertTrue(second.output.contains("lineage: "), second.output)
        let day2Regions = try read(out + "test.geojson")
        let changes = try read(out + "test.changes.json")
        let entries = (changes["regions"]?.arrayValue ?? []) + (changes["retired"]?.arrayValue ?? [])
        func entry(_ id: Int, retired: Bool = false) -> JSONValue? {
            entries.first { $0["region_id"]?.intValue == id && ($0["change"]?.stringValue == "retired") == retired }
        }
        func verdict(_ place: Place) -> String? { entry(ids[place]!)?["change"]?.stringValue }

        for place in [Place.untouched1, .untouched2, .untouched3] {
            XCTAssertEqual(verdict(place), "unchanged", "\(place)")
            XCTAssertEqual(Self.region(at: Self.centres[place]!, in: day2Regions)?["region_id"]?.intValue, ids[place])
        }
        XCTAssertEqual(verdict(.grown), "grown")
        XCTAssertEqual(verdict(.shrunk), "shrunk")
        XCTAssertEqual(entry(ids[.shrunk]!)?["members_after"]?.intValue, 25)
        XCTAssertEqual(verdict(.moved), "moved")
        XCTAssertEqual(entry(ids[.moved]!)?["shift_m"]?.doubleValue ?? 0, 500, accuracy: 50)
        XCTAssertEqual(entry(ids[.retired]!, retired: true)?["change"]?.stringValue, "retired")
        XCTAssertNotNil(entry(ids[.retired]!, retired: true)?["geometry"], "a retired region keeps its last geometry")
        // The new cluster: a new id above the high-water mark.
        let new = Self.region(at: Self.newCentre, in: day2Regions)
        XCTAssertEqual(new?["change"]?.stringValue, "new")
        XCTAssertGreaterThan(new?["region_id"]?.intValue ?? 0, highWaterMark ?? .max)
        // The split: one lobe keeps the id, the other is born above the mark, both name the pieces.
        let c = Self.centres[.split]!
        let left = Self.region(at: (c.0 - 500, c.1), in: day2Regions)
        let right = Self.region(at: (c.0 + 500, c.1), in: day2Regions)
        let pieces = [left, right].compactMap { $0?["region_id"]?.intValue }.sorted()
        XCTAssertEqual(pieces.count, 2)
        XCTAssertTrue(pieces.contains(ids[.split]!), "one piece keeps the id: \(pieces)")
        XCTAssertGreaterThan(pieces.max() ?? 0, highWaterMark ?? .max)
        for id in pieces {
            XCTAssertEqual(entry(id)?["change"]?.stringValue, "split")
            XCTAssertEqual(entry(id)?["split_from"]?.intValue, ids[.split])
            XCTAssertEqual(entry(id)?["split_into"]?.arrayValue?.compactMap(\.intValue), pieces)
        }
        // The merge: one region keeps one lobe's id, names both; the other lobe's id retires into it.
        let m = Self.centres[.merged]!
        let lobeIDs = [ids[.merged]!, Self.region(at: (m.0 + 500, m.1), in: day1)?["region_id"]?.intValue ?? -1]
            .sorted()
        guard let merged = Self.region(at: (m.0, m.1), in: day2Regions), let mergedID = merged["region_id"]?.intValue
        else { return XCTFail("day 2 has no merged region") }
        XCTAssertEqual(merged["change"]?.stringValue, "merged")
        XCTAssertTrue(lobeIDs.contains(mergedID))
        XCTAssertEqual(entry(mergedID)?["merged_from"]?.arrayValue?.compactMap(\.intValue), lobeIDs)
        let gone = lobeIDs.first { $0 != mergedID }!
        XCTAssertEqual(entry(gone, retired: true)?["merged_into"]?.intValue, mergedID)
        // status says how the last run changed things.
        let status = try f.tool(["status", f.manifestPath] + day2(f))
        XCTAssertTrue(status.output.contains("changes: "), status.output)
        XCTAssertTrue(status.output.contains("1 merged"), status.output)

        // A rerun of day 2 is matched against day 1 again: the same bytes, nothing written.
        let files = ["test.geojson", "test.changes.json", "test.lineage.json"]
        let before = try files.map { try Data(contentsOf: URL(fileURLWithPath: out + $0)) }
        let rerun = try f.run(day2(f))
        XCTAssertEqual(rerun.status, 0, rerun.output)
        XCTAssertEqual(try files.map { try Data(contentsOf: URL(fileURLWithPath: out + $0)) }, before)
        XCTAssertTrue(try f.tool(["status", f.manifestPath, "--check"] + day2(f)).status == 0)
        // diff of the two lineage files gives the run's report (what the two files are called aside).
        let diff = try f.tool(
            ["diff", f.root + "/day1.lineage.json", out + "test.lineage.json", "--json", f.root + "/diff.json"])
        XCTAssertEqual(diff.status, 0, diff.output)
        let report = try read(f.root + "/diff.json")
        for key in ["basis", "counts", "kept_ids", "regions", "retired"] {
            XCTAssertEqual(report[key], changes[key], key)
        }
    }

    /// Day 1 then day 2 with one thread, with two, and day 2 as a tiled run: the same regions,
    /// ids, split and merge, byte for byte.
    /// Two inputs that number their records on their own (`id_scope: input`): one id names a POI
    /// of each. The lineage named POIs by their bare ids, so a region of one input and the region
    /// of the other with the same ids, 20 km apart, had the same members, and when one cluster
    /// closed, every region of the night was called merged. Keys now name their input.
    func testIdsOfTwoInputsThatNumberTheirOwnRecordsNameDifferentPOIs() throws {
        let f = try PipelineFixture()
        defer { f.remove() }
        var rng = SeededRandom(seed: 3)
        let background: [POI] = (0..<1_500).map { ("b\($0)", rng.uniform(0, 6_000), rng.uniform(0, 6_000), "shop") }
        let first = background + Self.cluster("c", 1500, 1500, 40, 150, 1) + Self.cluster("d", 4500, 4500, 40, 150, 2)
        // The other input: the same ids, 20 km east.
        let second = first.map { ($0.id, $0.x + 20_000, $0.y, $0.category) }
        func write(_ first: [POI]) throws {
            try Self.csv(first).write(toFile: f.root + "/data/a.csv", atomically: true, encoding: .utf8)
            try Self.csv(second).write(toFile: f.root + "/data/b.csv", atomically: true, encoding: .utf8)
        }
        try write(first)
        try JSONValue.object([
            ("name", .string("test")),
            (
                "inputs",
                .array([.object([("path", .string("../data/a.csv"))]), .object([("path", .string("../data/b.csv"))])])
            ),
            ("work_dir", .string("../work")), ("output", .string("../out/test.geojson")),
            ("keywords", .array([.string("restaurant")])), ("maps", .bool(false)), ("lineage", .bool(true)),
            ("ingest", .object([("id_scope", .string("input"))])),
        ]).serialized(pretty: true).write(toFile: f.manifestPath, atomically: true, encoding: .utf8)
        try f.runOK()
        let lineage = try read(f.root + "/out/test.lineage.json")
        let members = (lineage["features"]?.arrayValue ?? []).map {
            ($0["properties"]?["members"]?.arrayValue ?? []).compactMap(\.stringValue)
        }
        XCTAssertEqual(members.count, 4, "two clusters in each input")
        XCTAssertEqual(Set(members).count, 4, "no two regions share their members: \(members)")
        XCTAssertTrue(members.contains { $0.first?.hasPrefix("inputs[1]:") == true }, "\(members)")
        // Night 2: the first input's cluster c closes.
        try write(first.map { $0.id.hasPrefix("c") ? ($0.id, $0.x, $0.y, "shop") : $0 })
        try f.runOK()
        let changes = try read(f.root + "/out/test.changes.json")
        XCTAssertEqual(changes["counts"]?["unchanged"]?.intValue, 3, "\(changes["summary"] ?? .null)")
        XCTAssertEqual(changes["counts"]?["retired"]?.intValue, 1, "\(changes["summary"] ?? .null)")
        XCTAssertEqual(changes["counts"]?["merged"]?.intValue, 0, "\(changes["summary"] ?? .null)")
    }

    /// The outputs' folder removed (`rm -rf out`) with the work directory kept: the night had
    /// started a fresh lineage without a word, giving ids consumers knew to other places and
    /// retired ids out again. It stops (exit 3) and says how to go on; `--fresh-lineage` starts over.
    func testOutputsRemovedWithTheirSetStopTheNightUnlessAFreshLineageIsAskedFor() throws {
        let f = try fixture()
        defer { f.remove() }
        try f.runOK()
        try FileManager.default.removeItem(atPath: f.root + "/out")
        let stopped = try f.run(day2(f))
        XCTAssertEqual(stopped.status, 3, stopped.output)
        XCTAssertTrue(
            stopped.output.contains("and so is the set this work directory published its outputs in"), stopped.output)
        XCTAssertFalse(stopped.output.contains("[1/6]"), "stopped before the stages: \(stopped.output)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: f.root + "/out/test.geojson"))
        let fresh = try f.run(day2(f) + ["--fresh-lineage"])
        XCTAssertEqual(fresh.status, 0, fresh.output)
        XCTAssertEqual(try read(f.root + "/out/test.changes.json")["basis"]?.stringValue, "none")

        // A set published without a lineage gave no ids out: removed, the first night with a
        // lineage starts one without a word.
        let plain = try PipelineFixture()
        defer { plain.remove() }
        try plain.writeManifest(sections: [("maps", .bool(false)), ("lineage", .bool(false))])
        try plain.runOK()
        try FileManager.default.removeItem(atPath: plain.root + "/out")
        try FileManager.default.createDirectory(atPath: plain.root + "/out", withIntermediateDirectories: false)
        try plain.writeManifest(sections: [("maps", .bool(false)), ("lineage", .bool(true))])
        try plain.runOK()
    }

    func testSplitAndMergeResolveTheSameWayOnAnyThreadAndTileCount() throws {
        var outputs: [[Data]] = []
        let files = ["test.geojson", "test.changes.json", "test.lineage.json"]
        for threads in ["1", "2"] {
            let f = try fixture()
            defer { f.remove() }
            XCTAssertEqual(try f.run(["--threads", threads]).status, 0)
            let r = try f.run(day2(f) + ["--threads", threads])
            XCTAssertEqual(r.status, 0, r.output)
            outputs.append(try files.map { try Data(contentsOf: URL(fileURLWithPath: f.root + "/out/" + $0)) })
        }
        XCTAssertEqual(outputs[0], outputs[1], "one thread and two")
        // Tiled: day 1 as a single run, day 2 in 4 tiles (the workflow's steps, no engine).
        let f = try fixture()
        defer { f.remove() }
        XCTAssertEqual(try f.run().status, 0)
        try f.writeManifest(
            sections: [("maps", .bool(false)), ("lineage", .bool(true))], keywords: ["restaurant"],
            input: .object([("path", .string("../data/day2.csv"))]))
        let dir = f.root + "/wf"
        let plan = dir + "/plan.json"
        let tiles = 4
        var steps: [[String]] = [
            ["plan", f.manifestPath, "--tiles", String(tiles), "--emit", "snakefile", dir],
            ["tile", "prepare", "--plan", plan],
        ]
        steps += (0..<tiles).map { ["tile", "graph", "--plan", plan, "--tile", String($0)] }
        steps.append(["tile", "gather-graph", "--plan", plan])
        steps += (0..<tiles).map { ["tile", "propagate", "--plan", plan, "--tile", String($0)] }
        steps.append(["tile", "finish", "--plan", plan])
        for step in steps {
            let s = try f.tool(step)
            XCTAssertEqual(s.status, 0, "\(step.joined(separator: " ")): \(s.output)")
            if s.status != 0 { return }
        }
        let tiled = try files.map { try Data(contentsOf: URL(fileURLWithPath: f.root + "/out/" + $0)) }
        XCTAssertEqual(tiled, outputs[0], "4 tiles")
        let changes = try read(f.root + "/out/test.changes.json")
        XCTAssertEqual(changes["counts"]?["split"]?.intValue, 2)
        XCTAssertEqual(changes["counts"]?["merged"]?.intValue, 1)
    }

    /// The change report and the lineage file are published in the same set as the regions: a
    /// night killed right after the flip (before any link is made) shows all three from tonight,
    /// never tonight's regions with yesterday's report and lineage — against which the next
    /// night would then be matched.
    func testAKillAfterTheFlipShowsOneNightsRegionsReportAndLineage() throws {
        let f = try fixture()
        defer { f.remove() }
        XCTAssertEqual(try f.run().status, 0)
        let killed = try f.run(day2(f), environment: [CrashPoint.environmentVariable: "run:set-current:1"])
        XCTAssertEqual(killed.termination, .signaled(SIGKILL), killed.output)
        let out = f.root + "/out/"
        let current = URL(fileURLWithPath: out + ".test.geojson.published/current").resolvingSymlinksInPath().path
        for name in ["test.geojson", "test.changes.json", "test.lineage.json"] {
            let file = URL(fileURLWithPath: out + name).resolvingSymlinksInPath().path
            XCTAssertTrue(file.hasPrefix(current + "/"), "\(name) is \(file), not in the current set \(current)")
        }
        // Tonight's report: day 2 split and merged regions.
        XCTAssertEqual(try read(out + "test.changes.json")["counts"]?["merged"]?.intValue, 1)
    }

    /// A lineage file the manifest keeps in another folder is written there as a file (not made
    /// a link into the output's set); the change report beside the output is the set's.
    func testALineageFileElsewhereIsAFileOfItsOwn() throws {
        let f = try fixture()
        defer { f.remove() }
        let elsewhere = f.root + "/state/nightly.lineage.json"
        try f.writeManifest(
            sections: [("maps", .bool(false)), ("lineage", .string(elsewhere))], keywords: ["restaurant"],
            input: .object([("path", .string("../data/day1.csv"))]))
        XCTAssertEqual(try f.run().status, 0)
        var st = stat()
        XCTAssertEqual(lstat(elsewhere, &st), 0)
        XCTAssertEqual(st.st_mode & S_IFMT, S_IFREG, "a file, not a link")
        XCTAssertNotNil(try RegionFile.read(elsewhere).lineage)
        XCTAssertEqual(lstat(f.root + "/out/test.changes.json", &st), 0)
        XCTAssertEqual(st.st_mode & S_IFMT, S_IFLNK, "the report is the set's")
    }

    /// A lineage file a user removed is read from the current published set, with a warning: ids
    /// stay, a retired id is not given again, and publishing puts the link back. (It started a
    /// fresh lineage, silently: every region new.)
    func testARemovedLineageLinkIsReadFromThePublishedSet() throws {
        let f = try fixture()
        defer { f.remove() }
        XCTAssertEqual(try f.run().status, 0)
        let first = try read(f.root + "/out/test.geojson")["features"]?.arrayValue ?? []
        XCTAssertGreaterThan(first.count, 0)
        try FileManager.default.removeItem(atPath: f.root + "/out/test.lineage.json")
        let again = try f.run(day2(f))
        XCTAssertEqual(again.status, 0, again.output)
        XCTAssertTrue(
            again.output.contains("test.lineage.json is missing; the lineage is read from the current "), again.output)
        try assertTheLineageWentOn(f)
    }

    /// A set whose regions file is gone (a damaged set) still names the lineage file: the next
    /// night goes on with its ids, as an undamaged night does. (The output was no longer counted
    /// as a file, so the lineage moved to the work directory and started afresh, exit 0.)
    func testADamagedSetKeepsTheLineageFileAndItsIds() throws {
        let f = try fixture()
        defer { f.remove() }
        XCTAssertEqual(try f.run().status, 0)
        try FileManager.default.removeItem(atPath: f.root + "/out/.test.geojson.published/current/output/test.geojson")
        let again = try f.run(day2(f))
        XCTAssertEqual(again.status, 0, again.output)
        XCTAssertFalse(FileManager.default.fileExists(atPath: f.workPath + "/lineage.json"), again.output)
        try assertTheLineageWentOn(f)
    }

    /// A set whose `current` link was removed by hand still holds its newest complete generation,
    /// with the lineage file: the next night goes on with its ids.
    func testASetWithoutItsCurrentLinkKeepsTheLineage() throws {
        let f = try fixture()
        defer { f.remove() }
        XCTAssertEqual(try f.run().status, 0)
        XCTAssertEqual(unlink(f.root + "/out/.test.geojson.published/current"), 0)
        // Not up to date while the published paths show nothing.
        XCTAssertEqual(try f.tool(["status", f.manifestPath, "--check"]).status, 1)
        let again = try f.run(day2(f))
        XCTAssertEqual(again.status, 0, again.output)
        try assertTheLineageWentOn(f)
        // A night with nothing new to publish makes the link again too.
        let regions = try String(contentsOfFile: f.root + "/out/test.geojson", encoding: .utf8)
        XCTAssertEqual(unlink(f.root + "/out/.test.geojson.published/current"), 0)
        let rerun = try f.run(day2(f))
        XCTAssertEqual(rerun.status, 0, rerun.output)
        XCTAssertTrue(rerun.output.contains("current was missing; made again"), rerun.output)
        XCTAssertEqual(try String(contentsOfFile: f.root + "/out/test.geojson", encoding: .utf8), regions)
        try assertTheLineageWentOn(f)
    }

    /// A killed run can leave a complete set it never made current; with `current` then removed,
    /// that set stands for it, and the set readers last saw is not removed by the next night
    /// (it was: the orphan counted as the previous set and the real one was pruned).
    func testASetNeverMadeCurrentDoesNotCostTheOneReadersSaw() throws {
        let f = try fixture()
        defer { f.remove() }
        XCTAssertEqual(try f.run().status, 0)
        let root = f.root + "/out/.test.geojson.published"
        let killed = try f.run(day2(f), environment: [CrashPoint.environmentVariable: "run:set-ready:1"])
        XCTAssertEqual("\(killed.termination)", "\(ChildProcess.Termination.signaled(9))", killed.output)
        XCTAssertEqual(PublishedSet(root: root).generations, [0, 1])
        XCTAssertEqual(unlink(root + "/current"), 0)
        XCTAssertEqual(try f.run(day2(f) + ["--fresh-lineage"]).status, 0)
        XCTAssertEqual(PublishedSet(root: root).generations, [0, 1, 2], "no set removed while current was gone")
        XCTAssertEqual(try f.run(["--fresh-lineage"]).status, 0)
        XCTAssertEqual(PublishedSet(root: root).generations.count, 2, "the next night prunes again")
    }

    /// With the whole set folder gone, the lineage file's link shows nothing and nothing holds the
    /// lineage: the night stops (exit 3) saying so, instead of numbering every region afresh.
    func testALineageLinkToAGoneSetStopsTheNight() throws {
        let f = try fixture()
        defer { f.remove() }
        XCTAssertEqual(try f.run().status, 0)
        try FileManager.default.removeItem(atPath: f.root + "/out/.test.geojson.published")
        let again = try f.run(day2(f))
        XCTAssertEqual(again.status, 3, again.output)
        XCTAssertTrue(
            again.output.contains("which is gone, and no published set beside it holds the lineage"), again.output)
        XCTAssertEqual(try f.run(day2(f) + ["--fresh-lineage"]).status, 0)
    }

    /// --fresh-lineage numbers the regions afresh; "lineage": false keeps no lineage at all.
    func testAFreshLineageAndNoLineage() throws {
        let f = try fixture()
        defer { f.remove() }
        XCTAssertEqual(try f.run().status, 0)
        let fresh = try f.run(day2(f) + ["--fresh-lineage"])
        XCTAssertEqual(fresh.status, 0, fresh.output)
        let changes = try read(f.root + "/out/test.changes.json")
        let regions = try read(f.root + "/out/test.geojson")["features"]?.arrayValue ?? []
        XCTAssertEqual(changes["counts"]?["new"]?.intValue, regions.count)
        XCTAssertEqual(regions.compactMap { $0["properties"]?["region_id"]?.intValue }, Array(1...regions.count))
        // The lineage file reads back (as `regionsearch diff` reads it) with every published region.
        let lineage = try RegionFile.read(f.root + "/out/test.lineage.json")
        XCTAssertEqual(lineage.regions.count, regions.count)
        XCTAssertNotNil(lineage.lineage, "the lineage file's regionsearch_lineage member")
        try f.writeManifest(
            sections: [("maps", .bool(false)), ("lineage", .bool(false))], keywords: ["restaurant"],
            input: .object([("path", .string("../data/day2.csv"))]))
        try FileManager.default.removeItem(atPath: f.root + "/out/test.changes.json")
        let state = try Data(contentsOf: URL(fileURLWithPath: f.root + "/out/test.lineage.json"))
        XCTAssertEqual(try f.run().status, 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: f.root + "/out/test.changes.json"))
        // The lineage file is state and stays, for a lineage turned on again.
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: f.root + "/out/test.lineage.json")), state)
        XCTAssertEqual(try f.run().status, 0)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: f.root + "/out/test.lineage.json")), state)
        let plain = try read(f.root + "/out/test.geojson")["features"]?.arrayValue ?? []
        XCTAssertTrue(plain.allSatisfy { $0["properties"]?["change"] == .null })
    }

    /// The fixture's manifest on day 1 with its lineage in `DIR/state/shared.lineage.json`, which a
    /// second manifest can name too (``secondManifest(_:sharing:)``); returns that file's path.
    func sharedLineageManifest(_ f: PipelineFixture) throws -> String {
        try f.writeManifest(
            sections: [("maps", .bool(false)), ("lineage", .string("../state/shared.lineage.json"))],
            keywords: ["restaurant"], input: .object([("path", .string("../data/day1.csv"))]))
        return f.root + "/state/shared.lineage.json"
    }

    /// A second manifest (its own output and work directory) naming the lineage file `first`
    /// keeps (`DIR/state/shared.lineage.json`); returns its path.
    func secondManifest(_ f: PipelineFixture, sharing lineage: String) throws -> String {
        let other = f.root + "/pipelines/other.json"
        try JSONValue.object([
            ("name", .string("other")), ("inputs", .array([.object([("path", .string("../data/day1.csv"))])])),
            ("work_dir", .string("../work-other")), ("output", .string("../out/other.geojson")),
            ("keywords", .array([.string("restaurant")])), ("maps", .bool(false)), ("lineage", .string(lineage)),
        ]).serialized(pretty: true).write(toFile: other, atomically: true, encoding: .utf8)
        return other
    }

    /// Two manifests with their own outputs that name one lineage file: each night of one would
    /// advance the other's lineage (ids and change reports wrong for both, silently). The file
    /// records its manifest; a run of the other manifest is refused before any stage (exit 2),
    /// naming both and how to fix it, and so is its dry run and `status`. `--fresh-lineage` hands
    /// the file over, and the first manifest is then refused.
    func testAManifestIsRefusedTheLineageFileOfAnother() throws {
        let f = try fixture()
        defer { f.remove() }
        let shared = try sharedLineageManifest(f)
        let other = try secondManifest(f, sharing: "../state/shared.lineage.json")
        XCTAssertEqual(try f.run().status, 0)
        XCTAssertEqual(
            try read(shared)["regionsearch_lineage"]?["manifest"]?.stringValue, "../pipelines/test.json",
            "the owner, relative to the lineage file's folder")
        let kept = try Data(contentsOf: URL(fileURLWithPath: shared))
        for (what, arguments) in [("run", ["run", other]), ("dry run", ["run", other, "--dry-run"])] {
            let refused = try f.tool(arguments + day2(f))
            XCTAssertEqual(refused.status, 2, "\(what): \(refused.output)")
            for name in [shared, f.manifestPath, other, "--fresh-lineage", "its own lineage file"] {
                XCTAssertTrue(refused.output.contains(name), "\(what) names \(name): \(refused.output)")
            }
            XCTAssertFalse(refused.output.contains("ingest"), "\(what): refused before any stage: \(refused.output)")
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: shared)), kept)
        XCTAssertFalse(FileManager.default.fileExists(atPath: f.root + "/out/other.geojson"))
        let status = try f.tool(["status", other])
        XCTAssertTrue(status.output.contains("is the lineage file of another manifest"), status.output)
        XCTAssertTrue(status.output.contains("exit status 2"), status.output)
        let json = try JSONParser.parse(try f.tool(["status", other, "--json", "--quiet"]).output)
        XCTAssertEqual(json["output"]?["state"]?.stringValue, "lineage_of_another_manifest")
        // The manifest itself goes on, night after night.
        let night2 = try f.run(day2(f))
        XCTAssertEqual(night2.status, 0, night2.output)
        // --fresh-lineage takes the file over: the other manifest now keeps it.
        let taken = try f.tool(["run", other, "--fresh-lineage"])
        XCTAssertEqual(taken.status, 0, taken.output)
        XCTAssertEqual(try read(shared)["regionsearch_lineage"]?["manifest"]?.stringValue, "../pipelines/other.json")
        let refused = try f.run(day2(f))
        XCTAssertEqual(refused.status, 2, refused.output)
        XCTAssertTrue(refused.output.contains("another manifest, \(other)"), refused.output)
    }

    /// `--adopt-lineage` hands a lineage file over to another manifest with its ids (a nightly job
    /// moved to a new manifest): the run goes on from it (ids kept), the file records the new
    /// manifest, and the old one is refused from then on. With `--fresh-lineage` as well: a usage
    /// error, the two contradict each other.
    func testAdoptLineageGoesOnFromAnotherManifestsFileWithItsIds() throws {
        let f = try fixture()
        defer { f.remove() }
        let shared = try sharedLineageManifest(f)
        let other = try secondManifest(f, sharing: "../state/shared.lineage.json")
        XCTAssertEqual(try f.run().status, 0)
        let refused = try f.tool(["run", other] + day2(f))
        XCTAssertEqual(refused.status, 2, refused.output)
        XCTAssertTrue(refused.output.contains("--adopt-lineage"), "the refusal names the handover: \(refused.output)")
        let both = try f.tool(["run", other, "--adopt-lineage", "--fresh-lineage"])
        XCTAssertEqual(both.status, 2, both.output)
        XCTAssertTrue(both.output.contains("contradict"), both.output)
        let adopted = try f.tool(["run", other, "--adopt-lineage"] + day2(f))
        XCTAssertEqual(adopted.status, 0, adopted.output)
        let changes = try read(f.root + "/out/other.changes.json")
        XCTAssertGreaterThan(changes["kept_ids"]?.intValue ?? 0, 0, "ids kept: \(changes["summary"] ?? .null)")
        XCTAssertEqual(try read(shared)["regionsearch_lineage"]?["manifest"]?.stringValue, "../pipelines/other.json")
        // The next night of the new manifest needs no flag; the old manifest is refused.
        XCTAssertEqual(try f.tool(["run", other] + day2(f)).status, 0)
        let old = try f.run(day2(f))
        XCTAssertEqual(old.status, 2, old.output)
        XCTAssertTrue(old.output.contains("another manifest, \(other)"), old.output)
    }

    /// A copy of the manifest with the same bytes (another checkout, an old CI workspace left on
    /// disk) is the same manifest: it runs the same pipeline, so it continues the lineage (ids
    /// kept) instead of being refused every night; the original then goes on after it.
    func testAByteIdenticalCopyOfTheManifestKeepsTheLineage() throws {
        let f = try fixture()
        defer { f.remove() }
        let shared = try sharedLineageManifest(f)
        XCTAssertEqual(try f.run().status, 0)
        let copy = f.root + "/pipelines/copy.json"
        try FileManager.default.copyItem(atPath: f.manifestPath, toPath: copy)
        let night2 = try f.tool(["run", copy] + day2(f))
        XCTAssertEqual(night2.status, 0, night2.output)
        XCTAssertEqual(try read(shared)["regionsearch_lineage"]?["manifest"]?.stringValue, "../pipelines/copy.json")
        let changes = try read(f.root + "/out/test.changes.json")
        XCTAssertGreaterThan(changes["kept_ids"]?.intValue ?? 0, 0, "continued: \(changes["summary"] ?? .null)")
        // Not the same bytes: another manifest, refused (the test above).
        try (String(contentsOfFile: copy, encoding: .utf8) + " ").write(toFile: copy, atomically: true, encoding: .utf8)
        let night3 = try f.run()
        XCTAssertEqual(night3.status, 2, night3.output)
        XCTAssertTrue(night3.output.contains("another manifest, \(copy)"), night3.output)
    }

    /// A lineage file written before it recorded its manifest is any manifest's: the next run
    /// continues it (ids kept) and records itself as its owner.
    func testALineageFileWithoutAnOwnerIsContinuedAndGetsOne() throws {
        let f = try fixture()
        defer { f.remove() }
        let shared = try sharedLineageManifest(f)
        XCTAssertEqual(try f.run().status, 0)
        // As an earlier version wrote it: no "manifest" in regionsearch_lineage.
        let document = try read(shared)
        let members = try XCTUnwrap(document.objectValue).map { key, value -> (String, JSONValue) in
            guard key == "regionsearch_lineage", let inner = value.objectValue else { return (key, value) }
            return (key, .object(inner.filter { $0.0 != "manifest" }))
        }
        try JSONValue.object(members).serialized().write(toFile: shared, atomically: true, encoding: .utf8)
        XCTAssertNil(try read(shared)["regionsearch_lineage"]?["manifest"])
        let other = try secondManifest(f, sharing: "../state/shared.lineage.json")
        let continued = try f.tool(["run", other] + day2(f))
        XCTAssertEqual(continued.status, 0, continued.output)
        let changes = try read(f.root + "/out/other.changes.json")
        XCTAssertGreaterThan(changes["kept_ids"]?.intValue ?? 0, 0, "continued: \(changes["summary"] ?? .null)")
        XCTAssertEqual(try read(shared)["regionsearch_lineage"]?["manifest"]?.stringValue, "../pipelines/other.json")
    }

    /// `regionsearch diff` given a path that does not exist (or runs through a file) says so,
    /// naming the path, and suggests checking it (exit 3) — not a fresh lineage, which has nothing
    /// to do with a mistyped path. (A path that exists but cannot be read says "cannot be read";
    /// the tests may run as root, whom permissions do not stop.)
    func testDiffOfAMissingPathSaysSo() throws {
        let f = try PipelineFixture()
        defer { f.remove() }
        let missing = f.root + "/out/no-such.lineage.json"
        let throughAFile = f.csvPath + "/regions.geojson"
        for (old, says) in [(missing, "no such file; check the path"), (throughAFile, "no such file; check the path")] {
            let r = try f.tool(["diff", old, f.root + "/out/other.geojson"])
            XCTAssertEqual(r.status, 3, r.output)
            XCTAssertTrue(r.output.contains("\(old): \(says)"), r.output)
            XCTAssertFalse(r.output.contains("--fresh-lineage"), r.output)
            XCTAssertFalse(r.output.contains("not a region or lineage file"), r.output)
        }
    }

    /// A damaged lineage file stops the next run (exit 3, yesterday's set kept); `status` says so
    /// beforehand — the file and why, `lineage_unreadable` in its JSON, `--check` not up to date —
    /// instead of calling the output stale. `--fresh-lineage` starts over.
    func testStatusNamesADamagedLineageFile() throws {
        let f = try fixture()
        defer { f.remove() }
        XCTAssertEqual(try f.run().status, 0)
        let lineage = f.root + "/out/test.lineage.json"
        let target = try XCTUnwrap(try? FileManager.default.destinationOfSymbolicLink(atPath: lineage))
        let real = AtomicFile.directory(of: lineage) + "/" + target
        let bytes = try Data(contentsOf: URL(fileURLWithPath: real))
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: real))
        let status = try f.tool(["status", f.manifestPath])
        XCTAssertTrue(status.output.contains("lineage file: \(lineage): not a region or lineage file"), status.output)
        XCTAssertTrue(status.output.contains("--fresh-lineage"), status.output)
        let json = try JSONParser.parse(try f.tool(["status", f.manifestPath, "--json", "--quiet"]).output)
        XCTAssertEqual(json["output"]?["state"]?.stringValue, "lineage_unreadable")
        XCTAssertEqual(try f.tool(["status", f.manifestPath, "--check"]).status, 1)
        let regions = try Data(contentsOf: URL(fileURLWithPath: f.root + "/out/test.geojson"))
        let stopped = try f.run(day2(f))
        XCTAssertEqual(stopped.status, 3, stopped.output)
        XCTAssertFalse(stopped.output.contains("[1/6] ingest"), "found before any stage: \(stopped.output)")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: f.root + "/out/test.geojson")), regions)
        XCTAssertEqual(try f.run(day2(f) + ["--fresh-lineage"]).status, 0)
        XCTAssertEqual(try f.tool(["status", f.manifestPath, "--check"] + day2(f)).status, 0)
    }
}
