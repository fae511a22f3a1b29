import Foundation
import XCTest

@testable import RegionSearchCore
@testable import RegionSearchGraph
@testable import RegionSearchModel
@testable import RegionSearchStages
@testable import RegionSearchTestSupport

/// The stage as a command: arguments, exit codes, artifact contents, summary, determinism.
final class GraphStageTests: XCTestCase {
    private var dir = ""

    override func setUpWithError() throws {
        dir = NSTemporaryDirectory() + "graph-stage-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        Log.quiet = true
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: dir)
        Log.quiet = false
        Parallel.threadCount = max(1, ProcessInfo.processInfo.activeProcessorCount)
    }

    private func run(_ arguments: [String]) -> ExitStatus {
        let spec = GraphStage.commandSpec()
        return ToolMain.execute { try GraphStage.run(try spec.parse(arguments)) }
    }

    private func bytes(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    func testWritesGraphArtifactAndSummary() throws {
        let points = PointSet.clustered(5000, seed: 1).withDuplicates(100, seed: 2).hilbertSorted()
        let input = dir + "/projected.rsa"
        try points.writeProjected(to: input)
        for method in ["delaunay", "knn"] {
            let output = dir + "/graph-\(method).rsa"
            let summary = dir + "/summary-\(method).json"
            XCTAssertEqual(
                run([
                    "--input", input, "--output", output, "--method", method, "--summary", summary, "--max-edge-m",
                    "800",
                ]),
                .success)
            let artifact = try ArtifactFile(path: output, expected: .graph)
            let graph = try AdjacencyGraph(artifact: artifact)
            let expected = try points.x.withUnsafeBufferPointer { x in
                try points.y.withUnsafeBufferPointer { y in
                    try GraphBuilder.build(
                        x: x, y: y, options: GraphOptions(method: GraphMethod(rawValue: method)!, maxEdgeMetres: 800))
                }
            }
            XCTAssertEqual(graph.offsets, expected.graph.offsets)
            XCTAssertEqual(graph.neighbors, expected.graph.neighbors)
            XCTAssertEqual(graph.length, expected.graph.length)
            XCTAssertEqual(graph.scale, expected.graph.scale)
            let meta = artifact.metadata
            XCTAssertEqual(meta["method"], .string(method))
            XCTAssertEqual(meta["nodes"]?.intValue, 5100)
            XCTAssertEqual(meta["edges"]?.intValue, graph.edgeCount)
            XCTAssertEqual(meta["duplicates_linked"]?.intValue, expected.statistics.duplicatesLinked)
            XCTAssertEqual(meta["dropped_max_edge"]?.intValue, expected.statistics.droppedByMaxEdge)
            XCTAssertEqual(meta["dropped_local_scale"]?.intValue, expected.statistics.droppedByLocalScale)
            XCTAssertEqual(meta["parameters"]?["max_edge_m"], .number(800))
            XCTAssertEqual(meta["parameters"]?["prune_factor"], .number(2))
            XCTAssertEqual(meta["crs"], .string("EPSG:32633"))
            // Provenance: the upstream chain plus this stage's version and parameters.
            XCTAssertEqual(meta["provenance"]?["project"]?["version"], .number(1))
            XCTAssertEqual(meta["provenance"]?["graph"]?["parameters"]?["method"], .string(method))
            let source = try ArtifactFile(path: input, expected: .projected)
            XCTAssertEqual(meta["input_checksum"], .string(hex64(source.checksum)))
            let report = StageSummary(json: try JSONParser.parse(String(decoding: try bytes(summary), as: UTF8.self)))
            XCTAssertEqual(report.count(.edgesBeforePruning), expected.statistics.edgesBeforePruning)
            XCTAssertEqual(report.count(.isolatedNodes), expected.statistics.isolatedNodes)
            XCTAssertNotNil(report.seconds(.csr))
            XCTAssertNotNil(report.seconds(.write))
        }
    }

    func testOutputBytesAreIdenticalForAnyThreadCount() throws {
        let input = dir + "/projected.rsa"
        try PointSet.clustered(30_000, seed: 3).withDuplicates(500, seed: 4).hilbertSorted().writeProjected(to: input)
        for method in ["delaunay", "knn"] {
            var files: [Data] = []
            for threads in ["1", "2", "4"] {
                let output = dir + "/g-\(method)-\(threads).rsa"
                XCTAssertEqual(
                    run(["--input", input, "--output", output, "--method", method, "--threads", threads]), .success)
                files.append(try bytes(output))
            }
            XCTAssertEqual(files[0], files[1])
            XCTAssertEqual(files[0], files[2])
        }
    }

    func testBadArgumentsExitWithUsageStatus() throws {
        let input = dir + "/projected.rsa"
        try PointSet.uniform(10, seed: 5).writeProjected(to: input)
        let output = dir + "/g.rsa"
        XCTAssertEqual(run(["--input", input, "--output", output, "--method", "voronoi"]), .usage)
        XCTAssertEqual(run(["--input", input, "--output", output, "--k", "0"]), .usage)
        XCTAssertEqual(run(["--input", input, "--output", output, "--prune-factor", "-1"]), .usage)
        XCTAssertEqual(run(["--input", input, "--output", output, "--max-edge-m", "0"]), .usage)
        XCTAssertEqual(run(["--input", input, "--output", output, "--threads", "zero"]), .usage)
        XCTAssertEqual(run(["--input", input, "--output", output, "--prune-facter", "2"]), .usage)
        XCTAssertEqual(run(["--output", output]), .usage)
        XCTAssertFalse(FileManager.default.fileExists(atPath: output))
    }

    func testBadInputArtifactExitsWithArtifactStatus() throws {
        let output = dir + "/g.rsa"
        // Missing file, not an artifact, wrong kind, truncated, non-finite coordinates.
        XCTAssertEqual(run(["--input", dir + "/missing.rsa", "--output", output]), .artifact)
        let garbage = dir + "/garbage.rsa"
        try AtomicFile.write("not an artifact at all, just text\n", to: garbage)
        XCTAssertEqual(run(["--input", garbage, "--output", output]), .artifact)
        let pois = dir + "/pois.rsa"
        try POITable().writer(metadata: .object([])).write(to: pois)
        XCTAssertEqual(run(["--input", pois, "--output", output]), .artifact)
        let good = dir + "/projected.rsa"
        try PointSet.uniform(100, seed: 6).writeProjected(to: good)
        var data = try bytes(good)
        data.removeLast(100)
        let truncated = dir + "/truncated.rsa"
        try data.write(to: URL(fileURLWithPath: truncated))
        XCTAssertEqual(run(["--input", truncated, "--output", output]), .artifact)
        let nan = dir + "/nan.rsa"
        try PointSet(x: [1, 2, .nan], y: [1, 2, 3]).writeProjected(to: nan)
        XCTAssertEqual(run(["--input", nan, "--output", output]), .artifact)
        XCTAssertFalse(FileManager.default.fileExists(atPath: output))
    }

    func testHelpDescribesMethodsAndPruning() {
        let help = GraphStage.commandSpec().helpText
        for phrase in [
            "--method delaunay|knn", "--prune-factor", "--max-edge-m", "--scale-k", "river", "BOTH", "Exit status",
        ] {
            XCTAssertTrue(help.contains(phrase), phrase)
        }
    }
}
