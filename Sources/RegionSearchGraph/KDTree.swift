import RegionSearchCore

/// A 2-d tree over points stored in tree order: balanced median splits along the wider side of
/// each node's bounding box, nodes numbered implicitly (children of i are 2i+1 and 2i+2), a node
/// over positions `lo..<hi` splitting at `(lo + hi) / 2`.
///
/// The build works on the coordinates themselves in tree order (x, y and index move together), so
/// the bounding-box scans and median partitions read contiguous memory. Queries search upwards
/// from the query's own leaf (see ``View/nearest(_:n:_:stack:path:)``).
struct KDTree: Sendable {
    let n: Int
    let leafSize: Int
    /// Coordinates in tree order and the original index of each position.
    let tx: [Double], ty: [Double]
    let id: [UInt32]
    /// Bounding box per node: minX, minY, maxX, maxY.
    let boxes: [Double]

    /// Point arrays in tree order, moved together by the build.
    struct Points {
        let x: UnsafeMutablePointer<Double>
        let y: UnsafeMutablePointer<Double>
        let id: UnsafeMutablePointer<UInt32>

        @inline(__always)
        func swapAt(_ a: Int, _ b: Int) {
            let xa = x[a]
            let ya = y[a]
            let ia = id[a]
            x[a] = x[b]
            y[a] = y[b]
            id[a] = id[b]
            x[b] = xa
            y[b] = ya
            id[b] = ia
        }
    }

    /// A tree over the points `subset` of x, y (all points when nil), indexed by position in it.
    init(
        x: UnsafeBufferPointer<Double>, y: UnsafeBufferPointer<Double>, subset: UnsafeBufferPointer<UInt32>? = nil,
        leafSize: Int
    ) {
        let n = subset?.count ?? x.count
        self.n = n
        self.leafSize = leafSize
        var depth = 0
        var c = n
        while c > leafSize {
            c = (c + 1) / 2
            depth += 1
        }
        let nodeCount = (1 << (depth + 1)) - 1
        var tx: [Double]
        var ty: [Double]
        if let subset {
            tx = subset.map { x[Int($0)] }
            ty = subset.map { y[Int($0)] }
        } else {
            tx = Array(x)
            ty = Array(y)
        }
        var id = [UInt32](unsafeUninitializedCapacity: n) { b, cnt in
            for i in 0..<n { b[i] = UInt32(truncatingIfNeeded: i) }
            cnt = n
        }
        var boxes = [Double](repeating: 0, count: 4 * nodeCount)
        let leafSize = leafSize
        tx.withUnsafeMutableBufferPointer { txb in
            ty.withUnsafeMutableBufferPointer { tyb in
                id.withUnsafeMutableBufferPointer { idb in
                    boxes.withUnsafeMutableBufferPointer { boxes in
                        let points = Points(x: txb.baseAddress!, y: tyb.baseAddress!, id: idb.baseAddress!)
                        let boxes = boxes
                        // Build the top levels serially, then subtrees in parallel (independent ranges).
                        var frontier: [(node: Int, lo: Int, hi: Int)] = [(0, 0, n)]
                        let wanted = max(1, Parallel.threadCount * 4)
                        while frontier.count < wanted {
                            var next: [(node: Int, lo: Int, hi: Int)] = []
                            var split = false
                            for f in frontier {
                                if f.hi - f.lo > leafSize {
                                    let mid = Self.splitNode(f.node, f.lo, f.hi, points, boxes)
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
                            Self.build(fr[i].node, fr[i].lo, fr[i].hi, points, boxes, leafSize)
                        }
                    }
                }
            }
        }
        self.tx = tx
        self.ty = ty
        self.id = id
        self.boxes = boxes
    }

    private static func build(
        _ node: Int, _ lo: Int, _ hi: Int, _ points: Points,
        _ boxes: UnsafeMutableBufferPointer<Double>, _ leafSize: Int
    ) {
        if hi - lo <= leafSize {
            setBox(node, lo, hi, points, boxes)
            return
        }
        let mid = splitNode(node, lo, hi, points, boxes)
        build(2 * node + 1, lo, mid, points, boxes, leafSize)
        build(2 * node + 2, mid, hi, points, boxes, leafSize)
    }

    @discardableResult
    private static func setBox(
        _ node: Int, _ lo: Int, _ hi: Int, _ points: Points,
        _ boxes: UnsafeMutableBufferPointer<Double>
    ) -> (Double, Double) {
        var minX = Double.infinity
        var minY = Double.infinity
        var maxX = -Double.infinity
        var maxY = -Double.infinity
        for p in lo..<hi {
            minX = min(minX, points.x[p])
            maxX = max(maxX, points.x[p])
            minY = min(minY, points.y[p])
            maxY = max(maxY, points.y[p])
        }
        boxes[4 * node] = minX
        boxes[4 * node + 1] = minY
        boxes[4 * node + 2] = maxX
        boxes[4 * node + 3] = maxY
        return (maxX - minX, maxY - minY)
    }

    /// Sets the node's box and partitions its range around the median of the wider coordinate
    /// (ties by index, so the tree is deterministic); returns the split position.
    private static func splitNode(
        _ node: Int, _ lo: Int, _ hi: Int, _ points: Points,
        _ boxes: UnsafeMutableBufferPointer<Double>
    ) -> Int {
        let (w, h) = setBox(node, lo, hi, points, boxes)
        let mid = (lo + hi) / 2
        select(points, lo, hi, mid, byX: w >= h)
        return mid
    }

    /// Quickselect: puts the element of rank `k` (by coordinate, then index) at position k with
    /// smaller ones before it and larger ones after.
    private static func select(_ points: Points, _ lo: Int, _ hi: Int, _ k: Int, byX: Bool) {
        let c = byX ? points.x : points.y
        let id = points.id
        @inline(__always) func less(_ a: Int, _ b: Int) -> Bool {
            let ca = c[a]
            let cb = c[b]
            return ca < cb || (ca == cb && id[a] < id[b])
        }
        var left = lo
        var right = hi - 1
        while right > left {
            // Median of three as pivot, moved to `right`.
            let mid = left + (right - left) / 2
            if less(mid, left) { points.swapAt(mid, left) }
            if less(right, left) { points.swapAt(right, left) }
            if less(mid, right) { points.swapAt(mid, right) }
            let pc = c[right]
            let pi = id[right]
            var store = left
            for i in left..<right {
                let ci = c[i]
                if ci < pc || (ci == pc && id[i] < pi) {
                    points.swapAt(i, store)
                    store += 1
                }
            }
            points.swapAt(store, right)
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
                                withUnsafeTemporaryAllocation(of: (Int, Int, Int, Double).self, capacity: 256) {
                                    stack in
                                    withUnsafeTemporaryAllocation(of: (Int, Int, Int).self, capacity: 128) { path in
                                        let view = View(
                                            tx: tx.baseAddress!, ty: ty.baseAddress!, id: id.baseAddress!,
                                            boxes: boxes.baseAddress!,
                                            leafSize: leafSize)
                                        for pos in positions {
                                            var best = Candidates(
                                                k: k, distance: bestD.baseAddress!, index: bestI.baseAddress!,
                                                query: id[pos],
                                                qx: tx[pos], qy: ty[pos])
                                            view.nearest(
                                                pos, n: n, &best, stack: stack.baseAddress!, path: path.baseAddress!)
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
    }

    /// The k best points seen so far, sorted by squared distance and then index.
    struct Candidates {
        let k: Int
        let distance: UnsafeMutablePointer<Double>
        let index: UnsafeMutablePointer<UInt32>
        /// The query's own index (never a candidate) and coordinates.
        let query: UInt32
        let qx: Double, qy: Double
        var count = 0
        /// The k-th best distance once k are known, else +∞.
        var worst = Double.infinity

        init(
            k: Int, distance: UnsafeMutablePointer<Double>, index: UnsafeMutablePointer<UInt32>, query: UInt32,
            qx: Double, qy: Double
        ) {
            self.k = k
            self.distance = distance
            self.index = index
            self.query = query
            self.qx = qx
            self.qy = qy
        }

        /// Considers the points at tree positions lo..<hi.
        @inline(__always)
        mutating func scan(_ lo: Int, _ hi: Int, _ v: View) {
            for p in lo..<hi {
                let j = v.id[p]
                if j == query { continue }
                let dx = v.tx[p] - qx
                let dy = v.ty[p] - qy
                let d = dx * dx + dy * dy
                if count == k {
                    if d > worst || (d == worst && j > index[k - 1]) { continue }
                } else {
                    count += 1
                }
                // Insert into the sorted list (the last slot is free or dropped).
                var s = count - 1
                while s > 0 && (distance[s - 1] > d || (distance[s - 1] == d && index[s - 1] > j)) {
                    distance[s] = distance[s - 1]
                    index[s] = index[s - 1]
                    s -= 1
                }
                distance[s] = d
                index[s] = j
                if count == k { worst = distance[k - 1] }
            }
        }
    }

    /// Raw views of the tree for the query loops.
    struct View {
        let tx: UnsafePointer<Double>, ty: UnsafePointer<Double>
        let id: UnsafePointer<UInt32>
        let boxes: UnsafePointer<Double>
        let leafSize: Int

        @inline(__always)
        func boxDistance(_ node: Int, _ qx: Double, _ qy: Double) -> Double {
            // Rounding is monotone, so this never exceeds the computed distance to a point in the box.
            // Two-argument max: the variadic three-argument form is not inlined.
            let dx = max(max(0, boxes[4 * node] - qx), qx - boxes[4 * node + 2])
            let dy = max(max(0, boxes[4 * node + 1] - qy), qy - boxes[4 * node + 3])
            return dx * dx + dy * dy
        }

        /// Exact k nearest of the point at tree position `pos`: its own leaf first, then, walking
        /// up, every sibling subtree whose box is not farther than the current k-th distance.
        /// The candidate list keeps the k best by (distance, index) whatever the visiting order,
        /// and a box is skipped only when strictly farther, so the result is the unique exact one.
        @inline(__always)
        func nearest(
            _ pos: Int, n: Int, _ best: inout Candidates, stack: UnsafeMutablePointer<(Int, Int, Int, Double)>,
            path: UnsafeMutablePointer<(Int, Int, Int)>
        ) {
            var node = 0
            var lo = 0
            var hi = n
            var depth = 0
            while hi - lo > leafSize {
                path[depth] = (node, lo, hi)
                depth += 1
                let mid = (lo + hi) / 2
                if pos < mid {
                    node = 2 * node + 1
                    hi = mid
                } else {
                    node = 2 * node + 2
                    lo = mid
                }
            }
            best.scan(lo, hi, self)
            while depth > 0 {
                depth -= 1
                let (parent, plo, phi) = path[depth]
                let mid = (plo + phi) / 2
                let sibling = node == 2 * parent + 1 ? (2 * parent + 2, mid, phi) : (2 * parent + 1, plo, mid)
                node = parent
                let bound = boxDistance(sibling.0, best.qx, best.qy)
                if best.count == best.k && bound > best.worst { continue }
                search(sibling.0, sibling.1, sibling.2, bound, &best, stack)
            }
        }

        /// Best-first descent of one subtree, nearer child first, pruning boxes farther than the
        /// k-th distance.
        @inline(__always)
        func search(
            _ root: Int, _ rootLo: Int, _ rootHi: Int, _ rootBound: Double, _ best: inout Candidates,
            _ stack: UnsafeMutablePointer<(Int, Int, Int, Double)>
        ) {
            stack[0] = (root, rootLo, rootHi, rootBound)
            var top = 1
            while top > 0 {
                top -= 1
                let (node, lo, hi, bound) = stack[top]
                if best.count == best.k && bound > best.worst { continue }
                if hi - lo <= leafSize {
                    best.scan(lo, hi, self)
                    continue
                }
                let mid = (lo + hi) / 2
                let l = 2 * node + 1
                let r = 2 * node + 2
                let dl = boxDistance(l, best.qx, best.qy)
                let dr = boxDistance(r, best.qx, best.qy)
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
}
