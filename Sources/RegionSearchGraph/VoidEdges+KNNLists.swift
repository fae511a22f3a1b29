import RegionSearchCore
import RegionSearchModel

extension VoidEdges {
    /// The kNN edges that cross a void, found on the nearest-location lists before their union
    /// is built: the pairs (i, j) of point indices, both directions, ascending as
    /// `UInt64(i) << 32 | j`. ``flags(of:voidPairs:)`` then gives the union's CSR entries the
    /// flags ``knnFlags(knn:delaunay:delaunayFlags:)`` gives them.
    ///
    /// The test is that of `knnFlags`, entry by entry: an edge crosses a void when it is a flagged
    /// Delaunay edge, or when it is not a Delaunay edge and no two-edge Delaunay path crossing no
    /// void joins its ends. Both are symmetric (a void triangle's edge is flagged both ways), so
    /// testing each directed list entry covers the union's edges, whichever end listed the other.
    /// Why here: the Delaunay rows and their flags can go before the union is built, so the
    /// graph stage's peak memory is not raised by holding both graphs at once.
    ///
    /// `lists[p * k ..< (p + 1) * k]` are positions in `unique`; `delaunay` is the CSR of the same
    /// locations' triangulation (point indices), `delaunayFlags` its entries' void flags.
    static func knnVoidPairs(
        lists: [UInt32], k: Int, unique: [UInt32], delaunay: AdjacencyGraph, delaunayFlags: [UInt8]
    ) -> [UInt64] {
        guard k > 0, !unique.isEmpty else { return [] }
        return lists.withUnsafeBufferPointer { lists in
            unique.withUnsafeBufferPointer { unique in
                voidPairs(
                    ListRows(lists: lists, k: k, unique: unique), delaunay: delaunay, delaunayFlags: delaunayFlags)
            }
        }
    }

    /// The void flags of a kNN graph's CSR entries (its edges of positive length), from the
    /// Delaunay triangulation of the same locations: `delaunay` is its CSR, `delaunayFlags` its
    /// entries' flags (``flags(triangulation:unique:x:y:graph:radius:minTriangles:)``). The same
    /// test as ``knnVoidPairs(lists:k:unique:delaunay:delaunayFlags:)``, on rows already joined
    /// (the tiles' graphs).
    static func knnFlags(knn: AdjacencyGraph, delaunay: AdjacencyGraph, delaunayFlags: [UInt8]) -> [UInt8] {
        let pairs = knn.offsets.withUnsafeBufferPointer { offsets in
            knn.neighbors.withUnsafeBufferPointer { neighbors in
                knn.length.withUnsafeBufferPointer { length in
                    voidPairs(
                        CSRRows(offsets: offsets, neighbors: neighbors, length: length), delaunay: delaunay,
                        delaunayFlags: delaunayFlags)
                }
            }
        }
        return flags(of: knn, voidPairs: pairs)
    }

    /// Rows of kNN targets to test: a point and the points it lists.
    fileprivate protocol TargetRows {
        var count: Int { get }
        func point(_ row: Int) -> Int
        func forEachTarget(_ row: Int, _ body: (Int) -> Void)
    }

    /// The nearest-location lists, `k` per unique location, as positions in `unique`.
    fileprivate struct ListRows: TargetRows {
        let lists: UnsafeBufferPointer<UInt32>
        let k: Int
        let unique: UnsafeBufferPointer<UInt32>
        var count: Int { unique.count }
        func point(_ row: Int) -> Int { Int(unique[row]) }
        @inline(__always) func forEachTarget(_ row: Int, _ body: (Int) -> Void) {
            for t in (row * k)..<(row * k + k) { body(Int(unique[Int(lists[t])])) }
        }
    }

    /// A kNN graph's CSR rows, its edges of positive length.
    fileprivate struct CSRRows: TargetRows {
        let offsets: UnsafeBufferPointer<UInt64>
        let neighbors: UnsafeBufferPointer<UInt32>
        let length: UnsafeBufferPointer<Float>
        var count: Int { offsets.count - 1 }
        func point(_ row: Int) -> Int { row }
        @inline(__always) func forEachTarget(_ row: Int, _ body: (Int) -> Void) {
            for e in Int(offsets[row])..<Int(offsets[row + 1]) where length[e] > 0 { body(Int(neighbors[e])) }
        }
    }

    /// Per point, its Delaunay neighbours (with their entries) and the ends of its two-edge paths
    /// that cross no void are marked in stamp arrays, one set per worker, so each target is two
    /// lookups instead of binary searches; rows are independent, so any thread count gives the
    /// same pairs.
    fileprivate static func voidPairs<Rows: TargetRows>(
        _ rows: Rows, delaunay: AdjacencyGraph, delaunayFlags: [UInt8]
    ) -> [UInt64] {
        let u = rows.count
        let n = delaunay.nodeCount
        guard u > 0 else { return [] }
        let workers = max(1, min(Parallel.threadCount, u / 4096))
        let share = (u + workers - 1) / workers
        var found = [[UInt64]](repeating: [], count: workers)
        found.withUnsafeMutableBufferPointer { found in
            let found = found
            delaunay.offsets.withUnsafeBufferPointer { dof in
                delaunay.neighbors.withUnsafeBufferPointer { dn in
                    delaunayFlags.withUnsafeBufferPointer { df in
                        Parallel.forEach(workers) { w in
                            // direct[v] == i + 1: v is a Delaunay neighbour of i, at entry entry[v];
                            // reach[v] == i + 1: i → k → v by two Delaunay edges crossing no void.
                            let direct = UnsafeMutablePointer<UInt32>.allocate(capacity: n)
                            let entry = UnsafeMutablePointer<Int32>.allocate(capacity: n)
                            let reach = UnsafeMutablePointer<UInt32>.allocate(capacity: n)
                            direct.initialize(repeating: 0, count: n)
                            entry.initialize(repeating: 0, count: n)
                            reach.initialize(repeating: 0, count: n)
                            defer {
                                direct.deallocate()
                                entry.deallocate()
                                reach.deallocate()
                            }
                            var pairs: [UInt64] = []
                            for p in (w * share)..<min(u, (w + 1) * share) {
                                let i = rows.point(p)
                                let mark = UInt32(truncatingIfNeeded: i + 1)
                                let lo = Int(dof[i])
                                let hi = Int(dof[i + 1])
                                for d in lo..<hi {
                                    let v = Int(dn[d])
                                    direct[v] = mark
                                    entry[v] = Int32(truncatingIfNeeded: d)
                                }
                                var reached = false
                                rows.forEachTarget(p) { j in
                                    let crosses: Bool
                                    if direct[j] == mark {
                                        crosses = df[Int(entry[j])] != 0
                                    } else {
                                        if !reached {
                                            for d in lo..<hi where df[d] == 0 {
                                                let m = Int(dn[d])
                                                for d2 in Int(dof[m])..<Int(dof[m + 1]) where df[d2] == 0 {
                                                    reach[Int(dn[d2])] = mark
                                                }
                                            }
                                            reached = true
                                        }
                                        crosses = reach[j] != mark
                                    }
                                    if crosses {
                                        pairs.append(UInt64(i) << 32 | UInt64(j))
                                        pairs.append(UInt64(j) << 32 | UInt64(i))
                                    }
                                }
                            }
                            found[w] = pairs
                        }
                    }
                }
            }
        }
        var pairs = found.flatMap { $0 }
        // Both ends may list each other: each pair once.
        pairs.sort()
        var kept = 0
        for e in 0..<pairs.count where e == 0 || pairs[e] != pairs[kept - 1] {
            pairs[kept] = pairs[e]
            kept += 1
        }
        pairs.removeLast(pairs.count - kept)
        return pairs
    }

    /// Flags the CSR entries of `graph` (rows sorted by neighbour) that are among `voidPairs`
    /// (from ``knnVoidPairs(lists:k:unique:delaunay:delaunayFlags:)``); every pair must be an entry.
    static func flags(of graph: AdjacencyGraph, voidPairs: [UInt64]) -> [UInt8] {
        var flags = [UInt8](repeating: 0, count: graph.neighbors.count)
        graph.offsets.withUnsafeBufferPointer { offsets in
            graph.neighbors.withUnsafeBufferPointer { nb in
                for pair in voidPairs {
                    let e = Self.entry(Int(pair >> 32), Int(pair & 0xFFFF_FFFF), offsets: offsets, neighbors: nb)
                    precondition(e != nil, "a void pair that is not an edge of the kNN graph")
                    flags[e!] = 1
                }
            }
        }
        return flags
    }
}
