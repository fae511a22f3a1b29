/// Exact k nearest neighbours of every point, by a k-d tree.
///
/// Neighbours are ordered by squared distance, computed as `(xᵢ − xⱼ)² + (yᵢ − yⱼ)²` in double
/// precision, and then by index, so the set of k nearest is unique even with ties (grids) and the
/// result does not depend on the thread count. Points must be distinct (see
/// ``CoincidentPoints``): k-d tree leaves then stay small however dense a neighbourhood is, so a
/// 30× or 1000× density contrast costs nothing extra.
public struct NearestNeighbors: Sendable {
    /// Neighbours per point: min(k, n − 1).
    public let k: Int
    /// `neighbors[i * k ..< (i + 1) * k]`: point i's neighbours, nearest first.
    public let neighbors: [UInt32]

    static let leafSize = 12

    public init(x: UnsafeBufferPointer<Double>, y: UnsafeBufferPointer<Double>, k requested: Int) {
        let n = x.count
        let k = max(0, min(requested, n - 1))
        self.k = k
        if k == 0 {
            neighbors = []
            return
        }
        let tree = KDTree(x: x, y: y, leafSize: Self.leafSize)
        var out = [UInt32](repeating: 0, count: n * k)
        out.withUnsafeMutableBufferPointer { outBuf in
            let result = outBuf
            Parallel.forRanges(n, minChunk: 2048) { range in
                tree.query(positions: range, k: k, into: result)
            }
        }
        neighbors = out
    }
}

/// A 2-d tree over points stored in tree order: balanced median splits along the wider side of
/// each node's bounding box, nodes numbered implicitly (children of i are 2i+1 and 2i+2), a node
/// over positions `lo..<hi` splitting at `(lo + hi) / 2`.
struct KDTree: @unchecked Sendable {
    let n: Int
    let leafSize: Int
    /// Coordinates in tree order and the original index of each position.
    let tx: [Double], ty: [Double]
    let id: [UInt32]
    /// Bounding box per node: minX, minY, maxX, maxY.
    let boxes: [Double]

    init(x: UnsafeBufferPointer<Double>, y: UnsafeBufferPointer<Double>, leafSize: Int) {
        let n = x.count
        self.n = n
        self.leafSize = leafSize
        var depth = 0
        var c = n
        while c > leafSize {
            c = (c + 1) / 2
            depth += 1
        }
        let nodeCount = (1 << (depth + 1)) - 1
        var perm = [UInt32](unsafeUninitializedCapacity: n) { b, cnt in
            for i in 0..<n { b[i] = UInt32(i) }
            cnt = n
        }
        var boxes = [Double](repeating: 0, count: 4 * nodeCount)
        let leafSize = leafSize
        perm.withUnsafeMutableBufferPointer { perm in
            boxes.withUnsafeMutableBufferPointer { boxes in
                // Build the top levels serially, then subtrees in parallel (independent ranges).
                var frontier: [(node: Int, lo: Int, hi: Int)] = [(0, 0, n)]
                let wanted = max(1, Parallel.threadCount * 4)
                while frontier.count < wanted {
                    var next: [(node: Int, lo: Int, hi: Int)] = []
                    var split = false
                    for f in frontier {
                        if f.hi - f.lo > leafSize {
                            let mid = Self.splitNode(f.node, f.lo, f.hi, x, y, perm, boxes)
                            next.append((2 * f.node + 1, f.lo, mid))
                            next.append((2 * f.node + 2, mid, f.hi))
                            split = true
                        } else {
                            next.append(f)
                        }
                    }
                    frontier = next
                    if !split { break }
                }
                let fr = frontier
                Parallel.forEach(fr.count) { i in
                    Self.build(fr[i].node, fr[i].lo, fr[i].hi, x, y, perm, boxes, leafSize)
                }
            }
        }
        var tx = [Double](repeating: 0, count: n), ty = [Double](repeating: 0, count: n)
        for i in 0..<n {
            tx[i] = x[Int(perm[i])]
            ty[i] = y[Int(perm[i])]
        }
        self.tx = tx
        self.ty = ty
        id = perm
        self.boxes = boxes
    }

    private static func build(_ node: Int, _ lo: Int, _ hi: Int, _ x: UnsafeBufferPointer<Double>,
        _ y: UnsafeBufferPointer<Double>, _ perm: UnsafeMutableBufferPointer<UInt32>,
        _ boxes: UnsafeMutableBufferPointer<Double>, _ leafSize: Int)
    {
        if hi - lo <= leafSize {
            setBox(node, lo, hi, x, y, perm, boxes)
            return
        }
        let mid = splitNode(node, lo, hi, x, y, perm, boxes)
        build(2 * node + 1, lo, mid, x, y, perm, boxes, leafSize)
        build(2 * node + 2, mid, hi, x, y, perm, boxes, leafSize)
    }

    @discardableResult
    private static func setBox(_ node: Int, _ lo: Int, _ hi: Int, _ x: UnsafeBufferPointer<Double>,
        _ y: UnsafeBufferPointer<Double>, _ perm: UnsafeMutableBufferPointer<UInt32>,
        _ boxes: UnsafeMutableBufferPointer<Double>) -> (Double, Double)
    {
        var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
        for p in lo..<hi {
            let i = Int(perm[p])
            minX = min(minX, x[i]); maxX = max(maxX, x[i])
            minY = min(minY, y[i]); maxY = max(maxY, y[i])
        }
        boxes[4 * node] = minX; boxes[4 * node + 1] = minY
        boxes[4 * node + 2] = maxX; boxes[4 * node + 3] = maxY
        return (maxX - minX, maxY - minY)
    }

    /// Sets the node's box and partitions its range around the median of the wider coordinate
    /// (ties by index, so the tree is deterministic); returns the split position.
    private static func splitNode(_ node: Int, _ lo: Int, _ hi: Int, _ x: UnsafeBufferPointer<Double>,
        _ y: UnsafeBufferPointer<Double>, _ perm: UnsafeMutableBufferPointer<UInt32>,
        _ boxes: UnsafeMutableBufferPointer<Double>) -> Int
    {
        let (w, h) = setBox(node, lo, hi, x, y, perm, boxes)
        let mid = (lo + hi) / 2
        select(perm, lo, hi, mid, w >= h ? x : y)
        return mid
    }

    /// Quickselect: puts the element of rank `k` (by coordinate, then index) at position k with
    /// smaller ones before it and larger ones after.
    private static func select(_ perm: UnsafeMutableBufferPointer<UInt32>, _ lo: Int, _ hi: Int, _ k: Int,
        _ c: UnsafeBufferPointer<Double>)
    {
        @inline(__always) func less(_ a: UInt32, _ b: UInt32) -> Bool {
            let ca = c[Int(a)], cb = c[Int(b)]
            return ca < cb || (ca == cb && a < b)
        }
        var left = lo, right = hi - 1
        while right > left {
            // Median of three as pivot, moved to `right`.
            let mid = left + (right - left) / 2
            if less(perm[mid], perm[left]) { perm.swapAt(mid, left) }
            if less(perm[right], perm[left]) { perm.swapAt(right, left) }
            if less(perm[mid], perm[right]) { perm.swapAt(mid, right) }
            let pivot = perm[right]
            var store = left
            for i in left..<right where less(perm[i], pivot) {
                perm.swapAt(i, store)
                store += 1
            }
            perm.swapAt(store, right)
            if store == k { return }
            if store < k { left = store + 1 } else { right = store - 1 }
        }
    }

    /// The k nearest neighbours of the points at tree positions `positions`, written to
    /// `out[id * k ..< (id + 1) * k]` by original index.
    func query(positions: Range<Int>, k: Int, into out: UnsafeMutableBufferPointer<UInt32>) {
        tx.withUnsafeBufferPointer { tx in
            ty.withUnsafeBufferPointer { ty in
                id.withUnsafeBufferPointer { id in
                    boxes.withUnsafeBufferPointer { boxes in
                        withUnsafeTemporaryAllocation(of: Double.self, capacity: k + 1) { bestD in
                            withUnsafeTemporaryAllocation(of: UInt32.self, capacity: k + 1) { bestI in
                                withUnsafeTemporaryAllocation(of: (Int, Int, Int, Double).self, capacity: 256) { stack in
                                    for pos in positions {
                                        queryOne(pos, k, tx, ty, id, boxes, bestD, bestI, stack)
                                        let base = Int(id[pos]) * k
                                        for j in 0..<k { out[base + j] = bestI[j] }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    @inline(__always)
    private func boxDistance(_ node: Int, _ qx: Double, _ qy: Double, _ boxes: UnsafeBufferPointer<Double>) -> Double {
        // Rounding is monotone, so this never exceeds the computed distance to a point in the box.
        let dx = max(0, boxes[4 * node] - qx, qx - boxes[4 * node + 2])
        let dy = max(0, boxes[4 * node + 1] - qy, qy - boxes[4 * node + 3])
        return dx * dx + dy * dy
    }

    private func queryOne(_ pos: Int, _ k: Int, _ tx: UnsafeBufferPointer<Double>, _ ty: UnsafeBufferPointer<Double>,
        _ id: UnsafeBufferPointer<UInt32>, _ boxes: UnsafeBufferPointer<Double>,
        _ bestD: UnsafeMutableBufferPointer<Double>, _ bestI: UnsafeMutableBufferPointer<UInt32>,
        _ stack: UnsafeMutableBufferPointer<(Int, Int, Int, Double)>)
    {
        let qx = tx[pos], qy = ty[pos]
        let self_ = id[pos]
        var count = 0
        var worst = Double.infinity
        var top = 0
        stack[0] = (0, 0, n, 0)
        top = 1
        while top > 0 {
            top -= 1
            let (node, lo, hi, bound) = stack[top]
            if count == k && bound > worst { continue }
            if hi - lo <= leafSize {
                for p in lo..<hi {
                    let j = id[p]
                    if j == self_ { continue }
                    let dx = tx[p] - qx, dy = ty[p] - qy
                    let d = dx * dx + dy * dy
                    if count == k {
                        if d > worst || (d == worst && j > bestI[k - 1]) { continue }
                    } else {
                        count += 1
                    }
                    // Insert into the sorted list (the last slot is free or dropped).
                    var s = count - 1
                    while s > 0 && (bestD[s - 1] > d || (bestD[s - 1] == d && bestI[s - 1] > j)) {
                        bestD[s] = bestD[s - 1]
                        bestI[s] = bestI[s - 1]
                        s -= 1
                    }
                    bestD[s] = d
                    bestI[s] = j
                    if count == k { worst = bestD[k - 1] }
                }
                continue
            }
            let mid = (lo + hi) / 2
            let l = 2 * node + 1, r = 2 * node + 2
            let dl = boxDistance(l, qx, qy, boxes), dr = boxDistance(r, qx, qy, boxes)
            // Push the farther child first so the nearer one is searched first.
            if dl <= dr {
                stack[top] = (r, mid, hi, dr)
                stack[top + 1] = (l, lo, mid, dl)
            } else {
                stack[top] = (l, lo, mid, dl)
                stack[top + 1] = (r, mid, hi, dr)
            }
            top += 2
        }
    }
}
