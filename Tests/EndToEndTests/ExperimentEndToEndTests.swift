import Foundation
import XCTest

@testable import RegionSearchCore
@testable import RegionSearchEvaluation
@testable import RegionSearchExperiments
@testable import RegionSearchMaps
@testable import RegionSearchOutput
@testable import RegionSearchRunner
@testable import RegionSearchStages
@testable import RegionSearchSynthetic
@testable import RegionSearchTestSupport

/// `regionsearch run/status/clean` on experiment manifests: two small synthetic cities with
/// truth, a 2-value grid, with the built executables.
final class ExperimentEndToEndTests: XCTestCase {
    /// Two cities (seeds 7 and 8), each with its truth polygons and planted members.
    private static let cities: [(name: String, csv: Data, truth: String, members: String)] = [7, 8].map { seed in
        var config = SyntheticCity.Config()
        config.n = 3_000
        config.clusters = 4
        config.keywords = ["cafe", "bank"]
        config.extentKm = 5
        config.seed = UInt64(seed)
        let dir = NSTemporaryDirectory() + "regionsearch-experiment-" + UUID().uuidString
        try! FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let city = try! SyntheticCity(config)
        try! city.writeCSV(to: dir + "/city.csv")
        return (
            "s\(seed)", try! Data(contentsOf: URL(fileURLWithPath: dir + "/city.csv")), city.truthGeoJSON(),
            city.truthMembersCSV()
        )
    }

    /// A pipeline fixture whose manifest is an experiment over both cities (or the first only).
    private struct Fixture {
        let base: PipelineFixture
        var root: String { base.root }
        var outDir: String { root + "/out/exp" }
        var work: WorkDirectory { base.work }
        var manifestPath: String { base.manifestPath }

        init(grid: String, inputSets: Int = 2, truth: Bool = true) throws {
            base = try PipelineFixture()
            for city in ExperimentEndToEndTests.cities {
                try city.csv.write(to: URL(fileURLWithPath: base.root + "/data/\(city.name).csv"))
                try city.truth.write(
                    toFile: base.root + "/data/\(city.name).truth.geojson", atomically: true, encoding: .utf8)
                try city.members.write(
                    toFile: base.root + "/data/\(city.name).members.csv", atomically: true, encoding: .utf8)
            }
            try write(grid: grid, inputSets: inputSets, truth: truth)
        }

        /// - Parameter truthExtra: more members of each truth entry (`, "checks": true`).
        func write(grid: String, inputSets: Int = 2, truth: Bool = true, truthExtra: String = "") throws {
            let names = ExperimentEndToEndTests.cities.prefix(inputSets).map(\.name)
            let inputs = names.map { #""\#($0)": [{"path": "../data/\#($0).csv", "format": "csv"}]"# }.joined(
                separator: ", ")
            let truths = names.map {
                #""\#($0)": {"regions": "../data/\#($0).truth.geojson", "members": "../data/\#($0).members.csv""#
                    + truthExtra + "}"
            }
            .joined(separator: ", ")
            let text = """
                {"name": "exp", "work_dir": "../work", "output": "../out/exp", "keywords": ["cafe", "bank"],
                 "experiment": {
                   "inputs": {\(inputs)},\(truth ? "\n   \"truth\": {\(truths)}," : "")
                   "grid": {\(grid)}
                 }}
                """
            try text.write(toFile: manifestPath, atomically: true, encoding: .utf8)
        }

        func manifest() throws -> Manifest { try Manifest.load(path: manifestPath) }

        @discardableResult
        func run(_ options: [String] = [], environment: [String: String]? = nil) throws -> PipelineFixture.Result {
            try base.run(options, environment: environment)
        }

        func tool(_ arguments: [String]) throws -> PipelineFixture.Result { try base.tool(arguments) }

        /// The run state of one combination.
        func state(_ combination: String) throws -> RunState {
            let bytes = try FileSystem.read(work.combinationState(combination))
            let json = try bytes.withUnsafeBufferPointer { (b) throws(JSONParseError) -> JSONValue in
                try JSONParser.parse(bytes: b)
            }
            return try XCTUnwrap(RunState(json: json))
        }

        /// The record of a stage in a combination's latest run.
        func record(_ combination: String, _ stage: String) throws -> StageRecord {
            let key = try XCTUnwrap(try state(combination)[stage].key)
            return try XCTUnwrap(try StageRecord.load(work.recordPath(stage: stage, key: key)))
        }

        func objectPath(_ combination: String, _ stage: String, _ file: String) throws -> String {
            work.objectDirectory(stage: stage, key: try XCTUnwrap(try state(combination)[stage].key)) + "/" + file
        }

        /// Number of record files (successful runs) per stage.
        func recordCounts() -> [String: Int] {
            var out: [String: Int] = [:]
            for name in FileSystem.list(work.records) where !name.hasSuffix(".failed.json") {
                if let entry = WorkDirectory.parseEntry(name) { out[entry.stage, default: 0] += 1 }
            }
            return out
        }

        func read(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

        /// results.csv as header + rows of fields (no field in these tests needs quoting).
        func csv() throws -> (header: [String], rows: [[String]]) {
            let text = String(decoding: try read(outDir + "/results.csv"), as: UTF8.self)
            XCTAssertTrue(text.hasSuffix("\r\n"))
            let lines = text.components(separatedBy: "\r\n").dropLast().map { $0.components(separatedBy: ",") }
            return (lines[0], Array(lines.dropFirst()))
        }

        /// results.csv without its `seconds_*` columns, and results.md up to its timing section.
        func deterministicResults() throws -> (String, String) {
            let (header, rows) = try csv()
            let keep = header.indices.filter { !header[$0].hasPrefix("seconds_") }
            let csv = ([header] + rows).map { r in keep.map { r[$0] }.joined(separator: ",") }.joined(separator: "\n")
            let md = String(decoding: try read(outDir + "/results.md"), as: UTF8.self)
            let cut = try XCTUnwrap(md.range(of: ExperimentResults.timingHeading))
            return (csv, String(md[..<cut.lowerBound]))
        }

        func remove() { base.remove() }
    }

    private let zCoreNames = [
        "s7__regions.z_core=2.5", "s7__regions.z_core=3", "s8__regions.z_core=2.5", "s8__regions.z_core=3",
    ]

    /// The features of a GeoJSON per `keyword` property, counted from the file itself.
    private func keywordCounts(_ data: Data) throws -> [String: Int] {
        let json = try data.withUnsafeBytes { raw in
            try JSONParser.parse(bytes: raw.bindMemory(to: UInt8.self))
        }
        var out: [String: Int] = [:]
        for f in json["features"]?.arrayValue ?? [] {
            out[f["properties"]?["keyword"]?.stringValue ?? "", default: 0] += 1
        }
        return out
    }

    /// `checks` and `must_not` in the truth add their columns, equal to the evaluator's own numbers.
    func testChecksAndMustNotAddColumnsWithTheEvaluatorsValues() throws {
        let f = try Fixture(grid: #""regions.z_core": [2.5]"#)
        defer { f.remove() }
        // A void over the south-west quarter of the 5 km cities (centre 116.40, 39.90).
        let void = GeoJSONWriter.document(
            features: [
                GeoJSONWriter.Feature(
                    rings: [
                        GeoJSONWriter.Ring(
                            lon: [116.37, 116.40, 116.40, 116.37, 116.37], lat: [39.87, 39.87, 39.90, 39.90, 39.87])
                    ],
                    properties: [("kind", .string("void"))])
            ], foreignMembers: [])
        try void.write(toFile: f.root + "/data/void.geojson", atomically: true, encoding: .utf8)
        try f.write(
            grid: #""regions.z_core": [2.5]"#, truthExtra: #", "checks": true, "must_not": "../data/void.geojson""#)
        let run = try f.run()
        XCTAssertEqual(run.status, 0, run.output)
        let (header, rows) = try f.csv()
        let added = [
            "member_recall", "fragmentation", "max_empty_share", "regions_empty_over_0.1", "regions_over_5km2",
            "void_share", "sparse_share",
        ]
        let start = try XCTUnwrap(header.firstIndex(of: "poi_precision")) + 1
        XCTAssertEqual(Array(header[start..<(start + added.count)]), added)
        XCTAssertEqual(header[start + added.count], "seconds_ingest")
        for (i, row) in rows.enumerated() {
            let set = i == 0 ? "s7" : "s8"
            let direct = try Evaluator(thresholds: [0.3, 0.5], checks: CheckOptions()).scoreTruth(
                regions: RegionFeatureFile.read(path: f.outDir + "/\(set)__regions.z_core=2.5.geojson"),
                truth: RegionFeatureFile.read(path: f.root + "/data/\(set).truth.geojson"),
                pois: EvaluationPOIs.load(path: f.root + "/data/\(set).csv"),
                members: PlantedMembers.read(path: f.root + "/data/\(set).members.csv"),
                mustNot: RegionFeatureFile.read(path: f.root + "/data/void.geojson"))
            let o = direct.overall
            let c = try XCTUnwrap(o.regionChecks)
            let expected = [
                String(format: "%.4f", try XCTUnwrap(o.members?.recall)),
                String(format: "%.4f", try XCTUnwrap(o.members?.meanFragmentation)),
                String(format: "%.4f", try XCTUnwrap(c.maxEmptyShare)), String(c.overEmptyLimit), String(c.overArea),
                String(format: "%.4f", try XCTUnwrap(o.mustNot?.voidShare)),
                String(format: "%.4f", try XCTUnwrap(o.mustNot?.sparseShare)),
            ]
            XCTAssertEqual(Array(row[start..<(start + added.count)]), expected, set)
        }
        let md = String(decoding: try f.read(f.outDir + "/results.md"), as: UTF8.self)
        XCTAssertTrue(md.contains("| member_recall | fragmentation | max_empty_share |"), md)
    }

    func testGridOverARegionsParameterSharesUpstreamStagesAndScoresEveryCombination() throws {
        let f = try Fixture(grid: #""regions.z_core": [2.5, 3]"#)
        defer { f.remove() }
        let first = try f.run()
        XCTAssertEqual(first.status, 0, first.output)
        let manifest = try f.manifest()
        XCTAssertEqual(manifest.experiment?.combinations.map(\.name), zCoreNames)
        let plots = ["plot-regions.z_core.png", "plot-regions.z_core.svg"]
        XCTAssertEqual(
            FileSystem.list(f.outDir),
            (zCoreNames.map { $0 + ".geojson" } + ["results.csv", "results.md"] + plots).sorted())
        // The plot of the one grid key, linked from results.md.
        let plot = try CairoSurface(png: Array(try f.read(f.outDir + "/plot-regions.z_core.png")))
        XCTAssertEqual(plot.width, 1500)
        let resultsMarkdown = String(decoding: try f.read(f.outDir + "/results.md"), as: UTF8.self)
        XCTAssertTrue(resultsMarkdown.contains("![Scores by regions.z_core](plot-regions.z_core.png)"), resultsMarkdown)
        XCTAssertTrue(resultsMarkdown.contains("[plot-regions.z_core.svg](plot-regions.z_core.svg)"), resultsMarkdown)

        // Each GeoJSON is its combination's hulls object.
        for name in zCoreNames {
            XCTAssertEqual(
                try f.read(f.outDir + "/\(name).geojson"),
                try f.read(try f.objectPath(name, "hulls", "regions.geojson")), name)
            XCTAssertEqual(try f.state(name).status, "ok")
        }
        // ingest … propagate ran once per input set: the second combination of each set has the
        // same keys and found them up to date; regions and hulls ran for every combination.
        let shared = ["ingest", "project", "graph", "propagate"]
        for set in 0..<2 {
            let firstOfSet = try f.state(zCoreNames[2 * set])
            let second = try f.state(zCoreNames[2 * set + 1])
            for stage in shared {
                XCTAssertEqual(firstOfSet[stage].status, .ran, "\(stage) in \(zCoreNames[2 * set])")
                XCTAssertEqual(second[stage].status, .upToDate, "\(stage) in \(zCoreNames[2 * set + 1])")
                XCTAssertEqual(firstOfSet[stage].key, second[stage].key)
            }
            for stage in ["regions", "hulls"] {
                XCTAssertEqual(firstOfSet[stage].status, .ran)
                XCTAssertEqual(second[stage].status, .ran)
                XCTAssertNotEqual(firstOfSet[stage].key, second[stage].key)
            }
        }
        XCTAssertNotEqual(try f.state(zCoreNames[0])["ingest"].key, try f.state(zCoreNames[2])["ingest"].key)
        XCTAssertEqual(
            f.recordCounts(), ["ingest": 2, "project": 2, "graph": 2, "propagate": 2, "regions": 4, "hulls": 4])
        let runJSON = try XCTUnwrap(RunState.load(f.work))
        XCTAssertEqual(runJSON.status, "ok")
        XCTAssertEqual(runJSON.combinations?.map(\.name), zCoreNames)
        XCTAssertEqual(runJSON.combinations?.map(\.status), ["ok", "ok", "ok", "ok"])

        // results.csv: one row per combination; counts from the records and the GeoJSON; scores
        // equal to the evaluator's, computed here directly (POIs from the CSV, not pois.rsa).
        let (header, rows) = try f.csv()
        let scoreColumns = [
            "mean_best_iou", "recall@0.3", "precision@0.3", "f1@0.3", "recall@0.5", "precision@0.5", "f1@0.5",
            "precision_inside", "poi_recall", "poi_precision",
        ]
        XCTAssertEqual(
            header,
            [
                "combination", "input", "regions.z_core", "pois", "edges", "iterations", "regions", "regions:cafe",
                "regions:bank",
            ]
                + scoreColumns + [
                    "seconds_ingest", "seconds_project", "seconds_graph", "seconds_propagate", "seconds_regions",
                    "seconds_hulls", "seconds_total",
                ])
        XCTAssertEqual(rows.count, 4)
        func cell(_ row: [String], _ column: String) -> String { row[header.firstIndex(of: column)!] }
        var scoredRegions = 0
        for (i, row) in rows.enumerated() {
            let name = zCoreNames[i]
            let set = String(name.prefix(2))
            XCTAssertEqual(row.count, header.count)
            XCTAssertEqual(cell(row, "combination"), name)
            XCTAssertEqual(cell(row, "input"), set)
            XCTAssertEqual(cell(row, "regions.z_core"), i % 2 == 0 ? "2.5" : "3")
            XCTAssertEqual(cell(row, "pois"), "3000")
            XCTAssertEqual(cell(row, "edges"), String(try XCTUnwrap(try f.record(name, "graph").summary.count(.edges))))
            XCTAssertEqual(
                cell(row, "iterations"),
                String(try XCTUnwrap(try f.record(name, "propagate").summary.count(.iterations))))
            let geojsonPath = f.outDir + "/\(name).geojson"
            let counts = try keywordCounts(try f.read(geojsonPath))
            XCTAssertEqual(cell(row, "regions"), String(counts.values.reduce(0, +)))
            XCTAssertEqual(cell(row, "regions:cafe"), String(counts["cafe"] ?? 0))
            XCTAssertEqual(cell(row, "regions:bank"), String(counts["bank"] ?? 0))
            scoredRegions += counts.values.reduce(0, +)

            let direct = try Evaluator(thresholds: [0.3, 0.5]).scoreTruth(
                regions: RegionFeatureFile.read(path: geojsonPath),
                truth: RegionFeatureFile.read(path: f.root + "/data/\(set).truth.geojson"),
                pois: EvaluationPOIs.load(path: f.root + "/data/\(set).csv"),
                members: PlantedMembers.read(path: f.root + "/data/\(set).members.csv"))
            let o = direct.overall
            let expected = [
                o.meanBestIoU, o.recall[0], o.precision[0], o.f1[0], o.recall[1], o.precision[1], o.f1[1],
                o.precisionInside,
                o.poi?.recall, o.poi?.precision,
            ].map { String(format: "%.4f", try! XCTUnwrap($0)) }
            XCTAssertEqual(scoreColumns.map { cell(row, $0) }, expected, name)
            // Timings are the records' seconds, and the total their sum.
            let seconds = try Pipeline.stages.map { try f.record(name, $0.name).seconds }
            XCTAssertEqual(cell(row, "seconds_graph"), String(format: "%.3f", seconds[2]))
            XCTAssertEqual(Double(cell(row, "seconds_total"))!, seconds.reduce(0, +), accuracy: 0.0015)
        }
        XCTAssertGreaterThan(scoredRegions, 0, "the cities have planted clusters to find")

        // results.md: the same values, one row per combination.
        let md = String(decoding: try f.read(f.outDir + "/results.md"), as: UTF8.self)
        let tableRows = md.components(separatedBy: "\n").filter { $0.hasPrefix("| ") }
        XCTAssertEqual(tableRows.count, 2 * (1 + 4) + 2, "header + separator + 4 rows, twice")
        for (i, row) in rows.enumerated() {
            let expected =
                "| "
                + ([String(i + 1)] + row[1..<(header.count - 7)].map { $0.isEmpty ? "–" : $0 }).joined(separator: " | ")
                + " |"
            XCTAssertEqual(tableRows[2 + i], expected)
        }

        // A rerun is a no-op: every stage up to date, nothing written.
        let resultsBefore = try f.deterministicResults()
        let csvBefore = try f.read(f.outDir + "/results.csv")
        let second = try f.run()
        XCTAssertEqual(second.status, 0, second.output)
        for name in zCoreNames {
            XCTAssertEqual(try f.state(name).stages.map(\.status), Array(repeating: .upToDate, count: 6), name)
        }
        XCTAssertFalse(second.output.contains("regionsearch: wrote"), second.output)
        XCTAssertTrue(second.output.contains("results.md are up to date"), second.output)
        XCTAssertEqual(try f.read(f.outDir + "/results.csv"), csvBefore)
        XCTAssertTrue(try f.deterministicResults() == resultsBefore, "the results table is the same")
        XCTAssertEqual(
            f.recordCounts(), ["ingest": 2, "project": 2, "graph": 2, "propagate": 2, "regions": 4, "hulls": 4])
        XCTAssertEqual(FileSystem.list(f.work.scores).count, 4, "one cached report per combination")

        let status = try f.tool(["status", f.manifestPath])
        XCTAssertEqual(status.status, 0, status.output)
        XCTAssertTrue(status.output.contains("(exp): experiment, 4 combinations, 4 up to date"), status.output)
        XCTAssertTrue(status.output.contains("[2/4] s7__regions.z_core=3    up to date — "), status.output)

        // A new value: its combinations have not run yet (their upstream stages are shared and up
        // to date; nothing of their own is stale); the run runs regions and hulls only.
        try f.write(grid: #""regions.z_core": [2.5, 3.5]"#)
        let stale = try f.tool(["status", f.manifestPath, "--json"])
        XCTAssertEqual(stale.status, 0)
        let report = try JSONParser.parse(stale.output)
        let combos = try XCTUnwrap(report["combinations"]?.arrayValue)
        XCTAssertEqual(combos.map { $0["up_to_date"]?.boolValue }, [true, false, true, false])
        XCTAssertEqual(combos[1]["name"]?.stringValue, "s7__regions.z_core=3.5")
        XCTAssertEqual(
            combos[1]["summary"]?.stringValue, "not run yet (ingest, project, graph, propagate up to date)",
            "\(combos[1])")
        XCTAssertEqual(combos[1]["state"]?.stringValue, "not_run")
        XCTAssertEqual(combos[1]["parameters"], .object([("regions.z_core", .number(3.5))]))
        let third = try f.run()
        XCTAssertEqual(third.status, 0, third.output)
        XCTAssertEqual(
            try f.state("s7__regions.z_core=3.5").stages.filter { $0.status == .ran }.map(\.stage),
            ["regions", "hulls"])
        XCTAssertEqual(
            try f.csv().rows.map { $0[0] },
            ["s7__regions.z_core=2.5", "s7__regions.z_core=3.5", "s8__regions.z_core=2.5", "s8__regions.z_core=3.5"])
        XCTAssertTrue(third.output.contains("2 other GeoJSON file(s)"), third.output)

        // clean --unused keeps what the latest run's combinations use; clean removes everything
        // but the outputs.
        let unused = try f.tool(["clean", f.manifestPath, "--unused"])
        XCTAssertEqual(unused.status, 0, unused.output)
        XCTAssertEqual(
            f.recordCounts(), ["ingest": 2, "project": 2, "graph": 2, "propagate": 2, "regions": 4, "hulls": 4])
        XCTAssertEqual(FileSystem.list(f.work.runs).count, 4)
        XCTAssertEqual(FileSystem.list(f.work.scores).count, 4)
        let afterClean = try f.run()
        XCTAssertEqual(afterClean.status, 0)
        XCTAssertEqual(
            try f.state("s8__regions.z_core=3.5").stages.map(\.status), Array(repeating: .upToDate, count: 6))
        XCTAssertEqual(try f.tool(["clean", f.manifestPath]).status, 0)
        XCTAssertTrue(FileSystem.list(f.work.objects).isEmpty)
        XCTAssertFalse(FileSystem.exists(f.work.runs))
        XCTAssertFalse(FileSystem.exists(f.work.scores))
        XCTAssertTrue(FileSystem.exists(f.outDir + "/results.csv"))
    }

    /// GeoJSONs and the results without timings are byte-identical across fresh runs and thread counts.
    func testResultsAreDeterministicAcrossRunsAndThreadCounts() throws {
        var outputs: [([String: Data], String, String)] = []
        for threads in [[], ["--threads", "1"], ["--threads", "2"]] {
            let f = try Fixture(grid: #""graph.method": ["delaunay", "knn"]"#)
            defer { f.remove() }
            let result = try f.run(threads)
            XCTAssertEqual(result.status, 0, result.output)
            var files: [String: Data] = [:]
            for name in FileSystem.list(f.outDir) where name.hasSuffix(".geojson") {
                files[name] = try f.read(f.outDir + "/" + name)
            }
            XCTAssertEqual(files.count, 4)
            let (csv, md) = try f.deterministicResults()
            outputs.append((files, csv, md))
        }
        for other in outputs.dropFirst() {
            XCTAssertEqual(other.0, outputs[0].0)
            XCTAssertEqual(other.1, outputs[0].1)
            XCTAssertEqual(other.2, outputs[0].2)
        }
        XCTAssertTrue(outputs[0].1.contains("s8__graph.method=knn,s8,knn,3000,"), outputs[0].1)
    }

    /// DBSCAN as a grid value: its GeoJSON is what a plain manifest with regions.method dbscan
    /// gives, and it shares ingest … graph with the propagation combination (propagate differs: DBSCAN
    /// reads the scores).
    func testDBSCANAsAGridValue() throws {
        let f = try Fixture(
            grid:
                #""m": [{"regions.method": "propagation"}, {"regions.method": "dbscan", "regions.dbscan_eps_m": 150, "regions.dbscan_min_samples": 5}]"#,
            inputSets: 1)
        defer { f.remove() }
        let result = try f.run()
        XCTAssertEqual(result.status, 0, result.output)
        let names = [
            "s7__regions.method=propagation",
            "s7__regions.method=dbscan__regions.dbscan_eps_m=150__regions.dbscan_min_samples=5",
        ]
        XCTAssertEqual(
            try f.csv().rows.map { Array($0[0...4]) },
            [
                [names[0], "s7", "propagation", "", ""], [names[1], "s7", "dbscan", "150", "5"],
            ])
        let regions = try f.record(names[1], "regions")
        XCTAssertEqual(regions.key.parameters["method"], .string("dbscan"))
        XCTAssertEqual(regions.key.parameters["dbscan_eps_m"], .number(150))
        for stage in ["ingest", "project", "graph"] {
            XCTAssertEqual(try f.state(names[0])[stage].key, try f.state(names[1])[stage].key)
        }
        // DBSCAN reads the scores (its members' scores), the density measure does not: propagate
        // runs for each, differing in `scores` alone.
        let propagate = try (0..<2).map { try f.record(names[$0], "propagate").key.parameters }
        XCTAssertEqual(propagate.map { $0["scores"] }, [.bool(false), .bool(true)])
        let others = propagate.map { p -> [String] in
            guard case .object(let members) = p else { return [] }
            return members.filter { $0.0 != "scores" }.map { "\($0.0)=\($0.1.serialized())" }
        }
        XCTAssertFalse(others[0].isEmpty)
        XCTAssertEqual(others[0], others[1])

        // The same pipeline as a plain manifest, in its own work directory.
        let plain = try PipelineFixture()
        defer { plain.remove() }
        // Same file name too: the GeoJSON's provenance names the input file.
        try ExperimentEndToEndTests.cities[0].csv.write(to: URL(fileURLWithPath: plain.root + "/data/s7.csv"))
        // No lineage: an experiment keeps none, so its ids and (null) change are the result's own.
        try plain.writeManifest(
            sections: [
                (
                    "regions",
                    .object([
                        ("method", .string("dbscan")), ("dbscan_eps_m", .number(150)),
                        ("dbscan_min_samples", .number(5)),
                    ])
                ),
                ("lineage", .bool(false)),
            ],
            keywords: ["cafe", "bank"],
            input: .object([("path", .string("../data/s7.csv")), ("format", .string("csv"))]))
        let single = try plain.run()
        XCTAssertEqual(single.status, 0, single.output)
        let dbscanGeoJSON = try f.read(f.outDir + "/\(names[1]).geojson")
        XCTAssertEqual(try plain.output(), dbscanGeoJSON)
        XCTAssertNotEqual(try f.read(f.outDir + "/\(names[0]).geojson"), dbscanGeoJSON)
    }

    func testFailuresNameTheCombination() throws {
        let f = try Fixture(grid: #""project.crs": ["auto", "EPSG:999999"]"#, inputSets: 1, truth: false)
        defer { f.remove() }
        let failed = try f.run()
        XCTAssertEqual(failed.status, 2, failed.output)
        let state = try XCTUnwrap(RunState.load(f.work))
        XCTAssertEqual(state.status, "failed")
        XCTAssertEqual(state.combinations?.map(\.status), ["ok", "failed"])
        XCTAssertTrue(
            state.combinations?[1].error?.contains("stage project failed") ?? false,
            "\(String(describing: state.combinations?[1].error))")
        XCTAssertFalse(FileSystem.exists(f.outDir + "/results.csv"))
        let status = try f.tool(["status", f.manifestPath])
        XCTAssertTrue(
            status.output.contains("last run: failed at combination s7__project.crs=EPSG_999999"), status.output)
        XCTAssertTrue(status.output.contains("[2/2] s7__project.crs=EPSG_999999  failed at project: "), status.output)

        // Missing truth: exit 3, naming the manifest key and the file.
        try f.write(grid: #""project.crs": ["auto"]"#, inputSets: 1)
        unlink(f.root + "/data/s7.members.csv")
        let noTruth = try f.run()
        XCTAssertEqual(noTruth.status, 3, noTruth.output)
        XCTAssertTrue(
            noTruth.output.contains(
                "test.json: experiment.truth.s7.members: cannot read \(f.root)/data/s7.members.csv: No "
                    + "such file or directory"
            ), noTruth.output)

        // The output of an experiment is a directory.
        try FileManager.default.removeItem(atPath: f.outDir)
        try Data("x".utf8).write(to: URL(fileURLWithPath: f.outDir))
        let notDirectory = try f.run()
        XCTAssertEqual(notDirectory.status, 6, notDirectory.output)
        XCTAssertTrue(
            notDirectory.output.contains("\(f.outDir): the output of an experiment is a directory"), notDirectory.output
        )
    }

    /// A run that stops at a failing combination leaves the ones after it not run: `status` says
    /// "not run yet" for them (it called them stale, against another combination's records), and
    /// keeps "stale" for a combination whose result exists but is out of date.
    func testCombinationsARunNeverReachedAreNotRunNotStale() throws {
        let f = try Fixture(grid: #""project.crs": ["auto", "EPSG:999999", "EPSG:3857"]"#, inputSets: 1, truth: false)
        defer { f.remove() }
        let failed = try f.run()
        XCTAssertEqual(failed.status, 2, failed.output)
        let names = try f.manifest().experiment!.combinations.map(\.name)
        func lines() throws -> [String] {
            let status = try f.tool(["status", f.manifestPath])
            return names.map { name in
                status.output.split(separator: "\n").first { $0.contains(" \(name) ") }.map {
                    String($0.drop { $0 == " " })
                } ?? "no line for \(name): \(status.output)"
            }
        }
        var status = try lines()
        XCTAssertTrue(status[0].contains("  up to date"), status[0])
        XCTAssertTrue(status[1].contains("failed at project: "), status[1])
        XCTAssertTrue(status[2].hasSuffix("  not run yet (ingest up to date)"), status[2])
        XCTAssertFalse(status[2].contains("stale"), status[2])
        var json = try JSONParser.parse(try f.tool(["status", f.manifestPath, "--json", "--quiet"]).output)
        XCTAssertEqual(
            json["combinations"]?.arrayValue?.compactMap { $0["state"]?.stringValue },
            ["up_to_date", "failed", "not_run"])
        let dry = try f.run(["--dry-run"])
        XCTAssertFalse(dry.output.contains("stale"), dry.output)
        // A parameter of every combination changes: the one that ran is stale, the others as before.
        let text = try String(contentsOfFile: f.manifestPath, encoding: .utf8)
        let edited = text.replacingOccurrences(
            of: #""keywords": ["cafe", "bank"],"#, with: #""keywords": ["cafe", "bank"], "regions": {"z_core": 3.5},"#)
        XCTAssertNotEqual(edited, text)
        try edited.write(toFile: f.manifestPath, atomically: true, encoding: .utf8)
        status = try lines()
        XCTAssertTrue(status[0].contains("stale from regions: parameter regions.z_core: "), status[0])
        XCTAssertTrue(status[2].hasSuffix("  not run yet (ingest up to date)"), status[2])
        json = try JSONParser.parse(try f.tool(["status", f.manifestPath, "--json", "--quiet"]).output)
        XCTAssertEqual(
            json["combinations"]?.arrayValue?.compactMap { $0["state"]?.stringValue },
            ["stale", "failed", "not_run"])
    }

    /// A run killed in a combination's stage: `status` says that combination was interrupted
    /// there, and the ones after it were not run yet (not stale).
    func testAKilledRunLeavesOneCombinationInterruptedAndTheRestNotRun() throws {
        let f = try Fixture(grid: #""regions.z_core": [2.5, 3, 3.5]"#, inputSets: 1, truth: false)
        defer { f.remove() }
        // The first combination starts six stages, the second regions (the 7th) and is killed there.
        let killed = try f.run([], environment: [CrashPoint.environmentVariable: "run:spawn:7"])
        XCTAssertEqual(killed.termination, .signaled(SIGKILL), killed.output)
        let json = try JSONParser.parse(try f.tool(["status", f.manifestPath, "--json", "--quiet"]).output)
        let combinations = try XCTUnwrap(json["combinations"]?.arrayValue)
        XCTAssertEqual(combinations.compactMap { $0["state"]?.stringValue }, ["up_to_date", "interrupted", "not_run"])
        XCTAssertEqual(
            combinations[1]["summary"]?.stringValue,
            "interrupted at regions (ingest, project, graph, propagate up to date); 'regionsearch run' resumes there")
        XCTAssertEqual(
            combinations[2]["summary"]?.stringValue, "not run yet (ingest, project, graph, propagate up to date)")
        XCTAssertEqual(try f.run().status, 0)
        let after = try JSONParser.parse(try f.tool(["status", f.manifestPath, "--json", "--quiet"]).output)
        XCTAssertEqual(
            after["combinations"]?.arrayValue?.compactMap { $0["state"]?.stringValue },
            ["up_to_date", "up_to_date", "up_to_date"])
    }

    /// A user's JSON file that carries the runner's exact name in the work directory — a
    /// combination's `runs/<combination>.json`, a `scores/<key>.json` — is not the runner's: a
    /// run leaves both as they are, saying so once each, and scores the combination anew (the
    /// same results); `clean` leaves them too. (The run overwrote both, and `clean` removed the
    /// score's.)
    func testAUsersFileWithTheRunnersNameIsLeftAlone() throws {
        let f = try Fixture(grid: #""regions.z_core": [2.5, 3]"#, inputSets: 1)
        defer { f.remove() }
        XCTAssertEqual(try f.run().status, 0)
        let results = try f.deterministicResults()
        let names = try f.manifest().experiment!.combinations.map(\.name)
        let scoreKey = try XCTUnwrap(RunState.load(f.work)?.combinations?[0].scoreKey)
        let mine = #"{"marathon": "3:41:07"}"# + "\n"
        let files = [f.work.combinationState(names[0]), f.work.scorePath(scoreKey)]
        for path in files { try mine.write(toFile: path, atomically: true, encoding: .utf8) }
        let again = try f.run()
        XCTAssertEqual(again.status, 0, again.output)
        for path in files {
            XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), mine, path)
            XCTAssertEqual(
                again.output.components(separatedBy: path + " has the name of a file RegionSearch writes").count, 2,
                "said once: \(again.output)")
        }
        XCTAssertTrue(try f.deterministicResults() == results, "scored anew, the same")
        XCTAssertNoThrow(try f.state(names[1]), "the other combination's state is written")
        let clean = try f.tool(["clean", f.manifestPath])
        XCTAssertEqual(clean.status, 0, clean.output)
        for path in files {
            XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), mine, "clean: \(path)")
            XCTAssertTrue(clean.output.contains(path), clean.output)
        }
    }

    /// Kills at the driver's atomic commits of an experiment run (run.json, combination states,
    /// records, GeoJSONs, scores, results tables): the next run completes with the results of an
    /// uninterrupted run and leaves no temporary file.
    func testKillsDuringAnExperimentAreRecovered() throws {
        let f = try Fixture(grid: #""regions.z_core": [2.5, 3]"#, inputSets: 1)
        defer { f.remove() }
        let trace = f.root + "/trace.txt"
        let reference = try f.run([], environment: [CrashPoint.traceVariable: trace])
        XCTAssertEqual(reference.status, 0, reference.output)
        func outputs() throws -> [String: Data] {
            var out: [String: Data] = [:]
            for name in FileSystem.list(f.outDir) where name.hasSuffix(".geojson") {
                out[name] = try f.read(f.outDir + "/" + name)
            }
            return out
        }
        let expectedFiles = try outputs()
        let expectedResults = try f.deterministicResults()
        let renames = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n").map(String.init)
            .filter { $0.hasPrefix("run:rename:") || $0.hasPrefix("run:output:") }
        // Every output copy, the last commits (scores, results, run.json), and every fifth other commit.
        let trials = renames.enumerated().filter { i, spec in
            spec.hasPrefix("run:output:") || i >= renames.count - 5 || i % 5 == 0
        }.map(\.element)
        XCTAssertGreaterThan(trials.count, 8, "\(trials)")
        for spec in trials {
            try FileManager.default.removeItem(atPath: f.work.path)
            try FileManager.default.removeItem(atPath: f.outDir)
            let killed = try f.run([], environment: [CrashPoint.environmentVariable: spec])
            XCTAssertEqual(killed.termination, .signaled(SIGKILL), spec)
            let recovery = try f.run()
            XCTAssertEqual(recovery.status, 0, "\(spec): \(recovery.output)")
            XCTAssertEqual(try outputs(), expectedFiles, spec)
            let results = try f.deterministicResults()
            XCTAssertEqual(results.0, expectedResults.0, spec)
            XCTAssertEqual(results.1, expectedResults.1, spec)
            XCTAssertEqual(f.base.temporaries(), [], spec)
            XCTAssertEqual(RunState.load(f.work)?.status, "ok", spec)
        }
    }
}
