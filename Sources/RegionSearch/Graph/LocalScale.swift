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
/// On a Delaunay graph the nearest locations are found by best-first search along its edges:
/// the i-th nearest location of p is a Delaunay neighbour of p or of one of its i − 1 nearer
/// ones (the largest empty circle through it, centred on the segment to p, touches one of them),
/// also with cocircular points, so the search is exact without a spatial index.
public enum LocalScale {
    /// σ when a location has no other location at all.
    public static let fallbackMetres: Float = 1

    /// σ per point from a Delaunay graph (over the distinct locations, plus zero-length edges
    /// from duplicates to their representatives), by best-first search from each location.
    static func compute(delaunay graph: AdjacencyGraph, x: UnsafeBufferPointer<Double>, y: UnsafeBufferPointer<Double>,
        groups: CoincidentPoints, scaleK: Int) -> [Float]
    {
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
                            // seen[m] == i + 1 marks location m as reached from i (no clearing needed).
                            var seen = [UInt32](repeating: 0, count: n)
                            var frontierD: [Double] = [], frontierI: [Int] = []
                            frontierD.reserveCapacity(64)
                            frontierI.reserveCapacity(64)
                            seen.withUnsafeMutableBufferPointer { seen in
                                for i in (w * share)..<min(n, (w + 1) * share) where Int(rep[i]) == i {
                                    let mark = UInt32(truncatingIfNeeded: i + 1)
                                    seen[i] = mark
                                    frontierD.removeAll(keepingCapacity: true)
                                    frontierI.removeAll(keepingCapacity: true)
                                    let xi = x[i], yi = y[i]
                                    var from = i
                                    var popped = 0
                                    var last = 0.0
                                    while true {
                                        for e in Int(offsets[from])..<Int(offsets[from + 1]) {
                                            let m = Int(nb[e])
                                            // Only other locations: duplicates are not.
                                            if Int(rep[m]) != m || seen[m] == mark { continue }
                                            seen[m] = mark
                                            let dx = xi - x[m], dy = yi - y[m]
                                            frontierD.append(dx * dx + dy * dy)
                                            frontierI.append(m)
                                        }
                                        if frontierD.isEmpty { break }
                                        var best = 0
                                        for c in 1..<frontierD.count
                                        where frontierD[c] < frontierD[best]
                                            || (frontierD[c] == frontierD[best] && frontierI[c] < frontierI[best])
                                        {
                                            best = c
                                        }
                                        last = frontierD[best]
                                        from = frontierI[best]
                                        frontierD.swapAt(best, frontierD.count - 1)
                                        frontierI.swapAt(best, frontierI.count - 1)
                                        frontierD.removeLast()
                                        frontierI.removeLast()
                                        popped += 1
                                        if popped == k { break }
                                    }
                                    if popped > 0 { out[i] = Float(last.squareRoot()) }
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
    static func compute(x: UnsafeBufferPointer<Double>, y: UnsafeBufferPointer<Double>, groups: CoincidentPoints,
        scaleK: Int, knn: NearestNeighbors?) -> [Float]
    {
        let n = x.count
        let unique = groups.unique
        let u = unique.count
        var lists: NearestNeighbors
        if let knn, knn.k >= min(scaleK, u - 1) {
            lists = knn
        } else {
            var ux = [Double](repeating: 0, count: u), uy = [Double](repeating: 0, count: u)
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
                                let i = Int(unique[p]), j = Int(unique[Int(nb[p * k + rank - 1])])
                                let dx = x[i] - x[j], dy = y[i] - y[j]
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
