/// Builds the CSR ``AdjacencyGraph`` from undirected edge lists, in parallel and deterministically.
///
/// Edges may be listed in any order, in either direction and more than once; self-loops are
/// ignored. Rows come out sorted by neighbour index without repeats, with edge lengths computed
/// as `Float(√((xᵢ − xⱼ)² + (yᵢ − yⱼ)²))` from the double coordinates. Every phase runs on
/// ``Parallel`` over node ranges whose results do not depend on the split, so the bytes are the
/// same for any thread count.
enum CSRBuilder {
    static func build(nodeCount n: Int, a: [UInt32], b: [UInt32], x: UnsafeBufferPointer<Double>,
        y: UnsafeBufferPointer<Double>) -> AdjacencyGraph
    {
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
                            let u = a[e], v = b[e]
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
                        let nb = nb, fill = fill
                        Parallel.forEach(parts) { part in
                            let lo = UInt32(truncatingIfNeeded: part * partSize)
                            let span = UInt32(truncatingIfNeeded: min(n, (part + 1) * partSize) - part * partSize)
                            for e in 0..<a.count {
                                let u = a[e], v = b[e]
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
                    let nb = nb, kept = kept
                    Parallel.forRanges(n, minChunk: 8192) { range in
                        for i in range {
                            let lo = Int(start[i]), hi = Int(start[i + 1])
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
                            let out = out, len = len
                            Parallel.forRanges(n, minChunk: 8192) { range in
                                for i in range {
                                    let from = Int(start[i])
                                    let to = Int(offsets[i])
                                    let count = Int(offsets[i + 1]) - to
                                    let xi = x[i], yi = y[i]
                                    for k in 0..<count {
                                        let j = nb[from + k]
                                        out[to + k] = j
                                        let dx = xi - x[Int(j)], dy = yi - y[Int(j)]
                                        len[to + k] = Float((dx * dx + dy * dy).squareRoot())
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        return AdjacencyGraph(offsets: kept, neighbors: neighbors, length: length,
            scale: [Float](repeating: 0, count: n))
    }

    /// The undirected union of kNN lists over distinct points (no duplicates): row i holds i's
    /// own k neighbours and every point that chose i, sorted, without repeats — exactly what
    /// ``build(nodeCount:a:b:x:y:)`` makes of the directed pairs, without its edge lists and row
    /// sorts. Each row is the merge of two sorted lists without repeats (i's own list, sorted,
    /// and the points that chose i, which come out sorted because they are filled in point
    /// order), so a value in both is taken once.
    static func buildKNNUnion(_ knn: NearestNeighbors, x: UnsafeBufferPointer<Double>, y: UnsafeBufferPointer<Double>)
        -> AdjacencyGraph
    {
        let n = x.count
        let k = knn.k
        precondition(knn.neighbors.count == n * k)
        // Own lists in index order (the kNN lists are in distance order, which LocalScale needs).
        var own = [UInt32](repeating: 0, count: n * k)
        own.withUnsafeMutableBufferPointer { own in
            knn.neighbors.withUnsafeBufferPointer { nb in
                let own = own
                Parallel.forRanges(n, minChunk: 16_384) { range in
                    for i in range {
                        let row = own.baseAddress! + i * k
                        for t in 0..<k { row[t] = nb[i * k + t] }
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
        }
        // Who chose i, in increasing order; `offsets` first counts, then holds row starts.
        var inStart = [UInt64](repeating: 0, count: n + 1)
        var inList = [UInt32](repeating: 0, count: n * k)
        var offsets = [UInt64](repeating: 0, count: n + 1)
        own.withUnsafeBufferPointer { own in
            inStart.withUnsafeMutableBufferPointer { start in
                for e in 0..<(n * k) { start[Int(own[e]) + 1] += 1 }
                for i in 0..<n { start[i + 1] += start[i] }
                offsets.withUnsafeMutableBufferPointer { fill in
                    for i in 0..<n { fill[i] = start[i] }
                    inList.withUnsafeMutableBufferPointer { list in
                        for p in 0..<n {
                            for e in (p * k)..<(p * k + k) {
                                let j = Int(own[e])
                                list[Int(fill[j])] = UInt32(truncatingIfNeeded: p)
                                fill[j] += 1
                            }
                        }
                    }
                }
            }
            // Row sizes: k + |in| − |both|.
            inStart.withUnsafeBufferPointer { start in
                inList.withUnsafeBufferPointer { list in
                    offsets.withUnsafeMutableBufferPointer { degree in
                        let degree = degree
                        Parallel.forRanges(n, minChunk: 8192) { range in
                            for i in range {
                                var a = i * k, b = Int(start[i])
                                let aEnd = a + k, bEnd = Int(start[i + 1])
                                var both = 0
                                while a < aEnd && b < bEnd {
                                    let u = own[a], v = list[b]
                                    if u == v { both += 1 }
                                    a += u <= v ? 1 : 0
                                    b += v <= u ? 1 : 0
                                }
                                degree[i + 1] = UInt64(k + (bEnd - Int(start[i])) - both)
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
                    offsets.withUnsafeBufferPointer { offsets in
                        neighbors.withUnsafeMutableBufferPointer { outNb in
                            length.withUnsafeMutableBufferPointer { outLen in
                                let outNb = outNb, outLen = outLen
                                Parallel.forRanges(n, minChunk: 8192) { range in
                                    for i in range {
                                        var w = Int(offsets[i])
                                        var a = i * k, b = Int(start[i])
                                        let aEnd = a + k, bEnd = Int(start[i + 1])
                                        while a < aEnd && b < bEnd {
                                            let u = own[a], v = list[b]
                                            outNb[w] = min(u, v)
                                            w += 1
                                            a += u <= v ? 1 : 0
                                            b += v <= u ? 1 : 0
                                        }
                                        while a < aEnd {
                                            outNb[w] = own[a]
                                            w += 1
                                            a += 1
                                        }
                                        while b < bEnd {
                                            outNb[w] = list[b]
                                            w += 1
                                            b += 1
                                        }
                                        let xi = x[i], yi = y[i]
                                        for e in Int(offsets[i])..<w {
                                            let j = Int(outNb[e])
                                            let dx = xi - x[j], dy = yi - y[j]
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
        return AdjacencyGraph(offsets: Column(offsets), neighbors: Column(neighbors), length: Column(length),
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
