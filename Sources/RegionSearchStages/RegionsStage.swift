import Foundation
import RegionSearchCore
import RegionSearchModel
import RegionSearchRegions

/// The `regions` stage: dense, significant regions per keyword.
public enum RegionsStage {
    public static let definition = StageDefinition(
        name: "regions",
        abstract: "extract dense regions of each keyword, test their significance, score and rank them",
        version: 2,
        inputs: [
            ProjectStage.definition.provides("output", as: "projected"),
            GraphStage.definition.provides("output", as: "graph"),
            PropagateStage.definition.provides("output", as: "scores"),
        ],
        outputs: [.init(option: "output", fileName: "regions.rsa", kind: .regions)],
        options: RegionOptions.self)

    static let discussion = """
        For each keyword: the keyword's local share around every POI (its propagation score divided
        by the score of an all-ones labelling) is compared with the keyword's base rate p, in units of
        s = sqrt(p(1-p)/n_eff), the chance deviation of a share on this graph (n_eff is measured by the
        random-label probe column of propagate). Connected POIs at least z_extend·s above p that
        include a core at least z_core·s above p form a candidate; candidates with fewer than
        min_keyword_pois matching POIs are dropped and those of one keyword within merge_distance_m of
        each other merged. Significance: with N POIs, a candidate's p-value is
        N · 100 · P(Binomial(n, p) >= k), computed for its own POIs and for all POIs inside the hull of
        its matching POIs; the larger counts (the factor 100, candidate shapes per POI, was calibrated
        on cities without clusters). Benjamini-Hochberg q-values over all candidates of all keywords
        keep the false discovery rate at `fdr`. A region's shape POIs are its matching POIs whose own
        two-hop neighbourhood is keyword-dense; the hulls stage draws them. Regions are ranked within
        their keyword by score sum (the keyword mass they hold). Method "dbscan" instead clusters the
        keyword's POIs with DBSCAN (a baseline; its clusters get the same statistics but no filter).
        """

    public static func main() -> Never {
        ToolMain.run(definition.commandSpec(discussion: discussion)) { try run($0) }
    }

    static func run(_ cl: ParsedCommandLine) throws {
        var stage = try StageInvocation<RegionOptions>(cl, definition)
        let output = try stage.outputPath()
        let files = try stage.inputs(["projected", "graph", "scores"])
        let (projectedFile, graphFile, scoresFile) = (files[0], files[1], files[2])
        let points = try ProjectedPoints(artifact: projectedFile)
        let graph = try AdjacencyGraph(artifact: graphFile)
        let table = try ScoreTable(artifact: scoresFile)
        guard graph.nodeCount == points.count, table.count == points.count else {
            throw ToolFailure(
                "inputs disagree: \(points.count) projected points, \(graph.nodeCount) graph nodes, \(table.count) "
                    + "score rows; rerun graph and propagate on the same projected artifact",
                status: .artifact)
        }
        // The graph records the neighbour its local spacings are measured to (the occupied area
        // needs it); graphs written before it was recorded used the default, 5.
        let scaleK = graphFile.metadata["scale_k"]?.intValue ?? 5
        let result = stage.summary.time(.regions) {
            RegionExtraction.run(points: points, graph: graph, table: table, options: stage.options, scaleK: scaleK)
        }
        let meta: JSONValue = .object([
            ("stage", .string("regions")),
            ("parameters", stage.parameters.canonical),
            ("method", .string(stage.options.method.rawValue)),
            ("measure", .string(stage.options.measure.rawValue)),
            ("occupied_area_m2", .number(result.occupiedArea.rounded())),
            ("windows", .number(Double(points.count))),
            ("keywords", .array(result.keywordMeta)),
            ("candidates", .number(Double(result.candidates))),
            ("regions", .number(Double(result.table.regions.count))),
            ("provenance", stage.provenance(inputs: [projectedFile, graphFile, scoresFile])),
        ])
        try stage.summary.time(.write) { try result.table.writer(metadata: meta).write(to: output) }
        for (c, q) in table.keywords.enumerated() {
            let count = result.table.regions.filter { $0.keyword == c }.count
            Log.info("\"\(q)\": \(count) region(s)")
        }
        stage.summary.set(.candidates, result.candidates)
        stage.summary.set(.regions, result.table.regions.count)
        stage.summary.setDetail("keywords", .array(result.keywordMeta))
        Log.info(
            "\(result.table.regions.count) region(s) from \(result.candidates) candidate(s) in "
                + "\(String(format: "%.3f", stage.summary.seconds(.regions) ?? 0)) s"
        )
        try stage.finish()
    }
}
