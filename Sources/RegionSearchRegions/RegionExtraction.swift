import RegionSearchCore
import RegionSearchModel

/// Region extraction over all keywords, significance and ranking (the testable core of the stage).
public enum RegionExtraction {
    public struct Output: Sendable {
        public var table: RegionTable
        public var keywordMeta: [JSONValue]
        public var candidates: Int
    }

    public static func run(points: ProjectedPoints, graph: AdjacencyGraph, table: ScoreTable, options: RegionOptions)
        -> Output
    {
        let finder = RegionFinder(x: points.x, y: points.y, graph: graph)
        let dbscan = options.method == .dbscan
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
                    points: kwPoints, x: points.x, y: points.y, eps: options.dbscanEps,
                    minSamples: options.dbscanMinSamples)
                var summary = RegionFinder.KeywordSummary()
                summary.baseRate = p
                summary.components = clusters.count
                for members in clusters {
                    var r = RegionTable.Region(
                        keyword: c, members: members,
                        memberMatch: [UInt8](
                            repeating: RegionTable.Region.matchesFlag | RegionTable.Region.shapeFlag,
                            count: members.count))
                    finder.fillStatistics(
                        &r, hull: finder.hull(of: r), scores: table.scores[c], match: match, baseRate: p)
                    all.append(r)
                }
                summaries.append(summary)
            } else {
                let (regions, summary) = finder.candidates(
                    keyword: c, scores: table.scores[c], ones: table.ones, probe: table.probe, match: match,
                    options: options.finder)
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
        let fdr = options.fdr
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
            meta.append(
                .object([
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
