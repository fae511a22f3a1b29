import RegionSearchCore
import RegionSearchModel

/// Removes edges that are long for the neighbourhoods at both of their ends, or that cross
/// empty space.
///
/// An edge {i, j} of length L (σ from ``LocalScale``, σmax = max(σᵢ, σⱼ)) is dropped when
/// 1. `maxEdge` is set and L > maxEdge (an absolute cap), or L > `farFactor` × the median σ of the
///    data (a cap relative to the data's own spacing: a POI kilometres from everything else is
///    isolated, not joined to the city by an edge thousands of times its spacing);
/// 2. `factor` > 0 and L > factor × σmax (long for both neighbourhoods);
/// 3. the edge crosses a void — an empty band or area (a river, a park, a rail yard) that is wide
///    for the POIs on both sides: ``VoidEdges`` finds these from the Delaunay triangulation, for
///    either method. σ at a bank is inflated (its nearest locations lie on one side only), which is
///    why rule 2 alone keeps bands of 2.5–4 spacings.
/// Zero-length edges (coincident points) are never dropped. Every rule is symmetric in i and j,
/// so the result is still an undirected CSR graph.
enum EdgePruning {
    struct Counts {
        var droppedByMaxEdge = 0
        var droppedByLocalScale = 0
        var droppedByEmptyBand = 0
    }

    enum Verdict { case keep, maxEdge, localScale, emptyBand }

    /// The pruning rules' settings.
    struct Rules {
        /// Absolute cap in metres (rule 1), from `max_edge_m` and `far_factor` × median σ.
        var cap: Double?
        var factor: Double
        /// Delaunay graphs: per CSR entry, 1 when its edge crosses a void (``VoidEdges``).
        var voidFlags: [UInt8]?

        var isEmpty: Bool { cap == nil && factor <= 0 && voidFlags == nil }
    }

    /// The rule for edge `e` = {i, j} of the unpruned graph.
    @inline(__always)
    static func verdict(
        i: Int, j: Int, e: Int, rules: Rules, voids: UnsafeBufferPointer<UInt8>, offsets: UnsafeBufferPointer<UInt64>,
        nb: UnsafeBufferPointer<UInt32>, len: UnsafeBufferPointer<Float>, scale: UnsafeBufferPointer<Float>,
        x: UnsafeBufferPointer<Double>, y: UnsafeBufferPointer<Double>
    ) -> Verdict {
        let l = Double(len[e])
        if l == 0 { return .keep }
        if let cap = rules.cap, l > cap { return .maxEdge }
        if rules.factor > 0 && l > rules.factor * Double(max(scale[i], scale[j])) { return .localScale }
        if !voids.isEmpty && voids[e] != 0 { return .emptyBand }
        return .keep
    }

    static func prune(
        _ graph: AdjacencyGraph, x: UnsafeBufferPointer<Double>, y: UnsafeBufferPointer<Double>, rules: Rules
    ) -> (AdjacencyGraph, Counts) {
        if rules.isEmpty { return (graph, Counts()) }
        let voidFlags = rules.voidFlags ?? []
        return voidFlags.withUnsafeBufferPointer { voids in prune(graph, x: x, y: y, rules: rules, voids: voids) }
    }

    private static func prune(
        _ graph: AdjacencyGraph, x: UnsafeBufferPointer<Double>, y: UnsafeBufferPointer<Double>, rules: Rules,
        voids: UnsafeBufferPointer<UInt8>
    ) -> (AdjacencyGraph, Counts) {
        let n = graph.nodeCount
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
                                                i: i, j: j, e: e, rules: rules, voids: voids, offsets: offsets, nb: nb,
                                                len: len, scale: scale, x: x, y: y)
                                            {
                                            case .keep: keep += 1
                                            case .maxEdge: if i < j { local.droppedByMaxEdge += 1 }
                                            case .localScale: if i < j { local.droppedByLocalScale += 1 }
                                            case .emptyBand: if i < j { local.droppedByEmptyBand += 1 }
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
            counts.droppedByEmptyBand += c.droppedByEmptyBand
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
                                                    i: i, j: j, e: e, rules: rules, voids: voids, offsets: offsets,
                                                    nb: nb, len: len, scale: scale, x: x, y: y) == .keep
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
