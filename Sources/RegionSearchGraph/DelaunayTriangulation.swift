import RegionSearchCore

/// The Delaunay triangulation of a set of distinct points, in O(n log n).
///
/// The algorithm is the sweep-hull of Mapbox's *delaunator* (after D. Sinclair's s-hull): a seed
/// triangle near the centre of the bounding box, the remaining points sorted by distance from its
/// circumcentre, each point joined to the visible part of the convex hull of the points before it
/// (found through a hash of hull vertices by pseudo-angle), and Lawson flips with an explicit
/// stack to restore the empty-circle property. Three changes make it exact:
///
/// * every orientation and in-circle decision uses ``GeometricPredicates`` (exact sign);
/// * the seed's third point is chosen among points that are exactly not collinear with the first
///   two, and "all points collinear" is decided exactly;
/// * a point that rounding in the distance sort places inside the current hull (possible only for
///   near-degenerate input) is not dropped, as in delaunator, but set aside and inserted after
///   the sweep by point location and a 1→3 or 2→4 split followed by the same flips.
///
/// Triangles are stored as vertex triples in **clockwise** order (negative ``GeometricPredicates/orient2d``);
/// halfedge `e` runs from `triangles[e]` to the next vertex of its triangle, and `halfedges[e]` is
/// its twin in the adjacent triangle or −1 on the convex hull. When all points are collinear there
/// are no triangles and ``chain`` lists them in order along the line.
///
/// Input points must be distinct and finite; callers collapse duplicates first (see ``CoincidentPoints``).
struct DelaunayTriangulation {
    /// Vertex indices, three per triangle, clockwise.
    private(set) var triangles: [UInt32] = []
    /// Twin halfedge of each halfedge, −1 on the hull.
    private(set) var halfedges: [Int32] = []
    /// Collinear input only: the points in order along their line (empty otherwise).
    public private(set) var chain: [UInt32] = []
    /// Points the sweep found on or inside the hull (rounding in the distance sort) and inserted
    /// afterwards by point location; 0 except for near-degenerate input.
    public private(set) var lateInsertions = 0
    let pointCount: Int

    var triangleCount: Int { triangles.count / 3 }

    /// Triangulates the points (x[i], y[i]).
    public init(x: UnsafeBufferPointer<Double>, y: UnsafeBufferPointer<Double>) {
        self.init(x: x, y: y, withheld: [])
    }

    /// Triangulates, inserting the points `withheld` only after the sweep through the
    /// late-insertion path (point location and splits). For tests of that path: the withheld
    /// points must lie inside or on the convex hull of the others; seed points are not withheld.
    init(x: UnsafeBufferPointer<Double>, y: UnsafeBufferPointer<Double>, withheld: [Int]) {
        precondition(x.count == y.count)
        let n = x.count
        pointCount = n
        if n < 2 { return }
        if n == 2 {
            chain = [0, 1]
            return
        }
        // Seed: the point nearest the bounding-box centre, its nearest neighbour, and the point
        // forming the smallest circumcircle with them among those exactly not collinear.
        let box = PointBounds(x: x, y: y)
        let mx = box.minX / 2 + box.maxX / 2
        let my = box.minY / 2 + box.maxY / 2
        var i0 = 0
        var best = Double.infinity
        for i in 0..<n {
            let d = (x[i] - mx) * (x[i] - mx) + (y[i] - my) * (y[i] - my)
            if d < best {
                best = d
                i0 = i
            }
        }
        let x0 = x[i0]
        let y0 = y[i0]
        var i1 = i0 == 0 ? 1 : 0
        best = .infinity
        for i in 0..<n where i != i0 {
            let d = (x[i] - x0) * (x[i] - x0) + (y[i] - y0) * (y[i] - y0)
            if d < best {
                best = d
                i1 = i
            }
        }
        let x1 = x[i1]
        let y1 = y[i1]
        var i2 = -1
        var minRadius = Double.infinity
        for i in 0..<n where i != i0 && i != i1 {
            if GeometricPredicates.orient2d(x0, y0, x1, y1, x[i], y[i]) == 0 { continue }
            let r = Self.circumradius2(x0, y0, x1, y1, x[i], y[i])
            if i2 < 0 || r < minRadius {
                if r < minRadius { minRadius = r }
                i2 = i
            }
        }
        if i2 < 0 {
            chain = Self.collinearChain(x: x, y: y)
            return
        }
        var s1 = i1
        var s2 = i2
        if GeometricPredicates.orient2d(x0, y0, x[s1], y[s1], x[s2], y[s2]) > 0 { swap(&s1, &s2) }
        var (cx, cy) = Self.circumcenter(x0, y0, x[s1], y[s1], x[s2], y[s2])
        if !(cx.isFinite && cy.isFinite) {
            // A nearly flat seed: any centre inside it keeps the sweep correct (late insertions
            // catch what the order gets wrong).
            cx = (x0 + x[s1] + x[s2]) / 3
            cy = (y0 + y[s1] + y[s2]) / 3
        }
        var keys = [UInt64](repeating: 0, count: n)
        for i in 0..<n {
            let dx = x[i] - cx
            let dy = y[i] - cy
            keys[i] = (dx * dx + dy * dy).bitPattern
        }
        let order = RadixSort.order(byKeys: keys)
        keys = []
        // The sweep writes its triangles and halfedges straight into the arrays kept (no copy of
        // either: on this machine a megabyte touched for the first time costs over a millisecond).
        // Pages beyond the final count are never touched.
        let capacity = 3 * max(2 * n - 5, 1)
        var tri = [UInt32](unsafeUninitializedCapacity: capacity) { _, c in c = capacity }
        var half = [Int32](unsafeUninitializedCapacity: capacity) { _, c in c = capacity }
        var count = 0
        var late = 0
        tri.withUnsafeMutableBufferPointer { tri in
            half.withUnsafeMutableBufferPointer { half in
                var sweep = Sweep(
                    x: x, y: y, order: order, seeds: (i0, s1, s2), center: (cx, cy), tri: tri.baseAddress!,
                    half: half.baseAddress!)
                if !withheld.isEmpty {
                    var position = [Int](repeating: 0, count: n)
                    for (k, i) in order.enumerated() { position[Int(i)] = k }
                    sweep.withheld = withheld.map { position[$0] }.filter {
                        $0 != sweep.seeds.0 && $0 != sweep.seeds.1 && $0 != sweep.seeds.2
                    }
                }
                sweep.run()
                late = sweep.lateCount
                count = sweep.trianglesLen
                sweep.deallocate()
                // Back from sweep positions to point indices.
                order.withUnsafeBufferPointer { ord in
                    for e in 0..<count { tri[e] = ord[Int(tri[e])] }
                }
            }
        }
        tri.removeLast(capacity - count)
        half.removeLast(capacity - count)
        lateInsertions = late
        triangles = tri
        halfedges = half
    }

    /// Hands the triangles and halfedges over without a copy (``TriangleMesh`` takes them).
    mutating func releaseStorage() -> (triangles: [UInt32], halfedges: [Int32]) {
        defer {
            triangles = []
            halfedges = []
        }
        return (triangles, halfedges)
    }

    /// Undirected edges, each once, as vertex pairs (triangle edges, or the chain when collinear).
    public func edges() -> (a: [UInt32], b: [UInt32]) {
        if !chain.isEmpty {
            return (Array(chain.dropLast()), Array(chain.dropFirst()))
        }
        var a: [UInt32] = []
        var b: [UInt32] = []
        let expected = (triangles.count + hullEdgeCount) / 2
        a.reserveCapacity(expected)
        b.reserveCapacity(expected)
        triangles.withUnsafeBufferPointer { tri in
            halfedges.withUnsafeBufferPointer { half in
                for e in 0..<tri.count {
                    let twin = Int(half[e])
                    if twin < 0 || e < twin {
                        a.append(tri[e])
                        b.append(tri[e % 3 == 2 ? e - 2 : e + 1])
                    }
                }
            }
        }
        return (a, b)
    }

    /// Number of halfedges on the convex hull (= hull vertices, counting collinear ones).
    var hullEdgeCount: Int { halfedges.reduce(0) { $0 + ($1 < 0 ? 1 : 0) } }

    /// Points sorted along their common line: lexicographic (x, y) order is the order along any line.
    static func collinearChain(x: UnsafeBufferPointer<Double>, y: UnsafeBufferPointer<Double>) -> [UInt32] {
        (0..<UInt32(x.count)).sorted { a, b in
            let ia = Int(a)
            let ib = Int(b)
            if x[ia] != x[ib] { return x[ia] < x[ib] }
            if y[ia] != y[ib] { return y[ia] < y[ib] }
            return a < b
        }
    }

    @inline(__always)
    static func circumradius2(_ ax: Double, _ ay: Double, _ bx: Double, _ by: Double, _ cx: Double, _ cy: Double)
        -> Double
    {
        let dx = bx - ax
        let dy = by - ay
        let ex = cx - ax
        let ey = cy - ay
        let bl = dx * dx + dy * dy
        let cl = ex * ex + ey * ey
        let d = 0.5 / (dx * ey - dy * ex)
        let x = (ey * bl - dy * cl) * d
        let y = (dx * cl - ex * bl) * d
        let r = x * x + y * y
        return r.isNaN ? .infinity : r
    }

    static func circumcenter(_ ax: Double, _ ay: Double, _ bx: Double, _ by: Double, _ cx: Double, _ cy: Double)
        -> (Double, Double)
    {
        let dx = bx - ax
        let dy = by - ay
        let ex = cx - ax
        let ey = cy - ay
        let bl = dx * dx + dy * dy
        let cl = ex * ex + ey * ey
        let d = 0.5 / (dx * ey - dy * ex)
        return (ax + (ey * bl - dy * cl) * d, ay + (dx * cl - ex * bl) * d)
    }
}

/// The sweep's working state: manually allocated buffers over points renumbered in sweep order
/// (so that recently inserted points and triangles are close in memory). A struct with pointer
/// members keeps the hot loops free of reference counting and exclusivity checks.
private struct Sweep {
    let n: Int
    /// Interleaved coordinates in sweep order.
    let coords: UnsafeMutablePointer<Double>
    let tri: UnsafeMutablePointer<UInt32>
    let half: UnsafeMutablePointer<Int32>
    let hullPrev: UnsafeMutablePointer<UInt32>
    let hullNext: UnsafeMutablePointer<UInt32>
    let hullTri: UnsafeMutablePointer<Int32>
    let hullHash: UnsafeMutablePointer<Int32>
    let hashSize: Int
    let seeds: (Int, Int, Int)
    let cx: Double, cy: Double
    var trianglesLen = 0
    var hullStart = 0
    var stack: UnsafeMutablePointer<Int32>
    var stackCapacity = 1024
    /// Whether flips must keep `hullTri` current (during the sweep, not in late insertion).
    var maintainHull = true
    var late: [(point: Int32, hint: Int32)] = []
    /// Sweep positions to insert late regardless (test hook, see `DelaunayTriangulation.init(x:y:withheld:)`).
    var withheld: [Int] = []
    var lateCount = 0

    /// `tri` and `half` hold room for 3 (2n − 5) entries (the caller's arrays: not freed here).
    init(
        x: UnsafeBufferPointer<Double>, y: UnsafeBufferPointer<Double>, order: [UInt32], seeds: (Int, Int, Int),
        center: (Double, Double), tri: UnsafeMutablePointer<UInt32>, half: UnsafeMutablePointer<Int32>
    ) {
        n = x.count
        coords = .allocate(capacity: 2 * n)
        var s = (0, 0, 0)
        for k in 0..<n {
            let i = Int(order[k])
            coords[2 * k] = x[i]
            coords[2 * k + 1] = y[i]
            if i == seeds.0 { s.0 = k }
            if i == seeds.1 { s.1 = k }
            if i == seeds.2 { s.2 = k }
        }
        self.seeds = s
        self.tri = tri
        self.half = half
        hullPrev = .allocate(capacity: n)
        hullNext = .allocate(capacity: n)
        hullTri = .allocate(capacity: n)
        hashSize = max(1, Int(Double(n).squareRoot().rounded(.up)))
        hullHash = .allocate(capacity: hashSize)
        hullHash.initialize(repeating: -1, count: hashSize)
        stack = .allocate(capacity: stackCapacity)
        (cx, cy) = center
    }

    func deallocate() {
        coords.deallocate()
        hullPrev.deallocate()
        hullNext.deallocate()
        hullTri.deallocate()
        hullHash.deallocate()
        stack.deallocate()
    }

    @inline(__always) func px(_ i: Int) -> Double { coords[2 * i] }
    @inline(__always) func py(_ i: Int) -> Double { coords[2 * i + 1] }

    @inline(__always)
    func orient(_ a: Int, _ b: Int, _ c: Int) -> Double {
        GeometricPredicates.orient2d(px(a), py(a), px(b), py(b), px(c), py(c))
    }

    /// Bucket of the hull hash: the pseudo-angle of the point around the sweep centre.
    @inline(__always)
    func hashKey(_ x: Double, _ y: Double) -> Int {
        let dx = x - cx
        let dy = y - cy
        let s = abs(dx) + abs(dy)
        guard s > 0 else { return 0 }
        let p = dx / s
        let angle = (dy > 0 ? 3 - p : 1 + p) / 4  // [0, 1]
        guard angle >= 0, angle <= 1 else { return 0 }
        // angle ≤ 1, so the bucket is at most hashSize: one compare instead of a division.
        let bucket = Int(angle * Double(hashSize))
        return bucket >= hashSize ? bucket - hashSize : bucket
    }

    @inline(__always)
    func link(_ a: Int, _ b: Int) {
        half[a] = Int32(truncatingIfNeeded: b)
        if b >= 0 { half[b] = Int32(truncatingIfNeeded: a) }
    }

    @inline(__always)
    mutating func addTriangle(_ i0: Int, _ i1: Int, _ i2: Int, _ a: Int, _ b: Int, _ c: Int) -> Int {
        let t = trianglesLen
        tri[t] = UInt32(truncatingIfNeeded: i0)
        tri[t + 1] = UInt32(truncatingIfNeeded: i1)
        tri[t + 2] = UInt32(truncatingIfNeeded: i2)
        link(t, a)
        link(t + 1, b)
        link(t + 2, c)
        trianglesLen += 3
        return t
    }

    @inline(__always)
    mutating func push(_ e: Int, _ depth: inout Int) {
        if depth == stackCapacity {
            let bigger = UnsafeMutablePointer<Int32>.allocate(capacity: 2 * stackCapacity)
            bigger.update(from: stack, count: stackCapacity)
            stack.deallocate()
            stack = bigger
            stackCapacity *= 2
        }
        stack[depth] = Int32(truncatingIfNeeded: e)
        depth += 1
    }

    /// Flips edges until the triangles around halfedge `start` (whose opposite vertex is the new
    /// point) are locally Delaunay; returns the halfedge that ends the chain, which during the
    /// sweep is the new hull edge leaving the inserted point (delaunator's bookkeeping).
    mutating func legalize(_ start: Int) -> Int {
        var a = start
        var depth = 0
        var ar = 0
        while true {
            let b = Int(half[a])
            let a0 = a - a % 3
            ar = a0 + (a + 2) % 3
            if b == -1 {
                if depth == 0 { break }
                depth -= 1
                a = Int(stack[depth])
                continue
            }
            let b0 = b - b % 3
            let al = a0 + (a + 1) % 3
            let bl = b0 + (b + 2) % 3
            let p0 = Int(tri[ar])
            let pr = Int(tri[a])
            let pl = Int(tri[al])
            let p1 = Int(tri[bl])
            // Triangles are clockwise, so "p1 strictly inside" is a negative determinant.
            let illegal =
                GeometricPredicates.incircle(px(p0), py(p0), px(pr), py(pr), px(pl), py(pl), px(p1), py(p1)) < 0
            if illegal {
                tri[a] = UInt32(truncatingIfNeeded: p1)
                tri[b] = UInt32(truncatingIfNeeded: p0)
                let hbl = Int(half[bl])
                if hbl == -1 && maintainHull {
                    // The flip moved hull edge p1→pl from halfedge bl to a. The hull vertex whose
                    // edge it is starts it: p1 = tri[bl]. (Delaunator walks the whole hull to find
                    // it, which is quadratic for points in convex position.)
                    let v = Int(tri[bl])
                    if Int(hullTri[v]) == bl { hullTri[v] = Int32(truncatingIfNeeded: a) }
                }
                link(a, hbl)
                link(b, Int(half[ar]))
                link(ar, bl)
                let br = b0 + (b + 1) % 3
                push(br, &depth)
            } else {
                if depth == 0 { break }
                depth -= 1
                a = Int(stack[depth])
            }
        }
        return ar
    }

    mutating func run() {
        let (i0, i1, i2) = seeds
        hullStart = i0
        hullNext[i0] = UInt32(i1)
        hullPrev[i2] = UInt32(i1)
        hullNext[i1] = UInt32(i2)
        hullPrev[i0] = UInt32(i2)
        hullNext[i2] = UInt32(i0)
        hullPrev[i1] = UInt32(i0)
        hullTri[i0] = 0
        hullTri[i1] = 1
        hullTri[i2] = 2
        hullHash[hashKey(px(i0), py(i0))] = Int32(i0)
        hullHash[hashKey(px(i1), py(i1))] = Int32(i1)
        hullHash[hashKey(px(i2), py(i2))] = Int32(i2)
        _ = addTriangle(i0, i1, i2, -1, -1, -1)
        var skip = [Bool](repeating: false, count: withheld.isEmpty ? 0 : n)
        for p in withheld { skip[p] = true }

        for i in 0..<n {
            if i == i0 || i == i1 || i == i2 { continue }
            if !skip.isEmpty && skip[i] { continue }
            let x = px(i)
            let y = py(i)
            // A hull vertex near the point's angle; the walk below starts from its predecessor.
            var start = 0
            let key = hashKey(x, y)
            var slot = key
            for _ in 0..<hashSize {
                let s = Int(hullHash[slot])
                slot = slot + 1 == hashSize ? 0 : slot + 1
                if s != -1 && s != Int(hullNext[s]) {
                    start = s
                    break
                }
            }
            start = Int(hullPrev[start])
            // First hull edge e→q with the point strictly outside (to its left; the hull is clockwise).
            var e = start
            var q = Int(hullNext[e])
            var found = true
            while GeometricPredicates.orient2d(x, y, px(e), py(e), px(q), py(q)) <= 0 {
                e = q
                if e == start {
                    found = false
                    break
                }
                q = Int(hullNext[e])
            }
            if !found {
                // On or inside the hull: only when rounding misordered near-equal distances.
                late.append((Int32(i), hullTri[start]))
                continue
            }
            var t = addTriangle(e, i, Int(hullNext[e]), -1, -1, Int(hullTri[e]))
            hullTri[i] = Int32(truncatingIfNeeded: legalize(t + 2))
            hullTri[e] = Int32(truncatingIfNeeded: t)

            var next = Int(hullNext[e])
            q = Int(hullNext[next])
            while GeometricPredicates.orient2d(x, y, px(next), py(next), px(q), py(q)) > 0 {
                t = addTriangle(next, i, q, Int(hullTri[i]), -1, Int(hullTri[next]))
                hullTri[i] = Int32(truncatingIfNeeded: legalize(t + 2))
                hullNext[next] = UInt32(truncatingIfNeeded: next)  // removed from the hull
                next = q
                q = Int(hullNext[next])
            }
            if e == start {
                q = Int(hullPrev[e])
                while GeometricPredicates.orient2d(x, y, px(q), py(q), px(e), py(e)) > 0 {
                    t = addTriangle(q, i, e, -1, Int(hullTri[e]), Int(hullTri[q]))
                    _ = legalize(t + 2)
                    hullTri[q] = Int32(truncatingIfNeeded: t)
                    hullNext[e] = UInt32(truncatingIfNeeded: e)
                    e = q
                    q = Int(hullPrev[e])
                }
            }
            hullStart = e
            hullPrev[i] = UInt32(truncatingIfNeeded: e)
            hullNext[e] = UInt32(truncatingIfNeeded: i)
            hullPrev[next] = UInt32(truncatingIfNeeded: i)
            hullNext[i] = UInt32(truncatingIfNeeded: next)
            hullHash[hashKey(x, y)] = Int32(truncatingIfNeeded: i)
            hullHash[hashKey(px(e), py(e))] = Int32(truncatingIfNeeded: e)
        }

        late += withheld.map { (Int32($0), 0) }
        lateCount = late.count
        if !late.isEmpty {
            maintainHull = false
            for (point, hint) in late { insertLate(Int(point), hint: Int(hint)) }
        }
    }

    // MARK: Late insertion (points the sweep order put on or inside the hull)

    /// The triangle containing point p (closed), found by a visibility walk from `hint`'s
    /// triangle. The walk terminates on Delaunay triangulations; a bounded step count guards it
    /// anyway, falling back to a scan of all triangles.
    func locate(_ p: Int, hint: Int) -> Int {
        let x = px(p)
        let y = py(p)
        var t = max(0, hint) / 3
        var steps = 0
        let limit = 4 * (trianglesLen / 3) + 16
        var rotation = 0
        walk: while steps < limit {
            steps += 1
            for k in 0..<3 {
                let e = 3 * t + (k + rotation) % 3
                let a = Int(tri[e])
                let b = Int(tri[e % 3 == 2 ? e - 2 : e + 1])
                if GeometricPredicates.orient2d(px(a), py(a), px(b), py(b), x, y) > 0 {
                    let twin = Int(half[e])
                    precondition(twin >= 0, "Delaunay: late point lies outside the convex hull")
                    t = twin / 3
                    rotation = (rotation + 1) % 3
                    continue walk
                }
            }
            return t
        }
        for t in 0..<(trianglesLen / 3) {
            var inside = true
            for k in 0..<3 {
                let e = 3 * t + k
                let a = Int(tri[e])
                let b = Int(tri[e % 3 == 2 ? e - 2 : e + 1])
                if GeometricPredicates.orient2d(px(a), py(a), px(b), py(b), x, y) > 0 { inside = false }
            }
            if inside { return t }
        }
        preconditionFailure("Delaunay: late point not inside any triangle")
    }

    mutating func insertLate(_ p: Int, hint: Int) {
        let t = locate(p, hint: hint)
        var onEdge = -1
        var zeros = 0
        for k in 0..<3 {
            let e = 3 * t + k
            let a = Int(tri[e])
            let b = Int(tri[e % 3 == 2 ? e - 2 : e + 1])
            if orient(a, b, p) == 0 {
                zeros += 1
                onEdge = e
            }
        }
        precondition(zeros <= 1, "Delaunay: late point coincides with a vertex (duplicates must be removed first)")
        if zeros == 0 {
            splitInterior(t, p)
        } else {
            splitEdge(onEdge, p)
        }
    }

    /// Replaces triangle t = (a, b, c) by (a, b, p), (b, c, p), (c, a, p) and restores Delaunay.
    mutating func splitInterior(_ t: Int, _ p: Int) {
        let e0 = 3 * t
        let a = Int(tri[e0])
        let b = Int(tri[e0 + 1])
        let c = Int(tri[e0 + 2])
        let o1 = Int(half[e0 + 1])
        let o2 = Int(half[e0 + 2])
        tri[e0 + 2] = UInt32(truncatingIfNeeded: p)  // t becomes (a, b, p); edge a→b keeps its twin
        let t2 = addTriangle(b, c, p, o1, -1, e0 + 1)  // (b, c, p): b→c, c→p, p→b
        let t3 = addTriangle(c, a, p, o2, e0 + 2, t2 + 1)  // (c, a, p): c→a, a→p (twin p→a), p→c (twin c→p)
        _ = legalize(e0)
        _ = legalize(t2)
        _ = legalize(t3)
    }

    /// Splits the edge at halfedge e (a→b, p strictly inside it) and the one or two triangles on it.
    mutating func splitEdge(_ e: Int, _ p: Int) {
        let t = e / 3
        let e1 = 3 * t + (e % 3 + 1) % 3
        let e2 = 3 * t + (e % 3 + 2) % 3
        let b = Int(tri[e1])
        let c = Int(tri[e2])  // e runs a→b
        let ob = Int(half[e1])  // twin of b→c
        let f = Int(half[e])
        // t becomes (a, p, c): e = a→p, e1 = p→c, e2 = c→a (keeps its twin).
        tri[e1] = UInt32(truncatingIfNeeded: p)
        let t2 = addTriangle(p, b, c, -1, ob, e1)  // (p, b, c): p→b, b→c, c→p
        if f < 0 {
            link(e, -1)
            _ = legalize(e2)
            _ = legalize(t2 + 1)
            return
        }
        // The neighbour across a→b is (b, a, d) with f = b→a.
        let f1 = 3 * (f / 3) + (f % 3 + 1) % 3
        let f2 = 3 * (f / 3) + (f % 3 + 2) % 3
        let d = Int(tri[f2])
        let od = Int(half[f2])  // twin of d→b
        // It becomes (p, a, d): f = p→a, f1 = a→d (keeps its twin), f2 = d→p.
        tri[f] = UInt32(truncatingIfNeeded: p)
        let t4 = addTriangle(b, p, d, t2, f2, od)  // (b, p, d): b→p pairs with p→b, p→d with d→p
        link(e, f)  // a→p with p→a
        _ = legalize(e2)
        _ = legalize(t2 + 1)
        _ = legalize(f1)
        _ = legalize(t4 + 2)
    }
}
