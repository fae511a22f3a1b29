import RegionSearchCore
import RegionSearchModel

/// The local spacing σᵢ of every point: how far apart points normally are around it.
///
/// σᵢ is the distance from point i to its `scaleK`-th nearest *other location* (coincident
/// points are one location and do not count), exactly, with ties by index; with fewer other
/// locations it is the distance to the farthest. Duplicates share their location's σ. When all
/// points coincide, σ is ``fallbackMetres``.
///
/// For a kNN graph with scaleK ≤ k this is the distance to the scaleK-th nearest graph
/// neighbour, read off the kNN lists. It is deliberately *not* the scaleK-th shortest Delaunay
/// edge: a point on the edge of a dense area that faces an empty river or park has only about
/// half of its Delaunay edges inside its own area, the rest bridging the gap, so that definition
/// inflates σ exactly where pruning must act (in a two-blob test it kept a third of the bridges).
/// Nearest locations stay inside the point's own area, so σ is the same for both methods.
///
/// On a Delaunay graph the nearest locations are found by best-first search along its edges
/// (``DelaunayNeighborSearch``, which says why that is exact without a spatial index).
public enum LocalScale {
    /// σ when a location has no other location at all.
    public static let fallbackMetres: Float = 1

    /// σ per point from a Delaunay graph (over the distinct locations, plus zero-length edges
    /// from duplicates to their representatives), by best-first search from each location.
    static func compute(
        delaunay graph: AdjacencyGraph, x: UnsafeBufferPointer<Double>, y: UnsafeBufferPointer<Double>,
        groups: CoincidentPoints, scaleK: Int
    ) -> [Float] {
        let n = x.count
        let k = max(1, scaleK)
        var scale = [Float](repeating: fallbackMetres, count: n)
        let workers = max(1, min(Parallel.threadCount, n / 4096))
        let share = (n + workers - 1) / workers
        scale.withUnsafeMutableBufferPointer { out in
            graph.offsets.withUnsafeBufferPointer { offsets in
                graph.neighbors.withUnsafeBufferPointer { nb in
                    groups.representative.withUnsafeBufferPointer { rep in
                        let out = out
                        Parallel.forEach(workers) { w in
                            let search = DelaunayNeighborSearch(
                                offsets: offsets, neighbors: nb, representative: rep, x: x, y: y)
                            for i in (w * share)..<min(n, (w + 1) * share) where Int(rep[i]) == i {
                                var last = 0.0
                                if search.nearest(i, k: k, { _, d2 in last = d2 }) > 0 {
                                    out[i] = Float(last.squareRoot())
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

    /// σ per point, from each location's neighbour list (`neighbors[p * k ..< (p + 1) * k]`,
    /// nearest first, indices into the locations) — computed here when `knn` is nil or too short.
    static func compute(
        x: UnsafeBufferPointer<Double>, y: UnsafeBufferPointer<Double>, groups: CoincidentPoints,
        scaleK: Int, knn: NearestNeighbors?
    ) -> [Float] {
        let n = x.count
        let unique = groups.unique
        let u = unique.count
        var lists: NearestNeighbors
        if let knn, knn.k >= min(scaleK, u - 1) {
            lists = knn
        } else {
            var ux = [Double](repeating: 0, count: u)
            var uy = [Double](repeating: 0, count: u)
            for (p, i) in unique.enumerated() {
                ux[p] = x[Int(i)]
                uy[p] = y[Int(i)]
            }
            lists = ux.withUnsafeBufferPointer { ux in
                uy.withUnsafeBufferPointer { uy in NearestNeighbors(x: ux, y: uy, k: scaleK) }
            }
        }
        let k = lists.k
        let rank = min(scaleK, k)  // 1-based; 0 when there is no other location
        var scale = [Float](repeating: fallbackMetres, count: n)
        scale.withUnsafeMutableBufferPointer { out in
            unique.withUnsafeBufferPointer { unique in
                lists.neighbors.withUnsafeBufferPointer { nb in
                    let out = out
                    if rank > 0 {
                        Parallel.forRanges(u, minChunk: 8192) { range in
                            for p in range {
                                let i = Int(unique[p])
                                let j = Int(unique[Int(nb[p * k + rank - 1])])
                                let dx = x[i] - x[j]
                                let dy = y[i] - y[j]
                                out[i] = Float((dx * dx + dy * dy).squareRoot())
                            }
                        }
                    }
                    groups.representative.withUnsafeBufferPointer { rep in
                        for i in 0..<n where Int(rep[i]) != i { out[i] = out[Int(rep[i])] }
                    }
                }
            }
        }
        return scale
    }
}
