import RegionSearchCore
import RegionSearchModel

/// The nearest other locations of a location, in order, by best-first search along the edges of
/// a Delaunay graph — exact without a spatial index.
///
/// Why exact: the i-th nearest location q of p is a Delaunay neighbour of p or of one of its
/// i − 1 nearer ones. The closed disc on pq as diameter holds, besides p and q, only points
/// strictly nearer to p than q; if it holds none, pq is a Gabriel edge and so a Delaunay edge
/// (in every triangulation of cocircular points too); otherwise q is a neighbour of a strictly
/// nearer point, found first. So when the first location at some distance d is taken from the
/// frontier, every location at distance d is in it, and taking the least (squared distance, then
/// index) gives the order a sort gives, ties included.
///
/// That holds for exact distances; the order is by the rounded dx² + dy² (as the k-d tree's).
/// Two points a few ulps apart can round the other way round, or to one value: q then ranks
/// first but is reached only through r, exactly nearer and rounded no nearer. Every point on the
/// way to q rounds to within a relative 4 ulps of q, so before an entry is taken, every entry
/// within a relative 1e-14 of the least is expanded (its neighbours joined to the frontier), until
/// none is left unexpanded; the least is then taken. Entries are expanded once, so an ordinary
/// step expands just the entry it takes, as before.
///
/// One search per worker thread: it owns its stamp array (`seen[m] == i + 1` marks location m as
/// reached from i, so nothing is cleared between locations) and its frontier, freed in `deinit`.
/// The graph is the CSR of the triangulation of the distinct locations plus the zero-length links
/// from duplicates to their representatives; duplicates are skipped, so they never count.
final class DelaunayNeighborSearch {
    private let offsets: UnsafeBufferPointer<UInt64>
    private let neighbors: UnsafeBufferPointer<UInt32>
    private let representative: UnsafeBufferPointer<UInt32>
    private let x: UnsafeBufferPointer<Double>
    private let y: UnsafeBufferPointer<Double>
    private let seen: UnsafeMutablePointer<UInt32>
    private var capacity = 256
    private var frontierDistance: UnsafeMutablePointer<Double>
    private var frontierIndex: UnsafeMutablePointer<Int32>
    /// 1 once the entry's neighbours are in the frontier.
    private var frontierExpanded: UnsafeMutablePointer<UInt8>

    /// A search over `graph` (buffers of its `offsets` and `neighbors`); the buffers must outlive it.
    init(
        offsets: UnsafeBufferPointer<UInt64>, neighbors: UnsafeBufferPointer<UInt32>,
        representative: UnsafeBufferPointer<UInt32>, x: UnsafeBufferPointer<Double>, y: UnsafeBufferPointer<Double>
    ) {
        self.offsets = offsets
        self.neighbors = neighbors
        self.representative = representative
        self.x = x
        self.y = y
        seen = UnsafeMutablePointer<UInt32>.allocate(capacity: x.count)
        seen.initialize(repeating: 0, count: x.count)
        frontierDistance = UnsafeMutablePointer<Double>.allocate(capacity: capacity)
        frontierIndex = UnsafeMutablePointer<Int32>.allocate(capacity: capacity)
        frontierExpanded = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
    }

    deinit {
        seen.deallocate()
        frontierDistance.deallocate()
        frontierIndex.deallocate()
        frontierExpanded.deallocate()
    }

    /// Joins the locations next to `from` not reached yet to the frontier's `count` entries, at
    /// their squared distance from (xi, yi); returns the new count.
    @inline(__always)
    private func expand(_ from: Int, _ xi: Double, _ yi: Double, _ mark: UInt32, _ count: Int) -> Int {
        let lo = Int(offsets[from])
        let hi = Int(offsets[from + 1])
        if count + (hi - lo) > capacity { grow(to: count + hi - lo, keeping: count) }
        let fd = frontierDistance
        let fi = frontierIndex
        let fe = frontierExpanded
        var c = count
        for e in lo..<hi {
            let m = Int(neighbors[e])
            // Only other locations not reached yet (duplicates are not locations): written
            // always and counted only then, so the loop has no branch to mispredict.
            let dx = xi - x[m]
            let dy = yi - y[m]
            fd[c] = dx * dx + dy * dy
            fi[c] = Int32(truncatingIfNeeded: m)
            fe[c] = 0
            let fresh = Int(representative[m]) == m && seen[m] != mark
            seen[m] = Int(representative[m]) == m ? mark : seen[m]
            c &+= fresh ? 1 : 0
        }
        return c
    }

    /// Calls `visit(m, d²)` for the nearest other locations m of location `i` (a representative),
    /// nearest first (ties by index), at most `k` of them; returns how many there were.
    @inline(__always)
    func nearest(_ i: Int, k: Int, _ visit: (Int, Double) -> Void) -> Int {
        let mark = UInt32(truncatingIfNeeded: i + 1)
        seen[i] = mark
        let xi = x[i]
        let yi = y[i]
        var count = expand(i, xi, yi, mark, 0)
        var popped = 0
        while popped < k && count > 0 {
            // The least squared distance (a loop the compiler vectorises); then one pass that
            // expands every entry near it (appending their neighbours, which the same pass then
            // reads: only they can hold a nearer entry) and keeps the lowest index at the least.
            // Locals for the hot loops, read again after an expansion (which may move the buffers).
            var fd = frontierDistance
            var fi = frontierIndex
            var fe = frontierExpanded
            var n = count
            var least = fd[0]
            for c in 1..<n { least = min(least, fd[c]) }
            var limit = least + least * 1e-14
            var best = 0
            var bestIndex = Int32.max
            var c = 0
            while c < n {
                let d = fd[c]
                if d <= limit {
                    if fe[c] == 0 {
                        fe[c] = 1
                        count = expand(Int(fi[c]), xi, yi, mark, count)
                        (fd, fi, fe, n) = (frontierDistance, frontierIndex, frontierExpanded, count)
                    }
                    let index = fi[c]
                    if d < least {
                        least = d
                        limit = least + least * 1e-14
                        best = c
                        bestIndex = index
                    } else if d == least && index < bestIndex {
                        best = c
                        bestIndex = index
                    }
                }
                c += 1
            }
            visit(Int(fi[best]), fd[best])
            count -= 1
            fd[best] = fd[count]
            fi[best] = fi[count]
            fe[best] = fe[count]
            popped += 1
        }
        return popped
    }

    /// A hub (e.g. the centre of a ring of points): a larger frontier, its first `count` entries kept.
    private func grow(to needed: Int, keeping count: Int) {
        let bigger = max(2 * capacity, needed)
        let nd = UnsafeMutablePointer<Double>.allocate(capacity: bigger)
        let ni = UnsafeMutablePointer<Int32>.allocate(capacity: bigger)
        let ne = UnsafeMutablePointer<UInt8>.allocate(capacity: bigger)
        nd.update(from: frontierDistance, count: count)
        ni.update(from: frontierIndex, count: count)
        ne.update(from: frontierExpanded, count: count)
        frontierDistance.deallocate()
        frontierIndex.deallocate()
        frontierExpanded.deallocate()
        (frontierDistance, frontierIndex, frontierExpanded, capacity) = (nd, ni, ne, bigger)
    }
}

extension NearestNeighbors {
    /// The exact k nearest other locations of every location, from the Delaunay graph of the
    /// locations (see ``DelaunayNeighborSearch``): the same lists as the k-d tree gives (positions
    /// in `groups.unique`, nearest first, ties by index), without building a tree when the
    /// triangulation is at hand anyway. Nil if the graph does not reach k other locations from
    /// every location (a triangulation always does; the caller then falls back to the tree).
    init?(
        delaunay graph: AdjacencyGraph, x: UnsafeBufferPointer<Double>, y: UnsafeBufferPointer<Double>,
        groups: CoincidentPoints, k requested: Int
    ) {
        let unique = groups.unique
        let u = unique.count
        let k = max(0, min(requested, u - 1))
        guard k > 0 else {
            self.init(k: 0, neighbors: [])
            return
        }
        // Point index → position among the locations (duplicates never appear in a list).
        var position = [UInt32](repeating: 0, count: x.count)
        for (p, i) in unique.enumerated() { position[Int(i)] = UInt32(truncatingIfNeeded: p) }
        var out = [UInt32](repeating: 0, count: u * k)
        let workers = max(1, min(Parallel.threadCount, u / 4096))
        let share = (u + workers - 1) / workers
        var complete = [Bool](repeating: true, count: workers)
        out.withUnsafeMutableBufferPointer { out in
            complete.withUnsafeMutableBufferPointer { complete in
                let out = out
                let complete = complete
                graph.offsets.withUnsafeBufferPointer { offsets in
                    graph.neighbors.withUnsafeBufferPointer { nb in
                        groups.representative.withUnsafeBufferPointer { rep in
                            unique.withUnsafeBufferPointer { unique in
                                position.withUnsafeBufferPointer { position in
                                    Parallel.forEach(workers) { w in
                                        let search = DelaunayNeighborSearch(
                                            offsets: offsets, neighbors: nb, representative: rep, x: x, y: y)
                                        for p in (w * share)..<min(u, (w + 1) * share) {
                                            var slot = p * k
                                            let found = search.nearest(Int(unique[p]), k: k) { m, _ in
                                                out[slot] = position[m]
                                                slot += 1
                                            }
                                            if found < k { complete[w] = false }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        guard !complete.contains(false) else { return nil }
        self.init(k: k, neighbors: out)
    }
}
