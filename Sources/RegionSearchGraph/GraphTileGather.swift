import RegionSearchCore
import RegionSearchModel

/// Why tile parts cannot be gathered into one graph.
public enum GraphTileError: Error, CustomStringConvertible, ExitCoded {
    /// The parts do not cover the points 0..<n exactly once, in order.
    case coverage(String)

    public var description: String {
        switch self {
        case .coverage(let detail): return detail
        }
    }

    public var exitStatus: ExitStatus { .artifact }
}

extension GraphTile {
    /// The whole data set's graph from its tiles' parts (in order, covering 0..<n): the rows
    /// concatenated, the far cap (`far_factor` × the median σ over all locations, and `max_edge_m`)
    /// applied first as ``EdgePruning`` does, then each part's verdicts — the graph and counts
    /// ``GraphBuilder/build(x:y:options:)`` computes for the same points.
    public static func gather(parts: [GraphTilePart], nodeCount n: Int, options: GraphOptions)
        throws(GraphTileError) -> (graph: AdjacencyGraph, statistics: GraphStatistics)
    {
        var next = 0
        for p in parts {
            guard p.first == next, p.offsets.count == p.count + 1, p.scale.count == p.count,
                p.representative.count == p.count, p.neighbors.count == Int(p.offsets.last ?? 0),
                p.length.count == p.neighbors.count, p.verdict.count == p.neighbors.count
            else {
                throw .coverage(
                    "tile part for points \(p.first)..<\(p.first + p.count) does not continue at point \(next) "
                        + "or its columns disagree")
            }
            next += p.count
        }
        guard next == n else { throw .coverage("tile parts cover \(next) points, the data has \(n)") }
        let t0 = monotonicSeconds()
        var stats = GraphStatistics()
        stats.nodes = n
        var scales: [Double] = []
        var scale = [Float]()
        scale.reserveCapacity(n)
        for p in parts {
            for k in 0..<p.count {
                scale.append(p.scale[k])
                if p.representative[k] != 0 { scales.append(Double(p.scale[k])) }
            }
            stats.lateInsertions += p.lateInsertions
        }
        stats.locations = scales.count
        stats.duplicatesLinked = n - scales.count
        stats.medianScale = Selection.median(scales)
        scales = []
        var cap = options.maxEdgeMetres
        if options.farFactor > 0 && stats.medianScale > 0 {
            cap = min(cap ?? .infinity, options.farFactor * stats.medianScale)
        }
        var offsets = [UInt64](repeating: 0, count: n + 1)
        var total = 0
        for p in parts { total += p.neighbors.count }
        var neighbors: [UInt32] = []
        var length: [Float] = []
        neighbors.reserveCapacity(total)
        length.reserveCapacity(total)
        var row = 0
        for p in parts {
            for k in 0..<p.count {
                let i = p.first + k
                for e in Int(p.offsets[k])..<Int(p.offsets[k + 1]) {
                    let j = Int(p.neighbors[e])
                    let l = p.length[e]
                    if j > i { stats.edgesBeforePruning += 1 }
                    var kept = true
                    if l != 0 {
                        if let cap, Double(l) > cap {
                            kept = false
                            if i < j { stats.droppedByMaxEdge += 1 }
                        } else if p.verdict[e] == GraphTilePart.Verdict.localScale.rawValue {
                            kept = false
                            if i < j { stats.droppedByLocalScale += 1 }
                        } else if p.verdict[e] == GraphTilePart.Verdict.emptyBand.rawValue {
                            kept = false
                            if i < j { stats.droppedByEmptyBand += 1 }
                        }
                    }
                    if kept {
                        neighbors.append(UInt32(truncatingIfNeeded: j))
                        length.append(l)
                    }
                }
                row += 1
                offsets[row] = UInt64(neighbors.count)
                if offsets[row] == offsets[row - 1] { stats.isolatedNodes += 1 }
            }
        }
        stats.edges = neighbors.count / 2
        stats.phaseSeconds.append((.prune, monotonicSeconds() - t0))
        return (AdjacencyGraph(offsets: offsets, neighbors: neighbors, length: length, scale: scale), stats)
    }
}
