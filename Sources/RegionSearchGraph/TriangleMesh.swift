import RegionSearchCore

/// A Delaunay triangulation in canonical form: the same triangles, stored the same way, whatever
/// algorithm or insertion order produced it.
///
/// A Delaunay triangulation is unique except where four or more points lie on one empty circle
/// (lattices, symmetric blocks): there any triangulation of the cocircular points is Delaunay, and
/// which one the sweep picks depends on the whole point set (its seed, its sweep order). A tile of
/// the data would pick differently from the single run, so the choice is made canonical here:
/// 1. triangles that share an edge whose four points are exactly cocircular (``GeometricPredicates/incircle``
///    = 0) share their circumcircle; each maximal group of them tiles the convex polygon of the
///    points on that circle, and is replaced by the fan from the polygon's lowest-numbered vertex;
/// 2. every triangle is rotated to start at its lowest-numbered vertex (clockwise order kept), so
///    quantities computed from its corners in order (the circumradius) round the same way.
/// Both depend only on the points of each circle and on the order of point indices, so a subset
/// holding every point of a circle (in the same relative order) gets the same triangles there.
///
/// Layout as ``DelaunayTriangulation``: three vertex indices per triangle, clockwise; halfedge `e`
/// runs from `triangles[e]` to the next vertex of its triangle and `halfedges[e]` is its twin or −1
/// on the hull; `chain` lists collinear input along its line.
struct TriangleMesh: Sendable {
    private(set) var triangles: [UInt32]
    private(set) var halfedges: [Int32]
    let chain: [UInt32]
    /// Groups of cocircular triangles that were re-triangulated (for tests and statistics).
    private(set) var cocircularGroups = 0

    var triangleCount: Int { triangles.count / 3 }

    /// Takes over the triangulation's arrays (no copy) and makes them canonical in place.
    init(_ dt: consuming DelaunayTriangulation, x: UnsafeBufferPointer<Double>, y: UnsafeBufferPointer<Double>) {
        chain = dt.chain
        (triangles, halfedges) = dt.releaseStorage()
        guard !triangles.isEmpty else { return }
        canonicalizeCocircular(x: x, y: y)
        rotateToLowestVertex()
    }

    /// Takes over the arrays of any Delaunay triangulation of the points in
    /// ``DelaunayTriangulation``'s layout (the stitched halves of ``SplitTriangulation``) and makes
    /// them canonical in place.
    init(
        delaunayTriangles triangles: [UInt32], halfedges: [Int32], x: UnsafeBufferPointer<Double>,
        y: UnsafeBufferPointer<Double>
    ) {
        chain = []
        self.triangles = triangles
        self.halfedges = halfedges
        guard !triangles.isEmpty else { return }
        canonicalizeCocircular(x: x, y: y)
        rotateToLowestVertex()
    }

    /// The canonical Delaunay triangulation of distinct points: two halves on two threads when
    /// ``SplitTriangulation`` can stitch them (`seamPoints`: the points triangulated again along
    /// the cut), else one sweep (`seamPoints` nil); the same mesh either way.
    static func delaunay(x: UnsafeBufferPointer<Double>, y: UnsafeBufferPointer<Double>)
        -> (mesh: TriangleMesh, lateInsertions: Int, seamPoints: Int?)
    {
        if let split = SplitTriangulation.triangulate(x: x, y: y) {
            let mesh = TriangleMesh(delaunayTriangles: split.triangles, halfedges: split.halfedges, x: x, y: y)
            return (mesh, split.lateInsertions, split.seamPoints)
        }
        let sweep = DelaunayTriangulation(x: x, y: y)
        let late = sweep.lateInsertions
        return (TriangleMesh(sweep, x: x, y: y), late, nil)
    }

    /// Triangles and halfedges given directly (tests).
    init(triangles: [UInt32], halfedges: [Int32], chain: [UInt32] = []) {
        self.triangles = triangles
        self.halfedges = halfedges
        self.chain = chain
    }

    @inline(__always) static func next(_ e: Int) -> Int { e % 3 == 2 ? e - 2 : e + 1 }
    @inline(__always) static func previous(_ e: Int) -> Int { e % 3 == 0 ? e + 2 : e - 1 }

    /// Undirected edges, each once, as vertex pairs (triangle edges, or the chain when collinear).
    func edges() -> (a: [UInt32], b: [UInt32]) {
        if !chain.isEmpty {
            return (Array(chain.dropLast()), Array(chain.dropFirst()))
        }
        var a: [UInt32] = []
        var b: [UInt32] = []
        a.reserveCapacity(triangles.count / 2 + 16)
        b.reserveCapacity(triangles.count / 2 + 16)
        triangles.withUnsafeBufferPointer { tri in
            halfedges.withUnsafeBufferPointer { half in
                for e in 0..<tri.count {
                    let twin = Int(half[e])
                    if twin < 0 || e < twin {
                        a.append(tri[e])
                        b.append(tri[Self.next(e)])
                    }
                }
            }
        }
        return (a, b)
    }

    /// Step 1: each group of triangles with one common circumcircle becomes the fan from its
    /// lowest vertex.
    private mutating func canonicalizeCocircular(x: UnsafeBufferPointer<Double>, y: UnsafeBufferPointer<Double>) {
        let t = triangleCount
        // Union-find over triangles joined across exactly cocircular edges.
        var parent = [Int32](repeating: -1, count: 0)
        func find(_ i: Int) -> Int {
            var r = i
            while parent[r] != Int32(r) { r = Int(parent[r]) }
            var j = i
            while parent[j] != Int32(r) {
                let up = Int(parent[j])
                parent[j] = Int32(r)
                j = up
            }
            return r
        }
        var touched = [Bool](repeating: false, count: 0)
        // The exactly cocircular edges (rare), found on all threads: each chunk of halfedges lists
        // its own in order, and the chunks are joined in order, so the groups below are the same
        // for any thread count.
        let chunkSize = 1 << 16
        let chunks = (triangles.count + chunkSize - 1) / chunkSize
        var found = [[Int]](repeating: [], count: chunks)
        triangles.withUnsafeBufferPointer { tri in
            halfedges.withUnsafeBufferPointer { half in
                found.withUnsafeMutableBufferPointer { found in
                    let found = found
                    Parallel.forEach(chunks) { chunk in
                        var list: [Int] = []
                        for e in (chunk * chunkSize)..<min(tri.count, (chunk + 1) * chunkSize) {
                            let twin = Int(half[e])
                            guard twin > e else { continue }
                            let a = Int(tri[e])
                            let b = Int(tri[Self.next(e)])
                            let c = Int(tri[Self.previous(e)])
                            let d = Int(tri[Self.previous(twin)])
                            if GeometricPredicates.incircle(x[a], y[a], x[b], y[b], x[c], y[c], x[d], y[d]) == 0 {
                                list.append(e)
                            }
                        }
                        found[chunk] = list
                    }
                }
            }
        }
        for e in found.joined() {
            let twin = Int(halfedges[e])
            if touched.isEmpty {
                parent = (0..<Int32(t)).map { $0 }
                touched = [Bool](repeating: false, count: t)
            }
            touched[e / 3] = true
            touched[twin / 3] = true
            let ra = find(e / 3)
            let rb = find(twin / 3)
            if ra != rb { parent[max(ra, rb)] = Int32(min(ra, rb)) }
        }
        guard !touched.isEmpty else { return }
        // Members of each group in triangle order; groups ordered by their first triangle.
        var groupOfRoot = [Int32](repeating: -1, count: t)
        var groups: [[Int]] = []
        for k in 0..<t where touched[k] {
            let r = find(k)
            if groupOfRoot[r] < 0 {
                groupOfRoot[r] = Int32(groups.count)
                groups.append([])
            }
            groups[Int(groupOfRoot[r])].append(k)
        }
        var inGroup = [Int32](repeating: -1, count: t)
        for (g, list) in groups.enumerated() { for k in list { inGroup[k] = Int32(g) } }

        // Each group's boundary: directed edge a → b (clockwise around the polygon) → the twin
        // outside the group (old numbering).
        struct Boundary {
            var from: UInt32
            var to: UInt32
            var outside: Int32
        }
        var boundaries: [[Boundary]] = []
        var fans: [[UInt32]] = []  // per group: the polygon's vertices in boundary order from its lowest
        for (g, list) in groups.enumerated() {
            var edges: [Boundary] = []
            for k in list {
                for e in (3 * k)..<(3 * k + 3) {
                    let twin = Int(halfedges[e])
                    if twin >= 0 && inGroup[twin / 3] == Int32(g) { continue }
                    edges.append(Boundary(from: triangles[e], to: triangles[Self.next(e)], outside: Int32(twin)))
                }
            }
            var next: [UInt32: UInt32] = [:]
            for b in edges { next[b.from] = b.to }
            let start = edges.map(\.from).min()!
            var cycle: [UInt32] = [start]
            var v = start
            while let w = next[v], w != start, cycle.count <= edges.count {
                cycle.append(w)
                v = w
            }
            // A convex polygon with m vertices has m − 2 triangles; anything else is not a clean
            // cocircular group (it cannot happen for an exact Delaunay triangulation): keep it.
            guard next.count == edges.count, cycle.count == edges.count, cycle.count == list.count + 2 else {
                boundaries.append([])
                fans.append([])
                continue
            }
            boundaries.append(edges)
            fans.append(cycle)
        }
        // New triangles and the new halfedge of every boundary edge.
        var boundaryHalfedge: [UInt64: Int32] = [:]
        func key(_ a: UInt32, _ b: UInt32) -> UInt64 { UInt64(a) << 32 | UInt64(b) }
        for (g, list) in groups.enumerated() where !fans[g].isEmpty {
            let c = fans[g]
            let m = c.count
            for (i, slot) in list.enumerated() {
                let s = 3 * slot
                triangles[s] = c[0]
                triangles[s + 1] = c[i + 1]
                triangles[s + 2] = c[i + 2]
                // Inner fan edges pair with the neighbouring fan triangles.
                halfedges[s] = i == 0 ? -1 : Int32(3 * list[i - 1] + 2)
                halfedges[s + 2] = i + 2 == m - 1 ? -1 : Int32(3 * list[i + 1])
                halfedges[s + 1] = -1
                boundaryHalfedge[key(c[i + 1], c[i + 2])] = Int32(s + 1)
                if i == 0 { boundaryHalfedge[key(c[0], c[1])] = Int32(s) }
                if i + 2 == m - 1 { boundaryHalfedge[key(c[m - 1], c[0])] = Int32(s + 2) }
            }
            cocircularGroups += 1
        }
        // Boundary edges join their outside twins (which may be another group's boundary).
        for (g, edges) in boundaries.enumerated() where !fans[g].isEmpty {
            for b in edges {
                guard let mine = boundaryHalfedge[key(b.from, b.to)] else { continue }
                var other = b.outside
                if other >= 0 && inGroup[Int(other) / 3] >= 0 && !fans[Int(inGroup[Int(other) / 3])].isEmpty {
                    other = boundaryHalfedge[key(b.to, b.from)] ?? -1
                }
                halfedges[Int(mine)] = other
                if other >= 0 { halfedges[Int(other)] = mine }
            }
        }
    }

    /// Step 2: rotates every triangle to start at its lowest vertex, renumbering halfedges.
    private mutating func rotateToLowestVertex() {
        let t = triangleCount
        var shift = [UInt8](repeating: 0, count: t)
        var any = false
        for k in 0..<t {
            let a = triangles[3 * k]
            let b = triangles[3 * k + 1]
            let c = triangles[3 * k + 2]
            if b < a && b < c {
                shift[k] = 1
            } else if c < a && c < b {
                shift[k] = 2
            }
            any = any || shift[k] != 0
        }
        guard any else { return }
        // In place, triangle by triangle: a triangle's three entries are read before any is
        // written, and where a twin moved to depends only on `shift`.
        shift.withUnsafeBufferPointer { shift in
            triangles.withUnsafeMutableBufferPointer { tri in
                halfedges.withUnsafeMutableBufferPointer { half in
                    @inline(__always) func moved(_ e: Int) -> Int32 {
                        let k = e / 3
                        return Int32(truncatingIfNeeded: 3 * k + (e % 3 + 3 - Int(shift[k])) % 3)
                    }
                    // Each triangle writes only its own entries and reads only `shift`: any split.
                    let (tri, half) = (tri, half)
                    Parallel.forRanges(t, minChunk: 1 << 15) { range in
                        for k in range {
                            let s = Int(shift[k])
                            let b = 3 * k
                            let (t0, t1, t2) = (tri[b], tri[b + 1], tri[b + 2])
                            let (h0, h1, h2) = (Int(half[b]), Int(half[b + 1]), Int(half[b + 2]))
                            @inline(__always) func twin(_ h: Int) -> Int32 { h < 0 ? -1 : moved(h) }
                            // Entry j of the rotated triangle is entry (j + s) mod 3 of the old one.
                            switch s {
                            case 1:
                                (tri[b], tri[b + 1], tri[b + 2]) = (t1, t2, t0)
                                (half[b], half[b + 1], half[b + 2]) = (twin(h1), twin(h2), twin(h0))
                            case 2:
                                (tri[b], tri[b + 1], tri[b + 2]) = (t2, t0, t1)
                                (half[b], half[b + 1], half[b + 2]) = (twin(h2), twin(h0), twin(h1))
                            default:
                                (half[b], half[b + 1], half[b + 2]) = (twin(h0), twin(h1), twin(h2))
                            }
                        }
                    }
                }
            }
        }
    }
}
