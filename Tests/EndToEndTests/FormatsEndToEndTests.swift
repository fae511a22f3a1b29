import Foundation
import XCTest

@testable import RegionSearchCore
@testable import RegionSearchOutput
@testable import RegionSearchRunner
@testable import RegionSearchTestSupport

/// `regionsearch run` writing every output format, the scored POI layer, outputs that are links,
/// pipes or standard output, and outputs refused before any stage runs.
final class FormatsEndToEndTests: XCTestCase {
    /// The regions of the hulls artifact: region_id → properties.
    private func reference(_ f: PipelineFixture) throws -> [Int64: [String: JSONValue]] {
        var out: [Int64: [String: JSONValue]] = [:]
        for feature in try f.regionsArtifact()["features"]?.arrayValue ?? [] {
            guard let p = feature["properties"]?.objectValue, let id = feature["properties"]?["region_id"]?.intValue
            else { continue }
            out[Int64(id)] = Dictionary(uniqueKeysWithValues: p)
        }
        return out
    }

    private func assertSameRegions(
        _ back: ReadBack, _ reference: [Int64: [String: JSONValue]], shapefile: Bool = false, _ what: String
    ) {
        XCTAssertEqual(back.rows.count, reference.count, what)
        let names = Dictionary(
            uniqueKeysWithValues: RegionFeatureSchema.fields.map { ($0.name, shapefile ? $0.shapefileName : $0.name) })
        for (id, properties) in reference {
            guard let row = back.byRegion[id] else {
                XCTFail("\(what): region \(id) missing")
                continue
            }
            for (key, value) in properties {
                let stored = row[names[key] ?? key]
                switch (value, stored) {
                case (.string(let a), .string(let b)?): XCTAssertEqual(a, b, "\(what) \(key)")
                // A field without a value (no label, no parent at level 0) is null in every format.
                case (.null, .null?): break
                case (.number(let a), .integer(let b)?): XCTAssertEqual(a, Double(b), "\(what) \(key)")
                case (.number(let a), .real(let b)?):
                    XCTAssertEqual(a, b, accuracy: shapefile ? max(abs(a) * 1e-12, 1e-15) : 0, "\(what) \(key)")
                default: XCTFail("\(what) \(key): \(value) vs \(String(describing: stored))")
                }
            }
        }
    }

    func testEveryOutputFormatCarriesTheRegionsOfTheGeoJSONAndThePOIs() throws {
        let f = try PipelineFixture()
        defer { f.remove() }
        try f.runOK(["--quiet"])
        let regions = try reference(f)
        XCTAssertFalse(regions.isEmpty)
        XCTAssertTrue(
            FileManager.default.fileExists(atPath: f.root + "/out/test.qml"), "the QGIS style beside the GeoJSON")

        // A GeoPackage with both layers: only the publish step runs.
        try f.writeManifest(output: .string("../out/r.gpkg"), poiOutput: .string("../out/r.gpkg"))
        let gpkgRun = try f.runOK()
        XCTAssertTrue(gpkgRun.output.contains("wrote \(f.root)/out/r.gpkg (regions and POIs)"), gpkgRun.output)
        // The POI layer writes each POI's score, which the density measure does not read: propagate
        // runs again for them (and the stages after it, whose regions stay the same: checked below).
        XCTAssertEqual(try f.ranStages(), ["propagate", "regions", "hulls"], "the POI layer needs the scores")
        let gpkg = f.root + "/out/r.gpkg"
        let back = try ReadBack(gpkg, layer: "regions")
        XCTAssertEqual(back.declaredGeometryType, "Multi Polygon")
        XCTAssertEqual(back.fieldNames, RegionFeatureSchema.fields.map(\.name))
        assertSameRegions(back, regions, "gpkg")
        let pois = try ReadBack(gpkg, layer: "pois")
        XCTAssertEqual(pois.declaredGeometryType, "Point")
        XCTAssertEqual(pois.rows.count, 3_000)
        XCTAssertEqual(pois.fieldNames, POIFeatureSchema.fields(keywords: ["cafe"]).map(\.name))
        let inRegions = pois.rows.filter { $0["region_1"] != .null }
        XCTAssertEqual(
            Set(inRegions.compactMap { if case .integer(let id)? = $0["region_1"] { return id } else { return nil } }),
            Set(regions.keys), "every region has its POIs")
        let info = try f.tool(["-ro", "-so", gpkg], executable: "/usr/bin/ogrinfo").output
        XCTAssertTrue(info.contains("regions (Multi Polygon)") && info.contains("pois (Point)"), info)
        XCTAssertTrue(info.contains("layer_styles (None)"), info)
        XCTAssertTrue(
            try f.tool(["-ro", "-so", gpkg, "regions"], executable: "/usr/bin/ogrinfo").output.contains("share: Real"))

        // Rerun: up to date, the file untouched; status agrees.
        let before = try FileManager.default.attributesOfItem(atPath: gpkg)[.modificationDate] as? Date
        let again = try f.runOK()
        XCTAssertTrue(again.output.contains("is up to date (regions and POIs)"), again.output)
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: gpkg)[.modificationDate] as? Date, before)
        XCTAssertTrue(try f.tool(["status", f.manifestPath]).output.contains("out/r.gpkg: up to date"))

        // FlatGeobuf, Shapefile (with its sidecars and style) and GeoJSONSeq.
        for (name, shapefile) in [("r.fgb", false), ("r.shp", true), ("r.geojsonl", false)] {
            try f.writeManifest(output: .string("../out/" + name))
            try f.runOK()
            let read = try ReadBack(f.root + "/out/" + name)
            XCTAssertEqual(read.declaredGeometryType, shapefile ? "Polygon" : "Multi Polygon", name)
            assertSameRegions(read, regions, shapefile: shapefile, name)
        }
        XCTAssertEqual(try String(contentsOfFile: f.root + "/out/r.cpg", encoding: .utf8), "UTF-8")
        // A sidecar removed from the published paths is linked again from the current set.
        let style = try Data(contentsOf: URL(fileURLWithPath: f.root + "/out/r.qml"))
        unlink(f.root + "/out/r.qml")
        try f.writeManifest(output: .string("../out/r.shp"))
        XCTAssertTrue(try f.runOK().output.contains("\(f.root)/out/r.shp is up to date"))
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: f.root + "/out/r.qml")), style)
        // A damaged one (written through its link) makes the output stale.
        try Data("x".utf8).write(to: URL(fileURLWithPath: f.root + "/out/r.dbf"))
        XCTAssertTrue(try f.runOK().output.contains("wrote \(f.root)/out/r.shp"))
        assertSameRegions(try ReadBack(f.root + "/out/r.shp"), regions, shapefile: true, "repaired shp")
        XCTAssertEqual(f.temporaries(), [], "no temporary file left")
    }

    /// A GeoPackage is written through SQLite, which opens paths of at most 511 bytes; publishing
    /// stages it inside the set being built, a longer path than the output's own. A path legal for
    /// the file system but too long for that is refused before any stage runs (it failed after
    /// them all, on every night), and a GeoJSON at the same place is written.
    func testAGeoPackageTooLongForSQLiteIsRefusedBeforeAnyStage() throws {
        let f = try PipelineFixture()
        defer { f.remove() }
        let dir = f.root + "/" + Array(repeating: String(repeating: "d", count: 60), count: 7).joined(separator: "/")
        try f.writeManifest(output: .string(dir + "/r.gpkg"))
        let r = try f.run()
        XCTAssertEqual(r.status, 6, r.output)
        XCTAssertTrue(r.output.contains("which opens paths of at most 511 bytes"), r.output)
        XCTAssertFalse(r.output.contains("ingest"), "no stage ran: \(r.output)")
        try f.writeManifest(output: .string(dir + "/r.geojson"))
        XCTAssertEqual(try f.run(["--quiet"]).status, 0)
        // The path measured is the widest the writer makes: the process id at Linux's widest and
        // the writer's random 32-bit suffix at ten digits, in the set being built.
        let target = try OutputTarget.parse(
            .string(f.root + "/out/r.gpkg"), role: .regions, directory: f.root,
            invalid: { ManifestError.invalid(file: "m.json", key: $0, position: nil, reason: $1) })
        XCTAssertEqual(
            OutputPreflight.stagingPath(of: target, published: target.path, among: [target]),
            f.root + "/out/.r.gpkg.published/.g000000.tmp-4194304/output/.r.gpkg.tmp-4194304-4294967295/r.gpkg")
    }

    /// The lineage file and change reports are named after the output with a longer suffix
    /// (`<stem>.changes.json`) and written through a temporary name: an output name the file
    /// system holds but those names overrun is refused before any stage runs (it failed after them
    /// all, on every night), and the same name without lineage is written.
    func testAnOutputNameTooLongForItsLineageFilesIsRefusedBeforeAnyStage() throws {
        let f = try PipelineFixture()
        defer { f.remove() }
        let output = f.root + "/out/" + String(repeating: "r", count: 230) + ".geojson"
        try f.writeManifest(output: .string(output), sections: [("lineage", .bool(true))])
        let r = try f.run()
        XCTAssertEqual(r.status, 6, r.output)
        XCTAssertTrue(r.output.contains(".changes.json: the run writes this file through a temporary name"), r.output)
        XCTAssertTrue(r.output.contains("choose a shorter output file name"), r.output)
        XCTAssertFalse(r.output.contains("ingest"), "no stage ran: \(r.output)")
        try f.writeManifest(output: .string(output), sections: [("lineage", .bool(false))])
        XCTAssertEqual(try f.run(["--quiet"]).status, 0)
    }

    /// An output that is the user's link into a folder that does not exist is refused before any
    /// stage runs, and the folder is not made; a link to a file not there yet, in a folder that
    /// is, is written through (the link kept).
    func testAnOutputLinkIntoAMissingFolderIsRefused() throws {
        let f = try PipelineFixture()
        defer { f.remove() }
        let link = f.root + "/out/linked.geojson"
        let missing = f.root + "/elsewhere/dir"
        XCTAssertEqual(symlink(missing + "/x.geojson", link), 0)
        try f.writeManifest(output: .string(link), sections: [("maps", .bool(false))])
        let r = try f.run()
        XCTAssertEqual(r.status, 6, r.output)
        XCTAssertTrue(r.output.contains("in a folder that does not exist (\(missing))"), r.output)
        XCTAssertFalse(r.output.contains("ingest"), "no stage ran: \(r.output)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: f.root + "/elsewhere"))
        try FileManager.default.createDirectory(atPath: missing, withIntermediateDirectories: true)
        XCTAssertEqual(try f.run(["--quiet"]).status, 0)
        XCTAssertEqual(PublishedSet.linkText(link), missing + "/x.geojson", "the user's link is kept")
        XCTAssertNoThrow(try JSONParser.parse(try String(contentsOfFile: link, encoding: .utf8)))
    }

    /// An output that is the user's link to a file is written through night after night: the
    /// first run puts the set beside the file and makes that file the set's link, and every later
    /// run still finds the output where the user's link is (it found it inside the set's folder
    /// and refused every run after the first).
    func testAnOutputThatIsTheUsersLinkIsWrittenThroughEveryNight() throws {
        let f = try PipelineFixture()
        defer { f.remove() }
        let served = f.root + "/www/regions.geojson"
        try FileManager.default.createDirectory(atPath: f.root + "/www", withIntermediateDirectories: true)
        try #"{"type":"FeatureCollection","features":[]}"#.write(toFile: served, atomically: true, encoding: .utf8)
        let link = f.root + "/out/linked.geojson"
        try FileManager.default.createDirectory(atPath: f.root + "/out", withIntermediateDirectories: true)
        XCTAssertEqual(symlink("../www/regions.geojson", link), 0)
        try f.writeManifest(output: .string(link), sections: [("maps", .bool(false))])
        XCTAssertEqual(try f.run(["--quiet"]).status, 0)
        let first = try String(contentsOfFile: served, encoding: .utf8)
        XCTAssertTrue(
            PublishedSet.linkText(served)?.hasPrefix(".regions.geojson.published/current/") ?? false,
            "the served file is the set's link: \(PublishedSet.linkText(served) ?? "not a link")")
        for extra in [["--quiet"], ["--quiet", "--force"]] {
            let r = try f.run(extra)
            XCTAssertEqual(r.status, 0, r.output)
            XCTAssertEqual(PublishedSet.linkText(link), "../www/regions.geojson", "the user's link is kept")
            XCTAssertEqual(try String(contentsOfFile: link, encoding: .utf8), first)
        }
    }

    /// A user's relative link in an output folder that is itself a link elsewhere is followed as
    /// the kernel follows it, from the folder it really lies in: `out/linked.geojson` →
    /// `../www/regions.geojson` with `out` → `real/out` serves `real/www/regions.geojson`, not a
    /// `www` beside the `out` link.
    func testAUsersRelativeLinkInALinkedFolderIsFollowedFromWhereItLies() throws {
        let f = try PipelineFixture()
        defer { f.remove() }
        for dir in ["/real/out", "/real/www", "/www"] {
            try FileManager.default.createDirectory(atPath: f.root + dir, withIntermediateDirectories: true)
        }
        let served = f.root + "/real/www/regions.geojson"
        try #"{"type":"FeatureCollection","features":[]}"#.write(toFile: served, atomically: true, encoding: .utf8)
        try? FileManager.default.removeItem(atPath: f.root + "/out")
        XCTAssertEqual(symlink("real/out", f.root + "/out"), 0)
        XCTAssertEqual(symlink("../www/regions.geojson", f.root + "/real/out/linked.geojson"), 0)
        let link = f.root + "/out/linked.geojson"
        try f.writeManifest(output: .string(link), sections: [("maps", .bool(false))])
        for extra in [["--quiet"], ["--quiet", "--force"]] {
            let r = try f.run(extra)
            XCTAssertEqual(r.status, 0, r.output)
            XCTAssertTrue(
                PublishedSet.linkText(served)?.hasPrefix(".regions.geojson.published/current/") ?? false,
                "the served file is the set's link: \(PublishedSet.linkText(served) ?? "not a link")")
            XCTAssertEqual(PublishedSet.linkText(link), "../www/regions.geojson", "the user's link is kept")
            XCTAssertNotEqual(
                try String(contentsOfFile: link, encoding: .utf8), #"{"type":"FeatureCollection","features":[]}"#,
                "the link serves tonight's regions")
            XCTAssertEqual(
                try FileManager.default.contentsOfDirectory(atPath: f.root + "/www"), [],
                "nothing is written beside the folder's link")
        }
    }

    /// A user's link to another manifest's published output is refused before any stage runs:
    /// written through, the run would replace that manifest's set without its lineage file (kept
    /// beside the link), and that manifest would start a fresh lineage on its next night.
    func testALinkToAnotherManifestsOutputIsRefused() throws {
        let f = try PipelineFixture()
        defer { f.remove() }
        try f.writeManifest(sections: [("maps", .bool(false)), ("lineage", .bool(true))])
        XCTAssertEqual(try f.run(["--quiet"]).status, 0)
        let lineage = try String(contentsOfFile: f.root + "/out/test.lineage.json", encoding: .utf8)
        let other = f.root + "/pipelines/other.json"
        let text = try String(contentsOfFile: f.manifestPath, encoding: .utf8)
            .replacingOccurrences(of: "../out/test.geojson", with: "../elsewhere/other.geojson")
            .replacingOccurrences(of: "../work", with: "../work-other")
        try text.write(toFile: other, atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: f.root + "/elsewhere", withIntermediateDirectories: true)
        XCTAssertEqual(symlink("../out/test.geojson", f.root + "/elsewhere/other.geojson"), 0)
        let r = try f.tool(["run", other])
        XCTAssertEqual(r.status, 2, r.output)
        XCTAssertTrue(
            r.output.contains(
                "is a link to \(f.root)/out/test.geojson, which the manifest \(f.manifestPath) publishes"),
            r.output)
        XCTAssertFalse(r.output.contains("ingest"), "no stage ran: \(r.output)")
        let again = try f.run()
        XCTAssertEqual(again.status, 0, again.output)
        XCTAssertEqual(
            try String(contentsOfFile: f.root + "/out/test.lineage.json", encoding: .utf8), lineage,
            "the lineage goes on as it was")
    }

    /// A Shapefile cuts a text value at 254 bytes: the run says so (GDAL's warning), naming the
    /// file, the layer and the field, instead of dropping the message.
    func testAShapefileCuttingALongNameSaysSo() throws {
        let f = try PipelineFixture()
        defer { f.remove() }
        let long = String(repeating: "N", count: 300)
        let rows = (0..<40).map { k in
            "\(k),\(k == 3 ? long : "cafe \(k)"),cafe,\(24.9400 + Double(k % 8) * 0.0004),\(60.1700 + Double(k / 8) * 0.0004)"
        }
        let csv = f.root + "/data/long.csv"
        try ("id,name,category,lon,lat\n" + rows.joined(separator: "\n") + "\n").write(
            toFile: csv, atomically: true, encoding: .utf8)
        try f.writeManifest(
            output: .string("../out/r.geojson"), poiOutput: .string("../out/p.shp"),
            input: .object([("path", .string(csv))]), sections: [("maps", .bool(false))])
        let r = try f.runOK()
        XCTAssertTrue(r.output.contains("p.shp, layer pois: GDAL: Value 'NNN"), r.output)
        XCTAssertTrue(r.output.contains("of field name has been truncated to 254 characters"), r.output)
    }

    func testAResultWithoutRegionsStillHasTheTypedSchema() throws {
        let f = try PipelineFixture()
        defer { f.remove() }
        try f.writeManifest(
            output: .string("../out/none.gpkg"), poiOutput: .string("../out/none.gpkg"), keywords: ["nothingmatches"])
        try f.runOK(["--quiet"])
        let back = try ReadBack(f.root + "/out/none.gpkg", layer: "regions")
        XCTAssertEqual(back.rows.count, 0)
        XCTAssertEqual(back.declaredGeometryType, "Multi Polygon")
        XCTAssertEqual(back.fieldNames, RegionFeatureSchema.fields.map(\.name))
        let info = try f.tool(["-ro", "-so", f.root + "/out/none.gpkg", "regions"], executable: "/usr/bin/ogrinfo")
            .output
        XCTAssertTrue(info.contains("Feature Count: 0") && info.contains("member_score_mean: Real"), info)
        XCTAssertEqual(try ReadBack(f.root + "/out/none.gpkg", layer: "pois").rows.count, 3_000)
    }

    func testStandardOutputPipesAndLinksAreWrittenThroughNeverReplaced() throws {
        let f = try PipelineFixture()
        defer { f.remove() }
        try f.runOK(["--quiet"])
        // The published regions (the lineage step's: a fresh lineage, as on standard output, where
        // the lineage lives in the work directory).
        let expected = try f.output()
        for output in ["-", "/dev/stdout"] {
            try f.writeManifest(output: .string(output))
            let out = f.root + "/stdout"
            let err = f.root + "/stderr"
            let termination = try ChildProcess(
                executable: PipelineFixture.regionsearch, arguments: ["run", f.manifestPath],
                output: .files(stdout: out, stderr: err)
            ).wait()
            XCTAssertEqual("\(termination)", "\(ChildProcess.Termination.exited(0))", output)
            XCTAssertEqual(
                try Data(contentsOf: URL(fileURLWithPath: out)), expected, "\(output): the GeoJSON on stdout")
            XCTAssertTrue(try String(contentsOfFile: err, encoding: .utf8).contains("up to date"), "progress on stderr")
        }
        // Standard output a pipe (`regionsearch run m.json | jq …`): /dev/stdout links to
        // /proc/self/fd/1, whose link text (`pipe:[N]`) is no path; it was refused before any stage.
        for output in ["/dev/stdout", "/dev/fd/1"] {
            try f.writeManifest(output: .string(output))
            let out = f.root + "/piped"
            let termination = try ChildProcess(
                executable: "/bin/bash",
                arguments: [
                    "-c", "set -o pipefail; \"$0\" run \"$1\" --quiet | cat > \"$2\"", PipelineFixture.regionsearch,
                    f.manifestPath, out,
                ]
            ).wait()
            XCTAssertEqual("\(termination)", "\(ChildProcess.Termination.exited(0))", "\(output) into a pipe")
            XCTAssertEqual(
                try Data(contentsOf: URL(fileURLWithPath: out)), expected, "\(output): the GeoJSON in the pipe")
        }
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: "/dev/stdout"), "/proc/self/fd/1")
        // Nothing is created beside a device: no maps, no published set, no change report.
        for beside in [
            "/dev/stdout.png", "/dev/stdout.svg", "/dev/stdout.html", "/dev/.stdout.published",
            "/dev/stdout.changes.json",
            "/dev/stdout.lineage.json", "/proc/self/fd/1.png", "/proc/self/fd/.1.published",
        ] {
            var st = stat()
            XCTAssertNotEqual(lstat(beside, &st), 0, "\(beside) was created beside the output")
        }

        // A link to a file: the file is replaced, the link stays.
        let real = f.root + "/out/real.geojson"
        try "old".write(toFile: real, atomically: false, encoding: .utf8)
        XCTAssertEqual(symlink(real, f.root + "/out/link.geojson"), 0)
        try f.writeManifest(output: .string("../out/link.geojson"))
        try f.runOK()
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: f.root + "/out/link.geojson"), real)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: real)), expected)
    }

    func testOutputsThatCannotBeWrittenAreFoundBeforeTheStagesRun() throws {
        let f = try PipelineFixture()
        defer { f.remove() }
        let cases: [(JSONValue, JSONValue?, Int32, String)] = [
            (.string("../data/city.csv/r.geojson"), nil, 6, "cannot create its directory"),
            (.string("/proc/regionsearch-test.geojson"), nil, 6, "cannot write in /proc"),
            (.string("../out"), nil, 6, "is a directory"),
            (.string("../out/r.gpkg"), .string("../data/city.csv"), 2, "would overwrite input inputs[0]"),
            (.object([("path", .string("PG:host=/nonexistent dbname=x"))]), nil, 6, "cannot write"),
        ]
        for (output, poi, status, message) in cases {
            try f.writeManifest(output: output, poiOutput: poi)
            let r = try f.run()
            XCTAssertEqual(r.status, status, r.output)
            XCTAssertTrue(r.output.contains(message), r.output)
            XCTAssertEqual(FileSystem.list(f.work.objects), [], "\(output): no stage ran")
        }
        XCTAssertEqual(FileManager.default.contents(atPath: f.csvPath), PipelineFixture.csvBytes, "the input is intact")
        // The hulls stage alone writes GeoJSON only, and says so instead of misnaming it.
        let hulls = try f.tool(["hulls", "--projected", "p.rsa", "--regions", "r.rsa", "--output", f.root + "/x.gpkg"])
        XCTAssertEqual(hulls.status, 2, hulls.output)
        XCTAssertTrue(hulls.output.contains("this stage writes GeoJSON"), hulls.output)
    }

    /// The maps and a style are published with the set by renaming a link over their paths: a map
    /// path that was (or linked to) a device or pipe was replaced by a link (exit 0; a link to
    /// /dev/null replaced /dev/null), a link to a folder failed after the new set was current, and
    /// a link into a missing folder had it created. Each is refused before any stage, naming the
    /// path, and yesterday's set stays current.
    func testAMapOrStyleThatIsAPipeAFolderOrABrokenLinkIsRefusedBeforeTheStages() throws {
        let f = try PipelineFixture()
        defer { f.remove() }
        try f.runOK(["--quiet"])
        let out = f.root + "/out"
        let current = out + "/.test.geojson.published/current"
        let yesterday = try FileManager.default.destinationOfSymbolicLink(atPath: current)
        XCTAssertTrue(FileManager.default.fileExists(atPath: out + "/test.svg"), "the fixture draws an SVG map")
        let pipe = f.root + "/pipe"
        XCTAssertEqual(mkfifo(pipe, 0o600), 0)
        try FileManager.default.createDirectory(atPath: f.root + "/folder", withIntermediateDirectories: false)
        let cases: [(file: String, make: () -> Int32, message: String)] = [
            ("test.svg", { mkfifo(out + "/test.svg", 0o600) }, "test.svg is a pipe or device"),
            ("test.png", { symlink(pipe, out + "/test.png") }, "test.png (a symbolic link to \(pipe)) is a pipe"),
            ("test.html", { symlink(f.root + "/folder", out + "/test.html") }, "is a directory"),
            (
                "test.qml", { symlink(f.root + "/missing/test.qml", out + "/test.qml") },
                "in a folder that does not exist (\(f.root)/missing)"
            ),
            // A link to the run's own standard output leads wherever the shell sent it.
            ("test.svg", { symlink("/dev/stdout", out + "/test.svg") }, "test.svg leads to /dev/stdout"),
        ]
        for (file, make, message) in cases {
            let path = out + "/" + file
            let saved = try FileManager.default.destinationOfSymbolicLink(atPath: path)
            XCTAssertEqual(unlink(path), 0)
            XCTAssertEqual(make(), 0, file)
            let r = try f.run(["--force"])
            XCTAssertEqual(r.status, 6, "\(file): \(r.output)")
            XCTAssertTrue(r.output.contains(message), "\(file): \(r.output)")
            XCTAssertFalse(r.output.contains("[1/6] ingest"), "\(file): no stage ran: \(r.output)")
            XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: current), yesterday, file)
            XCTAssertFalse(FileManager.default.fileExists(atPath: f.root + "/missing"), "no folder made for a link")
            var st = stat()
            XCTAssertEqual(lstat(pipe, &st), 0)
            XCTAssertEqual(st.st_mode & S_IFMT, S_IFIFO, "the pipe is still a pipe")
            XCTAssertEqual(unlink(path), 0)
            XCTAssertEqual(symlink(saved, path), 0)
        }
        var st = stat()
        XCTAssertEqual(stat(f.root + "/folder", &st), 0)
        XCTAssertEqual(st.st_mode & S_IFMT, S_IFDIR, "the folder is still a folder")
        try f.runOK(["--quiet", "--force"])

        // An output given as a link to a file elsewhere has its style published beside that file
        // (named after it):
        // a pipe there is refused before the stages; one beside the link is not in the way.
        let real = f.root + "/real"
        try FileManager.default.createDirectory(atPath: real, withIntermediateDirectories: false)
        XCTAssertEqual(symlink(real + "/r.geojson", out + "/linked.geojson"), 0)
        XCTAssertEqual(mkfifo(real + "/r.qml", 0o600), 0)
        try f.writeManifest(output: .string("../out/linked.geojson"))
        let elsewhere = try f.run()
        XCTAssertEqual(elsewhere.status, 6, elsewhere.output)
        XCTAssertTrue(elsewhere.output.contains("\(real)/r.qml"), elsewhere.output)
        XCTAssertFalse(elsewhere.output.contains("[1/6] ingest"), elsewhere.output)
        XCTAssertEqual(unlink(real + "/r.qml"), 0)
        XCTAssertEqual(mkfifo(out + "/linked.qml", 0o600), 0)
        try f.runOK(["--quiet"])
        XCTAssertTrue(FileManager.default.fileExists(atPath: real + "/r.qml"))
    }

    func testAGeoPackageInputGivesTheRegionsOfTheCSV() throws {
        let f = try PipelineFixture()
        defer { f.remove() }
        try f.runOK(["--quiet"])
        let fromCSV = try reference(f)
        let gpkg = f.root + "/data/city.gpkg"
        let convert = try f.tool(
            [
                "-q", "-f", "GPKG", gpkg, f.csvPath, "-oo", "X_POSSIBLE_NAMES=lon", "-oo", "Y_POSSIBLE_NAMES=lat",
                "-oo", "KEEP_GEOM_COLUMNS=NO", "-a_srs", "EPSG:4326", "-nln", "pois",
            ],
            executable: "/usr/bin/ogr2ogr")
        XCTAssertEqual(convert.status, 0, convert.output)
        try f.writeManifest(
            output: .string("../out/test.geojson"),
            input: .object([
                ("path", .string("../data/city.gpkg")),
                (
                    "columns",
                    .object([("id", .string("id")), ("name", .string("name")), ("keywords", .string("category"))])
                ),
            ]))
        let r = try f.runOK()
        XCTAssertTrue(r.output.contains("GDAL GPKG, layer 'pois' in EPSG:4326"), r.output)
        let fromGPKG = try reference(f)
        XCTAssertEqual(fromGPKG.count, fromCSV.count)
        for (id, p) in fromCSV {
            for key in ["keyword", "rank", "n_pois", "n_keyword_pois"] {
                XCTAssertEqual(fromGPKG[id]?[key], p[key], key)
            }
            let a = p["area_m2"]?.doubleValue ?? 0
            XCTAssertEqual(fromGPKG[id]?["area_m2"]?.doubleValue ?? -1, a, accuracy: a * 1e-6)
        }
    }
}
