import RegionSearchCore
import RegionSearchModel

/// Removes edges that are long for the neighbourhoods at both of their ends.
///
/// An edge {i, j} of length L is dropped when `maxEdge` is set and L > maxEdge, or else when
/// `factor` > 0 and L > factor × max(σᵢ, σⱼ) (σ from ``LocalScale``, lengths and σ compared as
/// stored in the artifact). Zero-length edges (coincident points) are never dropped. The test is
/// symmetric in i and j, so the result is still an undirected CSR graph.
enum EdgePruning {
    struct Counts {
        var droppedByMaxEdge = 0
        var droppedByLocalScale = 0
    }

    enum Verdict { case keep, maxEdge, localScale }

    /// The rule for one edge.
    @inline(__always)
    static func verdict(length: Float, scaleI: Float, scaleJ: Float, maxEdge: Double?, factor: Double) -> Verdict {
        let l = Double(length)
        if l == 0 { return .keep }
        if let maxEdge, l > maxEdge { return .maxEdge }
        if factor > 0 && l > factor * Double(max(scaleI, scaleJ)) { return .localScale }
        return .keep
    }

    static func prune(_ graph: AdjacencyGraph, maxEdge: Double?, factor: Double) -> (AdjacencyGraph, Counts) {
        let n = graph.nodeCount
        if maxEdge == nil && factor <= 0 { return (graph, Counts()) }
        var keptPerRow = [UInt64](repeating: 0, count: n + 1)
        let chunks = max(1, min(Parallel.threadCount * 8, (n + 8191) / 8192))
        let chunkSize = (n + chunks - 1) / max(chunks, 1)
        var chunkCounts = [Counts](repeating: Counts(), count: chunks)
        graph.offsets.withUnsafeBufferPointer { offsets in
            graph.neighbors.withUnsafeBufferPointer { nb in
                graph.length.withUnsafeBufferPointer { len in
                    graph.scale.withUnsafeBufferPointer { scale in
                        keptPerRow.withUnsafeMutableBufferPointer { kept in
                            chunkCounts.withUnsafeMutableBufferPointer { counts in
                                let kept = kept
                                let counts = counts
                                Parallel.forEach(chunks) { c in
                                    var local = Counts()
                                    for i in (c * chunkSize)..<min(n, (c + 1) * chunkSize) {
                                        var keep: UInt64 = 0
                                        for e in Int(offsets[i])..<Int(offsets[i + 1]) {
                                            let j = Int(nb[e])
                                            switch verdict(
                                                length: len[e], scaleI: scale[i], scaleJ: scale[j],
                                                maxEdge: maxEdge, factor: factor)
                                            {
                                            case .keep: keep += 1
                                            case .maxEdge: if i < j { local.droppedByMaxEdge += 1 }
                                            case .localScale: if i < j { local.droppedByLocalScale += 1 }
                                            }
                                        }
                                        kept[i + 1] = keep
                                    }
                                    counts[c] = local
                                }
                            }
                        }
                    }
                }
            }
        }
        var counts = Counts()
        for c in chunkCounts {
            counts.droppedByMaxEdge += c.droppedByMaxEdge
            counts.droppedByLocalScale += c.droppedByLocalScale
        }
        for i in 0..<n { keptPerRow[i + 1] += keptPerRow[i] }
        let m = Int(keptPerRow[n])
        var neighbors = [UInt32](repeating: 0, count: m)
        var length = [Float](repeating: 0, count: m)
        graph.offsets.withUnsafeBufferPointer { offsets in
            graph.neighbors.withUnsafeBufferPointer { nb in
                graph.length.withUnsafeBufferPointer { len in
                    graph.scale.withUnsafeBufferPointer { scale in
                        keptPerRow.withUnsafeBufferPointer { newOffsets in
                            neighbors.withUnsafeMutableBufferPointer { outNb in
                                length.withUnsafeMutableBufferPointer { outLen in
                                    let outNb = outNb
                                    let outLen = outLen
                                    Parallel.forRanges(n, minChunk: 8192) { range in
                                        for i in range {
                                            var w = Int(newOffsets[i])
                                            for e in Int(offsets[i])..<Int(offsets[i + 1]) {
                                                let j = Int(nb[e])
                                                if verdict(
                                                    length: len[e], scaleI: scale[i], scaleJ: scale[j],
                                                    maxEdge: maxEdge, factor: factor) == .keep
                                                {
                                                    outNb[w] = nb[e]
                                                    outLen[w] = len[e]
                                                    w += 1
                                                }
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        return (
            AdjacencyGraph(
                offsets: Column(keptPerRow), neighbors: Column(neighbors), length: Column(length), scale: graph.scale),
            counts
        )
    }
}
