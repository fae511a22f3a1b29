import Foundation
import RegionSearchCore
import RegionSearchModel
import RegionSearchRegions

/// The `regions` stage: dense, significant regions per keyword.
public enum RegionsStage {
    public static let parameters: [ParameterSpec] = [
        ParameterSpec(
            "method", .choice(["propagation", "dbscan"]), default: .string("propagation"),
            help: "\"propagation\": regions where the keyword's local share (from propagate) stands out from its base rate, tested for significance; \"dbscan\": DBSCAN over the keyword's POIs only, a baseline for experiments."),
        ParameterSpec(
            "z_core", .number(min: 0, max: 50), default: .number(2.5),
            help: "A region's core POIs have a local keyword share at least this many standard deviations above the keyword's base rate (the deviation chance alone would give the share there)."),
        ParameterSpec(
            "z_extend", .number(min: 0, max: 50), default: .number(1.5),
            help: "A region extends from its core through connected POIs whose share is at least this many standard deviations above the base rate, so a hot spot is kept whole down to its fringe."),
        ParameterSpec(
            "min_keyword_pois", .integer(min: 1, max: 1_000_000), default: .number(5),
            help: "A region needs at least this many POIs matching the keyword."),
        ParameterSpec(
            "fdr", .number(min: 0, max: 1, minExclusive: true), default: .number(0.05),
            help: "False discovery rate over all regions of all keywords (Benjamini–Hochberg): at most this share of reported regions is expected to be chance clumps. 1 disables the test."),
        ParameterSpec(
            "merge_distance_m", .number(min: 0, max: nil), default: .null,
            help: "Regions of one keyword whose matching POIs come within this many metres are merged into one hot spot; default: twice the median POI spacing inside the regions."),
        ParameterSpec(
            "dbscan_eps_m", .number(min: 0, max: nil, minExclusive: true), default: .number(200),
            help: "DBSCAN neighbourhood radius in metres (method dbscan only)."),
        ParameterSpec(
            "dbscan_min_samples", .integer(min: 1, max: 1_000_000), default: .number(10),
            help: "DBSCAN core-point threshold: POIs within eps, itself included (method dbscan only)."),
    ]

    public static let definition = StageDefinition(
        name: "regions",
        abstract: "extract dense regions of each keyword, test their significance, score and rank them",
        version: 1,
        inputs: [
            .init(option: "projected", fileName: "projected.rsa", kind: .projected, producer: "project"),
            .init(option: "graph", fileName: "graph.rsa", kind: .graph, producer: "graph"),
            .init(option: "scores", fileName: "scores.rsa", kind: .scores, producer: "propagate"),
        ],
        outputs: [.init(option: "output", fileName: "regions.rsa", kind: .regions)],
        parameters: parameters)

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
        var stage = try StageInvocation(cl, definition)
        let params = stage.parameters, output = stage.output, t0 = stage.start
        let files = try stage.inputs(["projected", "graph", "scores"])
        let (projectedFile, graphFile, scoresFile) = (files[0], files[1], files[2])
        let points = try ProjectedPoints(artifact: projectedFile)
        let graph = try AdjacencyGraph(artifact: graphFile)
        let table = try ScoreTable(artifact: scoresFile)
        guard graph.nodeCount == points.count, table.count == points.count else {
            throw ToolFailure(
                "inputs disagree: \(points.count) projected points, \(graph.nodeCount) graph nodes, \(table.count) score rows; rerun graph and propagate on the same projected artifact",
                status: .artifact)
        }
        let tLoad = monotonicSeconds()
        let result = RegionExtraction.run(points: points, graph: graph, table: table, parameters: params)
        let tRun = monotonicSeconds()
        let meta: JSONValue = .object([
            ("stage", .string("regions")),
            ("parameters", params.canonical),
            ("method", .string(params.string("method"))),
            ("windows", .number(Double(points.count))),
            ("keywords", .array(result.keywordMeta)),
            ("candidates", .number(Double(result.candidates))),
            ("regions", .number(Double(result.table.regions.count))),
            ("provenance", Provenance.chain(
                inputs: [projectedFile, graphFile, scoresFile], stage: "regions", entry: Provenance.entry(definition, params))),
        ])
        try result.table.writer(metadata: meta).write(to: output)
        let tWrite = monotonicSeconds()
        for (c, q) in table.keywords.enumerated() {
            let count = result.table.regions.filter { $0.keyword == c }.count
            Log.info("\"\(q)\": \(count) region(s)")
        }
        stage.report.set("candidates", result.candidates)
        stage.report.set("regions", result.table.regions.count)
        stage.report.set("keywords", .array(result.keywordMeta))
        stage.report.set("load_seconds", tLoad - t0)
        stage.report.set("regions_seconds", tRun - tLoad)
        stage.report.set("write_seconds", tWrite - tRun)
        Log.info("\(result.table.regions.count) region(s) from \(result.candidates) candidate(s) in \(String(format: "%.3f", tRun - tLoad)) s")
        try stage.finish()
    }
}

/// Region extraction over all keywords, significance and ranking (the testable core of the stage).
public enum RegionExtraction {
    public struct Output {
        public var table: RegionTable
        public var keywordMeta: [JSONValue]
        public var candidates: Int
    }

    public static func run(points: ProjectedPoints, graph: AdjacencyGraph, table: ScoreTable, parameters params: Parameters) -> Output {
        let finder = RegionFinder(x: points.x, y: points.y, graph: graph)
        let options = RegionFinder.Options(
            zCore: params.double("z_core"), zExtend: params.double("z_extend"),
            minKeywordPOIs: params.int("min_keyword_pois"), mergeDistance: params.optionalDouble("merge_distance_m"))
        let dbscan = params.string("method") == "dbscan"
        let n = points.count
        var all: [RegionTable.Region] = []
        var summaries: [RegionFinder.KeywordSummary] = []
        for c in 0..<table.keywords.count {
            let match = table.matches[c]
            let matches = match.reduce(0) { $0 + Int($1) }
            let p = n > 0 ? Double(matches) / Double(n) : 0
            if dbscan {
                let kwPoints = (0..<n).filter { match[$0] != 0 }
                let clusters = DBSCAN.clusters(
                    points: kwPoints, x: points.x, y: points.y, eps: params.double("dbscan_eps_m"),
                    minSamples: params.int("dbscan_min_samples"))
                var summary = RegionFinder.KeywordSummary()
                summary.baseRate = p
                summary.components = clusters.count
                for members in clusters {
                    var r = RegionTable.Region(keyword: c, members: members, memberMatch: [UInt8](repeating: RegionTable.Region.matchesFlag | RegionTable.Region.shapeFlag, count: members.count))
                    finder.fillStatistics(&r, hull: finder.hull(of: r), scores: table.scores[c], match: match, baseRate: p)
                    all.append(r)
                }
                summaries.append(summary)
            } else {
                let (regions, summary) = finder.candidates(
                    keyword: c, scores: table.scores[c], ones: table.ones, probe: table.probe, match: match, options: options)
                all += regions
                summaries.append(summary)
            }
        }
        // Significance: p-values per candidate, BH q-values across all keywords.
        let matchCounts = table.matches.map { m in m.reduce(0) { $0 + Int($1) } }
        for i in 0..<all.count {
            let c = all[i].keyword
            let p = Double(matchCounts[c]) / Double(max(n, 1))
            // Intersection–union test: the region's POIs and all POIs inside the hull of its
            // matching POIs must both show the concentration; the larger p-value counts.
            let members = Significance.pValue(k: all[i].nKeyword, n: all[i].nPOIs, p: p, windows: n)
            let area = finder.testFootprint(all[i], match: table.matches[c])
            let footprint = Significance.pValue(k: area.k, n: area.n, p: p, windows: n)
            all[i].pValue = max(members, footprint)
        }
        let q = Significance.benjaminiHochberg(all.map { $0.pValue })
        for i in 0..<all.count { all[i].qValue = q[i] }
        let fdr = params.double("fdr")
        let candidates = all.count
        var kept = dbscan || fdr >= 1 ? all : all.filter { $0.qValue <= fdr }
        // Rank within keyword by score sum (ties: lowest member index), keywords in query order.
        kept.sort { a, b in
            if a.keyword != b.keyword { return a.keyword < b.keyword }
            if a.scoreSum != b.scoreSum { return a.scoreSum > b.scoreSum }
            return (a.members.first ?? 0) < (b.members.first ?? 0)
        }
        var rank = 0
        for i in 0..<kept.count {
            rank = (i > 0 && kept[i - 1].keyword == kept[i].keyword) ? rank + 1 : 1
            kept[i].rank = rank
        }
        var meta: [JSONValue] = []
        for (c, s) in summaries.enumerated() {
            let cands = all.filter { $0.keyword == c }.count
            let regs = kept.filter { $0.keyword == c }.count
            meta.append(.object([
                ("query", .string(table.keywords[c])),
                ("base_rate", .number(s.baseRate)),
                ("effective_kernel_pois", .number(s.effectiveKernelSize)),
                ("spread", .number(s.spread)),
                ("core_threshold", .number(s.coreThreshold)),
                ("extend_threshold", .number(s.extendThreshold)),
                ("components", .number(Double(s.components))),
                ("dropped_small", .number(Double(s.droppedSmall))),
                ("merged", .number(Double(s.merged))),
                ("merge_distance_m", .number(s.mergeDistance)),
                ("candidates", .number(Double(cands))),
                ("dropped_insignificant", .number(Double(cands - regs))),
                ("regions", .number(Double(regs))),
            ]))
        }
        return Output(table: RegionTable(regions: kept), keywordMeta: meta, candidates: candidates)
    }
}
