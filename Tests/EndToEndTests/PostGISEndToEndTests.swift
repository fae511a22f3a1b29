import Foundation
import XCTest

@testable import RegionSearchCore
@testable import RegionSearchGDAL
@testable import RegionSearchOutput
@testable import RegionSearchTestSupport

/// PostGIS output against a real database: a throwaway PostgreSQL cluster (scripts/pg-local) on
/// a Unix socket, started for this class and removed after it. Read back with psql.
///
/// Skipped only when the PostgreSQL server binaries are not installed (scripts/setup installs
/// postgresql and postgresql-15-postgis-3); a cluster that does not start is a failure.
final class PostGISEndToEndTests: XCTestCase {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
    static let directory = NSTemporaryDirectory() + "regionsearch-pg-\(getpid())"
    static var script: String { repository + "/scripts/pg-local" }

    static var serverInstalled: Bool {
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        return versions.contains {
            FileManager.default.isExecutableFile(atPath: "/usr/lib/postgresql/\($0)/bin/initdb")
        }
    }

    /// The cluster's connection string, started on first use; nil when it did not start (the
    /// reason is in `startFailure`).
    static let started: (connection: String?, failure: String) = {
        guard serverInstalled else { return (nil, "") }
        let log = directory + ".log"
        defer { unlink(log) }
        let termination = try? ChildProcess(
            executable: "/bin/bash", arguments: [script, "up", directory], output: .file(log)
        ).wait()
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        guard case .exited(0)? = termination,
            let line = text.split(separator: "\n").last(where: { $0.hasPrefix("PG:") })
        else { return (nil, text) }
        return (String(line), "")
    }()

    override class func tearDown() {
        if FileManager.default.fileExists(atPath: directory) {
            _ = try? ChildProcess(executable: "/bin/bash", arguments: [script, "down", directory]).wait()
        }
    }

    private func connection() throws -> String {
        guard Self.serverInstalled else {
            throw XCTSkip(
                "PostgreSQL server binaries are not installed "
                    + "(scripts/setup installs postgresql and postgresql-15-postgis-3)"
            )
        }
        guard let c = Self.started.connection else {
            XCTFail("scripts/pg-local up failed: \(Self.started.failure)")
            throw XCTSkip("no cluster")
        }
        return c
    }

    /// One psql query, unaligned, tuples only.
    private func psql(_ sql: String, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let user = try connection().components(separatedBy: "user=").last ?? "postgres"
        let log = Self.directory + "/psql-" + UUID().uuidString
        defer { unlink(log) }
        let termination = try ChildProcess(
            executable: "/usr/bin/psql",
            arguments: ["-h", Self.directory + "/sock", "-U", user, "-d", "regionsearch", "-XAtq", "-c", sql],
            output: .file(log)
        ).wait()
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        XCTAssertEqual(
            "\(termination)", "\(ChildProcess.Termination.exited(0))", "\(sql): \(text)", file: file, line: line)
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private func stagingTables() throws -> String {
        // A killed client's backend may take a moment to end; its transaction is gone when it has.
        for _ in 0..<50 {
            let active = try psql(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = 'regionsearch' AND pid <> pg_backend_pid()")
            if active == "0" { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return try psql(
            "SELECT coalesce(string_agg(relname, ','), '') FROM pg_class WHERE relname LIKE '%\\_\\_tmp\\_%'")
    }

    func testRegionsAndPOIsInPostGISReplacedAtomicallyAndSurvivingAKilledRun() throws {
        let pg = try connection()
        let f = try PipelineFixture()
        defer { f.remove() }
        let output = JSONValue.object([("path", .string(pg)), ("layer", .string("regions"))])
        let pois = JSONValue.object([("path", .string(pg)), ("layer", .string("pois"))])
        try f.writeManifest(
            // Level 0 cut from the propagated densities: the fixture then nests (its own-density level
            // 0 has no finer level inside), which is what this test needs to see written.
            output: output, poiOutput: pois,
            sections: [("regions", .object([("nested", .bool(true)), ("level0", .string("propagated"))]))])
        let first = try f.runOK()
        XCTAssertTrue(first.output.contains("replaced table regions"), first.output)
        let regions = try f.regionsArtifact()["features"]?.arrayValue ?? []
        XCTAssertFalse(regions.isEmpty)

        // What a web map reads: valid MultiPolygons in SRID 4326, the documented columns.
        XCTAssertEqual(
            try psql(
                "SELECT count(*), bool_and(ST_IsValid(geom)), min(ST_SRID(geom)), max(ST_SRID(geom)), "
                    + "string_agg(DISTINCT GeometryType(geom), ',') FROM regions"),
            "\(regions.count)|t|4326|4326|MULTIPOLYGON")
        XCTAssertEqual(
            try psql("SELECT type, srid FROM geometry_columns WHERE f_table_name = 'regions'"), "MULTIPOLYGON|4326")
        XCTAssertEqual(
            try psql(
                "SELECT string_agg(column_name, ',' ORDER BY ordinal_position) FROM information_schema.columns "
                    + "WHERE table_name = 'regions' AND column_name NOT IN ('fid', 'geom')"),
            RegionFeatureSchema.fields.map(\.name).joined(separator: ","))
        let sum = regions.reduce(0) { $0 + ($1["properties"]?["n_pois"]?.intValue ?? 0) }
        XCTAssertEqual(try psql("SELECT sum(n_pois) FROM regions"), "\(sum)")
        XCTAssertEqual(
            try psql(
                "SELECT data_type FROM information_schema.columns "
                    + "WHERE table_name = 'regions' AND column_name = 'q_value'"
            ), "double precision")
        XCTAssertEqual(try psql("SELECT count(*), min(ST_SRID(geom)) FROM pois"), "3000|4326")
        XCTAssertEqual(
            try psql(
                "SELECT count(*) FROM pois p JOIN regions r ON p.region_1 = r.region_id "
                    + "WHERE NOT ST_Intersects(p.geom, ST_Buffer(r.geom, 0.01))"
            ),
            "0", "a POI's region is around it")

        // The hierarchy round-trips: level and parent_id as written, a child inside its parent
        // (one level up or more), and the POIs' finest region with its level and path.
        let hierarchy = regions.map { f -> String in
            let p = f["properties"]
            return "\(p?["region_id"]?.intValue ?? -1)|\(p?["level"]?.intValue ?? -1)|"
                + (p?["parent_id"]?.intValue.map(String.init) ?? "")
        }
        XCTAssertTrue(hierarchy.contains { !$0.hasSuffix("|") }, "the fixture's regions nest: \(hierarchy)")
        XCTAssertEqual(
            try psql("SELECT region_id, level, parent_id FROM regions ORDER BY region_id"),
            hierarchy.joined(separator: "\n"))
        XCTAssertEqual(
            try psql(
                "SELECT string_agg(data_type, ',' ORDER BY column_name) FROM information_schema.columns "
                    + "WHERE table_name = 'regions' AND column_name IN ('level', 'parent_id')"),
            try psql(
                "SELECT data_type || ',' || data_type FROM information_schema.columns "
                    + "WHERE table_name = 'regions' AND column_name = 'region_id'"),
            "level and parent_id are integers like region_id")
        XCTAssertEqual(
            try psql(
                "SELECT count(*) FROM regions c JOIN regions p ON c.parent_id = p.region_id "
                    + "WHERE p.level >= c.level OR ST_Area(ST_Difference(c.geom, p.geom)) > 1e-9 * ST_Area(c.geom)"),
            "0", "a child lies inside its parent")
        XCTAssertEqual(
            try psql(
                "SELECT count(*) FROM pois p JOIN regions r ON p.region_1 = r.region_id "
                    + "WHERE p.region_1_level <> r.level OR p.region_1_path NOT LIKE '%' || r.region_id "
                    + "OR split_part(p.region_1_path, '/', 1)::bigint NOT IN "
                    + "(SELECT region_id FROM regions WHERE level = 0)"),
            "0", "region_1 is the path's last region_id, its first a level-0 region")
        XCTAssertNotEqual(
            try psql("SELECT count(*) FROM pois WHERE region_1_level > 0 AND region_1_path LIKE '%/%'"), "0",
            "some POIs are in a region of level 1")
        XCTAssertEqual(
            try psql("SELECT count(*) FROM pois WHERE (region_1 IS NULL) <> (region_1_path IS NULL)"), "0")
        XCTAssertTrue(try f.tool(["status", f.manifestPath]).output.contains("table regions: up to date"))

        // A rerun that finds no regions replaces the table atomically: empty, same schema, the
        // names of a fresh table and no staging table.
        try f.writeManifest(
            output: output, poiOutput: pois,
            sections: [("regions", .object([("min_keyword_pois", .number(100_000))]))])
        try f.runOK()
        XCTAssertEqual(try psql("SELECT count(*) FROM regions"), "0")
        XCTAssertEqual(
            try psql("SELECT string_agg(relname, ',' ORDER BY relname) FROM pg_class WHERE relname LIKE 'regions%'"),
            "regions,regions_fid_seq,regions_geom_geom_idx,regions_pkey")
        XCTAssertEqual(try stagingTables(), "")

        // Killed while writing, after the new rows are in the staging table: the old table survives.
        try f.writeManifest(output: output, poiOutput: pois)
        let killed = try f.run([], environment: ["REGIONSEARCH_CRASH_AT": "run:postgis-written:1"])
        XCTAssertEqual("\(killed.termination)", "\(ChildProcess.Termination.signaled(9))", killed.output)
        XCTAssertEqual(try stagingTables(), "")
        XCTAssertEqual(try psql("SELECT count(*) FROM regions"), "0", "yesterday's table is intact")
        XCTAssertEqual(try psql("SELECT count(*) FROM pois"), "3000")

        // The next night writes it; append adds to it.
        try f.runOK()
        XCTAssertEqual(try psql("SELECT count(*) FROM regions"), "\(regions.count)")
        try f.writeManifest(output: .object([("path", .string(pg)), ("mode", .string("append"))]))
        try f.runOK()
        XCTAssertEqual(
            try psql("SELECT count(*), count(DISTINCT fid) FROM regions"), "\(2 * regions.count)|\(2 * regions.count)")
    }

    /// Issue 21, finding 5: overwrite names the schema of every table it drops or renames. A table
    /// of the same name in another schema of the search path is never dropped: not with
    /// `active_schema`, not with a schema named after the user ("$user" comes first).
    func testOverwriteNeverDropsATableInAnotherSchema() throws {
        let pg = try connection()
        let user = pg.components(separatedBy: "user=").last?.split(separator: " ").first.map(String.init) ?? "postgres"
        let f = try PipelineFixture()
        defer { f.remove() }
        _ = try psql(
            "CREATE TABLE public.precious(id int); INSERT INTO public.precious VALUES (1),(2); "
                + "CREATE TABLE public.precious2(id int); INSERT INTO public.precious2 VALUES (1); "
                + "CREATE SCHEMA alice")
        defer {
            _ = try? psql(
                "DROP TABLE IF EXISTS public.precious, public.precious2; DROP SCHEMA IF EXISTS alice CASCADE; "
                    + "DROP SCHEMA IF EXISTS \"\(user)\" CASCADE")
        }
        try f.writeManifest(
            output: .object([("path", .string(pg + " active_schema=alice")), ("layer", .string("precious"))]))
        try f.runOK()
        XCTAssertEqual(try psql("SELECT count(*) FROM public.precious"), "2", "public.precious is not dropped")
        let regions = try f.regionsArtifact()["features"]?.arrayValue?.count ?? 0
        XCTAssertEqual(try psql("SELECT count(*) FROM alice.precious"), "\(regions)")
        // Again: now alice.precious exists and is the one replaced.
        try f.runOK()
        XCTAssertEqual(try psql("SELECT count(*) FROM public.precious"), "2")
        XCTAssertEqual(try psql("SELECT count(*) FROM alice.precious"), "\(regions)")
        // The default search path "$user", public with a schema named after the user.
        _ = try psql("CREATE SCHEMA \"\(user)\"")
        try f.writeManifest(output: .object([("path", .string(pg)), ("layer", .string("precious2"))]))
        try f.runOK()
        XCTAssertEqual(try psql("SELECT count(*) FROM public.precious2"), "1", "public.precious2 is not dropped")
        XCTAssertEqual(try psql("SELECT count(*) FROM \"\(user)\".precious2"), "\(regions)")
        // Append finds the table in its schema, not the public one.
        try f.writeManifest(
            output: .object([
                ("path", .string(pg)), ("layer", .string("precious2")), ("mode", .string("append")),
            ]))
        try f.runOK()
        XCTAssertEqual(try psql("SELECT count(*) FROM public.precious2"), "1")
        XCTAssertEqual(try psql("SELECT count(*) FROM \"\(user)\".precious2"), "\(2 * regions)")
        XCTAssertEqual(try stagingTables(), "")
    }

    func testATableIsReadAsInputThroughOGR() throws {
        let pg = try connection()
        let f = try PipelineFixture()
        defer { f.remove() }
        try f.writeManifest(
            output: .string("../out/test.geojson"),
            poiOutput: .object([("path", .string(pg)), ("layer", .string("input_pois"))]))
        try f.runOK()
        let regions = try f.regionsArtifact()["features"]?.arrayValue?.count
        // The POI layer read back from the database as the input of a new pipeline.
        // (The throwaway cluster trusts local clients: the password is not needed, only not printed.)
        let input = JSONValue.object([
            ("path", .string(pg + " password=hunter2")), ("layer", .string("input_pois")),
            (
                "columns",
                .object([("id", .string("poi_id")), ("name", .string("name")), ("keywords", .string("keywords"))])
            ),
        ])
        try f.writeManifest(output: .string("../out/again.geojson"), input: input)
        let r = try f.runOK()
        XCTAssertTrue(r.output.contains("read 3,000, accepted 3,000, rejected 0"), r.output)
        XCTAssertFalse(r.output.contains("hunter2"), r.output)
        XCTAssertTrue(r.output.contains("password=***"), r.output)
        let pois = try Data(contentsOf: URL(fileURLWithPath: try f.objectPath("ingest", "pois.rsa")))
        XCTAssertNil(pois.range(of: Data("hunter2".utf8)), "no password in the artifact")
        XCTAssertEqual(try f.regionsArtifact()["features"]?.arrayValue?.count, regions)
        // A database has no content hash: ingest reads it every run; what follows is up to date.
        try f.runOK()
        XCTAssertEqual(try f.ranStages(), ["ingest"])
    }

    /// Issue 21, finding 11: a password in a PG: string is printed by neither `status` nor
    /// `status --json`, and stored in no record — also of a failed ingest (no database needed).
    func testPasswordsAreMaskedInStatusAndRecords() throws {
        let f = try PipelineFixture()
        defer { f.remove() }
        try f.writeManifest(
            output: .object([
                ("path", .string("PG:host=/nonexistent dbname=city user=u password=S3cretPW")),
                ("layer", .string("regions")),
            ]))
        for args in [["status", f.manifestPath], ["status", f.manifestPath, "--json"]] {
            let r = try f.tool(args)
            XCTAssertFalse(r.output.contains("S3cretPW"), r.output)
            XCTAssertTrue(r.output.contains("password=***"), r.output)
        }
        try f.writeManifest(
            output: .string("../out/r.geojson"),
            input: .object([
                ("path", .string("PG:host=/nonexistent dbname=city user=u password=InPW123")),
                ("layer", .string("pois")),
                ("columns", .object([("id", .string("osm_id")), ("keywords", .array([.string("amenity")]))])),
            ]))
        let r = try f.run()
        XCTAssertNotEqual(r.status, 0, r.output)
        XCTAssertFalse(r.output.contains("InPW123"), r.output)
        let status = try f.tool(["status", f.manifestPath, "--json"])
        XCTAssertFalse(status.output.contains("InPW123"), status.output)
        /// The files of the work directory whose bytes hold `secret`.
        func holding(_ secret: String) -> [String] {
            var out: [String] = []
            if let walk = FileManager.default.enumerator(atPath: f.workPath) {
                for case let name as String in walk {
                    let data = (try? Data(contentsOf: URL(fileURLWithPath: f.workPath + "/" + name))) ?? Data()
                    if data.range(of: Data(secret.utf8)) != nil { out.append(name) }
                }
            }
            return out
        }
        XCTAssertEqual(holding("InPW123"), [], "no file of the work directory holds the password")

        // An output's password neither (published.json keeps each database's last write).
        let pg = try connection()
        try f.writeManifest(
            output: .object([("path", .string(pg + " password=OutPW789")), ("layer", .string("masked"))]),
            sections: [("maps", .bool(false))])
        try f.runOK()
        XCTAssertEqual(holding("OutPW789"), [], "no file of the work directory holds the output's password")
        XCTAssertTrue(try f.tool(["status", f.manifestPath]).output.contains("table masked: up to date"))
    }

    /// A pipeline whose manifest appends its regions to `table` with history and the lineage on,
    /// night 1 of ``LineageEndToEndTests/nights`` as its input and night 2 in `data/day2.csv`.
    private func appendingNights(to table: String, mode: String = "append") throws -> PipelineFixture {
        let pg = try connection()
        let f = try PipelineFixture()
        do {
            let nights = LineageEndToEndTests.nights
            try LineageEndToEndTests.csv(nights.day1).write(toFile: f.csvPath, atomically: true, encoding: .utf8)
            try LineageEndToEndTests.csv(nights.day2).write(
                toFile: f.root + "/data/day2.csv", atomically: true, encoding: .utf8)
            try f.writeManifest(
                output: .object([("path", .string(pg)), ("layer", .string(table)), ("mode", .string(mode))]),
                keywords: ["restaurant"], sections: [("maps", .bool(false)), ("lineage", .bool(true))])
        } catch {
            f.remove()
            throw error
        }
        return f
    }

    /// A session that holds the table (a transaction that read it and stays open) blocked the
    /// night's DROP without end, and every new reader queued behind the night. Each attempt now
    /// waits at most the lock timeout (here the connection's own, 0.3 s); after three the night
    /// fails with exit 6, naming the table and what to do, and the table is the night before's.
    func testATableAnotherSessionHoldsFailsTheNightAndKeepsTheTable() throws {
        let pg = try connection()
        let f = try appendingNights(to: "held", mode: "overwrite")
        defer { f.remove() }
        try f.runOK()
        let content =
            "SELECT count(*) || ' ' || md5(string_agg(region_id || keyword, ',' ORDER BY region_id)) FROM held"
        let before = try psql(content)
        let holder = try holding("held")
        defer { holder.end() }
        try f.writeManifest(
            output: .object([
                ("path", .string(pg + " options='-c lock_timeout=300'")), ("layer", .string("held")),
                ("mode", .string("overwrite")),
            ]),
            input: .object([("path", .string("../data/day2.csv")), ("format", .string("csv"))]),
            keywords: ["restaurant"], sections: [("maps", .bool(false)), ("lineage", .bool(true))])
        let start = monotonicSeconds()
        let blocked = try f.run()
        XCTAssertEqual(blocked.status, 6, blocked.output)
        XCTAssertLessThan(monotonicSeconds() - start, 60, "the night waited for the holder")
        XCTAssertTrue(blocked.output.contains("another session holds a lock on held"), blocked.output)
        XCTAssertTrue(blocked.output.contains("3 attempts"), blocked.output)
        XCTAssertEqual(try psql(content), before)
        // The night's result is not in the table: status --check says so, and a nightly
        // `status --check || run` retries.
        let check = try f.tool(["status", f.manifestPath, "--check"])
        XCTAssertEqual(check.status, 1, check.output)
        let status = try f.tool(["status", f.manifestPath])
        XCTAssertTrue(status.output.contains("its tables were not written with the current result"), status.output)
        XCTAssertTrue(status.output.contains("failed publishing the outputs (every stage succeeded)"), status.output)

        holder.end()
        try f.runOK()
        XCTAssertNotEqual(try psql(content), before, "night 2 has other regions")
        let current = try f.tool(["status", f.manifestPath, "--check"])
        XCTAssertEqual(current.status, 0, current.output)
        XCTAssertEqual(try stagingTables(), "")
    }

    /// A session that read `table` in a transaction it keeps open (`pg_sleep(120)`), or took
    /// `lockMode`'s lock on it, once the server shows its lock; `end()` ends it on the server (its
    /// backend sleeps on after its client goes).
    private func holding(_ table: String, lockMode: String? = nil) throws -> TableHolder {
        let user = try connection().components(separatedBy: "user=").last ?? "postgres"
        let process = try ChildProcess(
            executable: "/usr/bin/psql",
            arguments: [
                "-h", Self.directory + "/sock", "-U", user, "-d", "regionsearch", "-XAtq", "-c",
                "BEGIN; "
                    + (lockMode.map { "LOCK TABLE \(table) IN \($0) MODE;" } ?? "SELECT count(*) FROM \(table);")
                    + " SELECT pg_sleep(120); COMMIT;",
            ], output: .file(Self.directory + "/holder.log"))
        let holder = TableHolder(process: process) { [self] in
            _ = try? psql(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE query LIKE '%pg_sleep(120)%' "
                    + "AND pid <> pg_backend_pid()")
        }
        var held = "0"
        for _ in 0..<100 where held == "0" {
            Thread.sleep(forTimeInterval: 0.05)
            held = try psql(
                "SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation "
                    + "WHERE c.relname = '\(table)' AND l.granted AND l.pid <> pg_backend_pid()")
        }
        XCTAssertNotEqual(held, "0", "the holder never read the table")
        return holder
    }

    /// A psql session holding a table, and how to end it.
    private final class TableHolder {
        let process: ChildProcess
        let terminate: () -> Void
        private var ended = false

        init(process: ChildProcess, terminate: @escaping () -> Void) {
            self.process = process
            self.terminate = terminate
        }

        func end() {
            guard !ended else { return }
            ended = true
            terminate()
            process.kill(SIGTERM)
            _ = process.wait()
        }
    }

    /// A fixture whose regions and POIs overwrite the tables `regions` and `pois` over
    /// `connection`, after its first night.
    private func overwritingBoth(_ regions: String, _ pois: String, connection: String) throws -> PipelineFixture {
        let f = try PipelineFixture()
        do {
            try f.writeManifest(
                output: .object([
                    ("path", .string(connection)), ("layer", .string(regions)), ("mode", .string("overwrite")),
                ]),
                poiOutput: .object([
                    ("path", .string(connection)), ("layer", .string(pois)), ("mode", .string("overwrite")),
                ]), sections: [("maps", .bool(false))])
            try f.runOK()
        } catch {
            f.remove()
            throw error
        }
        return f
    }

    /// Of the night's tables, the one another session holds is named: the message had named
    /// every table of the write (regions and POIs) whichever was held.
    func testALockWaitNamesTheTableHeld() throws {
        let f = try overwritingBoth(
            "named_r", "named_p", connection: try connection() + " options='-c lock_timeout=200'")
        defer { f.remove() }
        defer { _ = try? psql("DROP TABLE IF EXISTS named_r, named_p") }
        let holder = try holding("named_p")
        defer { holder.end() }
        let blocked = try f.run(["--force"])
        XCTAssertEqual(blocked.status, 6, blocked.output)
        XCTAssertTrue(blocked.output.contains("another session holds a lock on named_p ("), blocked.output)
        // A wait the server told in its own words names no table: all of them are named.
        let english = GDALError.operationFailed(
            operation: "ExecuteSQL", code: 6,
            messages: [GDALMessage(level: .failure, code: 1, text: "ERROR:  canceling statement due to lock timeout")])
        XCTAssertNil(PostGISTableWriter.heldTable(in: english))
        let marked = GDALError.operationFailed(
            operation: "ExecuteSQL", code: 6,
            messages: [
                GDALMessage(
                    level: .failure, code: 1,
                    text: "FEHLER:  \(PostGISTableWriter.lockTimeoutMarker) \"my \"\".schema\".\"named_p\"\nKONTEXT: …")
            ])
        XCTAssertEqual(PostGISTableWriter.heldTable(in: marked), "named_p")
    }

    /// A `lock_timeout` the database (or the role) sets is the one the night waits: the writer
    /// had set its own 10 s over it, so a DBA's 250 ms became 3 waits of 10 s.
    func testALockTimeoutTheDatabaseSetsIsTheOneEachAttemptWaits() throws {
        _ = try connection()
        let f = try appendingNights(to: "held_db", mode: "overwrite")
        defer { f.remove() }
        try f.runOK()
        _ = try psql("ALTER DATABASE regionsearch SET lock_timeout = '250ms'")
        defer { _ = try? psql("ALTER DATABASE regionsearch RESET lock_timeout") }
        let holder = try holding("held_db")
        defer { holder.end() }
        let start = monotonicSeconds()
        let blocked = try f.run()
        XCTAssertEqual(blocked.status, 6, blocked.output)
        XCTAssertLessThan(monotonicSeconds() - start, 25, "each attempt waited longer than the database's 250 ms")
        XCTAssertTrue(blocked.output.contains("3 attempts each waited 250ms (lock_timeout)"), blocked.output)
    }

    /// A server that words its messages in German (`lc_messages`) says "lock timeout" otherwise:
    /// the wait was neither retried nor explained (a raw GDAL error). The writer's own lock
    /// block names it in any language.
    func testALockWaitIsToldAsOneOnAServerThatSpeaksGerman() throws {
        _ = try connection()
        let f = try appendingNights(to: "held_de", mode: "overwrite")
        defer { f.remove() }
        try f.runOK()
        let user = try connection().components(separatedBy: "user=").last ?? "postgres"
        let log = Self.directory + "/lc-" + UUID().uuidString
        defer { unlink(log) }
        let set = try ChildProcess(
            executable: "/usr/bin/psql",
            arguments: [
                "-h", Self.directory + "/sock", "-U", user, "-d", "regionsearch", "-XAtq", "-c",
                "ALTER DATABASE regionsearch SET lc_messages = 'de_DE.UTF-8'",
            ], output: .file(log)
        ).wait()
        guard "\(set)" == "\(ChildProcess.Termination.exited(0))" else {
            // .ci/run makes the locale (localedef); a machine without it cannot run this.
            throw XCTSkip(
                "the server has no de_DE.UTF-8 locale: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
        }
        defer { _ = try? psql("ALTER DATABASE regionsearch RESET lc_messages") }
        XCTAssertEqual(try psql("SHOW lc_messages"), "de_DE.UTF-8")
        _ = try ChildProcess(
            executable: "/usr/bin/psql",
            arguments: ["-h", Self.directory + "/sock", "-U", user, "-d", "regionsearch", "-XAtq", "-c", "SELECT 1/0"],
            output: .file(log)
        ).wait()
        let german = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        guard german.contains("Division durch Null") else {
            throw XCTSkip("the server has no German messages (postgresql's translations): \(german)")
        }
        let holder = try holding("held_de")
        defer { holder.end() }
        try f.writeManifest(
            output: .object([
                ("path", .string(try connection() + " options='-c lock_timeout=200'")), ("layer", .string("held_de")),
                ("mode", .string("overwrite")),
            ]),
            input: .object([("path", .string("../data/day2.csv")), ("format", .string("csv"))]),
            keywords: ["restaurant"], sections: [("maps", .bool(false)), ("lineage", .bool(true))])
        let blocked = try f.run()
        XCTAssertEqual(blocked.status, 6, blocked.output)
        XCTAssertTrue(blocked.output.contains("another session holds a lock on held_de"), blocked.output)
        XCTAssertTrue(blocked.output.contains("3 attempts"), blocked.output)
        holder.end()

        // An append waits where it first reads the table (whether tonight's rows are there): a
        // session that holds the table to itself (a DBA's ALTER, a VACUUM FULL) is told the same.
        func appendNight(_ csv: String) throws -> PipelineFixture.Result {
            try f.writeManifest(
                output: .object([
                    ("path", .string(try connection() + " options='-c lock_timeout=200'")),
                    ("layer", .string("held_de_a")), ("mode", .string("append")),
                ]),
                input: .object([("path", .string("../data/" + csv)), ("format", .string("csv"))]),
                keywords: ["restaurant"], sections: [("maps", .bool(false)), ("lineage", .bool(true))])
            return try f.run()
        }
        defer { _ = try? psql("DROP TABLE IF EXISTS held_de_a") }
        XCTAssertEqual(try appendNight("city.csv").status, 0)
        let exclusive = try holding("held_de_a", lockMode: "ACCESS EXCLUSIVE")
        defer { exclusive.end() }
        let appending = try appendNight("day2.csv")
        XCTAssertEqual(appending.status, 6, appending.output)
        XCTAssertTrue(appending.output.contains("another session holds a lock on held_de_a"), appending.output)
        XCTAssertTrue(appending.output.contains("3 attempts"), appending.output)
    }

    /// Overwrite builds a new table: the old one's grants (a web map's read-only role), owner and
    /// comment were lost on the first night, with exit 0. They are given to the new table. A table a
    /// view reads cannot be dropped: that is refused in words, the table as it was.
    func testOverwriteKeepsTheTablesGrantsAndRefusesATableAViewReads() throws {
        let pg = try connection()
        let f = try appendingNights(to: "granted", mode: "overwrite")
        defer { f.remove() }
        try f.runOK()
        _ = try psql(
            "DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'webmap') THEN "
                + "CREATE ROLE webmap LOGIN; END IF; END $$; GRANT SELECT ON public.granted TO webmap; "
                + "COMMENT ON TABLE public.granted IS 'nightly; read only'")
        defer { _ = try? psql("DROP VIEW IF EXISTS granted_view; DROP OWNED BY webmap; DROP ROLE IF EXISTS webmap") }
        let content =
            "SELECT count(*) || ' ' || md5(string_agg(region_id || keyword, ',' ORDER BY region_id)) FROM granted"
        let before = try psql(content)
        func night(_ csv: String, as user: String? = nil) throws -> PipelineFixture.Result {
            let connection = user.map { pg.replacingOccurrences(of: "user=postgres", with: "user=" + $0) } ?? pg
            try f.writeManifest(
                output: .object([
                    ("path", .string(connection)), ("layer", .string("granted")), ("mode", .string("overwrite")),
                ]),
                input: .object([("path", .string("../data/" + csv)), ("format", .string("csv"))]),
                keywords: ["restaurant"], sections: [("maps", .bool(false)), ("lineage", .bool(true))])
            return try f.run()
        }
        let second = try night("day2.csv")
        XCTAssertEqual(second.status, 0, second.output)
        XCTAssertNotEqual(try psql(content), before, "night 2 replaced the table")
        XCTAssertEqual(try psql("SELECT has_table_privilege('webmap', 'public.granted', 'SELECT')"), "t")
        XCTAssertEqual(try psql("SELECT has_table_privilege('webmap', 'public.granted', 'DELETE')"), "f")
        XCTAssertEqual(try psql("SELECT obj_description('public.granted'::regclass, 'pg_class')"), "nightly; read only")

        // Owned by a group role without CREATE on the schema, written by a member that has it:
        // PostgreSQL refuses that owner for the new table. Said, and the night goes on (it had
        // failed every night), the grants kept.
        _ = try psql(
            "DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'gis_owner') THEN "
                + "CREATE ROLE gis_owner NOLOGIN; END IF; IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'etl') "
                + "THEN CREATE ROLE etl LOGIN IN ROLE gis_owner; END IF; END $$; "
                + "GRANT CREATE, USAGE ON SCHEMA public TO etl; ALTER TABLE public.granted OWNER TO gis_owner")
        defer {
            _ = try? psql(
                "ALTER TABLE IF EXISTS public.granted OWNER TO postgres; DROP OWNED BY etl; DROP OWNED BY gis_owner; "
                    + "DROP ROLE IF EXISTS etl; DROP ROLE IF EXISTS gis_owner")
        }
        let byMember = try night("city.csv", as: "etl")
        XCTAssertEqual(byMember.status, 0, byMember.output)
        XCTAssertTrue(byMember.output.contains("could not be given what the old one had"), byMember.output)
        XCTAssertEqual(try psql("SELECT has_table_privilege('webmap', 'public.granted', 'SELECT')"), "t")
        _ = try psql("ALTER TABLE public.granted OWNER TO postgres")

        _ = try psql("CREATE VIEW granted_view AS SELECT region_id FROM public.granted")
        let rows = try psql(content)
        let third = try night("day2.csv")
        XCTAssertEqual(third.status, 6, third.output)
        XCTAssertTrue(third.output.contains("the view(s) granted_view read table public.granted"), third.output)
        XCTAssertEqual(try psql(content), rows)
        XCTAssertEqual(try stagingTables(), "")
    }

    /// What else a DBA gives a published table: a role that may read some columns only, and row-level
    /// security with a policy (a role that sees some rows). Overwrite had dropped both: the column
    /// grant was gone and the policy's role saw nothing (row security off: every row to its owner,
    /// none granted to the role). Both are given to the new table; a policy on a column the new
    /// table lacks is said and left out, the night written.
    func testOverwriteKeepsColumnGrantsAndRowSecurity() throws {
        _ = try connection()
        let f = try appendingNights(to: "secured", mode: "overwrite")
        defer { f.remove() }
        try f.runOK()
        _ = try psql(
            "DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'analyst') THEN "
                + "CREATE ROLE analyst LOGIN; END IF; END $$; "
                + "GRANT SELECT (region_id, keyword) ON public.secured TO analyst; "
                + "ALTER TABLE public.secured ENABLE ROW LEVEL SECURITY; "
                + "CREATE POLICY first_ones ON public.secured FOR SELECT TO analyst USING (region_id <= 2); "
                + "CREATE TABLE IF NOT EXISTS shown_keywords (keyword text); "
                + "INSERT INTO shown_keywords VALUES ('restaurant'); GRANT SELECT ON shown_keywords TO analyst; "
                + "CREATE POLICY listed ON public.secured FOR SELECT TO analyst USING (EXISTS (SELECT 1 FROM "
                + "shown_keywords k WHERE k.keyword = secured.keyword)); "
                + "ALTER TABLE public.secured ADD COLUMN note text; "
                + "CREATE POLICY by_note ON public.secured FOR SELECT TO analyst USING (note IS NULL)")
        defer {
            _ = try? psql(
                "DROP TABLE IF EXISTS shown_keywords CASCADE; DROP OWNED BY analyst; DROP ROLE IF EXISTS analyst")
        }
        func policies() throws -> String {
            try psql(
                "SELECT string_agg(polname || ':' || regexp_replace(pg_get_expr(polqual, polrelid), '\\s+', ' ', 'g'), ' ' "
                    + "ORDER BY polname) "
                    + "FROM pg_policy WHERE polrelid = 'public.secured'::regclass")
        }
        let listed = "listed:(EXISTS ( SELECT 1 FROM shown_keywords k WHERE (k.keyword = (secured.keyword)::text)))"
        XCTAssertEqual(try policies(), "by_note:(note IS NULL) first_ones:(region_id <= 2) " + listed)

        try f.writeManifest(
            output: .object([
                ("path", .string(try connection())), ("layer", .string("secured")), ("mode", .string("overwrite")),
            ]),
            input: .object([("path", .string("../data/day2.csv")), ("format", .string("csv"))]),
            keywords: ["restaurant"], sections: [("maps", .bool(false)), ("lineage", .bool(true))])
        let night = try f.run()
        XCTAssertEqual(night.status, 0, night.output)
        XCTAssertTrue(night.output.contains("could not be given what the old one had"), night.output)
        XCTAssertTrue(night.output.contains("by_note"), night.output)
        XCTAssertEqual(try psql("SELECT has_column_privilege('analyst', 'public.secured', 'region_id', 'SELECT')"), "t")
        XCTAssertEqual(try psql("SELECT has_column_privilege('analyst', 'public.secured', 'keyword', 'SELECT')"), "t")
        XCTAssertEqual(try psql("SELECT has_table_privilege('analyst', 'public.secured', 'SELECT')"), "f")
        XCTAssertEqual(try psql("SELECT relrowsecurity FROM pg_class WHERE oid = 'public.secured'::regclass"), "t")
        XCTAssertEqual(try policies(), "first_ones:(region_id <= 2) " + listed)
        // What the analyst sees through the policy: the rows it allows, from the new table.
        let seen = try psql(
            "SET ROLE analyst; SELECT string_agg(region_id::text, ',' ORDER BY region_id) FROM public.secured; "
                + "RESET ROLE")
        let allowed = try psql(
            "SELECT string_agg(region_id::text, ',' ORDER BY region_id) FROM public.secured WHERE region_id <= 2 "
                + "OR keyword IN (SELECT keyword FROM shown_keywords)")
        XCTAssertFalse(allowed.isEmpty)
        XCTAssertEqual(seen, allowed)
        XCTAssertEqual(try stagingTables(), "")

        // A restrictive policy the new table cannot take would show the analyst rows it hid: the
        // night fails and the table is as it was.
        _ = try psql(
            "ALTER TABLE public.secured ADD COLUMN tenant text; CREATE POLICY only_tenant ON public.secured AS "
                + "RESTRICTIVE FOR SELECT TO analyst USING (tenant = 'b')")
        let content =
            "SELECT count(*) || ' ' || md5(string_agg(region_id || keyword, ',' ORDER BY region_id)) FROM secured"
        let before = try psql(content)
        let refused = try f.run(["--input", f.root + "/data/city.csv"])
        XCTAssertEqual(refused.status, 6, refused.output)
        XCTAssertTrue(refused.output.contains("without it would show rows the old one hid"), refused.output)
        XCTAssertTrue(refused.output.contains("only_tenant"), refused.output)
        XCTAssertEqual(try psql(content), before)
        XCTAssertEqual(try stagingTables(), "")
    }

    /// Row-level security on an appended table: forced on its owner (the writer), its policies
    /// hid the table's rows from the append and PostgreSQL refused the COPY ("COPY FROM not
    /// supported with row-level security"), every night. It is lifted for the transaction and
    /// forced again before the commit. A writer it applies to as a non-owner is refused in words.
    func testAnAppendThroughForcedRowSecurity() throws {
        let pg = try connection()
        let f = try appendingNights(to: "forced")
        defer { f.remove() }
        defer {
            _ = try? psql(
                "DROP TABLE IF EXISTS forced; DROP OWNED BY appender; DROP ROLE IF EXISTS appender; "
                    + "DROP OWNED BY forcer; DROP ROLE IF EXISTS forcer")
        }
        try f.runOK()
        let first = Int(try psql("SELECT count(*) FROM forced")) ?? -1
        // Owned by a role that is no superuser (a superuser passes every policy).
        _ = try psql(
            "DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'forcer') THEN "
                + "CREATE ROLE forcer LOGIN; END IF; END $$; GRANT CREATE, USAGE ON SCHEMA public TO forcer; "
                + "ALTER TABLE forced OWNER TO forcer; "
                + "ALTER TABLE forced ENABLE ROW LEVEL SECURITY; ALTER TABLE forced FORCE ROW LEVEL SECURITY; "
                + "CREATE POLICY nothing ON forced USING (false)")
        func manifest(as user: String, _ csv: String) throws {
            try f.writeManifest(
                output: .object([
                    ("path", .string(pg.replacingOccurrences(of: "user=postgres", with: "user=" + user))),
                    ("layer", .string("forced")), ("mode", .string("append")),
                ]),
                input: .object([("path", .string("../data/" + csv)), ("format", .string("csv"))]),
                keywords: ["restaurant"], sections: [("maps", .bool(false)), ("lineage", .bool(true))])
        }
        try manifest(as: "forcer", "day2.csv")
        let night = try f.run()
        XCTAssertEqual(night.status, 0, night.output)
        XCTAssertGreaterThan(Int(try psql("SELECT count(*) FROM forced")) ?? -1, first)
        XCTAssertEqual(
            try psql("SELECT count(DISTINCT run_id) FROM forced WHERE valid_to IS NULL"), "1",
            "night 1's rows were not closed")
        XCTAssertEqual(try psql("SELECT relforcerowsecurity FROM pg_class WHERE oid = 'forced'::regclass"), "t")

        _ = try psql(
            "DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'appender') THEN "
                + "CREATE ROLE appender LOGIN; END IF; END $$; GRANT SELECT, INSERT, UPDATE ON forced TO appender; "
                + "GRANT USAGE ON SEQUENCE forced_fid_seq TO appender")
        try manifest(as: "appender", "city.csv")
        let rows = try psql("SELECT count(*) FROM forced")
        let refused = try f.run()
        XCTAssertEqual(refused.status, 6, refused.output)
        XCTAssertTrue(
            refused.output.contains("row-level security that applies to this connection's role"), refused.output)
        XCTAssertEqual(try psql("SELECT count(*) FROM forced"), rows)
    }

    /// A policy on the regions table that reads the POI table, both replaced in one night: the
    /// new regions table's policy was made on the old POI table, which then could not be dropped
    /// (exit 6 every night). Policies are given once both are in place, and read the new one.
    func testAPolicyThatReadsTheOtherTableOfTheNightIsKept() throws {
        let f = try overwritingBoth("cross_r", "cross_p", connection: try connection())
        defer { f.remove() }
        defer { _ = try? psql("DROP TABLE IF EXISTS cross_r, cross_p") }
        // Each reads the other: the regions' policy the POIs, the POIs' policy the regions.
        _ = try psql(
            "ALTER TABLE cross_r ENABLE ROW LEVEL SECURITY; CREATE POLICY near_pois ON cross_r FOR SELECT USING "
                + "(region_id IN (SELECT region_1 FROM cross_p WHERE match_1 = 1)); "
                + "ALTER TABLE cross_p ENABLE ROW LEVEL SECURITY; CREATE POLICY in_regions ON cross_p FOR SELECT USING "
                + "(region_1 IN (SELECT region_id FROM cross_r))")
        for night in 1...2 {
            let run = try f.run(["--input", f.root + "/data/city.csv", "--force"])
            XCTAssertEqual(run.status, 0, "night \(night): " + run.output)
            XCTAssertEqual(
                try psql(
                    "SELECT regexp_replace(pg_get_expr(polqual, polrelid), '\\s+', ' ', 'g') FROM pg_policy "
                        + "WHERE polrelid = 'cross_r'::regclass"),
                "(region_id IN ( SELECT cross_p.region_1 FROM cross_p WHERE (cross_p.match_1 = 1)))")
            XCTAssertEqual(
                try psql(
                    "SELECT regexp_replace(pg_get_expr(polqual, polrelid), '\\s+', ' ', 'g') FROM pg_policy "
                        + "WHERE polrelid = 'cross_p'::regclass"),
                "(region_1 IN ( SELECT cross_r.region_id FROM cross_r))")
            XCTAssertEqual(try stagingTables(), "")
        }

        // A policy on a table the night does not write, reading one it replaces: PostgreSQL drops
        // no such table. Refused in words, the tables as they were (it had been GDAL's error).
        _ = try psql(
            "CREATE TABLE IF NOT EXISTS cross_other (id int); ALTER TABLE cross_other ENABLE ROW LEVEL SECURITY; "
                + "CREATE POLICY by_regions ON cross_other USING (id IN (SELECT region_id FROM cross_r))")
        defer { _ = try? psql("DROP TABLE IF EXISTS cross_other") }
        let content = "SELECT count(*) || ' ' || md5(string_agg(region_id::text, ',' ORDER BY region_id)) FROM cross_r"
        let before = try psql(content)
        let refused = try f.run(["--input", f.root + "/data/city.csv", "--force", "--set", "regions.core_ratio=8"])
        XCTAssertEqual(refused.status, 6, refused.output)
        XCTAssertTrue(
            refused.output.contains("the policy by_regions on table public.cross_other reads table public.cross_r"),
            refused.output)
        XCTAssertEqual(try psql(content), before)
        XCTAssertEqual(try stagingTables(), "")
    }

    /// `"mode": "append"` keeps every night: rows with run_id, valid_from and valid_to, the
    /// earlier night's rows closed by the next, a rerun appending nothing, and the lineage's ids,
    /// so the rows of a place join across nights by region_id.
    func testAppendKeepsHistoryRowsWithTheLineagesIds() throws {
        let f = try appendingNights(to: "nightly")
        defer { f.remove() }
        try f.runOK()
        let first = Int(try psql("SELECT count(*) FROM nightly")) ?? -1
        XCTAssertGreaterThan(first, 8)
        XCTAssertEqual(try psql("SELECT count(DISTINCT run_id) FROM nightly WHERE valid_to IS NULL"), "1")
        // The lineage lives in the work directory (the regions go to a database).
        XCTAssertTrue(FileManager.default.fileExists(atPath: f.workPath + "/lineage.json"))
        // A rerun appends nothing.
        let rerun = try f.runOK()
        XCTAssertTrue(rerun.output.contains("holds this run's rows already"), rerun.output)
        XCTAssertEqual(Int(try psql("SELECT count(*) FROM nightly")), first)
        // Night 2: its rows current, night 1's closed at night 2's valid_from.
        try f.runOK(["--input", f.root + "/data/day2.csv"])
        let current = Int(try psql("SELECT count(*) FROM nightly WHERE valid_to IS NULL")) ?? -1
        XCTAssertEqual(Int(try psql("SELECT count(*) FROM nightly")), first + current)
        XCTAssertEqual(try psql("SELECT count(DISTINCT run_id) FROM nightly"), "2")
        XCTAssertEqual(
            try psql(
                "SELECT count(*) FROM nightly a WHERE valid_to IS NOT NULL AND valid_to <> "
                    + "(SELECT min(valid_from) FROM nightly WHERE valid_to IS NULL)"), "0")
        // The untouched places: the same region_id on both nights, "unchanged" on the second.
        let unchanged = try psql(
            "SELECT count(*) FROM nightly a JOIN nightly b USING (region_id) WHERE a.valid_to IS NOT NULL "
                + "AND b.valid_to IS NULL AND b.change = 'unchanged' AND a.level = 0 AND b.level = 0")
        XCTAssertGreaterThanOrEqual(Int(unchanged) ?? 0, 3, "the three untouched clusters pair by region_id")
        XCTAssertEqual(try psql("SELECT count(*) FROM nightly WHERE valid_to IS NULL AND change = 'merged'"), "1")

        // A night killed after its table's commit and before its lineage file: the retry numbers
        // as the first attempt did (it had numbered above the attempt's own rows, closed them all
        // and appended every region again under new ids).
        try FileManager.default.removeItem(atPath: f.workPath)
        let beforeKill = Int(try psql("SELECT count(*) FROM nightly")) ?? -1
        let killed = try f.run(
            ["--input", f.root + "/data/day2.csv", "--force"],
            environment: [CrashPoint.environmentVariable: "run:lineage-files:1"])
        XCTAssertNotEqual(killed.status, 0, killed.output)
        let attempt = try psql(
            "SELECT string_agg(region_id::text, ',' ORDER BY region_id) FROM nightly WHERE valid_to IS NULL")
        let afterKill = Int(try psql("SELECT count(*) FROM nightly")) ?? -1
        XCTAssertGreaterThan(afterKill, beforeKill, "the killed night's rows were committed")
        let retry = try f.runOK(["--input", f.root + "/data/day2.csv"])
        XCTAssertTrue(retry.output.contains("holds this run's rows already"), retry.output)
        XCTAssertEqual(Int(try psql("SELECT count(*) FROM nightly")), afterKill, "the retry appended again")
        XCTAssertEqual(
            try psql("SELECT string_agg(region_id::text, ',' ORDER BY region_id) FROM nightly WHERE valid_to IS NULL"),
            attempt)

        // The work directory lost (its lineage.json with it): the lineage starts anew, and its ids
        // go above those the table holds, so a region_id is one place in the table's history.
        // They had restarted at 1.
        let issued = Int(try psql("SELECT max(region_id) FROM nightly")) ?? -1
        try FileManager.default.removeItem(atPath: f.workPath)
        let lost = try f.runOK(["--input", f.root + "/data/day2.csv"])
        XCTAssertTrue(lost.output.contains("fresh") || lost.output.contains("new"), lost.output)
        XCTAssertEqual(
            try psql("SELECT min(region_id) > \(issued) FROM nightly WHERE valid_to IS NULL"), "t",
            "a new lineage reused ids the table's history holds")
    }

    /// The regions go to a file and only the POIs are appended to PostGIS: the POI table's history
    /// names regions by `region_<k>`. A lineage that starts anew (`--fresh-lineage`) numbered from 1
    /// again, so the old rows' region ids became other places; it now numbers above the ids every
    /// keyword's `region_<k>` column holds.
    func testAFreshLineageNumbersAboveTheIdsOfAnAppendedPOITable() throws {
        let pg = try connection()
        let f = try PipelineFixture()
        defer { f.remove() }
        _ = try psql("DROP TABLE IF EXISTS floor_p")
        defer { _ = try? psql("DROP TABLE IF EXISTS floor_p") }
        try f.writeManifest(
            output: .string("../out/regions.geojson"),
            poiOutput: .object([("path", .string(pg)), ("layer", .string("floor_p")), ("mode", .string("append"))]),
            keywords: ["cafe", "bank"], sections: [("maps", .bool(false)), ("lineage", .bool(true))])
        try f.runOK()
        let issued = Int(try psql("SELECT greatest(max(region_1), max(region_2)) FROM floor_p")) ?? -1
        XCTAssertGreaterThan(issued, 0, "night 1 wrote no region ids to the POI table")
        // A second keyword order: region_1 is bank's now, and still above every old id.
        try f.writeManifest(
            output: .string("../out/regions.geojson"),
            poiOutput: .object([("path", .string(pg)), ("layer", .string("floor_p")), ("mode", .string("append"))]),
            keywords: ["bank", "cafe"], sections: [("maps", .bool(false)), ("lineage", .bool(true))])
        try f.runOK(["--fresh-lineage", "--input", f.root + "/data/city.csv"])
        XCTAssertEqual(
            try psql(
                "SELECT least(min(region_1), min(region_2)) > \(issued) FROM floor_p WHERE valid_to IS NULL"), "t",
            "a new lineage reused ids the POI table's history holds")

        // Reading those ids waits for a table another session holds as long as a write would
        // (10 s), not for ever (it had hung before any stage).
        try f.writeManifest(
            output: .string("../out/regions.geojson"),
            poiOutput: .object([("path", .string(pg)), ("layer", .string("floor_p")), ("mode", .string("append"))]),
            keywords: ["bank", "cafe"], sections: [("maps", .bool(false)), ("lineage", .bool(true))])
        let holder = try holding("floor_p", lockMode: "ACCESS EXCLUSIVE")
        defer { holder.end() }
        let start = monotonicSeconds()
        let held = try f.run(["--fresh-lineage", "--input", f.root + "/data/city.csv"])
        XCTAssertNotEqual(held.status, 0, held.output)
        XCTAssertLessThan(monotonicSeconds() - start, 30, "the run waited for the holder")
        XCTAssertTrue(held.output.contains("cannot read the region ids the table holds"), held.output)
    }

    /// `status` does not connect to the database to number a new lineage: with the lineage file
    /// gone and the database's server accepting but never answering, it had waited for ever (and
    /// with it a nightly `status --check || run`).
    func testStatusDoesNotWaitOnADatabaseThatDoesNotAnswer() throws {
        let f = try appendingNights(to: "silent")
        defer { f.remove() }
        try f.runOK()
        try FileManager.default.removeItem(atPath: f.workPath + "/lineage.json")
        let portFile = f.root + "/port"
        let listener = try ChildProcess(
            executable: "/usr/bin/python3",
            arguments: [
                "-c",
                "import socket, sys, time\ns = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(8)\n"
                    + "open(sys.argv[1] + '.tmp', 'w').write(str(s.getsockname()[1]))\n"
                    + "import os; os.rename(sys.argv[1] + '.tmp', sys.argv[1])\n"
                    + "conns = []\nwhile True: conns.append(s.accept())",
                portFile,
            ])
        defer {
            listener.kill(SIGKILL)
            _ = listener.wait()
        }
        var port = ""
        for _ in 0..<100 where port.isEmpty {
            Thread.sleep(forTimeInterval: 0.05)
            port = (try? String(contentsOfFile: portFile, encoding: .utf8)) ?? ""
        }
        XCTAssertFalse(port.isEmpty, "the listener did not start")
        try f.writeManifest(
            output: .object([
                ("path", .string("PG:host=127.0.0.1 port=\(port) dbname=regionsearch user=postgres")),
                ("layer", .string("silent")), ("mode", .string("append")),
            ]),
            keywords: ["restaurant"], sections: [("maps", .bool(false)), ("lineage", .bool(true))])
        let manifest = f.manifestPath
        let outcome = TestSupport.finishing(within: 60) {
            (try? f.tool(["status", manifest])).map { "\($0.status)" } ?? "failed"
        }
        XCTAssertNotNil(outcome, "status waited on the database")
    }

    /// A table appended to by an earlier version lacks the fields added since (`kind` came after
    /// append mode): the next night adds them, of the types GDAL gives a new table, null on the
    /// old rows, instead of failing on the missing column.
    func testAppendToATableOfAnEarlierVersionAddsTheFieldsItLacks() throws {
        let f = try appendingNights(to: "upgraded")
        defer { f.remove() }
        try f.runOK()
        let fields = ["kind", "n_pois", "empty_share"]
        func types() throws -> String {
            try psql(
                "SELECT string_agg(column_name || ':' || data_type, ',' ORDER BY column_name) FROM "
                    + "information_schema.columns WHERE table_name = 'upgraded' AND column_name IN ('"
                    + fields.joined(separator: "','") + "')")
        }
        let created = try types()
        XCTAssertEqual(created.split(separator: ",").count, 3, created)
        let first = Int(try psql("SELECT count(*) FROM upgraded")) ?? -1
        XCTAssertGreaterThan(first, 0)
        // The table as a version before these fields left it.
        for field in fields { _ = try psql("ALTER TABLE upgraded DROP COLUMN \"\(field)\"") }
        try f.runOK(["--input", f.root + "/data/day2.csv"])
        XCTAssertEqual(try types(), created, "the same columns as a table made new")
        XCTAssertEqual(try psql("SELECT count(*) FROM upgraded WHERE kind IS NULL"), "\(first)", "the old rows")
        let current = try psql("SELECT count(*) FROM upgraded WHERE valid_to IS NULL")
        XCTAssertEqual(
            try psql("SELECT count(*) FROM upgraded WHERE valid_to IS NULL AND kind IN ('street', 'area')"), current)
        XCTAssertEqual(
            try psql("SELECT count(*) FROM upgraded WHERE valid_to IS NULL AND n_pois > 0 AND empty_share >= 0"),
            current)
    }

    /// A table written before it was appended to (by `overwrite`, or a version before history
    /// rows) has no history columns: the first append adds them once, with the layer's fields,
    /// and closes the old rows.
    func testAppendToATableWithoutHistoryColumnsAddsThem() throws {
        let f = try appendingNights(to: "plain")
        defer { f.remove() }
        try f.runOK()
        let first = try psql("SELECT count(*) FROM plain")
        for column in ["run_id", "valid_from", "valid_to"] { _ = try psql("ALTER TABLE plain DROP COLUMN \(column)") }
        try f.runOK(["--input", f.root + "/data/day2.csv"])
        XCTAssertEqual(
            try psql(
                "SELECT string_agg(column_name || ':' || data_type, ',' ORDER BY column_name) FROM "
                    + "information_schema.columns WHERE table_name = 'plain' AND column_name IN "
                    + "('run_id', 'valid_from', 'valid_to')"),
            "run_id:character varying,valid_from:character varying,valid_to:character varying")
        XCTAssertEqual(try psql("SELECT count(*) FROM plain WHERE run_id IS NULL AND valid_to IS NOT NULL"), first)
        XCTAssertEqual(try psql("SELECT count(DISTINCT run_id) FROM plain WHERE valid_to IS NULL"), "1")
    }

    /// Nights A, B, then A again, appending without a lineage file (whose `change` column makes
    /// every night's rows differ): the third night's rows are current again. Counting `run_id`
    /// over all rows, it appended nothing and night B's rows stayed current, exit 0.
    func testAResultThatComesBackIsAppendedAgainAndCurrent() throws {
        let f = try appendingNights(to: "comeback")
        defer { f.remove() }
        let pg = try connection()
        try f.writeManifest(
            output: .object([("path", .string(pg)), ("layer", .string("comeback")), ("mode", .string("append"))]),
            keywords: ["restaurant"], sections: [("maps", .bool(false))])
        try f.runOK()
        let nightA = try psql("SELECT min(run_id) || ':' || count(*) FROM comeback WHERE valid_to IS NULL")
        try f.runOK(["--input", f.root + "/data/day2.csv"])
        XCTAssertNotEqual(
            try psql("SELECT min(run_id) || ':' || count(*) FROM comeback WHERE valid_to IS NULL"), nightA)
        let again = try f.runOK()
        XCTAssertFalse(again.output.contains("holds this run's rows already"), again.output)
        XCTAssertEqual(try psql("SELECT min(run_id) || ':' || count(*) FROM comeback WHERE valid_to IS NULL"), nightA)
        XCTAssertEqual(try psql("SELECT count(DISTINCT run_id) FROM comeback WHERE valid_to IS NULL"), "1")
        // And a rerun of it appends nothing.
        let rows = try psql("SELECT count(*) FROM comeback")
        XCTAssertTrue(try f.runOK().output.contains("holds this run's rows already"))
        XCTAssertEqual(try psql("SELECT count(*) FROM comeback"), rows)
    }

    /// The POI table appended to gets a night whose POI layer changed although the regions did
    /// not (`select` "in_regions" → "all"): with the regions' hash as the run id it appended
    /// nothing.
    func testAnAppendedPOITableFollowsItsOwnContent() throws {
        let pg = try connection()
        let f = try PipelineFixture()
        defer { f.remove() }
        func write(_ select: String) throws {
            try f.writeManifest(
                output: .object([("path", .string(pg)), ("layer", .string("own_r")), ("mode", .string("append"))]),
                poiOutput: .object([
                    ("path", .string(pg)), ("layer", .string("own_p")), ("mode", .string("append")),
                    ("select", .string(select)),
                ]), sections: [("maps", .bool(false))])
        }
        try write("in_regions")
        try f.runOK()
        let inRegions = Int(try psql("SELECT count(*) FROM own_p WHERE valid_to IS NULL")) ?? -1
        try write("all")
        try f.runOK()
        let all = Int(try psql("SELECT count(*) FROM own_p WHERE valid_to IS NULL")) ?? -1
        XCTAssertGreaterThan(all, inRegions)
        XCTAssertEqual(try psql("SELECT count(*) FROM own_p"), "\(all + inRegions)")
        // The regions did not change: their table appended nothing.
        XCTAssertEqual(try psql("SELECT count(DISTINCT run_id) FROM own_r"), "1")
        XCTAssertEqual(try psql("SELECT count(*) FROM own_r WHERE valid_to IS NOT NULL"), "0")
        // A table that grows with the keywords (five POI fields per keyword) is still ours.
        try f.writeManifest(
            output: .object([("path", .string(pg)), ("layer", .string("own_r")), ("mode", .string("append"))]),
            poiOutput: .object([
                ("path", .string(pg)), ("layer", .string("own_p")), ("mode", .string("append")),
                ("select", .string("all")),
            ]), keywords: ["restaurant", "cafe", "bank"], sections: [("maps", .bool(false))])
        try f.runOK()
        // Each row says which keyword its numbered columns are: `match_1` was cafe's, and is
        // restaurant's on the last night.
        XCTAssertEqual(
            try psql("SELECT string_agg(DISTINCT keyword_columns, ' | ') FROM own_p WHERE valid_to IS NOT NULL"),
            #"["cafe"]"#)
        XCTAssertEqual(
            try psql("SELECT DISTINCT keyword_columns::jsonb ->> 0 FROM own_p WHERE valid_to IS NULL"), "restaurant")
        _ = try psql("DROP TABLE IF EXISTS own_r, own_p")
    }

    /// A table of that name that RegionSearch did not write is left alone in either mode (exit
    /// 6, naming it): overwrite dropped a user's `customers` table without a word.
    func testAUsersTableOfTheSameNameIsRefused() throws {
        let pg = try connection()
        let f = try PipelineFixture()
        defer { f.remove() }
        _ = try psql(
            "CREATE TABLE public.customers(id int primary key, email text); INSERT INTO customers VALUES (1, 'a')")
        defer { _ = try? psql("DROP TABLE IF EXISTS public.customers") }
        for mode in ["overwrite", "append"] {
            try f.writeManifest(
                output: .object([("path", .string(pg)), ("layer", .string("customers")), ("mode", .string(mode))]),
                sections: [("maps", .bool(false))])
            let r = try f.run()
            XCTAssertEqual(r.status, 6, r.output)
            XCTAssertTrue(
                r.output.contains("table public.customers exists and is not one RegionSearch wrote"), r.output)
            XCTAssertFalse(r.output.contains("ingest"), "refused before any stage ran: \(r.output)")
            XCTAssertEqual(try psql("SELECT email FROM customers"), "a", mode)
        }
        XCTAssertEqual(try stagingTables(), "")

        // A table this role may not read shows no columns: said as such, not "its columns: )".
        _ = try psql(
            "DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'stranger') THEN "
                + "CREATE ROLE stranger LOGIN; END IF; END $$; GRANT CREATE, USAGE ON SCHEMA public TO stranger")
        defer { _ = try? psql("DROP OWNED BY stranger; DROP ROLE IF EXISTS stranger") }
        try f.writeManifest(
            output: .object([
                ("path", .string(pg.replacingOccurrences(of: "user=postgres", with: "user=stranger"))),
                ("layer", .string("customers")),
            ]), sections: [("maps", .bool(false))])
        let unseen = try f.run()
        XCTAssertEqual(unseen.status, 6, unseen.output)
        XCTAssertTrue(unseen.output.contains("has no privilege on any of its columns"), unseen.output)
        XCTAssertEqual(try psql("SELECT email FROM customers"), "a")
    }

    /// An active_schema that does not exist is refused (exit 6), in either spelling of the key:
    /// PostgreSQL skipped it and the table went to `public`. One that exists is where the table
    /// goes, `public` too, which GDAL leaves out of search_path (the table went to the database's
    /// first schema).
    func testTheSchemaActiveSchemaNamesIsWhereTheTableGoes() throws {
        let pg = try connection()
        let f = try PipelineFixture()
        defer { f.remove() }
        for key in ["active_schema", "ACTIVE_SCHEMA"] {
            try f.writeManifest(
                output: .object([("path", .string(pg + " \(key)=no_such_schema")), ("layer", .string("nowhere"))]),
                sections: [("maps", .bool(false))])
            let r = try f.run()
            XCTAssertEqual(r.status, 6, r.output)
            XCTAssertTrue(
                r.output.contains("the schema no_such_schema that active_schema (or schemas) names does not exist"),
                r.output)
        }
        XCTAssertEqual(try psql("SELECT count(*) FROM pg_tables WHERE tablename = 'nowhere'"), "0")
        _ = try psql("CREATE SCHEMA gis; ALTER DATABASE regionsearch SET search_path = gis, public")
        defer {
            _ = try? psql(
                "ALTER DATABASE regionsearch RESET search_path; DROP SCHEMA gis CASCADE; DROP TABLE IF EXISTS "
                    + "public.somewhere")
        }
        try f.writeManifest(
            output: .object([("path", .string(pg + " active_schema=public")), ("layer", .string("somewhere"))]),
            sections: [("maps", .bool(false))])
        try f.runOK()
        XCTAssertEqual(
            try psql("SELECT string_agg(schemaname, ',') FROM pg_tables WHERE tablename = 'somewhere'"), "public")
        // Appended to on later nights in public too: GDAL took a bare table name from gis.
        try f.writeManifest(
            output: .object([
                ("path", .string(pg + " active_schema=public")), ("layer", .string("somewhere")),
                ("mode", .string("append")),
            ]), sections: [("maps", .bool(false))])
        try f.runOK()
        let rows = try psql("SELECT count(*) FROM public.somewhere")
        try f.runOK(["--input", f.root + "/data/city.csv", "--force"])
        XCTAssertEqual(try psql("SELECT count(*) FROM public.somewhere"), rows, "a rerun appends nothing")
        XCTAssertEqual(
            try psql("SELECT string_agg(schemaname, ',') FROM pg_tables WHERE tablename = 'somewhere'"), "public")
        // schemas= of one schema names the active one as well.
        try f.writeManifest(
            output: .object([("path", .string(pg + " schemas=no_such_schema")), ("layer", .string("nowhere"))]),
            sections: [("maps", .bool(false))])
        let bySchemas = try f.run()
        XCTAssertEqual(bySchemas.status, 6, bySchemas.output)
        // A schema whose name holds a dot, which GDAL's "schema.table" lookup splits at, is
        // refused before any stage, although it exists.
        _ = try psql(#"CREATE SCHEMA IF NOT EXISTS "a.b""#)
        defer { _ = try? psql(#"DROP SCHEMA IF EXISTS "a.b" CASCADE"#) }
        try f.writeManifest(
            output: .object([("path", .string(pg + " active_schema=a.b")), ("layer", .string("dotted"))]),
            sections: [("maps", .bool(false))])
        let dotted = try f.run()
        XCTAssertEqual(dotted.status, 6, dotted.output)
        XCTAssertTrue(dotted.output.contains("holds a '.'"), dotted.output)
        XCTAssertFalse(dotted.output.contains("ingest"), dotted.output)
        XCTAssertEqual(try psql("SELECT count(*) FROM pg_tables WHERE tablename = 'dotted'"), "0")
    }

    /// A database (or role) with `standard_conforming_strings` off reads a backslash in a plain
    /// string constant as an escape: the writer's constants quoted only the quote, so a schema
    /// named `x\' OR 1=1; --` ended one early and ran the rest as SQL (the table check read every
    /// table's columns and refused the night). Its constants are escape strings now: the night
    /// writes, replaces and appends in that schema and touches no other.
    func testASchemaNameIsNotSQLWhereBackslashesEscape() throws {
        let pg = try connection()
        let schema = #"x\' OR 1=1; --"#
        let quotedSchema = "\"" + schema + "\""
        _ = try psql("CREATE SCHEMA \(quotedSchema)")
        _ = try psql("ALTER DATABASE regionsearch SET standard_conforming_strings = off")
        defer {
            _ = try? psql("ALTER DATABASE regionsearch RESET standard_conforming_strings")
            _ = try? psql("DROP SCHEMA IF EXISTS \(quotedSchema) CASCADE")
        }
        XCTAssertEqual(try psql("SHOW standard_conforming_strings"), "off")
        let f = try PipelineFixture()
        defer { f.remove() }
        // libpq's quoting of a connection parameter: backslash and quote escaped by a backslash.
        let parameter =
            "'"
            + schema.replacingOccurrences(of: #"\"#, with: #"\\"#)
            .replacingOccurrences(of: "'", with: #"\'"#) + "'"
        for mode in ["overwrite", "overwrite", "append"] {
            try f.writeManifest(
                output: .object([
                    ("path", .string(pg + " active_schema=" + parameter)), ("layer", .string("escaped")),
                    ("mode", .string(mode)),
                ]), sections: [("maps", .bool(false))])
            let r = try f.run(["--force"])
            XCTAssertEqual(r.status, 0, "\(mode): \(r.output)")
        }
        XCTAssertEqual(
            try psql("SELECT string_agg(schemaname, ',') FROM pg_tables WHERE tablename = 'escaped'"), schema)
        let rows = Int(try psql("SELECT count(*) FROM \(quotedSchema).escaped")) ?? 0
        let current = Int(try psql("SELECT count(*) FROM \(quotedSchema).escaped WHERE valid_to IS NULL")) ?? 0
        XCTAssertGreaterThan(current, 0)
        XCTAssertEqual(rows, 2 * current, "the append adds tonight's rows and closes last night's")
    }

    /// The writer sets its own lock_timeout only where the connection sets none.
    func testALockTimeoutTheConnectionSetsIsKept() {
        XCTAssertFalse(PostGISTableWriter(connection: "PG:host=/s dbname=d").setsLockTimeout)
        XCTAssertTrue(PostGISTableWriter(connection: "PG:dbname=d options='-c lock_timeout=5min'").setsLockTimeout)
        XCTAssertFalse(PostGISTableWriter(connection: "PG:dbname=d options='-c statement_timeout=1'").setsLockTimeout)
    }

    func testTheActiveSchemaOfAConnectionStringIsRead() {
        XCTAssertEqual(PostGISTableWriter.activeSchema(in: "PG:host=/s active_schema=gis dbname=d"), "gis")
        XCTAssertEqual(PostGISTableWriter.activeSchema(in: "PG:ACTIVE_SCHEMA=Gis"), "Gis")
        XCTAssertEqual(PostGISTableWriter.activeSchema(in: "PG:dbname=d active_schema='my schema' user=u"), "my schema")
        XCTAssertEqual(PostGISTableWriter.activeSchema(in: #"PG:active_schema='it\'s' user=u"#), "it's")
        XCTAssertEqual(PostGISTableWriter.activeSchema(in: "PG:password='a active_schema=x' dbname=d"), nil)
        XCTAssertEqual(PostGISTableWriter.activeSchema(in: "PG:dbname=d schemas=nightly"), "nightly")
        XCTAssertNil(PostGISTableWriter.activeSchema(in: "PG:dbname=d schemas=a,b"))
        XCTAssertNil(PostGISTableWriter.activeSchema(in: "PG:dbname=d"))
    }

    /// The regions and POI tables in one database, with the connection spelt two ways, are one
    /// transaction: a POI table that cannot be replaced leaves the regions table as it was.
    func testOneDatabaseSpeltTwoWaysIsOneTransaction() throws {
        let pg = try connection()
        let f = try PipelineFixture()
        defer { f.remove() }
        let parts = pg.dropFirst(3).split(separator: " ").map(String.init)
        let respelt = "PG:" + parts.reversed().joined(separator: " ")
        XCTAssertNotEqual(respelt, pg)
        func write(margin: Double) throws {
            try f.writeManifest(
                output: .object([("path", .string(pg)), ("layer", .string("sp_r"))]),
                poiOutput: .object([("path", .string(respelt)), ("layer", .string("sp_p"))]),
                sections: [("maps", .bool(false)), ("hulls", .object([("margin_m", .number(margin))]))])
        }
        let area = "SELECT count(*) || ':' || round(sum(ST_Area(geom))::numeric, 12) FROM sp_r"
        defer { _ = try? psql("DROP VIEW IF EXISTS sp_p_v; DROP TABLE IF EXISTS sp_p, sp_r") }
        try write(margin: 10)
        let first = try f.runOK()
        XCTAssertTrue(first.output.contains("replaced table sp_r") && first.output.contains("replaced table sp_p"))
        let narrow = try psql(area)
        // The control: a wider margin changes the regions table.
        try write(margin: 60)
        try f.runOK()
        let wide = try psql(area)
        XCTAssertNotEqual(wide, narrow)
        _ = try psql("CREATE VIEW sp_p_v AS SELECT * FROM sp_p")
        try write(margin: 10)
        let r = try f.run()
        XCTAssertEqual(r.status, 6, r.output)
        XCTAssertEqual(try psql(area), wide, "the regions table is as it was: its POI table could not be replaced")
    }

    /// A table name at the longest allowed (39 bytes): after the swap its primary key, FID sequence
    /// and geometry index have the names a fresh table has. The server cut the staging table's
    /// index names short, and they kept their staging names (`…__tmp_29864_3ff01af_pkey` cut).
    func testALongTableNameGetsItsIndexNamesBack() throws {
        let pg = try connection()
        let f = try PipelineFixture()
        defer { f.remove() }
        let table = String(repeating: "t", count: 39)
        defer { _ = try? psql("DROP TABLE IF EXISTS \(table)") }
        try f.writeManifest(
            output: .object([("path", .string(pg)), ("layer", .string(table))]), sections: [("maps", .bool(false))])
        for margin in [10.0, 60.0] {
            try f.writeManifest(
                output: .object([("path", .string(pg)), ("layer", .string(table))]),
                sections: [("maps", .bool(false)), ("hulls", .object([("margin_m", .number(margin))]))])
            try f.runOK()
            XCTAssertEqual(
                try psql(
                    "SELECT string_agg(relname, ',' ORDER BY relname) FROM pg_class WHERE relname LIKE '\(table)%' "
                        + "AND relkind IN ('i', 'S')"),
                "\(table)_fid_seq,\(table)_geom_geom_idx,\(table)_pkey")
        }
        XCTAssertEqual(try stagingTables(), "")
    }

    /// A DBA archives last year's table (`ALTER TABLE … RENAME TO …_2025`); the archived table keeps
    /// its primary key, sequence and GiST index names. Every later night had failed (exit 6):
    /// overwrite renaming the staging table's sequence to the name the archive holds, append at
    /// GDAL's `CREATE INDEX` of that name. Both now write a new table, whose names are the first
    /// free ones (`…1`, as PostgreSQL chooses), said in a log line; the archive is untouched.
    func testATableRenamedAwayLeavesItsNamesAndTheNightsGoOn() throws {
        let pg = try connection()
        let f = try PipelineFixture()
        defer { f.remove() }
        defer { _ = try? psql("DROP TABLE IF EXISTS archived, archived_2025") }
        func night(_ mode: String) throws -> PipelineFixture.Result {
            try f.writeManifest(
                output: .object([("path", .string(pg)), ("layer", .string("archived")), ("mode", .string(mode))]),
                sections: [("maps", .bool(false))])
            return try f.run(["--force"])
        }
        func names(_ table: String) throws -> String {
            try psql(
                "SELECT string_agg(relname, ',' ORDER BY relname) FROM pg_class WHERE oid IN (SELECT indexrelid "
                    + "FROM pg_index WHERE indrelid = '\(table)'::regclass UNION SELECT objid FROM pg_depend WHERE "
                    + "refobjid = '\(table)'::regclass AND classid = 'pg_class'::regclass AND deptype = 'a')")
        }
        let gist =
            "SELECT count(*) FROM pg_indexes WHERE tablename = 'archived' AND indexdef LIKE '%USING gist (geom)%'"
        XCTAssertEqual(try night("overwrite").status, 0)
        _ = try psql("ALTER TABLE archived RENAME TO archived_2025")
        let content = "SELECT count(*) || ' ' || md5(string_agg(region_id || keyword, ',' ORDER BY fid)) FROM "
        let archive = try psql(content + "archived_2025")
        XCTAssertEqual(try names("archived_2025"), "archived_fid_seq,archived_geom_geom_idx,archived_pkey")

        for _ in 0..<2 {
            let overwrite = try night("overwrite")
            XCTAssertEqual(overwrite.status, 0, overwrite.output)
            XCTAssertTrue(
                overwrite.output.contains(
                    "the name archived_fid_seq is taken (a sequence of table archived_2025), so the new table's "
                        + "sequence is named archived_fid_seq1"), overwrite.output)
            XCTAssertEqual(try names("archived"), "archived_fid_seq1,archived_geom_geom_idx1,archived_pkey1")
            XCTAssertEqual(try psql(gist), "1")
        }
        XCTAssertEqual(try psql(content + "archived"), archive, "the same night's regions")

        // Append to a table that is not there any more: created beside the archive.
        _ = try psql("DROP TABLE archived")
        let append = try night("append")
        XCTAssertEqual(append.status, 0, append.output)
        XCTAssertEqual(try names("archived"), "archived_fid_seq1,archived_geom_geom_idx1,archived_pkey1")
        XCTAssertEqual(try psql(gist), "1")
        XCTAssertEqual(try psql("SELECT count(*) FROM archived"), archive.split(separator: " ").first.map(String.init))

        XCTAssertEqual(try psql(content + "archived_2025"), archive, "the archive is untouched")
        XCTAssertEqual(try names("archived_2025"), "archived_fid_seq,archived_geom_geom_idx,archived_pkey")
        XCTAssertEqual(try stagingTables(), "")
    }

    /// A connection that cannot write the tables failed only after every stage had run, in the
    /// server's words: a read-only database (`default_transaction_read_only`, as on a hot standby),
    /// a role without CREATE on the schema, and (overwrite) a role that does not own the table.
    /// Each is now refused before the first stage (exit 6), saying what is missing and what to do.
    func testAConnectionThatCannotWriteIsRefusedBeforeTheStages() throws {
        let pg = try connection()
        let f = try PipelineFixture()
        defer { f.remove() }
        defer {
            _ = try? psql(
                "DROP TABLE IF EXISTS guarded; DROP OWNED BY creator; DROP ROLE IF EXISTS creator; "
                    + "DROP OWNED BY visitor; DROP ROLE IF EXISTS visitor")
        }
        func night(_ mode: String, as user: String = "postgres", table: String = "guarded") throws
            -> PipelineFixture.Result
        {
            try f.writeManifest(
                output: .object([
                    ("path", .string(pg.replacingOccurrences(of: "user=postgres", with: "user=" + user))),
                    ("layer", .string(table)), ("mode", .string(mode)),
                ]), sections: [("maps", .bool(false))])
            return try f.run(["--force"])
        }
        func assertRefused(
            _ r: PipelineFixture.Result, _ message: String, file: StaticString = #filePath, line: UInt = #line
        ) {
            XCTAssertEqual(r.status, 6, r.output, file: file, line: line)
            XCTAssertTrue(r.output.contains(message), r.output, file: file, line: line)
            XCTAssertFalse(r.output.contains("[1/6]"), "refused before any stage: \(r.output)", file: file, line: line)
        }
        let first = try night("overwrite")
        XCTAssertEqual(first.status, 0, first.output)
        XCTAssertTrue(first.output.contains("[1/6]"), first.output)
        let content = "SELECT count(*) || ' ' || md5(string_agg(region_id || keyword, ',' ORDER BY fid)) FROM guarded"
        let before = try psql(content)

        _ = try psql("ALTER DATABASE regionsearch SET default_transaction_read_only = on")
        let resetReadOnly =
            "BEGIN READ WRITE; ALTER DATABASE regionsearch RESET default_transaction_read_only; COMMIT"
        defer { _ = try? psql(resetReadOnly) }
        for mode in ["overwrite", "append"] {
            assertRefused(
                try night(mode),
                "the connection is read-only (transaction_read_only = on, from default_transaction_read_only")
        }
        _ = try psql(resetReadOnly)

        _ = try psql(
            "DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'visitor') THEN "
                + "CREATE ROLE visitor LOGIN; END IF; IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'creator') "
                + "THEN CREATE ROLE creator LOGIN; END IF; END $$; GRANT CREATE ON SCHEMA public TO creator; GRANT SELECT, INSERT, UPDATE ON guarded TO visitor, creator"
        )
        // PostgreSQL 15 and later grant no CREATE on schema public to every role.
        XCTAssertEqual(try psql("SELECT has_schema_privilege('visitor', 'public', 'CREATE')"), "f")
        for (mode, table) in [("overwrite", "guarded"), ("append", "unmade")] {
            assertRefused(
                try night(mode, as: "visitor", table: table),
                "role visitor has no CREATE privilege on schema public, and writing table \(table) creates a table "
                    + "there")
        }
        assertRefused(
            try night("overwrite", as: "creator"),
            "table public.guarded is owned by postgres, not by role creator: \"mode\": \"overwrite\" replaces the "
                + "table, which only its owner (or a member of postgres) may do")
        XCTAssertEqual(try psql(content), before)
        XCTAssertEqual(try psql("SELECT count(*) FROM pg_tables WHERE tablename = 'unmade'"), "0")
        XCTAssertEqual(try stagingTables(), "")
        // What is refused stops nothing it should not: the owner overwrites.
        let owner = try night("overwrite")
        XCTAssertEqual(owner.status, 0, owner.output)
    }

    /// A foreign key of another table, or a function whose SQL body reads the table, keeps
    /// PostgreSQL from dropping it: overwrite ran every stage and failed at the swap, in the
    /// server's words with its hint to DROP … CASCADE (which would drop the user's objects). Now
    /// refused before the first stage (exit 6), naming the dependent objects and what to do; the
    /// table as it was. Without them the night passes.
    func testOverwriteRefusesATableAForeignKeyOrFunctionNeedsBeforeTheStages() throws {
        let pg = try connection()
        let f = try PipelineFixture()
        defer { f.remove() }
        defer {
            _ = try? psql(
                "DROP TABLE IF EXISTS visits; DROP FUNCTION IF EXISTS referenced_count(); "
                    + "DROP TABLE IF EXISTS referenced")
        }
        try f.writeManifest(
            output: .object([("path", .string(pg)), ("layer", .string("referenced")), ("mode", .string("overwrite"))]),
            sections: [("maps", .bool(false))])
        try f.runOK()
        let content =
            "SELECT count(*) || ' ' || md5(string_agg(region_id || keyword, ',' ORDER BY fid)) FROM referenced"
        let before = try psql(content)
        func assertRefused(_ names: [String], file: StaticString = #filePath, line: UInt = #line) throws {
            let r = try f.run(["--force"])
            XCTAssertEqual(r.status, 6, r.output, file: file, line: line)
            XCTAssertTrue(
                r.output.contains("table public.referenced cannot be replaced"), r.output, file: file, line: line)
            for name in names { XCTAssertTrue(r.output.contains(name), r.output, file: file, line: line) }
            XCTAssertTrue(r.output.contains("\"mode\": \"append\""), r.output, file: file, line: line)
            XCTAssertFalse(r.output.contains("CASCADE"), r.output, file: file, line: line)
            XCTAssertFalse(r.output.contains("[1/6]"), "refused before any stage: \(r.output)", file: file, line: line)
            XCTAssertEqual(try psql(content), before, file: file, line: line)
            XCTAssertEqual(try stagingTables(), "", file: file, line: line)
        }
        _ = try psql("CREATE TABLE visits (id int, region_fid int REFERENCES referenced (fid))")
        try assertRefused(["constraint visits_region_fid_fkey on table visits"])
        _ = try psql(
            "CREATE FUNCTION referenced_count() RETURNS bigint LANGUAGE sql BEGIN ATOMIC "
                + "SELECT count(*) FROM referenced; END")
        try assertRefused(["constraint visits_region_fid_fkey on table visits", "function referenced_count()"])
        _ = try psql("ALTER TABLE visits DROP CONSTRAINT visits_region_fid_fkey; DROP FUNCTION referenced_count()")
        let night = try f.run(["--force"])
        XCTAssertEqual(night.status, 0, night.output)
    }

    /// What a user adds to a published table: an index, a column comment, a publication for
    /// logical replication, a trigger, storage options. Overwrite dropped them all without a word.
    /// Now the index (on a column the new table has), the comment and the publication are given to
    /// the new table, and each of the others is named in a warning; the night passes.
    func testOverwriteKeepsAUsersIndexesCommentsAndPublicationsAndNamesWhatItCannot() throws {
        let f = try appendingNights(to: "kept", mode: "overwrite")
        defer { f.remove() }
        defer {
            _ = try? psql(
                "DROP PUBLICATION IF EXISTS kept_maps; DROP TABLE IF EXISTS kept; DROP TABLE IF EXISTS kept_audit; "
                    + "DROP FUNCTION IF EXISTS kept_audit_fn()")
        }
        try f.runOK()
        _ = try psql(
            "CREATE INDEX kept_keyword_idx ON public.kept (lower(keyword)) WHERE region_id > 0; "
                + "ALTER TABLE public.kept ADD COLUMN note text; CREATE INDEX kept_note_idx ON public.kept (note); "
                + "COMMENT ON COLUMN public.kept.keyword IS 'the query''s keyword'; "
                + "CREATE PUBLICATION kept_maps FOR TABLE public.kept; "
                + "CREATE TABLE kept_audit (op text); CREATE FUNCTION kept_audit_fn() RETURNS trigger "
                + "LANGUAGE plpgsql AS $$BEGIN INSERT INTO kept_audit VALUES (TG_OP); RETURN NULL; END$$; "
                + "CREATE TRIGGER kept_audit AFTER INSERT ON public.kept FOR EACH STATEMENT "
                + "EXECUTE FUNCTION kept_audit_fn(); ALTER TABLE public.kept SET (fillfactor = 70)")
        let indexes =
            "SELECT string_agg(pg_get_indexdef(indexrelid), '; ' ORDER BY indexrelid::regclass::text) FROM pg_index "
            + "WHERE indrelid = 'public.kept'::regclass"
        let before = try psql(indexes)

        try f.writeManifest(
            output: .object([
                ("path", .string(try connection())), ("layer", .string("kept")), ("mode", .string("overwrite")),
            ]),
            input: .object([("path", .string("../data/day2.csv")), ("format", .string("csv"))]),
            keywords: ["restaurant"], sections: [("maps", .bool(false)), ("lineage", .bool(true))])
        let night = try f.run()
        XCTAssertEqual(night.status, 0, night.output)
        XCTAssertEqual(
            try psql(
                "SELECT count(*) FROM information_schema.columns WHERE table_name = 'kept' "
                    + "AND column_name = 'note'"), "0", "a new table")
        XCTAssertEqual(
            try psql(indexes),
            before.replacingOccurrences(of: "; CREATE INDEX kept_note_idx ON public.kept USING btree (note)", with: ""))
        XCTAssertEqual(
            try psql(
                "SELECT col_description(attrelid, attnum) FROM pg_attribute WHERE attrelid = "
                    + "'public.kept'::regclass AND attname = 'keyword'"), "the query's keyword")
        XCTAssertEqual(
            try psql("SELECT string_agg(tablename, ',') FROM pg_publication_tables WHERE pubname = 'kept_maps'"), "kept"
        )
        XCTAssertTrue(night.output.contains("public.kept is in publication kept_maps again"), night.output)
        XCTAssertTrue(night.output.contains("index kept_note_idx"), night.output)
        XCTAssertTrue(night.output.contains("the old table's trigger kept_audit is not on the new one"), night.output)
        XCTAssertTrue(night.output.contains("the old table's storage options (fillfactor=70)"), night.output)
        // The column the user added goes with the old table, said so (it had gone without a word).
        XCTAssertTrue(night.output.contains("the old table's column note (with its values) is not on"), night.output)
        XCTAssertFalse(night.output.contains("column score_"), night.output)
        XCTAssertEqual(try psql("SELECT count(*) FROM pg_class WHERE relname LIKE 'regionsearch_index_%'"), "0")
        XCTAssertEqual(try stagingTables(), "")
    }
}
