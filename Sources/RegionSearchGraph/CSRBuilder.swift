import RegionSearchCore
import RegionSearchModel

/// Builds the CSR ``AdjacencyGraph`` from undirected edge lists, in parallel and deterministically.
///
/// Edges may be listed in any order, in either direction and more than once; self-loops are
/// ignored. Rows come out sorted by neighbour index without repeats, with edge lengths computed
/// as `Float(√((xᵢ − xⱼ)² + (yᵢ − yⱼ)²))` from the double coordinates. Every phase runs on
/// ``Parallel`` over node ranges whose results do not depend on the split, so the bytes are the
/// same for any thread count.
enum CSRBuilder {
    static func build(
        nodeCount n: Int, a: [UInt32], b: [UInt32], x: UnsafeBufferPointer<Double>,
        y: UnsafeBufferPointer<Double>
    ) -> AdjacencyGraph {
        precondition(a.count == b.count)
        // Rows are split into one contiguous node range per thread; each thread scans the whole
        // edge list and handles only the endpoints in its range, so every row receives its
        // entries in edge-list order whatever the thread count.
        let parts = max(1, min(Parallel.threadCount, n / 4096))
        let partSize = (n + parts - 1) / parts
        var start = [UInt64](repeating: 0, count: n + 1)
        start.withUnsafeMutableBufferPointer { start in
            a.withUnsafeBufferPointer { a in
                b.withUnsafeBufferPointer { b in
                    let start = start
                    Parallel.forEach(parts) { part in
                        let lo = UInt32(truncatingIfNeeded: part * partSize)
                        let span = UInt32(truncatingIfNeeded: min(n, (part + 1) * partSize) - part * partSize)
                        for e in 0..<a.count {
                            let u = a[e]
                            let v = b[e]
                            if u == v { continue }
                            // Unsigned wrap-around makes this a single range test.
                            if u &- lo < span { start[Int(u) + 1] += 1 }
                            if v &- lo < span { start[Int(v) + 1] += 1 }
                        }
                    }
                }
            }
            for i in 0..<n { start[i + 1] += start[i] }
        }
        let total = Int(start[n])
        var scattered = [UInt32](repeating: 0, count: total)
        var fill = start
        scattered.withUnsafeMutableBufferPointer { nb in
            fill.withUnsafeMutableBufferPointer { fill in
                a.withUnsafeBufferPointer { a in
                    b.withUnsafeBufferPointer { b in
                        let nb = nb
                        let fill = fill
                        Parallel.forEach(parts) { part in
                            let lo = UInt32(truncatingIfNeeded: part * partSize)
                            let span = UInt32(truncatingIfNeeded: min(n, (part + 1) * partSize) - part * partSize)
                            for e in 0..<a.count {
                                let u = a[e]
                                let v = b[e]
                                if u == v { continue }
                                if u &- lo < span {
                                    nb[Int(fill[Int(u)])] = v
                                    fill[Int(u)] += 1
                                }
                                if v &- lo < span {
                                    nb[Int(fill[Int(v)])] = u
                                    fill[Int(v)] += 1
                                }
                            }
                        }
                    }
                }
            }
        }
        fill = []
        // Sort and deduplicate each row in place; remember its new length.
        var kept = [UInt64](repeating: 0, count: n + 1)
        scattered.withUnsafeMutableBufferPointer { nb in
            start.withUnsafeBufferPointer { start in
                kept.withUnsafeMutableBufferPointer { kept in
                    let nb = nb
                    let kept = kept
                    Parallel.forRanges(n, minChunk: 8192) { range in
                        for i in range {
                            let lo = Int(start[i])
                            let hi = Int(start[i + 1])
                            sortRow(nb, lo, hi)
                            var w = lo
                            var last = UInt32.max
                            for k in lo..<hi where nb[k] != last {
                                last = nb[k]
                                nb[w] = last
                                w += 1
                            }
                            kept[i + 1] = UInt64(w - lo)
                        }
                    }
                }
            }
        }
        for i in 0..<n { kept[i + 1] += kept[i] }
        let m = Int(kept[n])
        var neighbors = [UInt32](repeating: 0, count: m)
        var length = [Float](repeating: 0, count: m)
        neighbors.withUnsafeMutableBufferPointer { out in
            length.withUnsafeMutableBufferPointer { len in
                scattered.withUnsafeBufferPointer { nb in
                    start.withUnsafeBufferPointer { start in
                        kept.withUnsafeBufferPointer { offsets in
                            let out = out
                            let len = len
                            Parallel.forRanges(n, minChunk: 8192) { range in
                                for i in range {
                                    let from = Int(start[i])
                                    let to = Int(offsets[i])
                                    let count = Int(offsets[i + 1]) - to
                                    let xi = x[i]
                                    let yi = y[i]
                                    for k in 0..<count {
                                        let j = nb[from + k]
                                        out[to + k] = j
                                        let dx = xi - x[Int(j)]
                                        let dy = yi - y[Int(j)]
                                        len[to + k] = Float((dx * dx + dy * dy).squareRoot())
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        return AdjacencyGraph(
            offsets: kept, neighbors: neighbors, length: length,
            scale: [Float](repeating: 0, count: n))
    }

    /// The CSR graph of a triangulation of the distinct locations plus the duplicate links, exactly
    /// as ``build(nodeCount:a:b:x:y:)`` makes it from the mesh's edges (through `groups.unique`) and
    /// the duplicate links, without the edge lists, the counting passes over them per thread and the
    /// removal of repeats: every halfedge gives its row one neighbour and a hull halfedge (no twin)
    /// gives the other end's row one too, so each edge is listed once per direction. Nil for a mesh
    /// without triangles (collinear points: the caller uses the generic builder on the chain).
    static func buildDelaunay(
        mesh: TriangleMesh, groups: CoincidentPoints, x: UnsafeBufferPointer<Double>, y: UnsafeBufferPointer<Double>
    ) -> AdjacencyGraph? {
        guard mesh.triangleCount > 0 else { return nil }
        let n = x.count
        var offsets = [UInt64](repeating: 0, count: n + 1)
        var neighbors: [UInt32] = []
        mesh.triangles.withUnsafeBufferPointer { tri in
            mesh.halfedges.withUnsafeBufferPointer { half in
                groups.unique.withUnsafeBufferPointer { unique in
                    groups.representative.withUnsafeBufferPointer { rep in
                        offsets.withUnsafeMutableBufferPointer { offsets in
                            // Row sizes, shifted by one for the prefix sum.
                            for e in 0..<tri.count {
                                offsets[Int(unique[Int(tri[e])]) + 1] += 1
                                if half[e] < 0 { offsets[Int(unique[Int(tri[TriangleMesh.next(e)])]) + 1] += 1 }
                            }
                            for i in 0..<n where Int(rep[i]) != i {
                                offsets[i + 1] += 1
                                offsets[Int(rep[i]) + 1] += 1
                            }
                            for i in 0..<n { offsets[i + 1] += offsets[i] }
                        }
                        // Filled with offsets[i] as row i's cursor (no second array of n + 1):
                        // afterwards offsets[i] is where row i + 1 starts, shifted back below.
                        neighbors = [UInt32](unsafeUninitializedCapacity: Int(offsets[n])) { nb, count in
                            offsets.withUnsafeMutableBufferPointer { fill in
                                for e in 0..<tri.count {
                                    let u = Int(unique[Int(tri[e])])
                                    let v = unique[Int(tri[TriangleMesh.next(e)])]
                                    nb[Int(fill[u])] = v
                                    fill[u] += 1
                                    if half[e] < 0 {
                                        nb[Int(fill[Int(v)])] = UInt32(truncatingIfNeeded: u)
                                        fill[Int(v)] += 1
                                    }
                                }
                                for i in 0..<n where Int(rep[i]) != i {
                                    let r = Int(rep[i])
                                    nb[Int(fill[i])] = UInt32(truncatingIfNeeded: r)
                                    fill[i] += 1
                                    nb[Int(fill[r])] = UInt32(truncatingIfNeeded: i)
                                    fill[r] += 1
                                }
                                var i = n
                                while i > 0 {
                                    fill[i] = fill[i - 1]
                                    i -= 1
                                }
                                fill[0] = 0
                                count = Int(fill[n])
                            }
                        }
                    }
                }
            }
        }
        var length = [Float](repeating: 0, count: neighbors.count)
        neighbors.withUnsafeMutableBufferPointer { nb in
            length.withUnsafeMutableBufferPointer { len in
                offsets.withUnsafeBufferPointer { offsets in
                    let (nb, len) = (nb, len)
                    Parallel.forRanges(n, minChunk: 8192) { range in
                        for i in range {
                            let lo = Int(offsets[i])
                            let hi = Int(offsets[i + 1])
                            sortRow(nb, lo, hi)
                            let xi = x[i]
                            let yi = y[i]
                            for k in lo..<hi {
                                let j = Int(nb[k])
                                let dx = xi - x[j]
                                let dy = yi - y[j]
                                len[k] = Float((dx * dx + dy * dy).squareRoot())
                            }
                        }
                    }
                }
            }
        }
        return AdjacencyGraph(
            offsets: offsets, neighbors: neighbors, length: length, scale: [Float](repeating: 0, count: n))
    }

    /// The CSR graph of kNN lists over distinct locations plus the duplicate links, exactly as
    /// ``build(nodeCount:a:b:x:y:)`` makes it from the directed pairs, without the edge lists and
    /// row sorts.
    ///
    /// `lists` (k per location, any order; sorted here in place) are over the locations
    /// `groups.unique` (ascending point indices). A representative's
    /// row merges three sorted lists without repeats — its own k neighbours (sorted), the
    /// locations that chose it (sorted because they are filled in location order) and its
    /// duplicates (ascending) — taking a neighbour that is in both of the first two once; the
    /// duplicates are other points, so they never repeat one of those. A duplicate's row is its
    /// representative.
    static func buildKNNUnion(
        lists: inout [UInt32], k: Int, groups: CoincidentPoints, x: UnsafeBufferPointer<Double>,
        y: UnsafeBufferPointer<Double>
    ) -> AdjacencyGraph {
        let n = x.count
        let u = groups.unique.count
        precondition(lists.count == u * k)
        // Each list in location order, in place.
        lists.withUnsafeMutableBufferPointer { own in
            let own = own
            Parallel.forRanges(u, minChunk: 16_384) { range in
                for p in range {
                    let row = own.baseAddress! + p * k
                    var t = 1
                    while t < k {
                        let v = row[t]
                        var s = t
                        while s > 0 && row[s - 1] > v {
                            row[s] = row[s - 1]
                            s -= 1
                        }
                        row[s] = v
                        t += 1
                    }
                }
            }
        }
        let own = lists
        // Locations that chose p, in increasing order; then duplicates per representative.
        var inStart = [UInt64](repeating: 0, count: u + 1)
        var inList = [UInt32](repeating: 0, count: u * k)
        var dupStart = [UInt64](repeating: 0, count: n + 1)
        var dupList = [UInt32](repeating: 0, count: n - u)
        var offsets = [UInt64](repeating: 0, count: n + 1)
        own.withUnsafeBufferPointer { own in
            inStart.withUnsafeMutableBufferPointer { start in
                for e in 0..<(u * k) { start[Int(own[e]) + 1] += 1 }
                for p in 0..<u { start[p + 1] += start[p] }
                var fill = [UInt64](start)
                fill.withUnsafeMutableBufferPointer { fill in
                    inList.withUnsafeMutableBufferPointer { list in
                        for p in 0..<u {
                            for e in (p * k)..<(p * k + k) {
                                let q = Int(own[e])
                                list[Int(fill[q])] = UInt32(truncatingIfNeeded: p)
                                fill[q] += 1
                            }
                        }
                    }
                }
            }
            groups.representative.withUnsafeBufferPointer { rep in
                dupStart.withUnsafeMutableBufferPointer { start in
                    if u < n {
                        for d in 0..<n where Int(rep[d]) != d { start[Int(rep[d]) + 1] += 1 }
                        for i in 0..<n { start[i + 1] += start[i] }
                        var fill = [UInt64](start)
                        dupList.withUnsafeMutableBufferPointer { list in
                            for d in 0..<n where Int(rep[d]) != d {
                                let r = Int(rep[d])
                                list[Int(fill[r])] = UInt32(truncatingIfNeeded: d)
                                fill[r] += 1
                            }
                        }
                    }
                }
            }
            // Row sizes: k + |in| − |both| + duplicates for a representative, 1 for a duplicate.
            inStart.withUnsafeBufferPointer { start in
                inList.withUnsafeBufferPointer { list in
                    dupStart.withUnsafeBufferPointer { dups in
                        groups.unique.withUnsafeBufferPointer { unique in
                            offsets.withUnsafeMutableBufferPointer { degree in
                                let degree = degree
                                if u < n {
                                    groups.representative.withUnsafeBufferPointer { rep in
                                        Parallel.forRanges(n, minChunk: 16_384) { range in
                                            for i in range where Int(rep[i]) != i { degree[i + 1] = 1 }
                                        }
                                    }
                                }
                                Parallel.forRanges(u, minChunk: 8192) { range in
                                    for p in range {
                                        var a = p * k
                                        var b = Int(start[p])
                                        let aEnd = a + k
                                        let bEnd = Int(start[p + 1])
                                        var both = 0
                                        while a < aEnd && b < bEnd {
                                            let v = own[a]
                                            let w = list[b]
                                            if v == w { both += 1 }
                                            a += v <= w ? 1 : 0
                                            b += w <= v ? 1 : 0
                                        }
                                        let i = Int(unique[p])
                                        degree[i + 1] =
                                            UInt64(k + (bEnd - Int(start[p])) - both) + (dups[i + 1] - dups[i])
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        offsets[0] = 0
        for i in 0..<n { offsets[i + 1] += offsets[i] }
        let m = Int(offsets[n])
        var neighbors = [UInt32](repeating: 0, count: m)
        var length = [Float](repeating: 0, count: m)
        own.withUnsafeBufferPointer { own in
            inStart.withUnsafeBufferPointer { start in
                inList.withUnsafeBufferPointer { list in
                    dupStart.withUnsafeBufferPointer { dupStart in
                        dupList.withUnsafeBufferPointer { dupList in
                            groups.unique.withUnsafeBufferPointer { unique in
                                groups.representative.withUnsafeBufferPointer { rep in
                                    offsets.withUnsafeBufferPointer { offsets in
                                        neighbors.withUnsafeMutableBufferPointer { outNb in
                                            length.withUnsafeMutableBufferPointer { outLen in
                                                let outNb = outNb
                                                let outLen = outLen
                                                if u < n {
                                                    Parallel.forRanges(n, minChunk: 16_384) { range in
                                                        for d in range where Int(rep[d]) != d {
                                                            outNb[Int(offsets[d])] = rep[d]
                                                            let r = Int(rep[d])
                                                            let dx = x[d] - x[r]
                                                            let dy = y[d] - y[r]
                                                            outLen[Int(offsets[d])] = Float(
                                                                (dx * dx + dy * dy).squareRoot())
                                                        }
                                                    }
                                                }
                                                Parallel.forRanges(u, minChunk: 8192) { range in
                                                    for p in range {
                                                        let i = Int(unique[p])
                                                        var w = Int(offsets[i])
                                                        var a = p * k
                                                        var b = Int(start[p])
                                                        let aEnd = a + k
                                                        let bEnd = Int(start[p + 1])
                                                        var c = Int(dupStart[i])
                                                        let cEnd = Int(dupStart[i + 1])
                                                        // Next of the merged own/in lists (as a point index), or nil.
                                                        @inline(__always) func nextLocation() -> UInt32? {
                                                            if a < aEnd && b < bEnd {
                                                                let v = own[a]
                                                                let t = list[b]
                                                                a += v <= t ? 1 : 0
                                                                b += t <= v ? 1 : 0
                                                                return unique[Int(min(v, t))]
                                                            }
                                                            if a < aEnd {
                                                                a += 1
                                                                return unique[Int(own[a - 1])]
                                                            }
                                                            if b < bEnd {
                                                                b += 1
                                                                return unique[Int(list[b - 1])]
                                                            }
                                                            return nil
                                                        }
                                                        var next = nextLocation()
                                                        while next != nil || c < cEnd {
                                                            let j: UInt32
                                                            if let v = next, c >= cEnd || v < dupList[c] {
                                                                j = v
                                                                next = nextLocation()
                                                            } else {
                                                                j = dupList[c]
                                                                c += 1
                                                            }
                                                            outNb[w] = j
                                                            w += 1
                                                        }
                                                        let xi = x[i]
                                                        let yi = y[i]
                                                        for e in Int(offsets[i])..<w {
                                                            let j = Int(outNb[e])
                                                            let dx = xi - x[j]
                                                            let dy = yi - y[j]
                                                            outLen[e] = Float((dx * dx + dy * dy).squareRoot())
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
            }
        }
        return AdjacencyGraph(
            offsets: Column(offsets), neighbors: Column(neighbors), length: Column(length),
            scale: Column([Float](repeating: 0, count: n)))
    }

    @inline(__always)
    private static func sortRow(_ nb: UnsafeMutableBufferPointer<UInt32>, _ lo: Int, _ hi: Int) {
        if hi - lo <= 32 {
            var i = lo + 1
            while i < hi {
                let v = nb[i]
                var j = i
                while j > lo && nb[j - 1] > v {
                    nb[j] = nb[j - 1]
                    j -= 1
                }
                nb[j] = v
                i += 1
            }
        } else {
            var row = UnsafeMutableBufferPointer(rebasing: nb[lo..<hi])
            row.sort()
        }
    }
}
