import RegionSearchCore

/// The Delaunay triangulation of distinct points built as two overlapping halves on two threads,
/// stitched along the cut; nil whenever the stitch cannot be shown right (the caller then sweeps all
/// points at once).
///
/// Why: the sweep (``DelaunayTriangulation``) is one thread, and at a million points it is the
/// graph stage's largest part. Two halves sweep at the same time.
///
/// How, with every decision exact or on the safe side of rounding:
/// 1. **Cut.** The points are cut across the longer side of their box at the median coordinate
///    `cut`. The left half *loads* the points below `hi` and *owns* those below `cut`; the right
///    half loads those at or above `lo` and owns those at or above `cut` (`lo` and `hi` are the
///    quantiles ``haloShare`` either side of the median: a strip of about 2 % of the points).
/// 2. **Kept triangles.** A half keeps a triangle of its own triangulation when its three corners
///    are its own and its circumcircle lies inside what the half loaded (by a margin far above the
///    rounding of its centre). No point of the other side can lie in that circle, so the triangle is
///    one of the whole triangulation's. Kept triangles of the two halves lie on opposite sides of
///    the cut and never overlap.
/// 3. **The seam.** A point is *complete* when all of its triangles in its half are kept and it is
///    not on that half's hull: its triangles are then all of its triangles in the whole
///    triangulation. Every triangle of the whole triangulation that neither half kept has only
///    incomplete corners, and its circle is empty of all points, so it is a triangle of the
///    triangulation of the incomplete points (the seam: the points along the cut and the halves'
///    hulls, a few thousand at a million). The seam is triangulated, and its triangles reached
///    from the kept triangles' open edges without crossing a kept edge fill the hole between the
///    halves.
/// 4. **Checks.** The stitched mesh must have a twin for every inner edge (each frontier edge
///    joined once), exactly 2n − 2 − h triangles for n points and h hull edges (every point used
///    once, one disc), a convex hull traversed once (no left turn, back at its start after h
///    steps, one highest corner: a cycle that turned back on itself would have two), and every edge
///    of the seam's triangles locally Delaunay. Exactly cocircular points across the stitch
///    (lattices) can defeat step 3: then a check fails and nil is returned.
///
/// The checks alone prove the answer: a mesh of clockwise triangles with symmetric twins round one
/// convex boundary covers the hull once, the count makes it use every point, and an edge inside
/// one half's kept triangles is Delaunay by that half's triangulation, every other inner edge by
/// the check, so the mesh is a Delaunay triangulation. Steps 2–3 (and the certification's margin)
/// decide only whether the stitch succeeds and how large the seam is.
///
/// ``TriangleMesh`` then makes the mesh canonical as it does the single sweep's, so the graph is
/// the same byte for byte (``SplitTriangulationTests`` compare the two).
enum SplitTriangulation {
    /// Below this many points one sweep is about as fast as two halves and a stitch.
    static let minimumPoints = 1 << 16
    /// The share of points either side of the cut that each half loads beyond its own.
    static let haloShare = 0.02

    /// A stitched triangulation: the layout of ``DelaunayTriangulation`` (clockwise triples over
    /// the input's indices, twins, −1 on the hull), before the canonical form.
    struct Stitched {
        var triangles: [UInt32]
        var halfedges: [Int32]
        /// Late insertions of the three sweeps (halves and seam).
        var lateInsertions: Int
        /// Points triangulated again in the seam.
        var seamPoints: Int
    }

    /// One half's triangulation, its points' indices in the whole set, and its kept triangles.
    private struct Half {
        var global: [UInt32] = []
        var triangles: [UInt32] = []
        var halfedges: [Int32] = []
        var kept: [Bool] = []
        var keptCount = 0
        var lateInsertions = 0
        var usable = false
    }

    /// Triangulates the distinct points (x[i], y[i]) in two halves; nil for fewer than
    /// `minimumPoints` points, fewer than two threads, or a stitch that fails its checks.
    static func triangulate(
        x: UnsafeBufferPointer<Double>, y: UnsafeBufferPointer<Double>, minimumPoints: Int = Self.minimumPoints
    ) -> Stitched? {
        precondition(x.count == y.count)
        let n = x.count
        guard n >= max(minimumPoints, 16), Parallel.threadCount >= 2 else { return nil }
        let box = PointBounds(x: x, y: y)
        let alongX = box.maxX - box.minX >= box.maxY - box.minY
        let axis = alongX ? x : y
        // Quantiles of a strided sample: any cut is right, the median only balances the halves.
        let step = max(1, n / 65_536)
        var sample: [Double] = []
        sample.reserveCapacity(n / step + 1)
        for i in stride(from: 0, to: n, by: step) { sample.append(axis[i]) }
        sample.sort()
        func quantile(_ p: Double) -> Double { sample[min(sample.count - 1, Int(p * Double(sample.count)))] }
        let cut = quantile(0.5)
        let lo = quantile(0.5 - haloShare)
        let hi = quantile(0.5 + haloShare)
        guard lo < cut, cut < hi else { return nil }

        var halves = [Half](repeating: Half(), count: 2)
        // Incomplete points (step 3). Each half marks only its own points: disjoint bytes.
        var incomplete = [UInt8](repeating: 0, count: n)
        incomplete.withUnsafeMutableBufferPointer { marks in
            halves.withUnsafeMutableBufferPointer { halves in
                let (marks, halves) = (marks, halves)
                Parallel.forEach(2) { side in
                    halves[side] = Self.half(
                        side: side, x: x, y: y, axis: axis, alongX: alongX, cut: cut, lo: lo, hi: hi, marks: marks)
                }
            }
        }
        guard halves[0].usable, halves[1].usable else { return nil }

        // The seam's triangulation, over the input's indices.
        var seam: [UInt32] = []
        for i in 0..<n where incomplete[i] != 0 { seam.append(UInt32(i)) }
        guard seam.count >= 3, seam.count <= n / 4 else { return nil }
        let sx = seam.map { x[Int($0)] }
        let sy = seam.map { y[Int($0)] }
        var seamDT = sx.withUnsafeBufferPointer { sx in
            sy.withUnsafeBufferPointer { DelaunayTriangulation(x: sx, y: $0) }
        }
        guard seamDT.chain.isEmpty, seamDT.triangleCount > 0 else { return nil }
        let seamLate = seamDT.lateInsertions
        var (seamTri, seamHalf) = seamDT.releaseStorage()
        for e in 0..<seamTri.count { seamTri[e] = seam[Int(seamTri[e])] }

        @inline(__always) func key(_ a: UInt32, _ b: UInt32) -> UInt64 { UInt64(a) << 32 | UInt64(b) }
        let next = TriangleMesh.next
        let previous = TriangleMesh.previous

        // The stitched arrays: left's kept triangles, right's, then the hole's, each half's
        // written by its own thread. Frontier: a kept triangle's edge a → b whose twin its half did
        // not keep (the hole, or the hull, lies beyond it), with its stitched halfedge.
        let keptTotal = halves[0].keptCount + halves[1].keptCount
        let capacity = 3 * (keptTotal + seamTri.count / 3)
        var tri = [UInt32](unsafeUninitializedCapacity: capacity) { _, c in c = capacity }
        var half = [Int32](unsafeUninitializedCapacity: capacity) { _, c in c = capacity }
        var frontierLists = [[(key: UInt64, halfedge: Int32)]](repeating: [], count: 2)
        tri.withUnsafeMutableBufferPointer { tri in
            half.withUnsafeMutableBufferPointer { half in
                frontierLists.withUnsafeMutableBufferPointer { lists in
                    halves.withUnsafeBufferPointer { halves in
                        let (tri, half, lists, halves) = (tri, half, lists, halves)
                        Parallel.forEach(2) { side in
                            lists[side] = Self.placeKept(
                                halves[side], first: side == 0 ? 0 : halves[0].keptCount, tri: tri, half: half)
                        }
                    }
                }
            }
        }
        let halvesLate = halves[0].lateInsertions + halves[1].lateInsertions
        halves = []
        var frontier: [UInt64: Int32] = [:]
        frontier.reserveCapacity(frontierLists[0].count + frontierLists[1].count)
        for list in frontierLists {
            for f in list { guard frontier.updateValue(f.halfedge, forKey: f.key) == nil else { return nil } }
        }

        // The hole: the seam's triangles reached from the frontier without crossing a kept edge.
        var seamEdge: [UInt64: Int32] = [:]
        seamEdge.reserveCapacity(seamTri.count)
        for e in 0..<seamTri.count { seamEdge[key(seamTri[e], seamTri[next(e)])] = Int32(e) }
        let seamTriangles = seamTri.count / 3
        var inHole = [Bool](repeating: false, count: seamTriangles)
        var stack: [Int] = []
        for list in frontierLists {
            for f in list {
                let a = UInt32(truncatingIfNeeded: f.key >> 32)
                let b = UInt32(truncatingIfNeeded: f.key)
                // No seam edge b → a: the frontier edge is on the hull (checked below).
                guard let e = seamEdge[key(b, a)], !inHole[Int(e) / 3] else { continue }
                inHole[Int(e) / 3] = true
                stack.append(Int(e) / 3)
                while let t = stack.popLast() {
                    for e in (3 * t)..<(3 * t + 3) {
                        if frontier[key(seamTri[next(e)], seamTri[e])] != nil { continue }
                        let twin = Int(seamHalf[e])
                        if twin >= 0 && !inHole[twin / 3] {
                            inHole[twin / 3] = true
                            stack.append(twin / 3)
                        }
                    }
                }
            }
        }
        var holeSlot = [Int32](repeating: -1, count: seamTriangles)
        var count = keptTotal
        for t in 0..<seamTriangles where inHole[t] {
            holeSlot[t] = Int32(count)
            count += 1
        }
        var joined = Set<Int32>()
        for t in 0..<seamTriangles where inHole[t] {
            let base = 3 * Int(holeSlot[t])
            for j in 0..<3 {
                let e = 3 * t + j
                tri[base + j] = seamTri[e]
                let twin = Int(seamHalf[e])
                if twin >= 0 && inHole[twin / 3] {
                    half[base + j] = Int32(3 * Int(holeSlot[twin / 3]) + twin % 3)
                } else if let f = frontier[key(seamTri[next(e)], seamTri[e])] {
                    guard joined.insert(f).inserted else { return nil }
                    half[base + j] = f
                    half[Int(f)] = Int32(base + j)
                } else {
                    half[base + j] = -1
                }
            }
        }
        tri.removeLast(tri.count - 3 * count)
        half.removeLast(half.count - 3 * count)

        // Checks (step 4). Only frontier and hole halfedges can be on the hull.
        var hullNext: [Int: Int] = [:]
        var hullStart = -1
        func hullEdge(_ e: Int) -> Bool {
            guard half[e] < 0 else { return true }
            let a = Int(tri[e])
            guard hullNext.updateValue(Int(tri[next(e)]), forKey: a) == nil else { return false }
            hullStart = a
            return true
        }
        for list in frontierLists { for f in list { guard hullEdge(Int(f.halfedge)) else { return nil } } }
        for e in (3 * keptTotal)..<tri.count { guard hullEdge(e) else { return nil } }
        let hullEdges = hullNext.count
        guard hullStart >= 0, count == 2 * n - 2 - hullEdges else { return nil }
        // One convex cycle through every hull edge: clockwise (no left turn), back at its start
        // after exactly `hullEdges` steps, and round once (one highest vertex in (y, x) order:
        // a cycle of right turns that wound twice would have two).
        @inline(__always) func above(_ p: Int, _ q: Int) -> Bool { y[p] > y[q] || (y[p] == y[q] && x[p] > x[q]) }
        var a = hullStart
        var b = hullNext[a]!
        var steps = 0
        var highest = 0
        repeat {
            guard let c = hullNext[b], GeometricPredicates.orient2d(x[a], y[a], x[b], y[b], x[c], y[c]) <= 0 else {
                return nil
            }
            if above(b, a) && above(b, c) { highest += 1 }
            a = b
            b = c
            steps += 1
        } while a != hullStart && steps <= hullEdges
        guard steps == hullEdges, highest == 1 else { return nil }
        // The seam's triangles are Delaunay across each of their edges (to each other and to the
        // kept triangles); the kept ones are, inside each half, by their half's triangulation.
        for e in (3 * keptTotal)..<tri.count {
            let twin = Int(half[e])
            guard twin >= 0 else { continue }
            let p = Int(tri[e])
            let q = Int(tri[next(e)])
            let r = Int(tri[previous(e)])
            let d = Int(tri[previous(twin)])
            if GeometricPredicates.incircle(x[p], y[p], x[q], y[q], x[r], y[r], x[d], y[d]) < 0 { return nil }
        }
        return Stitched(
            triangles: tri, halfedges: half, lateInsertions: halvesLate + seamLate, seamPoints: seam.count)
    }

    /// Writes a half's kept triangles from slot `first` on, their twins among themselves, and −1
    /// for the others; returns its frontier edges in triangle order.
    private static func placeKept(
        _ h: Half, first: Int, tri: UnsafeMutableBufferPointer<UInt32>, half: UnsafeMutableBufferPointer<Int32>
    ) -> [(key: UInt64, halfedge: Int32)] {
        var slot = [Int32](repeating: -1, count: h.kept.count)
        var s = Int32(first)
        for t in 0..<h.kept.count where h.kept[t] {
            slot[t] = s
            s += 1
        }
        var frontier: [(key: UInt64, halfedge: Int32)] = []
        for t in 0..<h.kept.count where h.kept[t] {
            let base = 3 * Int(slot[t])
            for j in 0..<3 {
                let e = 3 * t + j
                tri[base + j] = h.triangles[e]
                let twin = Int(h.halfedges[e])
                if twin >= 0 && h.kept[twin / 3] {
                    half[base + j] = Int32(3 * Int(slot[twin / 3]) + twin % 3)
                } else {
                    half[base + j] = -1
                    let b = h.triangles[TriangleMesh.next(e)]
                    frontier.append((UInt64(h.triangles[e]) << 32 | UInt64(b), Int32(base + j)))
                }
            }
        }
        return frontier
    }

    /// Triangulates one half and finds its kept triangles; marks its own incomplete points.
    private static func half(
        side: Int, x: UnsafeBufferPointer<Double>, y: UnsafeBufferPointer<Double>, axis: UnsafeBufferPointer<Double>,
        alongX: Bool, cut: Double, lo: Double, hi: Double, marks: UnsafeMutableBufferPointer<UInt8>
    ) -> Half {
        let left = side == 0
        var h = Half()
        let n = x.count
        for i in 0..<n where left ? axis[i] < hi : axis[i] >= lo { h.global.append(UInt32(i)) }
        let hx = h.global.map { x[Int($0)] }
        let hy = h.global.map { y[Int($0)] }
        var dt = hx.withUnsafeBufferPointer { hx in hy.withUnsafeBufferPointer { DelaunayTriangulation(x: hx, y: $0) } }
        guard dt.chain.isEmpty, dt.triangleCount > 0 else { return h }
        h.lateInsertions = dt.lateInsertions
        (h.triangles, h.halfedges) = dt.releaseStorage()
        h.global.withUnsafeBufferPointer { g in
            h.triangles.withUnsafeMutableBufferPointer { t in
                for e in 0..<t.count { t[e] = g[Int(t[e])] }
            }
        }
        @inline(__always) func own(_ i: Int) -> Bool { left ? axis[i] < cut : axis[i] >= cut }
        let triangleCount = h.triangles.count / 3
        h.kept = [Bool](repeating: false, count: triangleCount)
        for t in 0..<triangleCount {
            let p = Int(h.triangles[3 * t])
            let q = Int(h.triangles[3 * t + 1])
            let r = Int(h.triangles[3 * t + 2])
            guard own(p) && own(q) && own(r) else { continue }
            // The circle's extent along the axis, from its centre relative to p (rounding bounded
            // through the triangle's condition |pq|·|pr| / |det|, with a wide margin).
            let dx = x[q] - x[p]
            let dy = y[q] - y[p]
            let ex = x[r] - x[p]
            let ey = y[r] - y[p]
            let bl = dx * dx + dy * dy
            let cl = ex * ex + ey * ey
            let det = dx * ey - dy * ex
            guard det != 0 else { continue }
            let ox = (ey * bl - dy * cl) * 0.5 / det
            let oy = (dx * cl - ex * bl) * 0.5 / det
            let radius = (ox * ox + oy * oy).squareRoot()
            let condition = (bl * cl).squareRoot() / abs(det)
            let centre = axis[p] + (alongX ? ox : oy)
            let margin = 1e-11 * (1 + condition) * (radius + abs(axis[p]) + abs(left ? hi : lo))
            let inside = left ? centre + radius + margin < hi : centre - radius - margin > lo
            if inside {
                h.kept[t] = true
                h.keptCount += 1
            }
        }
        for e in 0..<h.triangles.count {
            let p = Int(h.triangles[e])
            if own(p) && (!h.kept[e / 3] || h.halfedges[e] < 0) { marks[p] = 1 }
            // A hull edge's other end too.
            if h.halfedges[e] < 0 {
                let q = Int(h.triangles[TriangleMesh.next(e)])
                if own(q) { marks[q] = 1 }
            }
        }
        h.usable = true
        return h
    }
}
