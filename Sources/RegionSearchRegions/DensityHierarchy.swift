import Foundation
import RegionSearchCore
import RegionSearchGraph
import RegionSearchModel

/// Regions of the `density` measure as a hierarchy of dense subgraphs: a city's dense core holds
/// its districts, a district its strips — darker where denser.
///
/// Level 0 comes from one of two signals (``Options/levelZero``):
/// - **`own`, the default**: each keyword POI's own density (its k keyword neighbours within its
///   k-th neighbour distance, smoothed over the keyword graph): exactly the one-level measure's
///   regions (``DensityRegionFinder``), with its significance and Benjamini–Hochberg. Judged
///   against the keyword's density over the whole data, scaled down where POIs of any kind stand
///   sparser (``GroundDensity``): a town's dining street is judged against its town, however dense
///   the metro is, and a downtown against the city.
/// - **`propagated`**: the keyword density the propagate stage spread over the POI graph
///   (``ScoreTable/density``), rules 1–2 below.
///
/// The finer levels are always cut from the propagated density (``ScoreTable/density``: keyword
/// POIs per km² of ground around each POI, a few graph hops wide), read at the keyword's own POIs:
/// 1. **Reference** (`propagated`). The keyword's density over the ground of the POI graph's
///    connected piece the POI lies in (its POIs over their area,
///    ``AdjacencyGraph/ownedArea(_:scaleK:)``): a town 60 km from a metro, which the graph does not
///    join to it, is measured against the town. A piece with fewer than
///    ``Options/ownReferencePOIs`` keyword POIs uses the whole data's.
/// 2. **Level 0** (`propagated`). Keyword POIs at least `extendRatio` times as dense as their
///    reference, joined on the ``KeywordGraph`` (short for the keyword, not across a river or
///    park), form connected sets; a set holding a POI `coreRatio` times as dense and at least
///    `minKeywordPOIs` POIs is a candidate (hysteresis: a dining street is kept to its quieter
///    ends, a dense corner does not grow into the suburbs).
/// 3. **Finer levels.** Inside a region of density ρ (its POIs over the ground they stand for,
///    Σ 1/density), its POIs at least `childExtendRatio` × ρ dense, joined the same way, with a POI
///    at `childCoreRatio` × ρ, form the candidates one level down, and so on: each level is a denser
///    band than the one holding it. A candidate holding more than `sameRegionShare` of its parent's
///    POIs is the same place, not a finer one: no level is added for it, and the search goes on
///    inside it.
/// 4. **Significance.** The keyword POIs inside the convex hull of a candidate's POIs are counted
///    against what that ground (every POI's area inside the hull) would hold at the density the
///    candidate is judged against — the reference at level 0; below it the larger of the parent's ρ
///    and the parent's own count over its hull's ground, so the middle of an evenly dense blob
///    (where the propagated density peaks, since it thins towards the empty ground around the
///    blob) is not a finer region: a Poisson tail, times the number of places such a set could be
///    centred on (the keyword POIs it was chosen among). The hull, not the candidate's own
///    densities, is the area: a chance clump chosen for its high densities would otherwise be
///    tested against the very values it was chosen for. Benjamini–Hochberg over all candidates of
///    the keyword, every level together (`own`: level 0 on its own, as the one-level measure, and
///    the finer levels together); a dropped candidate's children move up to its nearest kept
///    ancestor (`own`: only significant level-0 regions are refined). With `fdr_scope` "run" each
///    of these pools is every keyword's (``FalseDiscovery``, ``RegionExtraction``).
/// 5. **Streets** (`own` only, ``Options/streetHalfWidth`` > 0). Inside each significant level-0
///    region, straight runs of its keyword POIs in a narrow band significantly denser than the
///    bands beside it (``StreetBands``) are candidates one level below the deepest of its other
///    regions, with the level-0 region as their parent: a dining street runs through a downtown's
///    districts, so it is not inside any one of them, and at their level it would overlap them. A
///    region whose streets hold nine in ten of its POIs is those streets and gets none.
///    Their p-values join the finer levels' Benjamini–Hochberg.
///
/// Deterministic: sets in order of their smallest position (a trimmed set's pieces in its place),
/// children after their parents.
public struct DensityHierarchy: Sendable {
    public struct Options: Sendable, Equatable {
        /// Level 0: its core and extension ratios, and, when level 0 is cut from the POIs' own
        /// densities, the rest of the one-level measure's rules (smoothing, trimming, off-street
        /// members, the ring test); its `minKeywordPOIs` is every level's minimum size.
        var coarsest: DensityRegionFinder.Options
        var childCoreRatio: Double
        var childExtendRatio: Double
        var maxLevels: Int
        var sameRegionShare: Double
        /// A connected piece of the POI graph with at least this many keyword POIs is its own
        /// reference (``DensityHierarchy``, rule 1).
        var ownReferencePOIs: Int
        /// > 0: fixed bands, each level's floor this many times the one above; 0: each level
        /// relative to the density of the region holding it.
        var levelRatio: Double = 0
        /// Below level 0, a POI joins a region only when its own keyword density (k neighbours within
        /// its k-th neighbour distance) is at least this share of the region's floor: a POI that is
        /// dense only because a cluster lies a few hops away is not part of it.
        var ownDensityShare: Double = 0
        /// What level 0 is cut from (``LevelZero``).
        var levelZero: LevelZero = .own
        /// Streets inside the level-0 regions (rule 5, ``StreetBands``): the half-width of their
        /// narrowest band in metres; 0: none.
        var streetHalfWidth: Double = 50
        /// How many band widths the street search tries, each √2 times the one before
        /// (``StreetBands/widths``).
        var streetWidths: Int = 3

        public init(
            coarsest: DensityRegionFinder.Options = .init(), childCoreRatio: Double = 3,
            childExtendRatio: Double = 1, maxLevels: Int = 4, sameRegionShare: Double = 0.7,
            ownReferencePOIs: Int = 32, levelRatio: Double = 0, ownDensityShare: Double = 1,
            levelZero: LevelZero = .own,
            streetHalfWidth: Double = 50, streetWidths: Int = 3
        ) {
            self.coarsest = coarsest
            self.streetHalfWidth = streetHalfWidth
            self.streetWidths = streetWidths
            self.levelZero = levelZero
            self.levelRatio = levelRatio
            self.ownDensityShare = ownDensityShare
            self.childCoreRatio = childCoreRatio
            self.childExtendRatio = childExtendRatio
            self.maxLevels = maxLevels
            self.sameRegionShare = sameRegionShare
            self.ownReferencePOIs = ownReferencePOIs
        }
    }

    /// The signal level 0 is cut from.
    public enum LevelZero: String, Sendable, CaseIterable {
        /// Each keyword POI's own density (its k keyword neighbours within its k-th neighbour
        /// distance), smoothed over the keyword graph: where the keyword's POIs stand close together.
        case own
        /// The keyword density the propagate stage spread over the POI graph.
        case propagated
    }

    /// How a keyword's candidates' p-values become q-values (Benjamini–Hochberg): over the keyword's
    /// own candidates (`perKeyword`, `regions.fdr_scope` "keyword"), or looked up in the
    /// Benjamini–Hochberg of every keyword's candidates of the run ("run", ``RegionExtraction``).
    struct FalseDiscovery: Sendable {
        /// For the level-0 candidates (level 0 `own`), or for every candidate (`propagated`, whose
        /// levels are tested together).
        var levelZero: @Sendable ([Double]) -> [Double]
        /// For the finer candidates below the significant level-0 regions (level 0 `own`).
        var finer: @Sendable ([Double]) -> [Double]

        static let perKeyword = FalseDiscovery(
            levelZero: Significance.benjaminiHochberg, finer: Significance.benjaminiHochberg)
    }

    /// What happened for one keyword (recorded in the artifact metadata).
    struct KeywordSummary: Sendable {
        /// The p-values ``FalseDiscovery/levelZero`` and ``FalseDiscovery/finer`` were given, in
        /// candidate order: what a run-wide Benjamini–Hochberg pools.
        var levelZeroPValues: [Double] = []
        var finerPValues: [Double] = []
        var keywordPOIs = 0
        /// The whole data's keyword density, POIs per km² of occupied ground.
        var typicalDensityPerKm2 = 0.0
        /// Keyword POIs whose reference is their own piece of the graph (rule 1).
        var ownReferencePOIs = 0
        var densePOIs = 0
        var candidates = 0
        var droppedSmall = 0
        var sameRegion = 0
        var supportSearches = 0
    }

    let x: Column<Double>
    let y: Column<Double>
    let graph: AdjacencyGraph
    let scaleK: Int
    /// The ground each POI occupies (m²) and the connected piece of the graph it lies in.
    let ownedArea: [Double]
    let piece: [Int32]
    let pieceArea: [Double]
    /// The occupied area the one-level measure judges own densities against
    /// (``DensityRegionFinder/occupiedArea(_:)``), m².
    let graphOccupiedArea: Double
    /// Level 0 from own densities: the share of the data's POI density each POI's ground has
    /// (``GroundDensity``), or nil (the keyword's λ everywhere).
    let groundShare: [Double]?
    /// The ground each POI occupies by the one-level measure's rule
    /// (``DensityRegionFinder/ownedGround(graph:scaleK:)``), for its ring test.
    let ownedGround: [Double]

    /// Prepares the keyword-independent parts: every POI's ground and the graph's pieces.
    /// `graphOccupiedArea` is ``DensityRegionFinder/occupiedArea(_:)`` and `ownedGround`
    /// ``DensityRegionFinder/ownedGround(graph:scaleK:)``, which the caller has (computed when nil).
    public init(
        x: Column<Double>, y: Column<Double>, graph: AdjacencyGraph, scaleK: Int, graphOccupiedArea: Double,
        groundShare: [Double]? = nil, ownedGround: [Double]? = nil
    ) {
        self.groundShare = groundShare
        self.ownedGround = ownedGround ?? DensityRegionFinder.ownedGround(graph: graph, scaleK: scaleK)
        self.x = x
        self.y = y
        self.graph = graph
        self.scaleK = scaleK
        let n = graph.nodeCount
        ownedArea = (0..<n).map { graph.ownedArea($0, scaleK: scaleK) }
        piece = Self.pieces(graph)
        var area = [Double](repeating: 0, count: (piece.max().map { Int($0) } ?? -1) + 1)
        for i in 0..<n { area[Int(piece[i])] += ownedArea[i] }
        pieceArea = area
        self.graphOccupiedArea = graphOccupiedArea
    }

    /// The occupied ground of the whole data, m².
    var occupiedArea: Double { pieceArea.reduce(0, +) }

    /// Connected pieces of the graph (union–find over its edges), numbered by their smallest node.
    static func pieces(_ graph: AdjacencyGraph) -> [Int32] {
        let n = graph.nodeCount
        var sets = UnionFind(count: n)
        for i in 0..<n {
            for e in graph.range(i) { sets.union(Int32(i), Int32(graph.neighbors[e])) }
        }
        var number = [Int32](repeating: -1, count: n)
        var out = [Int32](repeating: 0, count: n)
        var next: Int32 = 0
        for i in 0..<n {
            let r = Int(sets.find(Int32(i)))
            if number[r] < 0 {
                number[r] = next
                next += 1
            }
            out[i] = number[r]
        }
        return out
    }

    /// A candidate before the false discovery rate: its positions in the keyword graph, level,
    /// parent candidate, the density it was judged against and its p-value.
    struct Candidate {
        var positions: [Int32]
        var level: Int
        var parent: Int
        var bandFloor: Double
        var density: Double
        var pValue: Double
        /// Level 0 cut from own densities: the one-level measure's region, as it wrote it.
        var region: RegionTable.Region? = nil
        /// A street (``StreetBands``) found in its level-0 parent: drawn one level below the
        /// deepest kept region under that parent.
        var street = false
    }

    /// The regions of keyword `keyword` (with p-values and q-values, levels and parents as indices
    /// into the returned list, which holds parents before their children).
    func regions(
        keyword: Int, match: Column<UInt8>, density: Column<Float>, options: Options, fdr: Double,
        discovery: FalseDiscovery = .perKeyword, rules: KeywordGraph.Rules, support: inout PathSupport
    ) -> (regions: [RegionTable.Region], summary: KeywordSummary) {
        let searchesBefore = support.searches
        var summary = KeywordSummary()
        let points = (0..<match.count).filter { match[$0] != 0 }.map { UInt32($0) }
        summary.keywordPOIs = points.count
        let occupied = occupiedArea
        guard points.count >= max(2, options.coarsest.minKeywordPOIs), occupied > 0 else { return ([], summary) }
        let typical = Double(points.count) / occupied * 1e6
        summary.typicalDensityPerKm2 = typical
        let kg = KeywordGraph(keywordPoints: points, x: x, y: y, rules: rules)
        let f = points.map { Double(density[Int($0)]) }
        // A POI's own density: its keyword neighbours within its k-th neighbour distance.
        let k = Double(rules.neighbours)
        let own = kg.spacing.map { s in s.isFinite && s > 0 ? k / (Double.pi * s * s) * 1e6 : 0 }
        if options.levelZero == .own {
            return ownRegions(
                keyword: keyword, kg: kg, f: f, own: own, match: match, options: options, fdr: fdr,
                discovery: discovery, summary: summary, support: &support)
        }
        // Rule 1: the reference of each keyword POI.
        var pieceCount = [Int](repeating: 0, count: pieceArea.count)
        for p in points { pieceCount[Int(piece[Int(p)])] += 1 }
        let reference = points.map { p -> Double in
            let k = Int(piece[Int(p)])
            return pieceCount[k] >= options.ownReferencePOIs && pieceArea[k] > 0
                ? Double(pieceCount[k]) / pieceArea[k] * 1e6 : typical
        }
        summary.ownReferencePOIs =
            points.indices.filter {
                let k = Int(piece[Int(points[$0])])
                return pieceCount[k] >= options.ownReferencePOIs && pieceArea[k] > 0
            }.count
        let dense = (0..<kg.count).map { f[$0] >= options.coarsest.extendRatio * reference[$0] && f[$0] > 0 }
        summary.densePOIs = dense.reduce(0) { $0 + ($1 ? 1 : 0) }
        let edges = kg.acceptedEdges(eligible: dense, support: &support)
        summary.supportSearches = support.searches - searchesBefore

        var candidates: [Candidate] = []
        // Level 0.
        for set in KeywordGraph.components(count: kg.count, eligible: dense, edges: edges) {
            guard set.contains(where: { f[Int($0)] >= options.coarsest.coreRatio * reference[Int($0)] }) else {
                continue
            }
            guard set.count >= options.coarsest.minKeywordPOIs else {
                summary.droppedSmall += 1
                continue
            }
            let floor = options.coarsest.extendRatio * set.map { reference[Int($0)] }.max()!
            let ground = footprint(set, kg: kg, match: match)
            let base = set.map { reference[Int($0)] }.max()!
            candidates.append(
                Candidate(
                    positions: set, level: 0, parent: -1, bandFloor: floor, density: Self.density(set, f),
                    pValue: Significance.densityPValue(
                        k: ground.keyword, expected: base * ground.area / 1e6, windows: points.count)))
            refine(
                candidates.count - 1, positions: set, level: 1, judge: judge(floor: floor, set, f, options),
                f: f, own: own, edges: edges, kg: kg, match: match, candidates: &candidates, summary: &summary,
                options: options)
        }
        summary.candidates = candidates.count

        // False discovery rate over every candidate of the keyword (or of the run); the kept ones
        // re-linked.
        summary.levelZeroPValues = candidates.map(\.pValue)
        let q = discovery.levelZero(summary.levelZeroPValues)
        let regions = Self.kept(
            candidates, q: q, fdr: fdr, keyword: keyword, f: f, kg: kg, edges: edges, maxLevels: options.maxLevels)
        return (regions, summary)
    }

    /// Level 0 from each keyword POI's own density (``LevelZero/own``): exactly the one-level
    /// measure's regions (``DensityRegionFinder``: the same sets, statistics, p-values and
    /// Benjamini–Hochberg over the keyword's level-0 candidates, or over the run's as the one-level
    /// measure pools them with `fdr_scope` "run"), and below each significant one the finer levels
    /// cut from the propagated density `f` (rule 3), with their own Benjamini–Hochberg over all
    /// finer candidates of the keyword (or of the run: `discovery`). A finer region lies inside a
    /// significant region: nothing is found below ground that is not dense at all.
    private func ownRegions(
        keyword: Int, kg: KeywordGraph, f: [Double], own: [Double], match: Column<UInt8>, options: Options,
        fdr: Double, discovery: FalseDiscovery, summary: KeywordSummary, support: inout PathSupport
    ) -> (regions: [RegionTable.Region], summary: KeywordSummary) {
        var summary = summary
        var finder = DensityRegionFinder(x: x, y: y, graph: graph, occupiedArea: graphOccupiedArea)
        finder.groundShare = groundShare
        finder.ownedGround = ownedGround
        let zero = finder.candidateSets(
            keyword: keyword, kg: kg,
            options: options.coarsest,
            support: &support, propagated: f)
        summary.typicalDensityPerKm2 = zero.summary.typicalDensityPerKm2
        summary.densePOIs = zero.summary.densePOIs
        summary.droppedSmall = zero.summary.droppedSmall
        summary.supportSearches = zero.summary.supportSearches
        summary.levelZeroPValues = zero.regions.map(\.region.pValue)
        let qZero = discovery.levelZero(summary.levelZeroPValues)
        let floor = options.coarsest.extendRatio * zero.summary.typicalDensityPerKm2
        var candidates: [Candidate] = []
        var q: [Double] = []
        // The keyword's POIs in order of x, for the streets' search around each region (made when
        // the first region needs it).
        var byX: [(x: Double, position: Int32)]?
        for (i, set) in zero.regions.enumerated() where fdr >= 1 || qZero[i] <= fdr {
            candidates.append(
                Candidate(
                    positions: set.positions, level: 0, parent: -1, bandFloor: floor, density: set.region.density,
                    pValue: set.region.pValue, region: set.region))
            q.append(qZero[i])
            let finerFrom = candidates.count
            refine(
                candidates.count - 1, positions: set.positions, level: 1,
                judge: judge(floor: floor, set.positions, f, options), f: f, own: own, edges: zero.edges, kg: kg,
                match: match, candidates: &candidates, summary: &summary, options: options)
            if options.streetHalfWidth > 0 && set.positions.count >= StreetBands.minimumPOIs && byX == nil {
                byX = (0..<kg.count).map { (kg.geometry.point($0).x, Int32($0)) }.sorted { $0 < $1 }
            }
            candidates += streets(
                in: set.positions, parent: finerFrom - 1, bandFloor: floor, f: f, kg: kg, byX: byX ?? [],
                options: options)
            q += [Double](repeating: .nan, count: candidates.count - finerFrom)
        }
        let finer = candidates.indices.filter { candidates[$0].level > 0 }
        summary.candidates = zero.regions.count + finer.count
        summary.finerPValues = finer.map { candidates[$0].pValue }
        for (i, v) in zip(finer, discovery.finer(summary.finerPValues)) { q[i] = v }
        let regions = Self.kept(
            candidates, q: q, fdr: fdr, keyword: keyword, f: f, kg: kg, edges: zero.edges, maxLevels: options.maxLevels)
        return (regions, summary)
    }

    /// The candidates whose q-value passes `fdr` as regions, each linked to its nearest kept
    /// ancestor (a dropped candidate's children move up to it), parents before children; a street
    /// (rule 5) one level below the deepest kept region under its level-0 region (its candidates
    /// come after that region's others), and left out where that level would be `maxLevels` or deeper.
    private static func kept(
        _ candidates: [Candidate], q: [Double], fdr: Double, keyword: Int, f: [Double], kg: KeywordGraph,
        edges: [(a: Int32, b: Int32)], maxLevels: Int
    ) -> [RegionTable.Region] {
        var kept = [Int](repeating: -1, count: candidates.count)
        var regions: [RegionTable.Region] = []
        // The deepest level under each kept level-0 region (by its index in `regions`).
        var rootOf: [Int] = []
        var deepest: [Int: Int] = [:]
        for (i, c) in candidates.enumerated() where fdr >= 1 || q[i] <= fdr {
            var parent = c.parent
            while parent >= 0 && kept[parent] < 0 { parent = candidates[parent].parent }
            if var r = c.region {
                r.bandFloor = c.bandFloor
                r.qValue = q[i]
                kept[i] = regions.count
                rootOf.append(regions.count)
                deepest[regions.count] = 0
                regions.append(r)
                continue
            }
            let root = parent >= 0 ? rootOf[kept[parent]] : regions.count
            var level = parent >= 0 ? regions[kept[parent]].level + 1 : 0
            if c.street, parent >= 0 { level = max(level, (deepest[root] ?? 0) + 1) }
            if c.street && level >= maxLevels { continue }
            var r = DensityRegionFinder.region(
                keyword: keyword, positions: c.positions, geometry: kg.geometry, edges: edges)
            r.parent = parent >= 0 ? kept[parent] : -1
            r.level = level
            rootOf.append(root)
            if !c.street { deepest[root] = max(deepest[root] ?? 0, r.level) }
            r.bandFloor = c.bandFloor
            var sum = 0.0
            var maximum = 0.0
            for p in c.positions {
                sum += f[Int(p)]
                maximum = max(maximum, f[Int(p)])
            }
            r.scoreSum = sum
            r.scoreMean = sum / Double(c.positions.count)
            r.scoreMax = maximum
            r.spacing = DensityRegionFinder.spacing(c.positions, kg)
            r.density = c.density
            r.areaM2 = c.density > 0 ? Double(c.positions.count) / c.density * 1e6 : 0
            r.nFootprint = c.positions.count
            r.nFootprintKeyword = c.positions.count
            r.share = 1
            r.lift = 1
            r.pValue = c.pValue
            r.qValue = q[i]
            kept[i] = regions.count
            regions.append(r)
        }
        return regions
    }

    /// Rule 3: the candidates one level below candidate `index` (whose keyword-graph positions are
    /// `positions`), recursively, over the accepted `edges` among those positions.
    /// The density the level below a region (keyword-graph positions `positions`, band floor
    /// `floor`) is judged against: the region's own (relative bands), or its band's floor times
    /// the fixed ratio between levels, over `childExtendRatio` (fixed bands).
    private func judge(floor: Double, _ positions: [Int32], _ f: [Double], _ options: Options) -> Double {
        options.levelRatio > 0 ? floor * options.levelRatio / options.childExtendRatio : Self.density(positions, f)
    }

    private func refine(
        _ index: Int, positions: [Int32], level: Int, judge rho: Double, f: [Double], own: [Double],
        edges: [(a: Int32, b: Int32)],
        kg: KeywordGraph, match: Column<UInt8>, candidates: inout [Candidate], summary: inout KeywordSummary,
        options: Options
    ) {
        guard level < options.maxLevels else { return }
        let floor = options.childExtendRatio * rho
        var eligible = [Bool](repeating: false, count: f.count)
        for p in positions where f[Int(p)] >= floor && own[Int(p)] >= options.ownDensityShare * floor {
            eligible[Int(p)] = true
        }
        let local = edges.filter { eligible[Int($0.a)] && eligible[Int($0.b)] }
        let parentCount = candidates[index].positions.count
        // The density a finer candidate is tested against: at least the parent's on the ground (its
        // keyword POIs over the ground inside its hull), measured as the candidate's own count is.
        // The propagated density thins towards a region's edges (the spreading reaches the empty
        // ground around it), so against it alone the middle of an evenly dense blob would pass as
        // a finer, denser region.
        // Measured once, when the first candidate needs it (a walk over the parent's ground).
        var nullDensity: Double?
        func null() -> Double {
            if let nullDensity { return nullDensity }
            let ground = footprint(candidates[index].positions, kg: kg, match: match)
            let value = ground.area > 0 ? max(rho, Double(ground.keyword) / ground.area * 1e6) : rho
            nullDensity = value
            return value
        }
        for set in KeywordGraph.components(count: f.count, eligible: eligible, edges: local) {
            guard set.contains(where: { f[Int($0)] >= options.childCoreRatio * rho }) else { continue }
            guard set.count >= options.coarsest.minKeywordPOIs else {
                summary.droppedSmall += 1
                continue
            }
            if Double(set.count) > options.sameRegionShare * Double(parentCount) {
                // The same place, a little tighter: look further inside it, one band denser,
                // without a new level.
                summary.sameRegion += 1
                let next = options.levelRatio > 0 ? rho * options.levelRatio : Self.density(set, f)
                if next > rho {
                    refine(
                        index, positions: set, level: level, judge: next, f: f, own: own, edges: local, kg: kg,
                        match: match,
                        candidates: &candidates, summary: &summary, options: options)
                }
                continue
            }
            let ground = footprint(set, kg: kg, match: match)
            let expected = null() * ground.area / 1e6
            candidates.append(
                Candidate(
                    positions: set, level: level, parent: index, bandFloor: floor, density: Self.density(set, f),
                    pValue: Significance.densityPValue(k: ground.keyword, expected: expected, windows: positions.count))
            )
            refine(
                candidates.count - 1, positions: set, level: level + 1, judge: judge(floor: floor, set, f, options),
                f: f, own: own, edges: local, kg: kg, match: match, candidates: &candidates, summary: &summary,
                options: options)
        }
    }

    /// The share of a level-0 region's POIs its streets hold when the region is those streets:
    /// nine in ten, the share the hulls stage draws a region as its street band at
    /// (`RegionPolygonBuilder.streetBandShare`). Below it the region is drawn as an area, and
    /// its streets are a finer level inside it: a dining street with restaurants grouped off it,
    /// joined to it by the keyword graph and not parted from it at level 0
    /// (`DensityRegionFinder.streetParts`), is one level-0 region drawn round both; at the
    /// hierarchy's `sameRegionShare` (0.7) the street held more than that and was not drawn at
    /// all (the strips cases, EXPERIMENTS.md).
    static let streetRegionShare = 0.9

    /// Rule 5: the streets (``StreetBands``) among the keyword POIs at `positions`, a level-0
    /// region (candidate `parent`), as candidates one level below the deepest of its other
    /// regions. The keyword's POIs around the region (found in `byX`, every keyword-graph position
    /// in order of x) count beside a band. A region whose streets hold at least
    /// ``streetRegionShare`` of its POIs is those streets itself (a dining street alone in the
    /// suburbs, drawn whole as a street at level 0), and gets none.
    private func streets(
        in positions: [Int32], parent: Int, bandFloor: Double, f: [Double], kg: KeywordGraph,
        byX: [(x: Double, position: Int32)], options: Options
    ) -> [Candidate] {
        let width = options.streetHalfWidth
        guard width > 0, positions.count >= StreetBands.minimumPOIs else { return [] }
        var (x0, y0, x1, y1) = (Double.infinity, Double.infinity, -Double.infinity, -Double.infinity)
        for p in positions {
            let (px, py) = kg.geometry.point(Int(p))
            (x0, y0, x1, y1) = (min(x0, px), min(y0, py), max(x1, px), max(y1, py))
        }
        // The keyword's POIs within a band and its flanks of the region (positions in order): those
        // in its x range by binary search, then its y range.
        let pad = 5 * width
        var (lo, hi) = (0, byX.count)
        while lo < hi {
            let mid = (lo + hi) / 2
            if byX[mid].x < x0 - pad { lo = mid + 1 } else { hi = mid }
        }
        var local: [Int32] = []
        while lo < byX.count && byX[lo].x <= x1 + pad {
            let py = kg.geometry.point(Int(byX[lo].position)).y
            if py >= y0 - pad && py <= y1 + pad { local.append(byX[lo].position) }
            lo += 1
        }
        local.sort()
        let points = local.map { kg.geometry.point(Int($0)) }
        let search = StreetBands(
            halfWidth: width, gap: StreetBands.gapSpacings * DensityRegionFinder.spacing(positions, kg),
            aspect: options.coarsest.streetAspect, widths: options.streetWidths)
        // Looked up, never iterated: the set's order does not matter. (A flag per keyword POI
        // would cost the whole keyword per region, as the scan `byX` replaced did.)
        let inRegion = Set(positions)
        let (px, py) = (points.map(\.x), points.map(\.y))
        let found = search.joinedRoundCorners(
            search.streets(x: px, y: py, member: local.map { inRegion.contains($0) }), x: px, y: py)
        let held = found.reduce(0) { $0 + $1.members.count }
        guard Double(held) < Self.streetRegionShare * Double(positions.count) else { return [] }
        return found.map { street in
            let members = street.members.map { local[$0] }.sorted()
            return Candidate(
                positions: members, level: 1, parent: parent, bandFloor: bandFloor, density: Self.density(members, f),
                pValue: street.pValue, street: true)
        }
    }

    /// The keyword POIs and the ground (m²) inside the convex hull of the keyword-graph positions
    /// `set`: every POI a walk over the POI graph from the set reaches without leaving the hull.
    func footprint(_ set: [Int32], kg: KeywordGraph, match: Column<UInt8>) -> (keyword: Int, area: Double) {
        let seeds = set.map { kg.geometry.subset[Int($0)] }
        let hull = ConvexHull2D(x: seeds.map { x[Int($0)] }, y: seeds.map { y[Int($0)] })
        // Visited nodes in a sorted-free bit set over the graph (a district's hull holds hundreds of
        // thousands of POIs at 1M: a hash set cost most of the stage).
        var visited = [UInt64](repeating: 0, count: (graph.nodeCount + 63) / 64)
        func visit(_ v: UInt32) -> Bool {
            let (w, b) = (Int(v) >> 6, UInt64(1) << (UInt64(v) & 63))
            if visited[w] & b != 0 { return false }
            visited[w] |= b
            return true
        }
        var stack: [UInt32] = []
        for v in seeds where visit(v) { stack.append(v) }
        var keyword = 0
        var area = 0.0
        while let v = stack.popLast() {
            keyword += Int(match[Int(v)])
            area += ownedArea[Int(v)]
            for e in graph.range(Int(v)) {
                let w = graph.neighbors[e]
                if hull.contains(x[Int(w)], y[Int(w)]) && visit(w) { stack.append(w) }
            }
        }
        return (keyword, area)
    }

    /// A set's density: its POIs over the ground they stand for (Σ 1 / density), per km².
    static func density(_ positions: [Int32], _ f: [Double]) -> Double {
        var ground = 0.0
        for p in positions where f[Int(p)] > 0 { ground += 1 / f[Int(p)] }
        return ground > 0 ? Double(positions.count) / ground : 0
    }
}
