import RegionSearchCore
import RegionSearchModel

/// How the neighbourhood graph is built.
public enum GraphMethod: String, CaseIterable, Sendable {
    /// Delaunay triangulation edges: a planar graph that joins natural neighbours in every
    /// direction, adapting to density without a parameter.
    case delaunay
    /// The union of every point's k nearest neighbours.
    case knn
}

/// Counts and timings of one graph build.
public struct GraphStatistics: Sendable {
    public var nodes = 0
    /// Distinct locations.
    public var locations = 0
    /// Points linked by a zero-length edge to a coincident representative.
    public var duplicatesLinked = 0
    public var edgesBeforePruning = 0
    public var droppedByMaxEdge = 0
    public var droppedByLocalScale = 0
    public var droppedByEmptyBand = 0
    /// The median local spacing σ over distinct locations, metres.
    public var medianScale = 0.0
    public var edges = 0
    /// Nodes without any edge after pruning.
    public var isolatedNodes = 0
    /// Delaunay only: points inserted after the sweep (near-degenerate input; normally 0).
    public var lateInsertions = 0
    /// Points triangulated again where two halves were stitched (``SplitTriangulation``); nil when
    /// one sweep built the triangulation.
    public var seamPoints: Int?
    /// Seconds per phase, in run order.
    public var phaseSeconds: [(StageSummary.Phase, Double)] = []
}

/// Builds the neighbourhood graph of projected points: distinct locations joined by Delaunay or
/// kNN edges, each duplicate linked to its representative by a zero-length edge, local scales
/// σ (``LocalScale``), then pruning by an absolute cap and by local scale (``EdgePruning``).
public enum GraphBuilder {
    /// Coordinates for which the exact predicates cannot overflow or underflow.
    @inline(__always)
    static func inPredicateRange(_ v: Double) -> Bool {
        let m = abs(v)
        return m == 0 || (m >= 1e-30 && m <= 1e30)
    }

    /// The CSR graph of a triangulation of the distinct locations plus the duplicate links: straight
    /// from the halfedges (``CSRBuilder/buildDelaunay(mesh:groups:x:y:)``, the same rows as the
    /// generic builder makes of the edge list; tests compare the two), or for collinear points from
    /// their chain's edges.
    static func delaunayCSR(
        _ mesh: TriangleMesh, groups: CoincidentPoints, x: UnsafeBufferPointer<Double>, y: UnsafeBufferPointer<Double>
    ) -> AdjacencyGraph {
        if let direct = CSRBuilder.buildDelaunay(mesh: mesh, groups: groups, x: x, y: y) { return direct }
        var (a, b) = mesh.edges()
        for e in 0..<a.count {
            a[e] = groups.unique[Int(a[e])]
            b[e] = groups.unique[Int(b[e])]
        }
        for i in 0..<x.count where Int(groups.representative[i]) != i {
            a.append(UInt32(truncatingIfNeeded: i))
            b.append(groups.representative[i])
        }
        return CSRBuilder.build(nodeCount: x.count, a: a, b: b, x: x, y: y)
    }

    public static func build(x: UnsafeBufferPointer<Double>, y: UnsafeBufferPointer<Double>, options: GraphOptions)
        throws(GraphError) -> (graph: AdjacencyGraph, statistics: GraphStatistics)
    {
        precondition(x.count == y.count)
        let n = x.count
        var stats = GraphStatistics()
        stats.nodes = n
        var clock = monotonicSeconds()
        // Each finished phase is reported at once (progress on stderr for long runs).
        func phase(_ name: StageSummary.Phase) {
            let now = monotonicSeconds()
            stats.phaseSeconds.append((name, now - clock))
            Log.info("\(name.rawValue): \(String(format: "%.3f", now - clock)) s")
            clock = now
        }
        for i in 0..<n {
            let xi = x[i]
            let yi = y[i]
            guard xi.isFinite && yi.isFinite else { throw .nonFiniteCoordinate(index: i, x: xi, y: yi) }
            guard Self.inPredicateRange(xi) && Self.inPredicateRange(yi) else {
                throw .coordinateOutOfRange(index: i, x: xi, y: yi)
            }
        }
        let groups = CoincidentPoints(x: x, y: y)
        let unique = groups.unique
        let u = unique.count
        stats.locations = u
        stats.duplicatesLinked = groups.duplicateCount
        // Delaunay works on the distinct locations' coordinates; kNN reads them through `unique`.
        var ux: [Double] = []
        var uy: [Double] = []
        // (kNN graphs need the triangulation too, to find the edges that cross voids.)
        if options.method == .delaunay || options.voidRadius > 0 {
            ux = [Double](repeating: 0, count: u)
            uy = [Double](repeating: 0, count: u)
            for (k, i) in unique.enumerated() {
                ux[k] = x[Int(i)]
                uy[k] = y[Int(i)]
            }
        }
        phase(.duplicates)

        var knnScale: [Float] = []
        let built: AdjacencyGraph
        var triangulation: TriangleMesh?
        let voidPass = options.voidRadius > 0 && u >= 3
        // kNN graphs need the triangulation too, to find the edges that cross voids. Its CSR then
        // also gives the kNN lists (``DelaunayNeighborSearch``, no k-d tree), and the void test
        // runs on those lists before their union is built (``VoidEdges/knnVoidPairs``), so the
        // triangulation and its CSR are gone by then and the peak memory is not raised.
        var knnVoidPairs: [UInt64]?
        if options.method == .delaunay || voidPass {
            triangulation = ux.withUnsafeBufferPointer { ux in
                uy.withUnsafeBufferPointer { uy in
                    let (mesh, late, seam) = TriangleMesh.delaunay(x: ux, y: uy)
                    stats.lateInsertions = late
                    stats.seamPoints = seam
                    return mesh
                }
            }
            phase(.triangulate)
        }
        switch options.method {
        case .delaunay:
            built = Self.delaunayCSR(triangulation!, groups: groups, x: x, y: y)
        case .knn:
            var delaunay: AdjacencyGraph? = nil
            var knn: NearestNeighbors
            if voidPass, let dt = triangulation {
                let csr = Self.delaunayCSR(dt, groups: groups, x: x, y: y)
                knn =
                    NearestNeighbors(delaunay: csr, x: x, y: y, groups: groups, k: options.k)
                    ?? unique.withUnsafeBufferPointer { NearestNeighbors(x: x, y: y, subset: $0, k: options.k) }
                delaunay = csr
            } else {
                knn = unique.withUnsafeBufferPointer { NearestNeighbors(x: x, y: y, subset: $0, k: options.k) }
            }
            phase(.knn)
            // Local scales first: they read the lists in distance order, which the union then
            // gives up (it sorts each list by index, in place).
            knnScale = LocalScale.compute(x: x, y: y, groups: groups, scaleK: options.scaleK, knn: knn)
            phase(.scale)
            if let dt = triangulation, var csr = delaunay {
                delaunay = nil
                // The triangulation of the same locations, with the kNN graph's local spacings.
                csr.scale = Column(knnScale)
                let flags = VoidEdges.flags(
                    triangulation: dt, unique: unique, x: x, y: y, graph: csr, radius: options.voidRadius,
                    minTriangles: options.voidMinTriangles)
                knnVoidPairs = VoidEdges.knnVoidPairs(
                    lists: knn.neighbors, k: knn.k, unique: unique, delaunay: csr, delaunayFlags: flags)
                triangulation = nil
                ux = []
                uy = []
            }
            let k = knn.k
            var lists = knn.takeNeighbors()
            // The union of the lists and the duplicate links straight into CSR (the same rows as
            // the generic builder makes of the directed pairs; tests compare the two).
            built = CSRBuilder.buildKNNUnion(lists: &lists, k: k, groups: groups, x: x, y: y)
        }
        var graph = built
        stats.edgesBeforePruning = graph.edgeCount
        phase(.csr)
        switch options.method {
        case .delaunay:
            graph.scale = Column(
                LocalScale.compute(delaunay: graph, x: x, y: y, groups: groups, scaleK: options.scaleK))
            phase(.scale)
        case .knn:
            graph.scale = Column(knnScale)
            knnScale = []
        }
        // The data's own spacing: the median σ over distinct locations (duplicates share theirs).
        stats.medianScale = Selection.median(
            unique.map { Double(graph.scale[Int($0)]) })
        var cap = options.maxEdgeMetres
        if options.farFactor > 0 && stats.medianScale > 0 {
            cap = min(cap ?? .infinity, options.farFactor * stats.medianScale)
        }
        var rules = EdgePruning.Rules(cap: cap, factor: options.pruneFactor)
        switch options.method {
        case .delaunay:
            if voidPass, let dt = triangulation {
                rules.voidFlags = VoidEdges.flags(
                    triangulation: dt, unique: unique, x: x, y: y, graph: graph, radius: options.voidRadius,
                    minTriangles: options.voidMinTriangles)
            }
        case .knn:
            if let pairs = knnVoidPairs {
                knnVoidPairs = nil
                rules.voidFlags = VoidEdges.flags(of: graph, voidPairs: pairs)
            }
        }
        triangulation = nil
        ux = []
        uy = []
        let (pruned, counts) = EdgePruning.prune(graph, x: x, y: y, rules: rules)
        graph = pruned
        stats.droppedByMaxEdge = counts.droppedByMaxEdge
        stats.droppedByLocalScale = counts.droppedByLocalScale
        stats.droppedByEmptyBand = counts.droppedByEmptyBand
        stats.edges = graph.edgeCount
        stats.isolatedNodes = graph.offsets.withUnsafeBufferPointer { offsets in
            var isolated = 0
            for i in 0..<n where offsets[i] == offsets[i + 1] { isolated += 1 }
            return isolated
        }
        phase(.prune)
        return (graph, stats)
    }
}
