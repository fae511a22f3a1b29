import XCTest

@testable import RegionSearchCore
@testable import RegionSearchExperiments
@testable import RegionSearchRunner
@testable import RegionSearchTestSupport

/// The layout of results.csv and results.md, on rows with known values.
final class ExperimentResultsTests: XCTestCase {
    private func manifest(truth: Bool) throws -> Manifest {
        let truthSection = truth ? #", "truth": {"a": {"regions": "t.geojson", "members": "m.csv"}}"# : ""
        return try Manifest(
            bytes: Array(
                """
                {"name": "demo", "description": "A | B", "work_dir": "w", "output": "o", "keywords": ["咖啡", "bank"],
                 "experiment": {"inputs": {"a": [{"path": "a.csv"}], "b": [{"path": "b.csv"}]}\(truthSection),
                   "grid": {"ingest.bbox": ["0,0,1,1"], "m": [{"regions.method": "propagation"}, {"regions.method": "dbscan", "regions.dbscan_eps_m": 150}]}}}
                """.utf8),
            file: "x.json", directory: "/base")
    }

    private func score(_ values: [String: Double]) throws -> ExperimentScore {
        var members: [(String, JSONValue)] = [("n_truth", .number(20))]
        for (k, v) in values.sorted(by: { $0.key < $1.key }) { members.append((k, .number(v))) }
        return try XCTUnwrap(ExperimentScore(report: .object(members), thresholds: [0.3, 0.5]))
    }

    func testAnEmptyTruthAndNoRegionsNeedNoChecks() throws {
        // The evaluator's report for a null city with no region: no CRS, so no region checks.
        let report = try JSONParser.parse(
            #"{"n_truth":0,"n_regions":0,"mean_best_iou":null,"precision_inside":0,"recall@0.5":0,"#
                + #""precision@0.5":0,"f1@0.5":0,"n_regions_scored":0,"crs":null}"#)
        let s = try XCTUnwrap(ExperimentScore(report: report, thresholds: [0.5], checks: true))
        XCTAssertEqual(s.regionsEmptyOverLimit, 0)
        XCTAssertEqual(s.regionsOverMaxArea, 0)
        // With regions, a report without checks is another layout: recomputed.
        let withRegions = try JSONParser.parse(
            #"{"n_truth":0,"n_regions":3,"precision_inside":0,"recall@0.5":0,"precision@0.5":0,"f1@0.5":0}"#)
        XCTAssertNil(ExperimentScore(report: withRegions, thresholds: [0.5], checks: true))
    }

    func testCSVAndMarkdownWithScores() throws {
        let m = try manifest(truth: true)
        let e = try XCTUnwrap(m.experiment)
        XCTAssertEqual(
            e.combinations.map(\.name),
            [
                "a__ingest.bbox=0_0_1_1__regions.method=propagation",
                "a__ingest.bbox=0_0_1_1__regions.method=dbscan__regions.dbscan_eps_m=150",
                "b__ingest.bbox=0_0_1_1__regions.method=propagation",
                "b__ingest.bbox=0_0_1_1__regions.method=dbscan__regions.dbscan_eps_m=150",
            ])
        let s = try score([
            "mean_best_iou": 0.71234, "recall@0.3": 1, "precision@0.3": 0.9, "f1@0.3": 0.947368, "recall@0.5": 0.95,
            "precision@0.5": 0.8, "f1@0.5": 0.868571, "precision_inside": 0.9, "poi_recall": 0.93,
            "poi_precision": 0.96,
        ])
        let seconds: [Double?] = [0.5, 0.25, 1, 2, 0.125, 0.25]
        let rows = e.combinations.map { c in
            ExperimentResults.Row(
                combination: c, pois: 1000 + c.index, edges: 2990, iterations: 50, regionsPerKeyword: [c.index, 2],
                regions: c.index + 2, score: c.inputSet == "a" ? s : nil,
                seconds: c.index == 3 ? [0.5, nil, 1, 2, 0.125, 0.25] : seconds)
        }
        let results = ExperimentResults(manifest: m, experiment: e, rows: rows)
        XCTAssertEqual(
            results.csv,
            """
            combination,input,ingest.bbox,regions.method,regions.dbscan_eps_m,pois,edges,iterations,regions,regions:咖啡,regions:bank,mean_best_iou,recall@0.3,precision@0.3,f1@0.3,recall@0.5,precision@0.5,f1@0.5,precision_inside,poi_recall,poi_precision,seconds_ingest,seconds_project,seconds_graph,seconds_propagate,seconds_regions,seconds_hulls,seconds_total\r
            a__ingest.bbox=0_0_1_1__regions.method=propagation,a,"0,0,1,1",propagation,,1000,2990,50,2,0,2,0.7123,1.0000,0.9000,0.9474,0.9500,0.8000,0.8686,0.9000,0.9300,0.9600,0.500,0.250,1.000,2.000,0.125,0.250,4.125\r
            a__ingest.bbox=0_0_1_1__regions.method=dbscan__regions.dbscan_eps_m=150,a,"0,0,1,1",dbscan,150,1001,2990,50,3,1,2,0.7123,1.0000,0.9000,0.9474,0.9500,0.8000,0.8686,0.9000,0.9300,0.9600,0.500,0.250,1.000,2.000,0.125,0.250,4.125\r
            b__ingest.bbox=0_0_1_1__regions.method=propagation,b,"0,0,1,1",propagation,,1002,2990,50,4,2,2,,,,,,,,,,,0.500,0.250,1.000,2.000,0.125,0.250,4.125\r
            b__ingest.bbox=0_0_1_1__regions.method=dbscan__regions.dbscan_eps_m=150,b,"0,0,1,1",dbscan,150,1003,2990,50,5,3,2,,,,,,,,,,,0.500,,1.000,2.000,0.125,0.250,\r

            """)
        XCTAssertEqual(
            results.markdown,
            """
            # Experiment demo

            A | B

            4 combinations: 2 input sets × 2 grid points. Counts: accepted POIs, graph edges, propagation iterations (the most over keywords), regions in the GeoJSON. Scores: `regionsearch-evaluate truth` against the input set's truth (IoU thresholds 0.3 and 0.5; POI scores over the input set's ingested POIs). A dash in a parameter column: the combination leaves that parameter to the manifest. Files: `results.csv`, and `<combination>.geojson` per row.

            | # | input | ingest.bbox | regions.method | regions.dbscan_eps_m | pois | edges | iterations | regions | regions:咖啡 | regions:bank | mean_best_iou | recall@0.3 | precision@0.3 | f1@0.3 | recall@0.5 | precision@0.5 | f1@0.5 | precision_inside | poi_recall | poi_precision |
            | --- | --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
            | 1 | a | 0,0,1,1 | propagation | – | 1000 | 2990 | 50 | 2 | 0 | 2 | 0.7123 | 1.0000 | 0.9000 | 0.9474 | 0.9500 | 0.8000 | 0.8686 | 0.9000 | 0.9300 | 0.9600 |
            | 2 | a | 0,0,1,1 | dbscan | 150 | 1001 | 2990 | 50 | 3 | 1 | 2 | 0.7123 | 1.0000 | 0.9000 | 0.9474 | 0.9500 | 0.8000 | 0.8686 | 0.9000 | 0.9300 | 0.9600 |
            | 3 | b | 0,0,1,1 | propagation | – | 1002 | 2990 | 50 | 4 | 2 | 2 | – | – | – | – | – | – | – | – | – | – |
            | 4 | b | 0,0,1,1 | dbscan | 150 | 1003 | 2990 | 50 | 5 | 3 | 2 | – | – | – | – | – | – | – | – | – | – |

            ## Stage timings (seconds)

            Wall time of the stage run that produced each result; a stage run shared by several combinations (same input and upstream parameters) was computed once and shows in each of them. Timings differ between runs; everything above this section, and every column of results.csv except `seconds_*`, is byte-identical for the same inputs and parameters.

            | # | ingest | project | graph | propagate | regions | hulls | total |
            | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
            | 1 | 0.500 | 0.250 | 1.000 | 2.000 | 0.125 | 0.250 | 4.125 |
            | 2 | 0.500 | 0.250 | 1.000 | 2.000 | 0.125 | 0.250 | 4.125 |
            | 3 | 0.500 | 0.250 | 1.000 | 2.000 | 0.125 | 0.250 | 4.125 |
            | 4 | 0.500 | – | 1.000 | 2.000 | 0.125 | 0.250 | – |

            """)
        XCTAssertTrue(results.markdown.contains(ExperimentResults.timingHeading))
    }

    func testWithoutTruthThereAreNoScoreColumns() throws {
        let m = try manifest(truth: false)
        let results = ExperimentResults(manifest: m, experiment: try XCTUnwrap(m.experiment), rows: [])
        XCTAssertEqual(
            results.header,
            [
                "combination", "input", "ingest.bbox", "regions.method", "regions.dbscan_eps_m", "pois", "edges",
                "iterations", "regions",
                "regions:咖啡", "regions:bank",
            ])
        XCTAssertFalse(results.markdown.contains("Scores:"))
    }

    func testScoresNeedEveryThresholdInTheReport() {
        XCTAssertNil(
            ExperimentScore(
                report: .object([("n_truth", .number(3)), ("precision_inside", .number(1))]), thresholds: [0.3]))
        let s = ExperimentScore(
            report: .object([
                ("n_truth", .number(3)), ("mean_best_iou", .null), ("precision_inside", .number(0)),
                ("recall@0.3", .number(0)),
                ("precision@0.3", .number(0)), ("f1@0.3", .number(0)),
            ]), thresholds: [0.3])
        XCTAssertEqual(s?.truths, 3)
        XCTAssertNil(s?.meanBestIoU)
        XCTAssertNil(s?.poiRecall)
    }
}
