import RegionSearchCore
import RegionSearchModel

/// One tile's share of the graph: the rows of the points it owns, exactly as ``GraphBuilder``
/// makes them for the whole data set, with every edge's pruning verdict except the far cap
/// (which needs the median spacing of all points: the gather applies it).
public struct GraphTilePart: Sendable {
    /// The owned points: `first ..< first + count` of the whole data set.
    public var first: Int
    public var count: Int
    /// CSR over the owned rows: `offsets` (count + 1), neighbours as indices into the whole data
    /// set, edge lengths, and per entry the verdict of the rules a tile can decide
    /// (``Verdict``).
    public var offsets: Column<UInt64>
    public var neighbors: Column<UInt32>
    public var length: Column<Float>
    public var verdict: Column<UInt8>
    /// Per owned point: σ, and 1 when it represents its location (0 for a duplicate).
    public var scale: Column<Float>
    public var representative: Column<UInt8>
    /// Rounds the window took (1 when the first window was certified) and points loaded in each.
    public var loadedPerRound: [Int]
    /// Points the sweeps inserted late (near-degenerate input; summed over rounds' last window).
    public var lateInsertions: Int

    public init(
        first: Int, count: Int, offsets: Column<UInt64>, neighbors: Column<UInt32>, length: Column<Float>,
        verdict: Column<UInt8>, scale: Column<Float>, representative: Column<UInt8>, loadedPerRound: [Int],
        lateInsertions: Int
    ) {
        self.first = first
        self.count = count
        self.offsets = offsets
        self.neighbors = neighbors
        self.length = length
        self.verdict = verdict
        self.scale = scale
        self.representative = representative
        self.loadedPerRound = loadedPerRound
        self.lateInsertions = lateInsertions
    }

    /// A verdict code of ``verdict``.
    public enum Verdict: UInt8 {
        case keep = 0
        case localScale = 2
        case emptyBand = 3
    }
}

/// Builds one tile's rows of the neighbourhood graph, certified equal to the single run's.
///
/// The tile owns the points `core` (a range of the Hilbert order, so a compact area). It loads the
/// points of the grid cells around its own (`haloCells` rings), builds the graph of what it loaded
/// exactly as ``GraphBuilder`` does, and then *certifies* every owned row against the points it
/// did not load (``TileWindow``): a triangle is a triangle of the whole data set's (canonical,
/// ``TriangleMesh``) triangulation when no unloaded point lies in or on its circumcircle; a hull
/// edge is the whole data's when no unloaded point lies beyond it. A point whose triangles and
/// hull edges are all certified is *complete* — its Delaunay neighbours are the global ones — and
/// every value the graph computes reads a bounded number of Delaunay hops:
/// * σ (the scale_k-th nearest location, best-first along Delaunay edges): rows within
///   scale_k − 1 hops, so exact at depth ≥ scale_k (depth = hops to the nearest incomplete point);
/// * a kNN list: the k nearest are reached within k hops, so depth ≥ k; a kNN row also holds the
///   points that chose it, which lie within k hops: depth ≥ 2k;
/// * σ̄ (median σ over two edges): depth ≥ scale + 2;
/// * a triangle's emptiness: its corners' σ̄; its void status: exact when its connected empty
///   triangles that are exact number at least void_min_triangles, or when its whole group and all
///   triangles around it are exact;
/// * an edge's verdict: σ at both ends and the void status of the triangles on it.
/// When an owned row cannot be certified the window grows around it (doubling the rings each
/// round) and the tile is rebuilt; after ``maxRounds`` it loads everything, which is exact by
/// definition. The answer never depends on the first window: only the work does.
public enum GraphTile {
    /// Rounds before a tile loads the whole data set.
    public static let maxRounds = 8
    /// Rings of grid cells a tile loads around its own in its first round, unless told otherwise.
    public static let defaultHaloCells = 2

    public static func build(
        x: UnsafeBufferPointer<Double>, y: UnsafeBufferPointer<Double>, core: Range<Int>, grid: TileGrid,
        options: GraphOptions, haloCells: Int
    ) throws(GraphError) -> GraphTilePart {
        let n = x.count
        precondition(core.lowerBound >= 0 && core.upperBound <= n)
        for i in 0..<n {
            let xi = x[i]
            let yi = y[i]
            guard xi.isFinite && yi.isFinite else { throw .nonFiniteCoordinate(index: i, x: xi, y: yi) }
            guard GraphBuilder.inPredicateRange(xi) && GraphBuilder.inPredicateRange(yi) else {
                throw .coordinateOutOfRange(index: i, x: xi, y: yi)
            }
        }
        var part = GraphTilePart(
            first: core.lowerBound, count: core.count, offsets: Column([0]), neighbors: Column(), length: Column(),
            verdict: Column(), scale: Column(), representative: Column(), loadedPerRound: [], lateInsertions: 0)
        if core.isEmpty { return part }
        var window = TileWindow(grid: grid, x: x, y: y)
        let hull = HullCycle(window.globalHull())
        var cells = [Bool](repeating: false, count: grid.cellCount)
        for i in core { cells[Int(window.cellOf[i])] = true }
        cells = grid.dilate(cells, radius: max(0, haloCells))
        // Owned points on the whole data's hull: their neighbours lie along the hull.
        let reach =
            options.method == .knn ? max(2 * max(options.k, options.scaleK), options.k + 4) + 1 : options.scaleK + 4
        var hullSeen = Set<Int>()
        for i in hull.cycle where core.contains(i) {
            for (from, to) in hull.edges(around: i, steps: reach) where hullSeen.insert(from).inserted {
                for c in window.cellsAlong(from, to) { cells[c] = true }
            }
        }
        // Each growth reaches beyond the halo so far: the failing rows are inside the core.
        var radius = 2 * max(1, haloCells)
        var round = 0
        while true {
            round += 1
            if round > maxRounds { cells = [Bool](repeating: true, count: grid.cellCount) }
            window.load(cells)
            let points = window.loadedPoints()
            part.loadedPerRound.append(points.count)
            let local = LocalBuild(points: points, window: window, options: options)
            let (failing, targets) = local.uncertified(core: core, hull: hull)
            Log.info(
                "tile round \(round): \(groupedCount(points.count)) points loaded, "
                    + "\(groupedCount(failing.count)) owned rows not yet certified")
            if failing.isEmpty {
                local.emit(core: core, into: &part)
                return part
            }
            // Grow around the failing rows, and take in the cells whose points broke triangles or
            // hull edges near them (with their neighbours).
            var grow = [Bool](repeating: false, count: grid.cellCount)
            for i in failing { grow[Int(window.cellOf[i])] = true }
            grow = grid.dilate(grow, radius: radius)
            var hit = [Bool](repeating: false, count: grid.cellCount)
            for c in targets { hit[c] = true }
            hit = grid.dilate(hit, radius: 1)
            for c in 0..<grid.cellCount where grow[c] || hit[c] { cells[c] = true }
            radius *= 2
        }
    }
}

/// The graph of a tile's loaded points, built as ``GraphBuilder`` builds the whole data set's,
/// with what is needed to certify it.
private struct LocalBuild {
    /// Global index of each local point (ascending).
    let points: [UInt32]
    let window: TileWindow
    let options: GraphOptions
    let x: [Double]
    let y: [Double]
    let groups: CoincidentPoints
    let mesh: TriangleMesh
    /// Delaunay edges plus duplicate links, local indices.
    let delaunay: AdjacencyGraph
    /// The graph the method builds (= `delaunay` for Delaunay), with σ.
    let graph: AdjacencyGraph
    /// Per `graph` entry, 1 when it crosses a void (empty when there are no void rules).
    let voidFlags: [UInt8]
    /// Per `delaunay` entry, void flags (kNN: the Delaunay flags the kNN flags derive from).
    let delaunayFlags: [UInt8]
    let empty: [Bool]
    let group: [Int32]
    let sizes: [Int]
    let smoothed: [Float]
    let lateInsertions: Int

    init(points: [UInt32], window: TileWindow, options: GraphOptions) {
        self.points = points
        self.window = window
        self.options = options
        let m = points.count
        x = points.map { window.x[Int($0)] }
        y = points.map { window.y[Int($0)] }
        let (x, y) = (self.x, self.y)
        let groups = x.withUnsafeBufferPointer { xb in y.withUnsafeBufferPointer { CoincidentPoints(x: xb, y: $0) } }
        self.groups = groups
        let unique = groups.unique
        let ux = unique.map { x[Int($0)] }
        let uy = unique.map { y[Int($0)] }
        var late = 0
        let mesh = ux.withUnsafeBufferPointer { ux in
            uy.withUnsafeBufferPointer { uy in
                let (mesh, lateInsertions, _) = TriangleMesh.delaunay(x: ux, y: uy)
                late = lateInsertions
                return mesh
            }
        }
        self.mesh = mesh
        lateInsertions = late
        var (a, b) = mesh.edges()
        for e in 0..<a.count {
            a[e] = unique[Int(a[e])]
            b[e] = unique[Int(b[e])]
        }
        for i in 0..<m where Int(groups.representative[i]) != i {
            a.append(UInt32(truncatingIfNeeded: i))
            b.append(groups.representative[i])
        }
        var delaunay = x.withUnsafeBufferPointer { xb in
            y.withUnsafeBufferPointer { CSRBuilder.build(nodeCount: m, a: a, b: b, x: xb, y: $0) }
        }
        var graph: AdjacencyGraph
        switch options.method {
        case .delaunay:
            delaunay.scale = Column(
                x.withUnsafeBufferPointer { xb in
                    y.withUnsafeBufferPointer {
                        LocalScale.compute(delaunay: delaunay, x: xb, y: $0, groups: groups, scaleK: options.scaleK)
                    }
                })
            graph = delaunay
        case .knn:
            graph = x.withUnsafeBufferPointer { xb in
                y.withUnsafeBufferPointer { yb in
                    // The lists from the triangulation at hand, as a single run makes them.
                    var knn =
                        NearestNeighbors(delaunay: delaunay, x: xb, y: yb, groups: groups, k: options.k)
                        ?? unique.withUnsafeBufferPointer { NearestNeighbors(x: xb, y: yb, subset: $0, k: options.k) }
                    let scale = LocalScale.compute(x: xb, y: yb, groups: groups, scaleK: options.scaleK, knn: knn)
                    let k = knn.k
                    var lists = knn.takeNeighbors()
                    var g = CSRBuilder.buildKNNUnion(lists: &lists, k: k, groups: groups, x: xb, y: yb)
                    g.scale = Column(scale)
                    return g
                }
            }
            delaunay.scale = graph.scale
        }
        self.delaunay = delaunay
        self.graph = graph
        let smoothed = VoidEdges.smoothedScale(delaunay)
        self.smoothed = smoothed
        let voids = options.voidRadius > 0 && unique.count >= 3 && mesh.triangleCount > 0
        if voids {
            let empty = x.withUnsafeBufferPointer { xb in
                y.withUnsafeBufferPointer {
                    VoidEdges.emptyTriangles(
                        mesh, unique: unique, x: xb, y: $0, smoothed: smoothed, radius: options.voidRadius)
                }
            }
            let (group, sizes) = VoidEdges.groups(mesh, empty: empty)
            let void = (0..<mesh.triangleCount).map {
                group[$0] >= 0 && sizes[Int(group[$0])] >= options.voidMinTriangles
            }
            let flags = x.withUnsafeBufferPointer { xb in
                y.withUnsafeBufferPointer {
                    VoidEdges.mark(mesh, void: void, unique: unique, x: xb, y: $0, graph: delaunay, smoothed: smoothed)
                }
            }
            self.empty = empty
            self.group = group
            self.sizes = sizes
            delaunayFlags = flags
            switch options.method {
            case .delaunay: voidFlags = flags
            case .knn: voidFlags = VoidEdges.knnFlags(knn: graph, delaunay: delaunay, delaunayFlags: flags)
            }
        } else {
            empty = [Bool](repeating: false, count: mesh.triangleCount)
            group = [Int32](repeating: -1, count: mesh.triangleCount)
            sizes = []
            delaunayFlags = []
            voidFlags = []
        }
    }

    /// Global indices of the owned points whose rows cannot (yet) be certified, and cells whose
    /// points would certify them.
    func uncertified(core: Range<Int>, hull: HullCycle) -> (failing: [Int], grow: [Int]) {
        // Everything not loaded is empty space: this is the single run.
        if window.blockedTotal == 0 { return ([], []) }
        let m = points.count
        let unique = groups.unique
        let t = mesh.triangleCount
        // Vertex (location) of each representative point.
        var vertex = [Int32](repeating: -1, count: m)
        for (v, p) in unique.enumerated() { vertex[Int(p)] = Int32(v) }
        // 1. Certified triangles and hull edges; complete vertices.
        var triangleOK = [Bool](repeating: false, count: t)
        mesh.triangles.withUnsafeBufferPointer { tri in
            triangleOK.withUnsafeMutableBufferPointer { ok in
                let ok = ok
                Parallel.forRanges(t, minChunk: 2048) { range in
                    for k in range {
                        let a = Int(points[Int(unique[Int(tri[3 * k])])])
                        let b = Int(points[Int(unique[Int(tri[3 * k + 1])])])
                        let c = Int(points[Int(unique[Int(tri[3 * k + 2])])])
                        ok[k] = !window.blockedPointInCircle(a, b, c)
                    }
                }
            }
        }
        var hullOK = [Bool](repeating: true, count: 3 * t)
        var complete = [Bool](repeating: t > 0, count: unique.count)
        for e in 0..<(3 * t) {
            let v0 = Int(mesh.triangles[e])
            let v1 = Int(mesh.triangles[TriangleMesh.next(e)])
            if !triangleOK[e / 3] {
                complete[v0] = false
                complete[v1] = false
            }
            guard mesh.halfedges[e] < 0 else { continue }
            if !hull.isEdge(Int(points[Int(unique[v0])]), Int(points[Int(unique[v1])])) {
                hullOK[e] = false
                complete[v0] = false
                complete[v1] = false
            }
        }
        // 2. Depth: Delaunay hops to the nearest incomplete point (duplicates follow their location).
        let scaleK = options.scaleK
        // kNN lists (and σ from them, or from lists of scale_k when that is longer).
        let knnK = max(options.k, options.scaleK)
        let needed = options.method == .knn ? max(2 * knnK, knnK + 4) + 1 : scaleK + 4
        var depth = [Int32](repeating: Int32(needed), count: m)
        var frontier: [Int] = []
        for i in 0..<m {
            let r = Int(groups.representative[i])
            if !complete[Int(vertex[r])] {
                depth[i] = 0
                frontier.append(i)
            }
        }
        var level: Int32 = 0
        while !frontier.isEmpty && level + 1 < Int32(needed) {
            level += 1
            var next: [Int] = []
            for i in frontier {
                for e in delaunay.range(i) {
                    let j = Int(delaunay.neighbors[e])
                    if depth[j] > level {
                        depth[j] = level
                        next.append(j)
                    }
                }
            }
            frontier = next
        }
        func d(_ i: Int) -> Int { Int(depth[Int(groups.representative[i])]) }
        let sigmaOK: (Int) -> Bool
        let sbarOK: (Int) -> Bool
        switch options.method {
        case .delaunay:
            sigmaOK = { d($0) >= scaleK }
            sbarOK = { d($0) >= scaleK + 2 }
        case .knn:
            sigmaOK = { d($0) >= knnK }
            sbarOK = { d($0) >= knnK + 2 }
        }
        // 3. Void status known per triangle; void flag known per Delaunay entry.
        let voids = !delaunayFlags.isEmpty
        var flagKnown = [Bool](repeating: true, count: delaunay.neighbors.count)
        if voids {
            let minimum = options.voidMinTriangles
            var exact = [Bool](repeating: false, count: t)
            for k in 0..<t {
                exact[k] = (0..<3).allSatisfy { sbarOK(Int(unique[Int(mesh.triangles[3 * k + $0])])) }
            }
            // Connected exact empty triangles.
            var component = [Int32](repeating: -1, count: t)
            var componentSize: [Int] = []
            var stack: [Int] = []
            for s in 0..<t where exact[s] && empty[s] && component[s] < 0 {
                let id = Int32(componentSize.count)
                component[s] = id
                stack.append(s)
                var size = 0
                while let k = stack.popLast() {
                    size += 1
                    for e in (3 * k)..<(3 * k + 3) {
                        let twin = Int(mesh.halfedges[e])
                        guard twin >= 0 else { continue }
                        let o = twin / 3
                        if exact[o] && empty[o] && component[o] < 0 {
                            component[o] = id
                            stack.append(o)
                        }
                    }
                }
                componentSize.append(size)
            }
            // Groups (over local empty triangles) whose members and surroundings are all exact.
            var closed = [Bool](repeating: true, count: sizes.count)
            for k in 0..<t where group[k] >= 0 {
                let g = Int(group[k])
                guard closed[g] else { continue }
                if !exact[k] {
                    closed[g] = false
                    continue
                }
                for e in (3 * k)..<(3 * k + 3) {
                    let twin = Int(mesh.halfedges[e])
                    if twin >= 0 ? !exact[twin / 3] : !hullOK[e] { closed[g] = false }
                }
            }
            func voidKnown(_ k: Int) -> Bool {
                guard exact[k] else { return false }
                if !empty[k] { return true }
                if componentSize[Int(component[k])] >= minimum { return true }
                return closed[Int(group[k])]
            }
            func unknown(_ u: Int, _ v: Int) {
                if let e = delaunay.entry(u, v) { flagKnown[e] = false }
                if let e = delaunay.entry(v, u) { flagKnown[e] = false }
            }
            for k in 0..<t {
                let hull = (0..<3).contains { mesh.halfedges[3 * k + $0] < 0 && !hullOK[3 * k + $0] }
                guard !voidKnown(k) || hull else { continue }
                for e in (3 * k)..<(3 * k + 3) {
                    unknown(Int(unique[Int(mesh.triangles[e])]), Int(unique[Int(mesh.triangles[TriangleMesh.next(e)])]))
                }
            }
            for i in 0..<m {
                for e in delaunay.range(i) where delaunay.length[e] > 0 {
                    if !(sbarOK(i) && sbarOK(Int(delaunay.neighbors[e]))) { flagKnown[e] = false }
                }
            }
        }
        // 4. Owned rows.
        let lo = Self.position(of: core.lowerBound, in: points)
        var failing: [Int] = []
        for i in lo..<(lo + core.count) {
            let r = Int(groups.representative[i])
            var ok: Bool
            if r != i {
                ok = sigmaOK(r)
            } else {
                switch options.method {
                case .delaunay:
                    ok = d(i) >= 1 && sigmaOK(i)
                    if ok {
                        for e in delaunay.range(i) where delaunay.length[e] > 0 {
                            if !sigmaOK(Int(delaunay.neighbors[e])) || !flagKnown[e] {
                                ok = false
                                break
                            }
                        }
                    }
                case .knn:
                    ok = d(i) >= 2 * knnK && sigmaOK(i)
                    if ok && voids {
                        // The kNN flags read the Delaunay flags of i's and its neighbours' rows.
                        outer: for e in delaunay.range(i) {
                            if !flagKnown[e] {
                                ok = false
                                break
                            }
                            for e2 in delaunay.range(Int(delaunay.neighbors[e])) where !flagKnown[e2] {
                                ok = false
                                break outer
                            }
                        }
                    }
                }
            }
            if !ok { failing.append(Int(points[i])) }
        }
        // 5. Where to grow: the unloaded points that break triangles and hull edges within reach
        // of a failing row (a hull point's Delaunay neighbours can be far along the hull).
        var grow: [Int] = []
        if !failing.isEmpty {
            var near = [Bool](repeating: false, count: m)
            var frontier: [Int] = []
            for g in failing {
                let i = Self.position(of: g, in: points)
                near[i] = true
                frontier.append(i)
            }
            for _ in 0..<needed {
                var next: [Int] = []
                for i in frontier {
                    for e in delaunay.range(i) where !near[Int(delaunay.neighbors[e])] {
                        near[Int(delaunay.neighbors[e])] = true
                        next.append(Int(delaunay.neighbors[e]))
                    }
                }
                frontier = next
            }
            let global = { (v: Int) in Int(points[Int(unique[v])]) }
            var seen = Set<Int>()
            var hullSeen = Set<Int>()
            for k in 0..<t {
                let v = (0..<3).map { Int(mesh.triangles[3 * k + $0]) }
                guard v.contains(where: { near[Int(unique[$0])] }) else { continue }
                if !triangleOK[k] {
                    for corner in v where near[Int(unique[corner])] {
                        for cell in window.blockedCellsInCircle(
                            global(v[0]), global(v[1]), global(v[2]), nearestTo: global(corner))
                        where seen.insert(cell).inserted {
                            grow.append(cell)
                        }
                    }
                }
                // A corner on the whole data's hull has Delaunay neighbours along the hull, which can
                // be far when the hull is nearly straight: take in the strips along its hull edges.
                for j in 0..<3 where mesh.halfedges[3 * k + j] < 0 && !hullOK[3 * k + j] {
                    for corner in [v[j], v[(j + 1) % 3]] where near[Int(unique[corner])] {
                        // Rows within `needed` hops are read, and along the hull a hop is a hull edge.
                        for (from, to) in hull.edges(around: global(corner), steps: needed)
                        where hullSeen.insert(from).inserted {
                            for cell in window.cellsAlong(from, to) where seen.insert(cell).inserted {
                                grow.append(cell)
                            }
                        }
                    }
                }
            }
        }
        return (failing, grow)
    }

    /// Local index of global point `g` (present).
    static func position(of g: Int, in points: [UInt32]) -> Int {
        var lo = 0
        var hi = points.count
        let target = UInt32(truncatingIfNeeded: g)
        while lo < hi {
            let mid = (lo + hi) / 2
            if points[mid] < target { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// Writes the owned rows with their verdicts.
    func emit(core: Range<Int>, into part: inout GraphTilePart) {
        var offsetsOut: [UInt64] = [0]
        var neighborsOut: [UInt32] = []
        var lengthOut: [Float] = []
        var verdictOut: [UInt8] = []
        var scaleOut: [Float] = []
        var representativeOut: [UInt8] = []
        let lo = Self.position(of: core.lowerBound, in: points)
        let keep = GraphTilePart.Verdict.keep.rawValue
        let localScale = GraphTilePart.Verdict.localScale.rawValue
        let emptyBand = GraphTilePart.Verdict.emptyBand.rawValue
        let rules = EdgePruning.Rules(
            cap: nil, factor: options.pruneFactor, voidFlags: voidFlags.isEmpty ? nil : voidFlags)
        x.withUnsafeBufferPointer { xb in
            y.withUnsafeBufferPointer { yb in
                voidFlags.withUnsafeBufferPointer { voids in
                    graph.offsets.withUnsafeBufferPointer { offsets in
                        graph.neighbors.withUnsafeBufferPointer { nb in
                            graph.length.withUnsafeBufferPointer { len in
                                graph.scale.withUnsafeBufferPointer { scale in
                                    for i in lo..<(lo + core.count) {
                                        for e in Int(offsets[i])..<Int(offsets[i + 1]) {
                                            let j = Int(nb[e])
                                            let v = EdgePruning.verdict(
                                                i: i, j: j, e: e, rules: rules, voids: voids, offsets: offsets,
                                                nb: nb, len: len, scale: scale, x: xb, y: yb)
                                            neighborsOut.append(points[j])
                                            lengthOut.append(len[e])
                                            switch v {
                                            // No cap here: the gather applies it (it needs every σ).
                                            case .keep, .maxEdge: verdictOut.append(keep)
                                            case .localScale: verdictOut.append(localScale)
                                            case .emptyBand: verdictOut.append(emptyBand)
                                            }
                                        }
                                        offsetsOut.append(UInt64(neighborsOut.count))
                                        scaleOut.append(scale[i])
                                        representativeOut.append(Int(groups.representative[i]) == i ? 1 : 0)
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        part.offsets = Column(offsetsOut)
        part.neighbors = Column(neighborsOut)
        part.length = Column(lengthOut)
        part.verdict = Column(verdictOut)
        part.scale = Column(scaleOut)
        part.representative = Column(representativeOut)
        part.lateInsertions = lateInsertions
    }
}

extension AdjacencyGraph {
    /// The CSR entry of v in row u, by binary search (``VoidEdges/entry(_:_:offsets:neighbors:)``).
    func entry(_ u: Int, _ v: Int) -> Int? {
        offsets.withUnsafeBufferPointer { o in
            neighbors.withUnsafeBufferPointer { VoidEdges.entry(u, v, offsets: o, neighbors: $0) }
        }
    }
}

/// The whole data set's convex hull boundary as a cycle of global point indices: which local hull
/// edges are the whole data's.
struct HullCycle {
    let cycle: [Int]
    let position: [Int: Int]

    init(_ cycle: [Int]) {
        self.cycle = cycle
        var position: [Int: Int] = [:]
        for (k, i) in cycle.enumerated() { position[i] = k }
        self.position = position
    }

    /// Whether a and b are consecutive on the hull (an edge of the whole data's triangulation's boundary).
    func isEdge(_ a: Int, _ b: Int) -> Bool {
        guard let pa = position[a], let pb = position[b] else { return false }
        let m = cycle.count
        return (pa + 1) % m == pb || (pb + 1) % m == pa
    }

    /// The hull edges within `steps` edges of a on both sides, as (from, to) pairs (none when a is
    /// not on the hull).
    func edges(around a: Int, steps: Int) -> [(Int, Int)] {
        guard let pa = position[a] else { return [] }
        let m = cycle.count
        var out: [(Int, Int)] = []
        for d in -steps..<steps {
            let i = ((pa + d) % m + m) % m
            out.append((cycle[i], cycle[(i + 1) % m]))
        }
        return out
    }
}
