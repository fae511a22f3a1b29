/// Builds the CSR ``AdjacencyGraph`` from undirected edge lists, in parallel and deterministically.
///
/// Edges may be listed in any order, in either direction and more than once; self-loops are
/// ignored. Rows come out sorted by neighbour index without repeats, with edge lengths computed
/// as `Float(√((xᵢ − xⱼ)² + (yᵢ − yⱼ)²))` from the double coordinates. The scatter is serial;
/// sorting rows, measuring edges and compacting run per row range on ``Parallel``, so the bytes
/// are the same for any thread count.
enum CSRBuilder {
    static func build(nodeCount n: Int, a: [UInt32], b: [UInt32], x: UnsafeBufferPointer<Double>,
        y: UnsafeBufferPointer<Double>) -> AdjacencyGraph
    {
        precondition(a.count == b.count)
        var start = [UInt64](repeating: 0, count: n + 1)
        start.withUnsafeMutableBufferPointer { start in
            a.withUnsafeBufferPointer { a in
                b.withUnsafeBufferPointer { b in
                    for e in 0..<a.count where a[e] != b[e] {
                        start[Int(a[e]) + 1] += 1
                        start[Int(b[e]) + 1] += 1
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
                        for e in 0..<a.count where a[e] != b[e] {
                            let u = Int(a[e]), v = Int(b[e])
                            nb[Int(fill[u])] = b[e]
                            fill[u] += 1
                            nb[Int(fill[v])] = a[e]
                            fill[v] += 1
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
