import Foundation
import XCTest

@testable import RegionSearchCore
@testable import RegionSearchModel
@testable import RegionSearchPropagation
@testable import RegionSearchRegions
@testable import RegionSearchStages
@testable import RegionSearchTestSupport

/// The keyword densities (`density.c` of the scores artifact) are propagated unless turned off
/// (`propagate --densities false`; a manifest with `regions.nested`, the default, turns them on
/// again), and the nested levels refuse scores without them; the scores themselves likewise
/// (`--scores false`, which a manifest of the density measure runs), which lift refuses.
final class KeywordDensityStageTests: XCTestCase {
    /// A 1.2 km square of shops on a 40 m grid (jittered), with cafés on every point of a 280 m
    /// square in its south-west, and one café far out in the north-east.
    private func stagedCity(_ scratch: IngestScratch) throws -> (projected: String, graph: String, pois: String) {
        var random = SeededRandom(seed: 7)
        var csv = "id,lon,lat,kind\n"
        var id = 0
        for i in 0..<30 {
            for j in 0..<30 {
                let x = Double(i) * 40 + random.uniform(-8, 8)
                let y = Double(j) * 40 + random.uniform(-8, 8)
                let cafe = (i < 7 && j < 7) || (i == 27 && j == 27)
                let lon = 24.90 + x / 56_000
                let lat = 60.16 + y / 111_320
                csv += "\(id),\(lon),\(lat),\(cafe ? "cafe" : "shop")\n"
                id += 1
            }
        }
        let input = scratch.write(csv, name: "city.csv")
        let pois = scratch.path("pois.rsa")
        let projected = scratch.path("projected.rsa")
        let graph = scratch.path("graph.rsa")
        try runIngest([
            input, "--id-column", "id", "--keyword-column", "kind", "--output", pois, "--rejects",
            scratch.path("rejects.txt"),
        ])
        try ProjectStage.run(ProjectStage.definition.commandSpec().parse(["--input", pois, "--output", projected]))
        try GraphStage.run(GraphStage.commandSpec().parse(["--input", projected, "--output", graph]))
        return (projected, graph, pois)
    }

    private func propagate(
        _ city: (projected: String, graph: String, pois: String), to output: String, _ extra: [String]
    )
        throws
    {
        try PropagateStage.run(
            PropagateStage.commandSpec().parse(
                [
                    "--pois", city.pois, "--projected", city.projected, "--graph", city.graph, "--output", output,
                    "--keywords", "cafe,shop",
                ] + extra))
    }

    /// The staged city propagated twice: without the densities and with them (the default).
    private func scoredCity(_ scratch: IngestScratch) throws -> (
        city: (projected: String, graph: String, pois: String), plain: String, dense: String
    ) {
        let city = try stagedCity(scratch)
        let plain = scratch.path("plain.rsa")
        let dense = scratch.path("dense.rsa")
        try propagate(city, to: plain, ["--densities", "false"])
        try propagate(city, to: dense, [])
        return (city, plain, dense)
    }

    private func regions(
        _ city: (projected: String, graph: String, pois: String), scores: String, to output: String
    ) throws {
        try RegionsStage.run(
            RegionsStage.definition.commandSpec().parse([
                "--projected", city.projected, "--graph", city.graph, "--scores", scores, "--output", output,
            ]))
    }

    func testDensitiesAreWrittenOnlyWhenAskedAndLeaveTheScoresAsTheyAre() throws {
        let scratch = IngestScratch()
        let (city, plain, dense) = try scoredCity(scratch)

        let plainFile = try ArtifactFile(path: plain, expected: .scores)
        let denseFile = try ArtifactFile(path: dense, expected: .scores)
        XCTAssertFalse(plainFile.hasColumn("density.0"))
        XCTAssertFalse(plainFile.hasColumn("density.1"))
        XCTAssertTrue(denseFile.hasColumn("density.0") && denseFile.hasColumn("density.1"))
        let a = try ScoreTable(artifact: plainFile)
        let b = try ScoreTable(artifact: denseFile)
        XCTAssertEqual(a.density.count, 0)
        XCTAssertEqual(b.density.count, 2)
        // The second propagation changes nothing of the first.
        for c in 0..<2 {
            XCTAssertEqual(Array(a.scores[c].buffer), Array(b.scores[c].buffer))
            XCTAssertEqual(Array(a.matches[c].buffer), Array(b.matches[c].buffer))
        }
        XCTAssertEqual(Array(a.ones.buffer), Array(b.ones.buffer))
        XCTAssertEqual(Array(a.probe.buffer), Array(b.probe.buffer))
        // The café densities: 49 cafés on 1/18 of the ground are about 18 times as dense as the
        // whole city's 50 per 1.44 km² around a café inside their square, and near 0 around the
        // lone café, whose neighbours are shops.
        let points = try ProjectedPoints(artifact: ArtifactFile(path: city.projected, expected: .projected))
        let (west, south) = (points.x.min()!, points.y.min()!)
        var inside: [Float] = []
        var lone: [Float] = []
        for i in 0..<points.count where b.matches[0][i] == 1 {
            if points.x[i] - west < 300 && points.y[i] - south < 300 {
                inside.append(b.density[0][i])
            } else {
                lone.append(b.density[0][i])
            }
        }
        XCTAssertEqual(inside.count, 49)
        XCTAssertEqual(lone.count, 1)
        let cityWide = Float(50) / 1.44
        XCTAssertGreaterThan(inside.sorted()[inside.count / 2], 5 * cityWide)
        XCTAssertLessThan(lone[0], cityWide)
        XCTAssertNil(plainFile.metadata["keywords"]?.arrayValue?.first?["density_iterations"])
        XCTAssertNotNil(denseFile.metadata["keywords"]?.arrayValue?.first?["density_iterations"])
    }

    /// Without the scores (`--scores false`, what a manifest of the density measure runs), the
    /// artifact holds the matches and densities only, the densities are the same bits, the density
    /// measure's regions are the same, and the lift measure refuses it, saying what to do.
    func testScoresAreWrittenOnlyWhenAskedAndLeaveTheDensitiesAsTheyAre() throws {
        let scratch = IngestScratch()
        let (city, _, dense) = try scoredCity(scratch)
        let bare = scratch.path("bare.rsa")
        try propagate(city, to: bare, ["--scores", "false"])
        let bareFile = try ArtifactFile(path: bare, expected: .scores)
        for column in ["score.0", "score.1", "ones", "probe"] { XCTAssertFalse(bareFile.hasColumn(column), column) }
        XCTAssertNil(bareFile.metadata["ones"])
        let a = try ScoreTable(artifact: bareFile)
        let b = try ScoreTable(artifact: try ArtifactFile(path: dense, expected: .scores))
        XCTAssertFalse(a.hasScores)
        XCTAssertTrue(b.hasScores)
        XCTAssertEqual(a.count, b.count)
        for c in 0..<2 {
            XCTAssertEqual(Array(a.matches[c].buffer), Array(b.matches[c].buffer))
            XCTAssertEqual(Array(a.density[c].buffer), Array(b.density[c].buffer))
        }
        let fromBare = scratch.path("regions-bare.rsa")
        let fromDense = scratch.path("regions-dense.rsa")
        try regions(city, scores: bare, to: fromBare)
        try regions(city, scores: dense, to: fromDense)
        let one = try RegionTable(artifact: ArtifactFile(path: fromBare, expected: .regions))
        let other = try RegionTable(artifact: ArtifactFile(path: fromDense, expected: .regions))
        XCTAssertFalse(one.regions.isEmpty)
        XCTAssertEqual(one.regions.map(\.members), other.regions.map(\.members))
        XCTAssertEqual(one.regions.map(\.pValue), other.regions.map(\.pValue))
        XCTAssertThrowsError(
            try RegionsStage.run(
                RegionsStage.definition.commandSpec().parse([
                    "--projected", city.projected, "--graph", city.graph, "--scores", bare, "--output",
                    scratch.path("lift.rsa"), "--measure", "lift",
                ]))
        ) { error in
            XCTAssertEqual((error as? ToolFailure)?.exitStatus, .artifact)
            XCTAssertTrue(String(describing: error).contains("run propagate with --scores true"), "\(error)")
        }
    }

    func testNestedLevelsRefuseScoresWithoutDensities() throws {
        let scratch = IngestScratch()
        let (city, plain, dense) = try scoredCity(scratch)
        let output = scratch.path("regions.rsa")
        XCTAssertThrowsError(try regions(city, scores: plain, to: output)) { error in
            let failure = error as? ToolFailure
            XCTAssertEqual(failure?.exitStatus, .artifact)
            XCTAssertTrue(String(describing: error).contains("run propagate with --densities true"), "\(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: output), "nothing written")
        try regions(city, scores: dense, to: output)
        let table = try RegionTable(artifact: ArtifactFile(path: output, expected: .regions))
        XCTAssertTrue(table.regions.contains { $0.keyword == 0 }, "the café square is a region")
    }

    /// A manifest says `regions.nested` once: the propagate stage it runs gets `densities`, even
    /// where the manifest turned them off; otherwise they are as given (on by default, since the
    /// default regions are nested; a one-level, lift or DBSCAN manifest may turn them off).
    func testThePipelineAsksForDensitiesWhenTheLevelsAreNested() throws {
        let defaults = try Parameters.resolve(nil, specs: RegionsStage.definition.parameters, context: "regions")
        var flat = defaults
        flat.set(RegionOptions.nestedSpec.key, .bool(false))
        var lift = defaults
        lift.set(RegionOptions.measureSpec.key, .string("lift"))
        let propagate = try Parameters.resolve(
            .object([("keywords", .array([.string("cafe")]))]), specs: PropagateStage.definition.parameters,
            context: "propagate")
        XCTAssertTrue(propagate.bool(PropagationOptions.densitiesSpec), "on by default")
        var off = propagate
        off.set(PropagationOptions.densitiesSpec.key, .bool(false))
        XCTAssertTrue(
            PropagateStage.parameters(off, regions: defaults, poiLayer: false).bool(PropagationOptions.densitiesSpec),
            "the default regions are nested")
        XCTAssertFalse(
            PropagateStage.parameters(off, regions: flat, poiLayer: false).bool(PropagationOptions.densitiesSpec))
        XCTAssertFalse(
            PropagateStage.parameters(off, regions: lift, poiLayer: false).bool(PropagationOptions.densitiesSpec),
            "lift cuts no nested levels")
        XCTAssertTrue(
            PropagateStage.parameters(propagate, regions: flat, poiLayer: false).bool(PropagationOptions.densitiesSpec))
        XCTAssertFalse(
            PropagateStage.parameters(off, regions: Parameters(values: []), poiLayer: false).bool(
                PropagationOptions.densitiesSpec),
            "no regions parameters: nothing to derive")
    }

    /// A manifest's propagate stage writes the scores (and the all-ones and probe columns) exactly
    /// when something reads them: the lift measure, the DBSCAN baseline or the scored POI layer,
    /// whatever the manifest gives; the density measure (the default) reads only the densities.
    func testThePipelineAsksForScoresOnlyWhereTheyAreRead() throws {
        let defaults = try Parameters.resolve(nil, specs: RegionsStage.definition.parameters, context: "regions")
        var lift = defaults
        lift.set(RegionOptions.measureSpec.key, .string("lift"))
        var dbscan = defaults
        dbscan.set(RegionOptions.methodSpec.key, .string("dbscan"))
        var flat = defaults
        flat.set(RegionOptions.nestedSpec.key, .bool(false))
        let propagate = try Parameters.resolve(
            .object([("keywords", .array([.string("cafe")]))]), specs: PropagateStage.definition.parameters,
            context: "propagate")
        XCTAssertTrue(propagate.bool(PropagationOptions.scoresSpec), "the stage on its own writes them")
        var off = propagate
        off.set(PropagationOptions.scoresSpec.key, .bool(false))
        for given in [propagate, off] {
            func scores(_ regions: Parameters, poiLayer: Bool = false) -> Bool {
                PropagateStage.parameters(given, regions: regions, poiLayer: poiLayer).bool(
                    PropagationOptions.scoresSpec)
            }
            XCTAssertFalse(scores(defaults), "the density measure reads no scores")
            XCTAssertFalse(scores(flat), "nor does one level of it")
            XCTAssertTrue(scores(lift))
            XCTAssertTrue(scores(dbscan))
            XCTAssertTrue(scores(defaults, poiLayer: true), "the POI layer writes each POI's score")
        }
        XCTAssertTrue(try RegionOptions(lift).readsScores)
        XCTAssertFalse(try RegionOptions(defaults).readsScores)
    }
}
