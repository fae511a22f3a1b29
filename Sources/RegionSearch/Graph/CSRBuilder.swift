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
