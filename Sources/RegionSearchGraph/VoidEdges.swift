import RegionSearchCore
import RegionSearchModel

/// Delaunay edges that cross a *void*: an empty band or area (a river, a park, a lake, a rail
/// yard) that is wide for the POIs around it.
///
/// A single edge cannot tell a river from a chance gap: in evenly spread POIs, empty circles
/// 1.3 spacings wide are common. What a river has and a gap has not is *extent*: the empty
/// circles of the triangles spanning it touch one another all along it. So:
/// 1. a triangle is *empty* when its circumradius exceeds `radius` × the largest smoothed local
///    spacing σ̄ of its three corners (normal for its sparsest corner: the triangles between a
///    dense centre and its sparse suburbs are not empty). σ̄ is the median σ (``LocalScale``) over
///    the point and its neighbours up to two edges away, but at least the point's own σ / √2:
///    smoothing keeps σ from shrinking inside tight clumps (which would make every gap between
///    clumps look empty) and from swelling at a bank (whose nearest locations lie on one side only,
///    which inflates σ by up to √2);
/// 2. empty triangles sharing an edge form groups; a group of at least `minTriangles` is a void;
/// 3. an edge of a void triangle is dropped when it is longer than the mean σ̄ of its two ends —
///    the edges across the void; the short edges along its banks stay, and so does a gap in a
///    line of POIs that runs along the void rather than across it, a street through a park
///    (``runsAlong(_:_:_:_:x:y:smoothed:own:offsets:neighbors:)``).
///
/// On evenly spread points (a jittered grid) about 1.5 % of edges are dropped, on a Poisson
/// pattern about 5 % (its chance gaps cluster); meandering bands of 2.5–4 spacings keep no
/// crossing edge in either (tests). Deterministic: sequential passes in index order.
enum VoidEdges {
    /// Flags, parallel to `graph.neighbors`, of the CSR entries whose edge crosses a void.
    /// `unique[v]` is the point index of triangulation vertex v; `scale` is per point.
    static func flags(
        triangulation dt: TriangleMesh, unique: [UInt32], x: UnsafeBufferPointer<Double>,
        y: UnsafeBufferPointer<Double>, graph: AdjacencyGraph, radius: Double, minTriangles: Int
    ) -> [UInt8] {
        guard dt.triangleCount > 0, radius > 0 else { return [UInt8](repeating: 0, count: graph.neighbors.count) }
        let smoothed = Self.smoothedScale(graph)
        let empty = Self.emptyTriangles(dt, unique: unique, x: x, y: y, smoothed: smoothed, radius: radius)
        let (group, sizes) = Self.groups(dt, empty: empty)
        let void = (0..<dt.triangleCount).map { group[$0] >= 0 && sizes[Int(group[$0])] >= minTriangles }
        return Self.mark(dt, void: void, unique: unique, x: x, y: y, graph: graph, smoothed: smoothed)
    }

    /// 1. Per triangle: its circumradius exceeds `radius` × the largest σ̄ of its corners.
    static func emptyTriangles(
        _ dt: TriangleMesh, unique: [UInt32], x: UnsafeBufferPointer<Double>, y: UnsafeBufferPointer<Double>,
        smoothed: [Float], radius: Double
    ) -> [Bool] {
        let t = dt.triangleCount
        var empty = [Bool](repeating: false, count: t)
        // Each triangle on its own: all threads, the same flags for any thread count.
        dt.triangles.withUnsafeBufferPointer { tri in
            smoothed.withUnsafeBufferPointer { scale in
                unique.withUnsafeBufferPointer { unique in
                    empty.withUnsafeMutableBufferPointer { empty in
                        let empty = empty
                        Parallel.forRanges(t, minChunk: 16384) { range in
                            for k in range {
                                let a = Int(unique[Int(tri[3 * k])])
                                let b = Int(unique[Int(tri[3 * k + 1])])
                                let c = Int(unique[Int(tri[3 * k + 2])])
                                let r2 = DelaunayTriangulation.circumradius2(x[a], y[a], x[b], y[b], x[c], y[c])
                                let sigma = Double(max(scale[a], scale[b], scale[c]))
                                let limit = radius * sigma
                                empty[k] = r2 > limit * limit
                            }
                        }
                    }
                }
            }
        }
        return empty
    }

    /// 2. Groups of empty triangles across shared edges (iterative, in index order): each empty
    /// triangle's group, −1 for the others, and each group's size.
    static func groups(_ dt: TriangleMesh, empty: [Bool]) -> (group: [Int32], sizes: [Int]) {
        let t = dt.triangleCount
        var group = [Int32](repeating: -1, count: t)
        var sizes: [Int] = []
        var stack: [Int] = []
        dt.halfedges.withUnsafeBufferPointer { half in
            for s in 0..<t where empty[s] && group[s] < 0 {
                let id = Int32(sizes.count)
                group[s] = id
                stack.append(s)
                var size = 0
                while let k = stack.popLast() {
                    size += 1
                    for e in (3 * k)..<(3 * k + 3) {
                        let twin = Int(half[e])
                        if twin < 0 { continue }
                        let other = twin / 3
                        if empty[other] && group[other] < 0 {
                            group[other] = id
                            stack.append(other)
                        }
                    }
                }
                sizes.append(size)
            }
        }
        return (group, sizes)
    }

    /// 3. Flags the CSR entries of the edges of `void` triangles that are longer than the mean σ̄
    /// of their two ends and do not run along the void.
    static func mark(
        _ dt: TriangleMesh, void: [Bool], unique: [UInt32], x: UnsafeBufferPointer<Double>,
        y: UnsafeBufferPointer<Double>, graph: AdjacencyGraph, smoothed: [Float]
    ) -> [UInt8] {
        var flags = [UInt8](repeating: 0, count: graph.neighbors.count)
        dt.triangles.withUnsafeBufferPointer { tri in
            smoothed.withUnsafeBufferPointer { scale in
                graph.offsets.withUnsafeBufferPointer { offsets in
                    graph.neighbors.withUnsafeBufferPointer { nb in
                        func mark(_ u: Int, _ v: Int) {
                            if let e = Self.entry(u, v, offsets: offsets, neighbors: nb) { flags[e] = 1 }
                        }
                        graph.scale.withUnsafeBufferPointer { own in
                            dt.halfedges.withUnsafeBufferPointer { half in
                                for k in 0..<dt.triangleCount where void[k] {
                                    for e in (3 * k)..<(3 * k + 3) {
                                        let u = Int(unique[Int(tri[e])])
                                        let v = Int(unique[Int(tri[TriangleMesh.next(e)])])
                                        guard Self.crosses(u, v, x: x, y: y, smoothed: scale) else { continue }
                                        let twin = Int(half[e])
                                        let w1 = Int(unique[Int(tri[TriangleMesh.previous(e)])])
                                        let w2 = twin < 0 ? nil : Int(unique[Int(tri[TriangleMesh.previous(twin)])])
                                        if Self.runsAlong(
                                            u, v, w1, w2, x: x, y: y, smoothed: scale, own: own, offsets: offsets,
                                            neighbors: nb)
                                        {
                                            continue
                                        }
                                        mark(u, v)
                                        mark(v, u)
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        return flags
    }

    /// How long, in mean σ̄ of its ends, an edge that
    /// ``runsAlong(_:_:_:_:x:y:smoothed:own:offsets:neighbors:)`` a void may be and stay: a
    /// street's gap between POIs, not a sparse path across a park between two dense districts
    /// (whose POIs' σ̄ is far smaller than its gaps).
    static let alongLimit = 1.5

    /// Whether edge {u, v} of a void triangle is a gap in a line of POIs that runs *along* the void
    /// rather than across it — a street of POIs through a park, with nothing on either side:
    /// 1. it is short for its ends: at most ``alongLimit`` × the mean σ̄ of its ends, and no longer
    ///    than the own σ of either end (among both ends' `scale_k` nearest locations);
    /// 2. it is the shortest side of both triangles it borders (u v w1 and, unless {u, v} is on
    ///    the hull, u v w2), except that a third corner on the edge's own line beyond one of its
    ///    ends (within 30°) does not count: the sliver triangles of nearly collinear POIs;
    /// 3. the line goes on at both ends: each end has another neighbour on its far side, within
    ///    30° of the edge's line and at most 1.5 × the edge's length away.
    ///
    /// A street through a park has void triangles on both sides of every edge between two of its
    /// POIs, and tight clumps of restaurants on it pull σ̄ below its other gaps; each of those
    /// triangles has its third corner far off across the park (or on the street beyond the edge).
    /// An edge across a river is none of this: the triangle it borders on each side has a side
    /// along a bank, off the edge's line and shorter than the river is wide. Rules 1 (own σ) and 3
    /// keep pairs of scattered POIs in sparse country (heliports 20–50 km around a city) from
    /// passing for a line.
    @inline(__always)
    static func runsAlong(
        _ u: Int, _ v: Int, _ w1: Int, _ w2: Int?, x: UnsafeBufferPointer<Double>, y: UnsafeBufferPointer<Double>,
        smoothed scale: UnsafeBufferPointer<Float>, own: UnsafeBufferPointer<Float>,
        offsets: UnsafeBufferPointer<UInt64>, neighbors nb: UnsafeBufferPointer<UInt32>
    ) -> Bool {
        let ex = x[v] - x[u]
        let ey = y[v] - y[u]
        let edge = ex * ex + ey * ey
        let limit = min(
            alongLimit * 0.5 * (Double(scale[u]) + Double(scale[v])), Double(own[u]), Double(own[v]))
        guard edge <= limit * limit else { return false }
        // cos² 30°: w lies on the edge's line beyond an end when the angle at that end between
        // the edge and w is over 150°.
        let cos2 = 0.75
        /// Whether w lies beyond end `a` on the line from the other end `b` through it (within 30°).
        @inline(__always) func beyond(_ w: Int, _ a: Int, from b: Int) -> Bool {
            let wx = x[w] - x[a]
            let wy = y[w] - y[a]
            let dot = wx * (x[b] - x[a]) + wy * (y[b] - y[a])
            return dot < 0 && dot * dot >= cos2 * (wx * wx + wy * wy) * edge
        }
        @inline(__always) func distance2(_ a: Int, _ b: Int) -> Double {
            let dx = x[a] - x[b]
            let dy = y[a] - y[b]
            return dx * dx + dy * dy
        }
        // 2. The edge is the triangle's shortest side, or its third corner is beyond an end.
        @inline(__always) func fits(_ w: Int) -> Bool {
            (distance2(w, u) >= edge && distance2(w, v) >= edge) || beyond(w, u, from: v) || beyond(w, v, from: u)
        }
        guard fits(w1), w2.map(fits) ?? true else { return false }
        // 3. A neighbour of `a` beyond it, at most 1.5 × the edge away.
        @inline(__always) func goesOn(_ a: Int, from b: Int) -> Bool {
            for f in Int(offsets[a])..<Int(offsets[a + 1]) {
                let w = Int(nb[f])
                guard w != b else { continue }
                let distance = distance2(w, a)
                if distance > 0 && distance <= 2.25 * edge && beyond(w, a, from: b) { return true }
            }
            return false
        }
        return goesOn(u, from: v) && goesOn(v, from: u)
    }

    /// Whether edge {u, v} of a void triangle is one across the void: longer than the mean σ̄ of
    /// its ends.
    @inline(__always)
    static func crosses(
        _ u: Int, _ v: Int, x: UnsafeBufferPointer<Double>, y: UnsafeBufferPointer<Double>,
        smoothed scale: UnsafeBufferPointer<Float>
    ) -> Bool {
        let dx = x[u] - x[v]
        let dy = y[u] - y[v]
        let sigma = 0.5 * (Double(scale[u]) + Double(scale[v]))
        return dx * dx + dy * dy > sigma * sigma
    }

    /// The CSR entry of v in row u, by binary search.
    @inline(__always)
    static func entry(
        _ u: Int, _ v: Int, offsets: UnsafeBufferPointer<UInt64>, neighbors nb: UnsafeBufferPointer<UInt32>
    ) -> Int? {
        var lo = Int(offsets[u])
        var hi = Int(offsets[u + 1])
        let target = UInt32(truncatingIfNeeded: v)
        while lo < hi {
            let mid = (lo + hi) / 2
            if nb[mid] < target { lo = mid + 1 } else { hi = mid }
        }
        return lo < Int(offsets[u + 1]) && nb[lo] == target ? lo : nil
    }

    /// The k-th smallest of `v[0..<m]` (0-based) by quickselect; reorders `v[0..<m]` so that the
    /// k values before position k are the smallest.
    @inline(__always)
    static func select(_ v: UnsafeMutablePointer<Float>, _ m: Int, _ k: Int) -> Float {
        var lo = 0
        var hi = m - 1
        while lo < hi {
            let mid = lo + (hi - lo) / 2
            if v[mid] < v[lo] { swap(&v[mid], &v[lo]) }
            if v[hi] < v[lo] { swap(&v[hi], &v[lo]) }
            if v[hi] < v[mid] { swap(&v[hi], &v[mid]) }
            let pivot = v[mid]
            var i = lo
            var j = hi
            while i <= j {
                while v[i] < pivot { i += 1 }
                while v[j] > pivot { j -= 1 }
                if i <= j {
                    let t = v[i]
                    v[i] = v[j]
                    v[j] = t
                    i += 1
                    j -= 1
                }
            }
            if k <= j { hi = j } else if k >= i { lo = i } else { return v[k] }
        }
        return v[k]
    }

    /// The median of `v[0..<m]` (the mean of the two middle values when m is even); `v` has room
    /// for 8 more values after m. The same value a sort gives, bit for bit.
    ///
    /// For the usual two-edge neighbourhood (about 20 values) by rank: the k-th smallest is the
    /// value with fewer than k + 1 values below it and at least k + 1 at or below it, counted
    /// eight at a time against the values padded with +∞ — no data-dependent branch, where a
    /// quickselect's partitioning mispredicts about half of its comparisons. Larger sets (hubs)
    /// by quickselect.
    @inline(__always)
    static func median(_ v: UnsafeMutablePointer<Float>, _ m: Int) -> Float {
        guard m <= 48 else {
            let upper = select(v, m, m / 2)
            guard m % 2 == 0 else { return upper }
            // The lower half now holds the m/2 smallest values: the other middle value is their
            // largest.
            var lower = v[0]
            for k in 1..<(m / 2) { lower = max(lower, v[k]) }
            return 0.5 * (lower + upper)
        }
        let chunks = (m + 7) / 8
        for j in m..<(chunks * 8) { v[j] = .infinity }
        let raw = UnsafeRawPointer(v)
        let k = m / 2
        var upper: Float = 0
        var lower: Float = 0
        var needUpper = true
        var needLower = m % 2 == 0
        for i in 0..<m {
            let x = SIMD8<Float>(repeating: v[i])
            var below = SIMD8<Int32>()
            var atOrBelow = SIMD8<Int32>()
            for c in 0..<chunks {
                let w = raw.loadUnaligned(fromByteOffset: c * 32, as: SIMD8<Float>.self)
                // A true lane is all ones: −1 as an integer.
                below &-= unsafeBitCast(w .< x, to: SIMD8<Int32>.self)
                atOrBelow &-= unsafeBitCast(w .<= x, to: SIMD8<Int32>.self)
            }
            let a = Int(below.wrappedSum())
            let b = Int(atOrBelow.wrappedSum())
            if needUpper && a <= k && k < b {
                upper = v[i]
                needUpper = false
            }
            if needLower && a <= k - 1 && k - 1 < b {
                lower = v[i]
                needLower = false
            }
            if !needUpper && !needLower { break }
        }
        return m % 2 == 0 ? 0.5 * (lower + upper) : upper
    }

    /// σ̄ per point: the median σ over the point and its graph neighbours up to two edges away, at
    /// least the point's own σ / √2.
    ///
    /// Each worker marks the points it has reached from i in its own stamp array (no sort to
    /// remove duplicates) and selects the median of the ~20 values without sorting them (``median(_:_:)``): the
    /// median of the same multiset as a sort gives, bit for bit.
    static func smoothedScale(_ graph: AdjacencyGraph) -> [Float] {
        let n = graph.nodeCount
        var out = [Float](repeating: 0, count: n)
        let workers = max(1, min(Parallel.threadCount, n / 4096))
        let share = (n + workers - 1) / workers
        out.withUnsafeMutableBufferPointer { out in
            let out = out
            graph.offsets.withUnsafeBufferPointer { offsets in
                graph.neighbors.withUnsafeBufferPointer { nb in
                    graph.scale.withUnsafeBufferPointer { scale in
                        Parallel.forEach(workers) { w in
                            // seen[v] == i + 1: v already counted for point i (no clearing needed).
                            let seen = UnsafeMutablePointer<UInt32>.allocate(capacity: n)
                            seen.initialize(repeating: 0, count: n)
                            var capacity = 64
                            var values = UnsafeMutablePointer<Float>.allocate(capacity: capacity)
                            defer {
                                seen.deallocate()
                                values.deallocate()
                            }
                            for i in (w * share)..<min(n, (w + 1) * share) {
                                let mark = UInt32(truncatingIfNeeded: i + 1)
                                let lo = Int(offsets[i])
                                let hi = Int(offsets[i + 1])
                                // Room for every value reached before removing repeats, so the
                                // loops below write without a branch (repeats are written and
                                // not counted).
                                var reach = 1 + hi - lo
                                for e in lo..<hi {
                                    let j = Int(nb[e])
                                    reach += Int(offsets[j + 1] - offsets[j])
                                }
                                if reach + 8 > capacity {
                                    values.deallocate()
                                    capacity = max(2 * capacity, reach + 8)
                                    values = UnsafeMutablePointer<Float>.allocate(capacity: capacity)
                                }
                                var m = 0
                                @inline(__always) func add(_ v: Int) {
                                    values[m] = scale[v]
                                    m &+= seen[v] == mark ? 0 : 1
                                    seen[v] = mark
                                }
                                add(i)
                                for e in lo..<hi { add(Int(nb[e])) }
                                for e in lo..<hi {
                                    let j = Int(nb[e])
                                    for f in Int(offsets[j])..<Int(offsets[j + 1]) { add(Int(nb[f])) }
                                }
                                let median = Self.median(values, m)
                                // Never below the point's own σ deflated by √2, the most a half-plane
                                // (a bank) inflates it: a sparse point beside a dense centre keeps
                                // its own, sparse, spacing.
                                out[i] = max(median, scale[i] * 0.70710678)
                            }
                        }
                    }
                }
            }
        }
        return out
    }
}
