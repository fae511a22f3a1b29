import RegionSearchCore
import RegionSearchModel

/// The part of the graph one tile of a propagation needs: its own nodes (a range of the whole
/// data set) and every node within ``LabelPropagation/reach(iterations:)`` hops of them, with the
/// edges among those nodes.
///
/// After the fixed number of iterations a node's score reads only that neighbourhood, so the tile's
/// own scores are the single run's bit for bit: rows are kept in the same (global) order, so every
/// row's sums run in the same order, and the probe is labelled by the global index.
public struct PropagationWindow: Sendable {
    /// Global index of each local node, ascending.
    public var nodes: [UInt32]
    /// The tile's own nodes, as a local range (contiguous: the core is a global range).
    public var owned: Range<Int>
    /// The graph restricted to `nodes` (local indices), with edge lengths and σ.
    public var graph: AdjacencyGraph

    public init(nodes: [UInt32], owned: Range<Int>, graph: AdjacencyGraph) {
        self.nodes = nodes
        self.owned = owned
        self.graph = graph
    }

    /// Cuts the window of the global nodes `core` out of `graph`, `reach` hops wide. `visited`
    /// is scratch space of the graph's node count, zero on the first call (reused across tiles).
    public static func cut(graph: AdjacencyGraph, core: Range<Int>, reach: Int, visited: inout [UInt32], stamp: UInt32)
        -> PropagationWindow
    {
        precondition(visited.count == graph.nodeCount)
        var nodes: [UInt32] = []
        var frontier: [UInt32] = []
        for i in core {
            visited[i] = stamp
            frontier.append(UInt32(i))
        }
        var outside: [UInt32] = []
        for _ in 0..<reach {
            var next: [UInt32] = []
            for i in frontier {
                for e in graph.range(Int(i)) {
                    let j = graph.neighbors[e]
                    if visited[Int(j)] != stamp {
                        visited[Int(j)] = stamp
                        next.append(j)
                    }
                }
            }
            outside += next
            frontier = next
            if frontier.isEmpty { break }
        }
        outside.sort()
        // Core nodes are one block in global order; the halo falls before and after it.
        let before = outside.prefix { Int($0) < core.lowerBound }
        nodes.reserveCapacity(core.count + outside.count)
        nodes += before
        nodes += (core.lowerBound..<core.upperBound).map { UInt32($0) }
        nodes += outside.dropFirst(before.count)
        let owned = before.count..<(before.count + core.count)
        var offsets: [UInt64] = [0]
        offsets.reserveCapacity(nodes.count + 1)
        var neighbors: [UInt32] = []
        var length: [Float] = []
        var scale: [Float] = []
        scale.reserveCapacity(nodes.count)
        for g in nodes {
            for e in graph.range(Int(g)) {
                let j = graph.neighbors[e]
                guard visited[Int(j)] == stamp, let local = Self.position(of: j, in: nodes) else { continue }
                neighbors.append(UInt32(local))
                length.append(graph.length[e])
            }
            offsets.append(UInt64(neighbors.count))
            scale.append(graph.scale[Int(g)])
        }
        return PropagationWindow(
            nodes: nodes, owned: owned,
            graph: AdjacencyGraph(offsets: offsets, neighbors: neighbors, length: length, scale: scale))
    }

    static func position(of g: UInt32, in nodes: [UInt32]) -> Int? {
        var lo = 0
        var hi = nodes.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if nodes[mid] < g { lo = mid + 1 } else { hi = mid }
        }
        return lo < nodes.count && nodes[lo] == g ? lo : nil
    }
}

/// One tile's propagated columns over its own nodes.
public struct PropagationTilePart: Sendable {
    /// The owned nodes: `first ..< first + count` of the whole data set.
    public var first: Int
    public var count: Int
    /// Per keyword, then the all-ones column, then the probe: the owned scores (when asked for);
    /// then per keyword its density (when asked for).
    public var columns: [[Double]]
    /// Per column, as above (the densities': their labels' propagation): iterations, the largest
    /// last change over the owned nodes.
    public var status: [LabelPropagation.ColumnStatus]

    public init(first: Int, count: Int, columns: [[Double]], status: [LabelPropagation.ColumnStatus]) {
        self.first = first
        self.count = count
        self.columns = columns
        self.status = status
    }
}

extension KeywordPropagation {
    /// Propagates one tile: the keyword labels `matches` (per keyword, per window node), the
    /// all-ones column and the probe over the window, and the keyword densities, keeping the owned
    /// rows.
    public static func runTile(
        window: PropagationWindow, matches: [[UInt8]], options: PropagationOptions.Solvers, scaleK: Int,
        progress: ((Int, Double) -> Void)? = nil
    ) -> PropagationTilePart {
        let solution = solve(
            matches: matches, probe: NoiseProbe.labels(indices: window.nodes), graph: window.graph, options: options,
            scaleK: scaleK, residualRows: window.owned, progress: progress)
        return PropagationTilePart(
            first: window.owned.isEmpty ? 0 : Int(window.nodes[window.owned.lowerBound]), count: window.owned.count,
            columns: (solution.scores + solution.density).map { Array($0[window.owned]) },
            status: solution.status + solution.densityStatus)
    }

    /// The whole data set's result from its tiles' parts (in order, covering 0..<n): scores
    /// concatenated, each column's residual the largest of the parts'. `scores`, `densities`:
    /// whether the parts carry the scores and the keyword densities (the options they were run
    /// with asked for them).
    public static func gather(
        labels: [Labels], parts: [PropagationTilePart], nodeCount n: Int, tolerance: Double, scores: Bool,
        densities: Bool
    ) -> Result? {
        let k = labels.count
        let scoreWidth = scores ? k + 2 : 0
        let width = scoreWidth + (densities ? k : 0)
        var next = 0
        for p in parts {
            guard p.first == next || p.count == 0, p.columns.count == width, p.status.count == width,
                p.columns.allSatisfy({ $0.count == p.count })
            else { return nil }
            next += p.count
        }
        guard next == n else { return nil }
        var columns = [[Double]](repeating: [], count: width)
        for c in 0..<width {
            columns[c].reserveCapacity(n)
            for p in parts { columns[c] += p.columns[c] }
        }
        var status: [LabelPropagation.ColumnStatus] = []
        for c in 0..<width {
            let residual = parts.map { $0.status[c].residual }.max() ?? 0
            let iterations = parts.first?.status[c].iterations ?? 0
            status.append(.init(iterations: iterations, residual: residual, converged: residual <= tolerance))
        }
        let table = ScoreTable(
            keywords: labels.map(\.query), scores: scores ? Array(columns.prefix(k)) : [],
            matches: labels.map(\.match), ones: scores ? columns[k] : [], probe: scores ? columns[k + 1] : [],
            density: columns[scoreWidth...].map(Self.stored))
        var result = Result(labels: labels, table: table, columnStatus: Array(status.prefix(scoreWidth)))
        result.densityStatus = Array(status[scoreWidth...])
        return result
    }
}
