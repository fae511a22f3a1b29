import Foundation
import RegionSearchCore
import RegionSearchModel

/// Finds candidate dense regions of one keyword from its propagation scores.
///
/// 1. **Share.** `share_i = F_i / F1_i`, where F1 is propagation of Y = 1: the keyword's
///    kernel-weighted share among the POIs around i. It is comparable across dense and sparse
///    parts of a city and across keywords, and equals the base rate p on average where the
///    keyword is spread evenly.
/// 2. **Base-rate-relative cut with hysteresis.** Where the keyword is spread evenly, a share
///    fluctuates around the base rate p with standard deviation `s = √(p(1−p)/n_eff)`, n_eff being
///    the kernel's effective number of POIs (measured on this graph by ``NoiseProbe``). A POI is
///    *core* when its share is at least `p + z_core·s` and *extended* when at least `p + z_extend·s`.
///    A candidate region is a connected set of extended POIs (in the pruned graph) that holds at
///    least one core POI — so a hot spot is kept whole down to its fringe instead of breaking into
///    pieces at one cut. The same z means the same surprise for a 0.5 % and a 50 % keyword.
/// 3. **Size in keyword terms.** A region needs at least `min_keyword_pois` matching POIs.
/// 4. **Whole hot spots.** Regions of the same keyword whose matching-POI hulls come within
///    `merge_distance_m` of each other (or overlap) are merged, repeatedly.
/// 5. **Honest shape.** Not every matching POI of a region belongs to the hot spot: the smoothing
///    of propagation extends a region a few POIs beyond the cluster, and the keyword's background
///    POIs in that fringe would stretch its hull. A matching member is a *shape* POI when the POIs
///    within two graph hops of it (itself excluded) match at a share of at least
///    `p + 2·√(p(1−p)/m)` for m such POIs — its own neighbourhood is keyword-dense, not just near
///    one. The polygon is built from shape POIs (all matching members if none qualifies).
/// 6. **Footprint counts.** The footprint is the convex hull of the shape POIs; n and k count all
///    and matching POIs inside it (reported as `n_footprint` and `share`).
public struct RegionFinder {
    public struct Options: Sendable, Equatable {
        var zCore: Double
        var zExtend: Double
        var minKeywordPOIs: Int
        /// Metres; nil = automatic (twice the median local spacing of the regions' members).
        var mergeDistance: Double?
        public init(zCore: Double = 2.5, zExtend: Double = 1.5, minKeywordPOIs: Int = 5, mergeDistance: Double? = nil) {
            self.zCore = zCore
            self.zExtend = zExtend
            self.minKeywordPOIs = minKeywordPOIs
            self.mergeDistance = mergeDistance
        }
    }

    /// What happened for one keyword (recorded in the artifact metadata).
    public struct KeywordSummary: Sendable {
        var baseRate: Double = 0
        var effectiveKernelSize: Double = 0
        public var spread: Double = 0
        var coreThreshold: Double = 0
        var extendThreshold: Double = 0
        var components: Int = 0
        var droppedSmall: Int = 0
        public var merged: Int = 0
        var mergeDistance: Double = 0
        public init() {}
    }

    public let x: Column<Double>
    public let y: Column<Double>
    public let graph: AdjacencyGraph

    public init(x: Column<Double>, y: Column<Double>, graph: AdjacencyGraph) {
        self.x = x
        self.y = y
        self.graph = graph
    }

    /// Every POI's local keyword share (F / F1) and the base-rate-relative thresholds (steps 1–2).
    public static func shares(
        scores: Column<Double>, ones: Column<Double>, probe: Column<Double>, match: Column<UInt8>, options: Options
    ) -> (share: [Double], summary: KeywordSummary) {
        let n = scores.count
        var summary = KeywordSummary()
        let matches = match.reduce(0) { $0 + Int($1) }
        guard n > 0, matches > 0 else { return ([Double](repeating: 0, count: n), summary) }
        let p = Double(matches) / Double(n)
        summary.baseRate = p
        var share = [Double](repeating: 0, count: n)
        for i in 0..<n { share[i] = ones[i] > 0 ? scores[i] / ones[i] : 0 }
        let meanSquare = NoiseProbe.meanSquaredWeight(probe: probe, ones: ones)
        let spread = (p * (1 - p) * meanSquare).squareRoot()
        summary.effectiveKernelSize = 1 / meanSquare
        summary.spread = spread
        summary.coreThreshold = p + options.zCore * spread
        summary.extendThreshold = p + options.zExtend * spread
        return (share, summary)
    }

    /// Candidate regions of keyword `keyword` (not yet tested for significance).
    public func candidates(
        keyword: Int, scores: Column<Double>, ones: Column<Double>, probe: Column<Double>, match: Column<UInt8>,
        options: Options
    )
        -> (regions: [RegionTable.Region], summary: KeywordSummary)
    {
        let n = scores.count
        var summary = KeywordSummary()
        let matches = match.reduce(0) { $0 + Int($1) }
        guard n > 0, matches > 0 else { return ([], summary) }
        let p = Double(matches) / Double(n)
        summary.baseRate = p
        var share = [Double](repeating: 0, count: n)
        for i in 0..<n { share[i] = ones[i] > 0 ? scores[i] / ones[i] : 0 }
        let meanSquare = NoiseProbe.meanSquaredWeight(probe: probe, ones: ones)
        let spread = (p * (1 - p) * meanSquare).squareRoot()
        let core = p + options.zCore * spread
        let extend = p + options.zExtend * spread
        summary.effectiveKernelSize = 1 / meanSquare
        summary.spread = spread
        summary.coreThreshold = core
        summary.extendThreshold = extend

        // Connected components of extended POIs (BFS in index order: deterministic labels).
        var label = [Int32](repeating: -1, count: n)
        var components: [[UInt32]] = []
        var queue: [Int] = []
        graph.offsets.withUnsafeBufferPointer { off in
            graph.neighbors.withUnsafeBufferPointer { nb in
                for s in 0..<n where share[s] >= extend && label[s] < 0 {
                    let id = Int32(components.count)
                    label[s] = id
                    queue.removeAll(keepingCapacity: true)
                    queue.append(s)
                    var head = 0
                    var hasCore = false
                    while head < queue.count {
                        let i = queue[head]
                        head += 1
                        if share[i] >= core { hasCore = true }
                        for e in Int(off[i])..<Int(off[i + 1]) {
                            let j = Int(nb[e])
                            if label[j] < 0 && share[j] >= extend {
                                label[j] = id
                                queue.append(j)
                            }
                        }
                    }
                    components.append(hasCore ? queue.map { UInt32($0) }.sorted() : [])
                }
            }
        }
        var regions: [RegionTable.Region] = []
        for comp in components where !comp.isEmpty {
            summary.components += 1
            let m = comp.map { v -> UInt8 in
                guard match[Int(v)] != 0 else { return 0 }
                return RegionTable.Region.matchesFlag
                    | (isShapePOI(Int(v), match: match, baseRate: p) ? RegionTable.Region.shapeFlag : 0)
            }
            let k = m.reduce(0) { $0 + Int($1 & RegionTable.Region.matchesFlag) }
            if k < options.minKeywordPOIs {
                summary.droppedSmall += 1
                continue
            }
            regions.append(RegionTable.Region(keyword: keyword, members: comp, memberMatch: m))
        }

        // Merge regions that touch or come close (whole hot spots, not fragments).
        var spacing: [Double] = []
        for r in regions { for v in r.members { spacing.append(Double(graph.scale[Int(v)])) } }
        let mergeDistance = options.mergeDistance ?? 2 * Selection.median(spacing)
        summary.mergeDistance = mergeDistance
        var hulls = regions.map { hull(of: $0) }
        func close(_ a: Int, _ b: Int) -> Bool {
            let ba = hulls[a].bounds
            let bb = hulls[b].bounds
            if bb.0 > ba.2 + mergeDistance || ba.0 > bb.2 + mergeDistance
                || bb.1 > ba.3 + mergeDistance || ba.1 > bb.3 + mergeDistance
            {
                return false
            }
            return hulls[a].distance(to: hulls[b]) <= mergeDistance
        }
        func merge(_ a: Int, _ b: Int) {
            regions[a] = Self.union(regions[a], regions[b])
            regions.remove(at: b)
            hulls.remove(at: b)
            hulls[a] = hull(of: regions[a])
            summary.merged += 1
        }
        // Always merge the first close pair (a < b) in (a, b) order, until none is left. A merge
        // changes only region a, so every pair before it stays as it was: the next first pair is
        // (x, a) for the smallest x < a close to the grown a, else the first (a, b) after it.
        // Scanning resumes there instead of from the start (one scan, not one per merge).
        var a = 0
        while a < regions.count {
            guard let b = ((a + 1)..<regions.count).first(where: { close(a, $0) }) else {
                a += 1
                continue
            }
            merge(a, b)
            while let x = (0..<a).first(where: { close($0, a) }) {
                merge(x, a)
                a = x
            }
        }

        for i in 0..<regions.count {
            fillStatistics(&regions[i], hull: hulls[i], scores: scores, match: match, baseRate: p)
        }
        return (regions, summary)
    }

    static func union(_ a: RegionTable.Region, _ b: RegionTable.Region) -> RegionTable.Region {
        var pairs = zip(a.members, a.memberMatch).map { ($0, $1) } + zip(b.members, b.memberMatch).map { ($0, $1) }
        pairs.sort { $0.0 < $1.0 }
        var members: [UInt32] = []
        var match: [UInt8] = []
        for (v, m) in pairs where members.last != v {
            members.append(v)
            match.append(m)
        }
        return RegionTable.Region(keyword: a.keyword, members: members, memberMatch: match)
    }

    /// Whether matching POI `v` has a keyword-dense neighbourhood: the share of matches among the
    /// POIs within two graph hops (v excluded) is at least p + 2·√(p(1−p)/m).
    func isShapePOI(_ v: Int, match: Column<UInt8>, baseRate p: Double) -> Bool {
        var ring: [Int] = []
        for e in graph.range(v) {
            let j = Int(graph.neighbors[e])
            if !ring.contains(j) { ring.append(j) }
        }
        let first = ring.count
        for t in 0..<first {
            for e in graph.range(ring[t]) {
                let j = Int(graph.neighbors[e])
                if j != v && !ring.contains(j) { ring.append(j) }
            }
        }
        guard !ring.isEmpty else { return false }
        let k = ring.reduce(0) { $0 + (match[$1] != 0 ? 1 : 0) }
        let m = Double(ring.count)
        return Double(k) / m >= p + 2 * (p * (1 - p) / m).squareRoot()
    }

    /// Convex hull of the region's shape members (see ``RegionTable/Region/shapeMembers``).
    public func hull(of r: RegionTable.Region) -> ConvexHull2D {
        let s = r.shapeMembers
        return ConvexHull2D(x: s.map { x[Int($0)] }, y: s.map { y[Int($0)] })
    }

    /// All and matching POIs inside `hull`, found by a search from `seeds` over graph edges that
    /// stays inside the hull.
    public func footprint(seeds: [UInt32], hull: ConvexHull2D, match: Column<UInt8>) -> (n: Int, k: Int) {
        var visited = Set<UInt32>()
        var stack: [UInt32] = []
        var n = 0
        var k = 0
        for v in seeds where visited.insert(v).inserted { stack.append(v) }
        while let v = stack.popLast() {
            n += 1
            k += Int(match[Int(v)])
            for e in graph.range(Int(v)) {
                let w = graph.neighbors[e]
                if !visited.contains(w) && hull.contains(x[Int(w)], y[Int(w)]) {
                    visited.insert(w)
                    stack.append(w)
                }
            }
        }
        return (n, k)
    }

    /// The counts the significance test uses for the region's area: all and matching POIs inside
    /// the convex hull of *all* its matching members (the shape hull leaves out fringe POIs and
    /// would understate the area the region was found in), less one matching POI per corner of
    /// that hull. The hull is drawn through matching POIs, so its corners match by construction
    /// and are no evidence: the test is conditional on the window they fix. Counted, they made
    /// chance clumps significant on cities with no cluster at all (11 of 62 POIs, 7 of them
    /// corners, read p 3·10⁻⁶ with the places and shapes counted; EXPERIMENTS.md).
    func testFootprint(_ r: RegionTable.Region, match: Column<UInt8>) -> (n: Int, k: Int) {
        let matching = zip(r.members, r.memberMatch).filter { $0.1 & RegionTable.Region.matchesFlag != 0 }.map { $0.0 }
        let seeds = matching.isEmpty ? r.members : matching
        let hull = ConvexHull2D(x: seeds.map { x[Int($0)] }, y: seeds.map { y[Int($0)] })
        let (n, k) = footprint(seeds: seeds, hull: hull, match: match)
        let corners = matching.isEmpty ? 0 : min(hull.x.count, k)
        return (n - corners, k - corners)
    }

    /// Footprint counts (every POI inside the matching members' hull, found by a search from the
    /// members over graph edges that stays inside the hull), scores and area.
    func fillStatistics(
        _ r: inout RegionTable.Region, hull: ConvexHull2D, scores: Column<Double>, match: Column<UInt8>,
        baseRate: Double
    ) {
        let (nFoot, kFoot) = footprint(seeds: r.shapeMembers, hull: hull, match: match)
        r.nFootprint = nFoot
        r.nFootprintKeyword = kFoot
        var sum = 0.0
        var mx = 0.0
        for v in r.members {
            sum += scores[Int(v)]
            mx = max(mx, scores[Int(v)])
        }
        r.scoreSum = sum
        r.scoreMean = r.members.isEmpty ? 0 : sum / Double(r.members.count)
        r.scoreMax = mx
        r.share = nFoot > 0 ? Double(kFoot) / Double(nFoot) : 0
        r.lift = baseRate > 0 ? r.share / baseRate : 0
        r.areaM2 = hull.area
        var spacings: [Double] = []
        for v in r.shapeMembers { spacings.append(Double(graph.scale[Int(v)])) }
        r.spacing = Selection.median(spacings)
        r.density = r.areaM2 > 0 ? Double(nFoot) / (r.areaM2 / 1e6) : 0
    }
}

extension RegionFinder {
    /// ``init(x:y:graph:)`` from arrays.
    public init(x: [Double], y: [Double], graph: AdjacencyGraph) { self.init(x: Column(x), y: Column(y), graph: graph) }

    /// ``testFootprint(_:match:)`` with the match flags in an array.
    func testFootprint(_ r: RegionTable.Region, match: [UInt8]) -> (n: Int, k: Int) {
        testFootprint(r, match: Column(match))
    }

    /// ``candidates(keyword:scores:ones:probe:match:options:)`` with the columns in arrays.
    public func candidates(
        keyword: Int, scores: [Double], ones: [Double], probe: [Double], match: [UInt8], options: Options
    )
        -> (regions: [RegionTable.Region], summary: KeywordSummary)
    {
        candidates(
            keyword: keyword, scores: Column(scores), ones: Column(ones), probe: Column(probe), match: Column(match),
            options: options)
    }
}
