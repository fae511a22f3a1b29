import XCTest

@testable import RegionSearchGraph
@testable import RegionSearchTestSupport

/// The triangulation against GEOS, against brute force, and against the defining properties.
final class DelaunayTests: XCTestCase {
    // MARK: Helpers

    /// Set equality reported as counts (never dumps the sets).
    private func assertSameEdges(
        _ a: Set<UInt64>, _ b: Set<UInt64>, _ message: String = "",
        file: StaticString = #filePath, line: UInt = #line
    ) {
        let onlyA = a.subtracting(b).count
        let onlyB = b.subtracting(a).count
        XCTAssertTrue(
            onlyA == 0 && onlyB == 0,
            "edge sets differ: \(onlyA) only in first, \(onlyB) only in second (of \(a.count), \(b.count)) \(message)",
            file: file, line: line)
    }

    private func triangulate(_ p: PointSet, withheld: [Int] = []) -> DelaunayTriangulation {
        p.x.withUnsafeBufferPointer { x in
            p.y.withUnsafeBufferPointer { y in DelaunayTriangulation(x: x, y: y, withheld: withheld) }
        }
    }

    private func edgeSet(_ dt: DelaunayTriangulation) -> Set<UInt64> {
        let (a, b) = dt.edges()
        return Set(zip(a, b).map { GEOSDelaunay.pair(Int($0), Int($1)) })
    }

    /// The convex hull ring (clockwise from the lowest point, collinear boundary points kept) of
    /// the points `subset` (all when nil), by monotone chain with exact orientation.
    private func hullRing(_ p: PointSet, _ subset: [Int]? = nil) -> [Int] {
        let idx = (subset ?? Array(0..<p.count)).sorted { (p.x[$0], p.y[$0]) < (p.x[$1], p.y[$1]) }
        func orient(_ a: Int, _ b: Int, _ c: Int) -> Double {
            GeometricPredicates.orient2d(p.x[a], p.y[a], p.x[b], p.y[b], p.x[c], p.y[c])
        }
        var lower: [Int] = []
        var upper: [Int] = []
        for i in idx {
            while lower.count >= 2 && orient(lower[lower.count - 2], lower[lower.count - 1], i) < 0 {
                lower.removeLast()
            }
            lower.append(i)
        }
        for i in idx.reversed() {
            while upper.count >= 2 && orient(upper[upper.count - 2], upper[upper.count - 1], i) < 0 {
                upper.removeLast()
            }
            upper.append(i)
        }
        return Array(lower.dropLast()) + Array(upper.dropLast())
    }

    /// Whether point i lies in the closed convex polygon `ring` (counter-clockwise).
    private func inside(_ p: PointSet, _ i: Int, _ ring: [Int]) -> Bool {
        for k in 0..<ring.count {
            let a = ring[k]
            let b = ring[(k + 1) % ring.count]
            if GeometricPredicates.orient2d(p.x[a], p.y[a], p.x[b], p.y[b], p.x[i], p.y[i]) < 0 { return false }
        }
        return true
    }

    /// Number of points on the hull boundary and the hull's doubled area.
    private func hull(_ p: PointSet) -> (boundary: Int, twiceArea: Double) {
        let ring = hullRing(p)
        var area = 0.0
        for k in 0..<ring.count {
            let a = ring[k]
            let b = ring[(k + 1) % ring.count]
            area += (p.x[a] - p.x[0]) * (p.y[b] - p.y[0]) - (p.x[b] - p.x[0]) * (p.y[a] - p.y[0])
        }
        return (ring.count, area)
    }

    /// GEOS triangulates inside a finite frame triangle, so along nearly straight stretches of
    /// the convex hull it misses thin triangles (its edge count falls short of Euler's). Accept
    /// exactly that: GEOS's edges are a subset of ours, and every edge only we have lies in the
    /// hull zone (both ends within 0.5% of the bounding-box diagonal from the hull boundary).
    private func assertMatchesGEOS(
        _ p: PointSet, _ dt: DelaunayTriangulation, file: StaticString = #filePath,
        line: UInt = #line
    ) {
        let geos = GEOSDelaunay.edges(x: p.x, y: p.y)
        let mine = edgeSet(dt)
        XCTAssertEqual(geos.subtracting(mine).count, 0, "GEOS edges missing from ours", file: file, line: line)
        let ring = hullRing(p)
        let diagonal = hypot(p.x.max()! - p.x.min()!, p.y.max()! - p.y.min()!)
        func nearHull(_ i: Int) -> Bool {
            for k in 0..<ring.count {
                let a = ring[k]
                let b = ring[(k + 1) % ring.count]
                let ex = p.x[b] - p.x[a]
                let ey = p.y[b] - p.y[a]
                let t = max(0, min(1, ((p.x[i] - p.x[a]) * ex + (p.y[i] - p.y[a]) * ey) / (ex * ex + ey * ey)))
                if hypot(p.x[a] + t * ex - p.x[i], p.y[a] + t * ey - p.y[i]) <= 0.005 * diagonal { return true }
            }
            return false
        }
        let extra = mine.subtracting(geos)
        XCTAssertTrue(
            extra.allSatisfy { nearHull(Int($0 >> 32)) && nearHull(Int($0 & 0xFFFF_FFFF)) },
            "edges missing from GEOS away from the hull", file: file, line: line)
        XCTAssertLessThanOrEqual(extra.count, mine.count / 500 + 2, file: file, line: line)
    }

    /// Checks that `dt` is *a* Delaunay triangulation of distinct points `p`: consistent
    /// halfedges, clockwise triangles, every edge locally Delaunay (exact in-circle; equivalent
    /// to empty circumcircles), Euler's counts for the hull size, and areas summing to the hull.
    private func assertValidDelaunay(
        _ p: PointSet, _ dt: DelaunayTriangulation, exactOracle: Bool = false,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        let tri = dt.triangles
        let half = dt.halfedges
        let n = p.count
        XCTAssertEqual(tri.count, half.count, file: file, line: line)
        func next(_ e: Int) -> Int { e % 3 == 2 ? e - 2 : e + 1 }
        var used = [Bool](repeating: false, count: n)
        var twiceArea = 0.0
        var bad = 0
        for e in 0..<tri.count {
            used[Int(tri[e])] = true
            let t = Int(half[e])
            if t >= 0 {
                if Int(half[t]) != e || tri[t] != tri[next(e)] || tri[next(t)] != tri[e] { bad += 1 }
                // Locally Delaunay: the vertex across is not strictly inside (clockwise → not < 0).
                let a = Int(tri[e])
                let b = Int(tri[next(e)])
                let c = Int(tri[next(next(e))])
                let d = Int(tri[next(next(t))])
                let s =
                    exactOracle
                    ? Double(ExactPredicates.incircle(p.x[a], p.y[a], p.x[b], p.y[b], p.x[c], p.y[c], p.x[d], p.y[d]))
                    : GeometricPredicates.incircle(p.x[a], p.y[a], p.x[b], p.y[b], p.x[c], p.y[c], p.x[d], p.y[d])
                if s < 0 { bad += 1 }
            }
            if e % 3 == 0 {
                let a = Int(tri[e])
                let b = Int(tri[e + 1])
                let c = Int(tri[e + 2])
                let o =
                    exactOracle
                    ? Double(ExactPredicates.orient(p.x[a], p.y[a], p.x[b], p.y[b], p.x[c], p.y[c]))
                    : GeometricPredicates.orient2d(p.x[a], p.y[a], p.x[b], p.y[b], p.x[c], p.y[c])
                if !(o < 0) { bad += 1 }
                twiceArea -= (p.x[b] - p.x[a]) * (p.y[c] - p.y[a]) - (p.x[c] - p.x[a]) * (p.y[b] - p.y[a])
            }
        }
        XCTAssertEqual(bad, 0, "inconsistent, non-clockwise or non-Delaunay triangles", file: file, line: line)
        XCTAssertFalse(used.contains(false), "every point is a vertex", file: file, line: line)
        let h = hull(p)
        XCTAssertEqual(dt.hullEdgeCount, h.boundary, "hull size", file: file, line: line)
        XCTAssertEqual(dt.triangleCount, 2 * n - 2 - h.boundary, "triangle count (Euler)", file: file, line: line)
        XCTAssertEqual(edgeSet(dt).count, 3 * n - 3 - h.boundary, "edge count (Euler)", file: file, line: line)
        XCTAssertEqual(
            twiceArea, h.twiceArea, accuracy: abs(h.twiceArea) * 1e-9, "areas sum to the hull", file: file, line: line)
    }

    /// Edges present in every Delaunay triangulation: hull edges and edges whose two triangles
    /// are not cocircular (exact test).
    private func unambiguousEdges(_ p: PointSet, _ dt: DelaunayTriangulation) -> Set<UInt64> {
        let tri = dt.triangles
        let half = dt.halfedges
        func next(_ e: Int) -> Int { e % 3 == 2 ? e - 2 : e + 1 }
        var out = Set<UInt64>()
        for e in 0..<tri.count {
            let t = Int(half[e])
            let a = Int(tri[e])
            let b = Int(tri[next(e)])
            if t < 0 {
                out.insert(GEOSDelaunay.pair(a, b))
                continue
            }
            let c = Int(tri[next(next(e))])
            let d = Int(tri[next(next(t))])
            if GeometricPredicates.incircle(p.x[a], p.y[a], p.x[b], p.y[b], p.x[c], p.y[c], p.x[d], p.y[d]) != 0 {
                out.insert(GEOSDelaunay.pair(a, b))
            }
        }
        return out
    }

    /// Brute force: triangles of non-collinear triples with no point strictly inside their
    /// circumcircle (exact big-integer predicates).
    private func bruteForceTriangles(_ p: PointSet) -> [(Int, Int, Int)] {
        var out: [(Int, Int, Int)] = []
        let n = p.count
        for i in 0..<n {
            for j in (i + 1)..<n {
                for k in (j + 1)..<n {
                    var o = ExactPredicates.orient(p.x[i], p.y[i], p.x[j], p.y[j], p.x[k], p.y[k])
                    if o == 0 { continue }
                    let (b, c) = o > 0 ? (j, k) : (k, j)  // counter-clockwise i, b, c
                    o = 1
                    var empty = true
                    for m in 0..<n where m != i && m != j && m != k {
                        if ExactPredicates.incircle(p.x[i], p.y[i], p.x[b], p.y[b], p.x[c], p.y[c], p.x[m], p.y[m]) > 0
                        {
                            empty = false
                            break
                        }
                    }
                    if empty { out.append((i, j, k)) }
                }
            }
        }
        return out
    }

    // MARK: Against GEOS

    func testRandomPointsMatchGEOS() {
        for (n, seed) in [(10, 1), (100, 2), (1000, 3), (20_000, 4)] {
            let p = PointSet.uniform(n, seed: UInt64(seed))
            let dt = triangulate(p)
            assertValidDelaunay(p, dt)
            assertMatchesGEOS(p, dt)
        }
    }

    func testClusteredPointsMatchGEOS() {
        let p = PointSet.clustered(20_000, seed: 8).hilbertSorted()
        let dt = triangulate(p)
        assertValidDelaunay(p, dt)
        assertMatchesGEOS(p, dt)
    }

    /// Grids are full of cocircular squares: compare what is unique.
    func testGridAgreesWithGEOSOnUnambiguousEdges() {
        for (nx, ny, spacing, ox) in [(30, 20, 10.0, 500_000.0), (50, 50, 0.1, 0.0), (7, 90, 12.5, 123_456.789)] {
            let p = PointSet.grid(nx, ny, spacing: spacing, originX: ox, originY: 6_600_000.0 + ox)
            let dt = triangulate(p.shuffled(seed: 4))
            let q = p.shuffled(seed: 4)
            assertValidDelaunay(q, dt)
            let geos = GEOSDelaunay.edges(x: q.x, y: q.y)
            let mine = edgeSet(dt)
            let sure = unambiguousEdges(q, dt)
            XCTAssertTrue(sure.isSubset(of: geos), "\(sure.subtracting(geos).count) unambiguous edges missing in GEOS")
            XCTAssertEqual(mine.count, geos.count)
            if spacing == 10 && ox == 500_000 {
                // Exact grid: every square is cocircular, so the unambiguous edges are the grid lines.
                XCTAssertEqual(sure.count, (nx - 1) * ny + nx * (ny - 1))
            }
        }
    }

    // MARK: Against brute force

    func testTinyRandomInputsMatchBruteForce() {
        var r = GraphTestRandom(seed: 21)
        for trial in 0..<300 {
            let n = 3 + r.below(10)
            var p = PointSet()
            for _ in 0..<n {
                // A coarse lattice makes collinear and cocircular subsets frequent.
                p.x.append(Double(r.below(trial % 2 == 0 ? 7 : 1000)) + (trial % 3 == 0 ? 0.1 : 0))
                p.y.append(Double(r.below(trial % 2 == 0 ? 7 : 1000)))
            }
            let unique = Set(zip(p.x, p.y).map { "\($0),\($1)" })
            if unique.count < n { continue }
            let dt = triangulate(p)
            let brute = bruteForceTriangles(p)
            if brute.isEmpty {
                XCTAssertEqual(dt.triangleCount, 0)
                XCTAssertEqual(dt.chain.count, n, "collinear input gives the chain")
                continue
            }
            assertValidDelaunay(p, dt, exactOracle: true)
            // Every triangle is a brute-force Delaunay triangle.
            let allowed = Set(brute.map { "\($0.0),\($0.1),\($0.2)" })
            for t in 0..<dt.triangleCount {
                let v = [Int(dt.triangles[3 * t]), Int(dt.triangles[3 * t + 1]), Int(dt.triangles[3 * t + 2])].sorted()
                XCTAssertTrue(
                    allowed.contains("\(v[0]),\(v[1]),\(v[2])"), "triangle \(v) not Delaunay (trial \(trial))")
            }
            // In general position (no cocircular quadruple) the triangulation is unique.
            if brute.count == dt.triangleCount {
                var bruteEdges = Set<UInt64>()
                for (i, j, k) in brute {
                    bruteEdges.insert(GEOSDelaunay.pair(i, j))
                    bruteEdges.insert(GEOSDelaunay.pair(j, k))
                    bruteEdges.insert(GEOSDelaunay.pair(i, k))
                }
                assertSameEdges(edgeSet(dt), bruteEdges)
            }
        }
    }

    // MARK: Degenerate inputs

    func testSmallAndCollinearInputs() {
        XCTAssertEqual(triangulate(PointSet()).edges().a.count, 0)
        XCTAssertEqual(triangulate(PointSet(x: [1], y: [2])).edges().a.count, 0)
        let two = triangulate(PointSet(x: [1, 5], y: [2, 3])).edges()
        XCTAssertEqual(two.a.count, 1)
        XCTAssertEqual(Set([two.a[0], two.b[0]]), [0, 1])
        let three = triangulate(PointSet(x: [0, 10, 3], y: [0, 0, 7]))
        XCTAssertEqual(three.triangleCount, 1)
        XCTAssertEqual(edgeSet(three).count, 3)

        for (dx, dy) in [(3.0, 4.0), (1, 0), (0, 1), (-0.125, 0.375)] {
            let p = PointSet.collinear(500, seed: 2, dx: dx, dy: dy)
            let dt = triangulate(p)
            XCTAssertEqual(dt.triangleCount, 0)
            let order = (0..<p.count).sorted { (p.x[$0], p.y[$0]) < (p.x[$1], p.y[$1]) }
            XCTAssertEqual(dt.chain.map { Int($0) }, order)
            XCTAssertEqual(dt.edges().a.count, p.count - 1)
        }
        // Collinear except one point: a fan, valid Delaunay.
        var fan = PointSet.collinear(50, seed: 3, dx: 1, dy: 0)
        fan.x.append(1000)
        fan.y.append(2100)
        assertValidDelaunay(fan, triangulate(fan), exactOracle: true)
    }

    /// Points whose distances from the sweep centre tie in floating point while one lies exactly
    /// on the segment of two others: the sweep defers it, and late insertion must place it.
    func testRoundingTiesAreInsertedLate() {
        let d = 1e-7
        var p = PointSet(x: [-1, 0, 1, 0, 0], y: [0, 1, 0, -1, -1000])
        p.x += [-d, d, 0, 0, 0.5, -0.25]
        p.y += [1000, 1000, 1000, 2000, 1500, 1200]
        let dt = triangulate(p)
        XCTAssertGreaterThan(dt.lateInsertions, 0, "the configuration should trigger late insertion")
        assertValidDelaunay(p, dt, exactOracle: true)
        // Too degenerate for GEOS, and (−1, 0), (0, 1), (1, 0), (0, −1) are cocircular, so the
        // triangulation is not unique: every triangle must be one of brute force's.
        let allowed = Set(bruteForceTriangles(p).map { "\($0.0),\($0.1),\($0.2)" })
        for t in 0..<dt.triangleCount {
            let v = [Int(dt.triangles[3 * t]), Int(dt.triangles[3 * t + 1]), Int(dt.triangles[3 * t + 2])].sorted()
            XCTAssertTrue(allowed.contains("\(v[0]),\(v[1]),\(v[2])"), "triangle \(v) is not Delaunay")
        }
    }

    /// Late insertion (point location, 1→3, 2→4 and hull-edge splits, then flips) on many points:
    /// withhold points inside the hull of the others from the sweep and insert them afterwards.
    func testLateInsertionPathBuildsTheSameTriangulation() {
        for (n, seed) in [(12, 1), (40, 2), (300, 3), (3000, 4)] {
            let p = PointSet.uniform(n, seed: UInt64(seed))
            let candidates = (0..<n).filter { $0 % 3 == 0 }
            let ring = hullRing(p, (0..<n).filter { $0 % 3 != 0 })
            let withheld = candidates.filter { inside(p, $0, ring) }
            let dt = triangulate(p, withheld: withheld)
            XCTAssertGreaterThanOrEqual(dt.lateInsertions, withheld.count - 3)
            assertValidDelaunay(p, dt, exactOracle: n <= 40)
            assertSameEdges(edgeSet(dt), edgeSet(triangulate(p)), "n = \(n)")
        }
        // On a grid, withheld points land exactly on edges (2→4 splits) and on hull edges.
        let grid = PointSet.grid(25, 25, spacing: 10).shuffled(seed: 9)
        let corners = Set(
            hullRing(grid).filter { i in
                [grid.x.min()!, grid.x.max()!].contains(grid.x[i])
                    && [grid.y.min()!, grid.y.max()!].contains(grid.y[i])
            })
        let gw = (0..<grid.count).filter { $0 % 4 == 1 && !corners.contains($0) }
        let gdt = triangulate(grid, withheld: gw)
        XCTAssertGreaterThan(gdt.lateInsertions, 100)
        assertValidDelaunay(grid, gdt)
    }

    /// 180 lattice points exactly on one circle (radius 5525), with and without its centre: every
    /// quadruple is cocircular and every distance from the centre ties.
    func testAllPointsCocircular() {
        var p = PointSet()
        let r = 5525
        for x in -r...r {
            let y2 = r * r - x * x
            let y = Int(Double(y2).squareRoot().rounded())
            if y * y == y2 {
                p.x.append(Double(x))
                p.y.append(Double(y))
                if y != 0 {
                    p.x.append(Double(x))
                    p.y.append(Double(-y))
                }
            }
        }
        XCTAssertEqual(p.count, 180)
        p = p.shuffled(seed: 3)
        assertValidDelaunay(p, triangulate(p), exactOracle: true)
        var withCentre = p
        withCentre.x.append(0)
        withCentre.y.append(0)
        let dt = triangulate(withCentre)
        assertValidDelaunay(withCentre, dt, exactOracle: true)
        // With the centre, the only Delaunay triangulation is the fan around it.
        XCTAssertEqual(edgeSet(dt).filter { Int($0 & 0xFFFF_FFFF) == 180 }.count, 180)
    }

    /// A grid far from the origin with every coordinate moved by 0–2 ulps: nearly cocircular
    /// everywhere, so most in-circle decisions need the exact stages.
    func testGridWithUlpNoiseIsValid() {
        var r = GraphTestRandom(seed: 14)
        var p = PointSet.grid(120, 120, spacing: 0.5, originX: 700_000.25, originY: 5_500_000.75)
        for i in 0..<p.count {
            for _ in 0..<r.below(3) { p.x[i] = r.below(2) == 0 ? p.x[i].nextUp : p.x[i].nextDown }
            for _ in 0..<r.below(3) { p.y[i] = r.below(2) == 0 ? p.y[i].nextUp : p.y[i].nextDown }
        }
        p = p.hilbertSorted()
        let dt = triangulate(p)
        assertValidDelaunay(p, dt)
        XCTAssertGreaterThan(unambiguousEdges(p, dt).count, 0)
    }

    /// Points in convex position (a circle arc and a parabola): every point is on the hull when
    /// inserted, so hull bookkeeping must stay cheap and correct.
    func testPointsInConvexPosition() {
        var r = GraphTestRandom(seed: 19)
        var circle = PointSet()
        var parabola = PointSet()
        for _ in 0..<8000 {
            let a = r.uniform() * 2 * Double.pi
            circle.x.append(PointSet.originX + 5000 * cos(a))
            circle.y.append(PointSet.originY + 5000 * sin(a))
            let t = r.uniform() * 2000 - 1000
            parabola.x.append(t)
            parabola.y.append(t * t / 100)
        }
        for p in [circle, parabola] {
            let dt = triangulate(p)
            assertValidDelaunay(p, dt)
            assertMatchesGEOS(p, dt)
        }
    }

    func testLargeInputsAreValid() {
        let p = PointSet.clustered(200_000, seed: 12).hilbertSorted()
        let dt = triangulate(p.withDuplicates(0, seed: 1))
        assertValidDelaunay(p, dt)
        let g = PointSet.grid(300, 300, spacing: 7.5).hilbertSorted()
        assertValidDelaunay(g, triangulate(g))
    }
}
