import Foundation
import RegionSearchCore
import RegionSearchGraph
import RegionSearchModel
import Synchronization

/// Region extraction over all keywords, significance and ranking (the testable core of the stage).
public enum RegionExtraction {
    public struct Output: Sendable {
        public var table: RegionTable
        public var keywordMeta: [JSONValue]
        public var candidates: Int
        /// The occupied area of the POI graph (``DensityRegionFinder``), m².
        public var occupiedArea: Double
    }

    /// Regions of every keyword of `table`. `scaleK` is the graph's local-spacing neighbour (its
    /// `scale_k`), which the occupied area needs.
    public static func run(
        points: ProjectedPoints, graph: AdjacencyGraph, table: ScoreTable, options: RegionOptions, scaleK: Int
    ) -> Output {
        // The ground each POI occupies: the occupied area, the ground windows and the ring tests
        // all read it.
        let owned = DensityRegionFinder.ownedGround(graph: graph, scaleK: scaleK)
        let occupied = DensityRegionFinder.occupiedArea(owned)
        precondition(
            !options.cutsNestedLevels || table.density.count == table.keywords.count,
            "nested levels are cut from the keyword densities: propagate them (PropagationOptions.densities)")
        precondition(
            !options.readsScores || table.hasScores,
            "the lift and DBSCAN measures read the scores: propagate them (PropagationOptions.scores)")
        let ground =
            options.method == .propagation && options.measure == .density && options.referenceWindow > 0
            ? GroundDensity(x: points.x, y: points.y, ground: owned, windowPOIs: options.referenceWindow).share
            : nil
        let hierarchy =
            options.cutsNestedLevels
            ? DensityHierarchy(
                x: points.x, y: points.y, graph: graph, scaleK: scaleK, graphOccupiedArea: occupied,
                groundShare: ground, ownedGround: owned) : nil
        // All POIs by place, for the street run-on (``StreetRunOn``): made once, shared by every
        // worker's path-search scratch space.
        let buckets =
            options.method == .propagation && options.measure == .density && options.density.streetRunOn > 0
            ? PointBuckets(x: points.x, y: points.y) : nil
        // Keywords are independent: one per worker at a time (each with its own path-search
        // scratch space), results kept in keyword order, so any thread count gives the same.
        let count = table.keywords.count
        func extract(_ discovery: DensityHierarchy.FalseDiscovery) -> [KeywordResult] {
            var perKeyword = [KeywordResult](repeating: ([], [], [], []), count: count)
            let next = Atomic<Int>(0)
            perKeyword.withUnsafeMutableBufferPointer { out in
                let out = out
                Parallel.forEach(max(1, min(Parallel.threadCount, count))) { _ in
                    var support = buckets.map { PathSupport(graph: graph, x: points.x, y: points.y, buckets: $0) }
                    while true {
                        let c = next.add(1, ordering: .relaxed).oldValue
                        if c >= count { break }
                        out[c] = Self.keyword(
                            c, points: points, graph: graph, table: table, options: options, occupied: occupied,
                            hierarchy: hierarchy, ground: ground, owned: owned, discovery: discovery,
                            support: &support)
                    }
                }
            }
            return perKeyword
        }
        let pooled = hierarchy != nil && options.fdrScope == .run
        // With the run's Benjamini–Hochberg ahead, the first pass only collects the level-0
        // p-values: every candidate judged insignificant (q = 1), so nothing is refined for nothing.
        let none: @Sendable ([Double]) -> [Double] = { [Double](repeating: 1, count: $0.count) }
        var perKeyword = extract(pooled ? DensityHierarchy.FalseDiscovery(levelZero: none, finer: none) : .perKeyword)
        if pooled {
            // The run's Benjamini–Hochberg needs every keyword's p-values before any keyword's
            // regions are kept, and the finer candidates depend on which level-0 regions are kept:
            // the keywords are extracted again with level 0 judged over the run, then once more
            // with the finer levels judged over the run's finer candidates below those.
            var discovery = DensityHierarchy.FalseDiscovery.perKeyword
            discovery.levelZero = Significance.pooledBenjaminiHochberg(perKeyword.flatMap(\.levelZeroPValues))
            if options.hierarchy.levelZero == .own {
                perKeyword = extract(discovery)
                discovery.finer = Significance.pooledBenjaminiHochberg(perKeyword.flatMap(\.finerPValues))
            }
            perKeyword = extract(discovery)
        }
        var all: [RegionTable.Region] = []
        var meta: [[(String, JSONValue)]] = []
        for (regions, info, _, _) in perKeyword {
            // Parents are indices within the keyword's list: make them indices into `all`.
            let offset = all.count
            all += regions.map { r in
                var r = r
                if r.parent >= 0 { r.parent += offset }
                return r
            }
            meta.append(info)
        }
        let hierarchical = hierarchy != nil
        // False discovery rate: Benjamini–Hochberg per keyword (or over the run); the density
        // hierarchy has applied it itself, level by level (``DensityHierarchy``, rule 4).
        if !hierarchical {
            switch options.fdrScope {
            case .run:
                let q = Significance.benjaminiHochberg(all.map { $0.pValue })
                for i in 0..<all.count { all[i].qValue = q[i] }
            case .keyword:
                for c in 0..<table.keywords.count {
                    let indices = all.indices.filter { all[$0].keyword == c }
                    let q = Significance.benjaminiHochberg(indices.map { all[$0].pValue })
                    for (i, v) in zip(indices, q) { all[i].qValue = v }
                }
            }
        }
        let candidates = hierarchical ? perKeywordCandidates(meta) : all.count
        let kept =
            options.method == .dbscan || options.fdr >= 1 || hierarchical
            ? all : all.filter { $0.qValue <= options.fdr }
        let ranked = Self.ranked(kept)
        var keywordMeta: [JSONValue] = []
        for (c, info) in meta.enumerated() {
            let cands =
                hierarchical
                ? Int(info.first { $0.0 == "candidates" }?.1.doubleValue ?? 0) : all.filter { $0.keyword == c }.count
            let regs = ranked.filter { $0.keyword == c }.count
            keywordMeta.append(
                .object(
                    info.filter { $0.0 != "candidates" } + [
                        ("candidates", .number(Double(cands))),
                        ("dropped_insignificant", .number(Double(cands - regs))),
                        ("regions", .number(Double(regs))),
                    ]))
        }
        return Output(
            table: RegionTable(regions: ranked), keywordMeta: keywordMeta, candidates: candidates,
            occupiedArea: occupied)
    }

    /// The candidates the density hierarchy counted per keyword, summed.
    private static func perKeywordCandidates(_ meta: [[(String, JSONValue)]]) -> Int {
        meta.reduce(0) { $0 + Int($1.first { $0.0 == "candidates" }?.1.doubleValue ?? 0) }
    }

    /// The regions in output order — keyword (query order), then level, then rank — with ranks
    /// within keyword and level (most keyword POIs first: the region with the most places to choose
    /// from; then the most significant; then the lowest member index) and parents renumbered to
    /// rows of the result (a parent's level is lower, so its row comes first). `regions[i].parent`
    /// indexes `regions`.
    static func ranked(_ regions: [RegionTable.Region]) -> [RegionTable.Region] {
        let order = regions.indices.sorted { i, j in
            let a = regions[i]
            let b = regions[j]
            if a.keyword != b.keyword { return a.keyword < b.keyword }
            if a.level != b.level { return a.level < b.level }
            if a.nKeyword != b.nKeyword { return a.nKeyword > b.nKeyword }
            if a.pValue != b.pValue { return a.pValue < b.pValue }
            if (a.members.first ?? 0) != (b.members.first ?? 0) {
                return (a.members.first ?? 0) < (b.members.first ?? 0)
            }
            return i < j
        }
        var row = [Int](repeating: -1, count: regions.count)
        for (r, i) in order.enumerated() { row[i] = r }
        var out = order.map { regions[$0] }
        var rank = 0
        for r in 0..<out.count {
            let sameGroup = r > 0 && out[r - 1].keyword == out[r].keyword && out[r - 1].level == out[r].level
            rank = sameGroup ? rank + 1 : 1
            out[r].rank = rank
            if out[r].parent >= 0 { out[r].parent = row[out[r].parent] }
        }
        return out
    }

    /// One keyword's regions, its facts for the artifact's metadata, and the density hierarchy's
    /// p-values that a run-wide Benjamini–Hochberg pools (``DensityHierarchy/KeywordSummary``).
    typealias KeywordResult = (
        regions: [RegionTable.Region], info: [(String, JSONValue)], levelZeroPValues: [Double], finerPValues: [Double]
    )

    /// One keyword's candidate regions and its facts for the artifact's metadata; `discovery` turns
    /// the density hierarchy's p-values into q-values. `support` is the caller's path-search scratch
    /// space, made on first use.
    static func keyword(
        _ c: Int, points: ProjectedPoints, graph: AdjacencyGraph, table: ScoreTable, options: RegionOptions,
        occupied: Double, hierarchy: DensityHierarchy?, ground: [Double]? = nil, owned: [Double]? = nil,
        discovery: DensityHierarchy.FalseDiscovery = .perKeyword, support: inout PathSupport?
    ) -> KeywordResult {
        let n = points.count
        let match = table.matches[c]
        let matches = match.reduce(0) { $0 + Int($1) }
        let p = n > 0 ? Double(matches) / Double(n) : 0
        var info: [(String, JSONValue)] = [
            ("query", .string(table.keywords[c])), ("keyword_pois", .number(Double(matches))),
            ("base_rate", .number(p)),
            ("typical_density_per_km2", .number(occupied > 0 ? Double(matches) / occupied * 1e6 : 0)),
        ]
        func withSupport<T>(_ body: (inout PathSupport) -> T) -> T {
            var paths = support ?? PathSupport(graph: graph, x: points.x, y: points.y)
            defer { support = paths }
            return body(&paths)
        }
        switch (options.method, options.measure) {
        case (.dbscan, _):
            let clusters = dbscan(keyword: c, points: points, graph: graph, table: table, options: options)
            info.append(("components", .number(Double(clusters.count))))
            return (clusters, info, [], [])
        case (.propagation, .density):
            guard let hierarchy else {
                // One level, from each keyword POI's own density.
                var finder = DensityRegionFinder(x: points.x, y: points.y, graph: graph, occupiedArea: occupied)
                finder.groundShare = ground
                finder.ownedGround = owned
                let (regions, s) = withSupport {
                    finder.candidates(
                        keyword: c, match: match, options: options.density, rules: options.keywordGraph,
                        support: &$0, density: table.density.isEmpty ? nil : table.density[c])
                }
                info += [
                    ("typical_spacing_m", .number(s.typicalSpacing)),
                    ("core_spacing_m", .number(s.coreSpacing)),
                    ("extend_spacing_m", .number(s.extendSpacing)),
                    ("dense_pois", .number(Double(s.densePOIs))),
                    ("components", .number(Double(s.components))),
                    ("dropped_small", .number(Double(s.droppedSmall))),
                ]
                return (regions, info, [], [])
            }
            let (regions, s) = withSupport {
                hierarchy.regions(
                    keyword: c, match: match, density: table.density[c], options: options.hierarchy, fdr: options.fdr,
                    discovery: discovery, rules: options.keywordGraph, support: &$0)
            }
            info[3] = ("typical_density_per_km2", .number(s.typicalDensityPerKm2))
            info += [
                ("own_reference_pois", .number(Double(s.ownReferencePOIs))),
                ("dense_pois", .number(Double(s.densePOIs))),
                ("candidates", .number(Double(s.candidates))),
                ("dropped_small", .number(Double(s.droppedSmall))),
                ("same_region", .number(Double(s.sameRegion))),
                ("levels", .number(Double((regions.map(\.level).max() ?? -1) + 1))),
            ]
            return (regions, info, s.levelZeroPValues, s.finerPValues)
        case (.propagation, .lift):
            let (regions, s) = withSupport {
                lift(
                    keyword: c, points: points, graph: graph, table: table, options: options, occupiedArea: occupied,
                    support: &$0)
            }
            info += [
                ("effective_kernel_pois", .number(s.effectiveKernelSize)),
                ("spread", .number(s.spread)),
                ("core_threshold", .number(s.coreThreshold)),
                ("extend_threshold", .number(s.extendThreshold)),
                ("components", .number(Double(s.components))),
                ("dropped_small", .number(Double(s.droppedSmall))),
                ("merged", .number(Double(s.merged))),
                ("merge_distance_m", .number(s.mergeDistance)),
            ]
            return (regions, info, [], [])
        }
    }

    /// The DBSCAN baseline: clusters of the keyword's POIs, with the statistics of their hulls.
    static func dbscan(
        keyword c: Int, points: ProjectedPoints, graph: AdjacencyGraph, table: ScoreTable, options: RegionOptions
    ) -> [RegionTable.Region] {
        let finder = RegionFinder(x: points.x, y: points.y, graph: graph)
        let match = table.matches[c]
        let n = points.count
        let p = n > 0 ? Double(match.reduce(0) { $0 + Int($1) }) / Double(n) : 0
        let kwPoints = (0..<n).filter { match[$0] != 0 }
        let clusters = DBSCAN.clusters(
            points: kwPoints, x: points.x, y: points.y, eps: options.dbscanEps, minSamples: options.dbscanMinSamples)
        return clusters.map { members in
            var r = RegionTable.Region(
                keyword: c, members: members,
                memberMatch: [UInt8](
                    repeating: RegionTable.Region.matchesFlag | RegionTable.Region.shapeFlag, count: members.count))
            finder.fillStatistics(&r, hull: finder.hull(of: r), scores: table.scores[c], match: match, baseRate: p)
            return r
        }
    }

    /// The `lift` measure: the keyword's POIs whose local share (propagated over the POI graph,
    /// ``RegionFinder/shares(scores:ones:probe:match:options:)``) is `z_extend` standard deviations
    /// above the base rate and which are also packed at least `lift_density_ratio` times as densely
    /// as typical, joined on the ``KeywordGraph``; a connected set with a POI `z_core` above, and at
    /// least `min_keyword_pois` of them, is a candidate, tested on the hull of its POIs: the count
    /// of keyword POIs among all POIs there is binomial under the base rate, and the tail is
    /// bounded over the places (the keyword's POIs) and shapes such a set could have.
    static func lift(
        keyword c: Int, points: ProjectedPoints, graph: AdjacencyGraph, table: ScoreTable, options: RegionOptions,
        occupiedArea: Double, support: inout PathSupport
    ) -> ([RegionTable.Region], RegionFinder.KeywordSummary) {
        let finder = RegionFinder(x: points.x, y: points.y, graph: graph)
        let match = table.matches[c]
        let n = points.count
        var (share, summary) = RegionFinder.shares(
            scores: table.scores[c], ones: table.ones, probe: table.probe, match: match, options: options.finder)
        let keywordPoints = (0..<n).filter { match[$0] != 0 }.map { UInt32($0) }
        guard keywordPoints.count >= max(2, options.finder.minKeywordPOIs) else { return ([], summary) }
        let kg = KeywordGraph(keywordPoints: keywordPoints, x: points.x, y: points.y, rules: options.keywordGraph)
        let ratio =
            occupiedArea > 0
            ? DensityRegionFinder.densityRatio(
                kg, lambda: Double(keywordPoints.count) / occupiedArea, smoothing: options.density.smoothing)
            : [Double](repeating: .infinity, count: kg.count)
        let pointShare = kg.geometry.subset.map { share[Int($0)] }
        share = []
        let eligible = (0..<kg.count).map {
            pointShare[$0] >= summary.extendThreshold && ratio[$0] >= options.liftDensityRatio
        }
        let edges = kg.acceptedEdges(eligible: eligible, support: &support)
        let p = summary.baseRate
        var regions: [RegionTable.Region] = []
        for component in KeywordGraph.components(count: kg.count, eligible: eligible, edges: edges) {
            guard component.contains(where: { pointShare[Int($0)] >= summary.coreThreshold }) else { continue }
            summary.components += 1
            guard component.count >= options.finder.minKeywordPOIs else {
                summary.droppedSmall += 1
                continue
            }
            var r = DensityRegionFinder.region(keyword: c, positions: component, geometry: kg.geometry, edges: edges)
            finder.fillStatistics(&r, hull: finder.hull(of: r), scores: table.scores[c], match: match, baseRate: p)
            r.spacing = DensityRegionFinder.spacing(component, kg)
            let area = finder.testFootprint(r, match: match)
            r.pValue = Significance.pValue(
                k: area.k, n: area.n, p: p, windows: keywordPoints.count, shapes: Significance.liftShapes)
            regions.append(r)
        }
        return (regions, summary)
    }
}
