/// The local spacing σᵢ of every point: how far apart points normally are around it.
///
/// σᵢ is the length of point i's `scaleK`-th shortest edge to a neighbour at a *different*
/// location (zero-length edges to coincident points are ignored); with fewer such neighbours it
/// is the longest of them. For a kNN graph (with scaleK ≤ k) that is exactly the scaleK-th
/// nearest-neighbour distance among distinct locations; for a Delaunay graph it is the
/// scaleK-th shortest Delaunay edge. Duplicates take their representative's σ (same place, same
/// neighbourhood); a point with no neighbour elsewhere at all (every point coincides) gets
/// ``fallbackMetres``.
public enum LocalScale {
    /// σ when a location has no neighbour at a different location.
    public static let fallbackMetres: Float = 1

    /// σ per node of `graph` (computed on the unpruned graph).
    static func compute(graph: AdjacencyGraph, scaleK: Int, representative: [UInt32]) -> [Float] {
        let n = graph.nodeCount
        var scale = [Float](repeating: 0, count: n)
        let k = max(1, scaleK)
        scale.withUnsafeMutableBufferPointer { out in
            graph.offsets.withUnsafeBufferPointer { offsets in
                graph.length.withUnsafeBufferPointer { length in
                    representative.withUnsafeBufferPointer { rep in
                        let out = out
                        Parallel.forRanges(n, minChunk: 8192) { range in
                            withUnsafeTemporaryAllocation(of: Float.self, capacity: k) { best in
                                for i in range where Int(rep[i]) == i {
                                    // The k smallest positive lengths, ascending.
                                    var count = 0
                                    for e in Int(offsets[i])..<Int(offsets[i + 1]) {
                                        let l = length[e]
                                        guard l > 0 else { continue }
                                        if count == k && l >= best[k - 1] { continue }
                                        var s = count == k ? k - 1 : count
                                        if count < k { count += 1 }
                                        while s > 0 && best[s - 1] > l {
                                            best[s] = best[s - 1]
                                            s -= 1
                                        }
                                        best[s] = l
                                    }
                                    out[i] = count == 0 ? fallbackMetres : best[count - 1]
                                }
                            }
                        }
                        for i in 0..<n where Int(rep[i]) != i { out[i] = out[Int(rep[i])] }
                    }
                }
            }
        }
        return scale
    }
}
