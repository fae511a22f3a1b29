import XCTest

@testable import RegionSearchCore
@testable import RegionSearchGraph

final class TriangleMeshTests: XCTestCase {
    /// A square lattice (every cell's four corners cocircular), spacing 10, in row order.
    private func lattice(_ side: Int, jitterEvery: Int = 0) -> (x: [Double], y: [Double]) {
        var x: [Double] = []
        var y: [Double] = []
        var rng = SeededRandom(seed: 9)
        for r in 0..<side {
            for c in 0..<side {
                var px = Double(c) * 10
                var py = Double(r) * 10
                if jitterEvery > 0 && (r * side + c) % jitterEvery == 0 {
                    px += rng.uniform(-3, 3)
                    py += rng.uniform(-3, 3)
                }
                x.append(px)
                y.append(py)
            }
        }
        return (x, y)
    }

    private func mesh(_ x: [Double], _ y: [Double], canonical: Bool = true) -> TriangleMesh {
        x.withUnsafeBufferPointer { xb in
            y.withUnsafeBufferPointer { yb in
                let dt = DelaunayTriangulation(x: xb, y: yb)
                return canonical
                    ? TriangleMesh(dt, x: xb, y: yb) : TriangleMesh(triangles: dt.triangles, halfedges: dt.halfedges)
            }
        }
    }

    private func triples(_ m: TriangleMesh, map: (UInt32) -> UInt32 = { $0 }) -> Set<[UInt32]> {
        var out = Set<[UInt32]>()
        for k in 0..<m.triangleCount {
            out.insert([map(m.triangles[3 * k]), map(m.triangles[3 * k + 1]), map(m.triangles[3 * k + 2])])
        }
        return out
    }

    /// The canonical form is found on all threads (cocircular edges in chunks joined in order,
    /// triangles rotated in ranges): the same arrays for one thread as for three, on a lattice large
    /// enough for several chunks (cocircular groups everywhere, some cells jittered).
    func testCanonicalMeshIsTheSameOnAnyThreadCount() {
        let (x, y) = lattice(220, jitterEvery: 11)
        let saved = Parallel.threadCount
        defer { Parallel.threadCount = saved }
        Parallel.threadCount = 1
        let one = mesh(x, y)
        Parallel.threadCount = 3
        let three = mesh(x, y)
        XCTAssertGreaterThan(one.triangles.count, 1 << 17, "more than one chunk of halfedges")
        XCTAssertGreaterThan(one.cocircularGroups, 1000)
        XCTAssertEqual(one.cocircularGroups, three.cocircularGroups)
        XCTAssertEqual(one.triangles, three.triangles)
        XCTAssertEqual(one.halfedges, three.halfedges)
    }

    /// Triangles well inside a subset of a lattice are exactly the full set's triangles there —
    /// which the sweep's own choice of diagonals is not.
    func testCocircularTrianglesDoNotDependOnTheRestOfTheData() {
        let (x, y) = lattice(30, jitterEvery: 7)
        let full = mesh(x, y)
        XCTAssertGreaterThan(full.cocircularGroups, 100)
        let fullSet = triples(full)
        let rawFull = mesh(x, y, canonical: false)
        var rawDiffers = false
        for (lo, hi) in [(0.0, 150.0), (80.0, 230.0), (140.0, 290.0)] {
            let keep = (0..<x.count).filter { x[$0] >= lo && x[$0] <= hi }
            let sx = keep.map { x[$0] }
            let sy = keep.map { y[$0] }
            let sub = mesh(sx, sy)
            let rawSub = mesh(sx, sy, canonical: false)
            func inside(_ m: TriangleMesh, _ k: Int) -> Bool {
                (0..<3).allSatisfy {
                    let v = Int(m.triangles[3 * k + $0])
                    return sx[v] >= lo + 40 && sx[v] <= hi - 40
                }
            }
            var checked = 0
            for k in 0..<sub.triangleCount where inside(sub, k) {
                let t = (0..<3).map { UInt32(keep[Int(sub.triangles[3 * k + $0])]) }
                XCTAssertTrue(fullSet.contains(t), "triangle \(t) of the subset [\(lo), \(hi)]")
                checked += 1
            }
            XCTAssertGreaterThan(checked, 50)
            // Without the canonical form, the sweep's diagonals differ somewhere.
            let rawFullEdges = Set(
                zip(rawFull.edges().a, rawFull.edges().b).map { [min($0, $1), max($0, $1)] })
            let (ra, rb) = rawSub.edges()
            for (a, b) in zip(ra, rb) where sx[Int(a)] >= lo + 40 && sx[Int(a)] <= hi - 40 {
                let e = [UInt32(keep[Int(a)]), UInt32(keep[Int(b)])].sorted()
                if !rawFullEdges.contains(e) { rawDiffers = true }
            }
        }
        XCTAssertTrue(rawDiffers, "the raw sweep agreed with the full set in every window: the test shows nothing")
    }

    /// The canonical mesh is still a Delaunay triangulation: twins agree, triangles are clockwise
    /// and start at their lowest vertex, every interior edge is locally Delaunay, and Euler's
    /// count holds.
    func testCanonicalMeshIsAValidDelaunayTriangulation() {
        for (x, y) in [lattice(17), lattice(23, jitterEvery: 3)] {
            let m = mesh(x, y)
            let t = m.triangleCount
            var hull = 0
            for e in 0..<(3 * t) {
                let twin = Int(m.halfedges[e])
                if twin < 0 {
                    hull += 1
                    continue
                }
                XCTAssertEqual(Int(m.halfedges[twin]), e)
                XCTAssertEqual(m.triangles[e], m.triangles[TriangleMesh.next(twin)])
                XCTAssertEqual(m.triangles[TriangleMesh.next(e)], m.triangles[twin])
                let a = Int(m.triangles[e])
                let b = Int(m.triangles[TriangleMesh.next(e)])
                let c = Int(m.triangles[TriangleMesh.previous(e)])
                let d = Int(m.triangles[TriangleMesh.previous(twin)])
                // Clockwise a, b, c: d strictly inside would make the determinant negative.
                XCTAssertGreaterThanOrEqual(
                    GeometricPredicates.incircle(x[a], y[a], x[b], y[b], x[c], y[c], x[d], y[d]), 0)
            }
            for k in 0..<t {
                let (a, b, c) = (Int(m.triangles[3 * k]), Int(m.triangles[3 * k + 1]), Int(m.triangles[3 * k + 2]))
                XCTAssertLessThan(GeometricPredicates.orient2d(x[a], y[a], x[b], y[b], x[c], y[c]), 0)
                XCTAssertTrue(a < b && a < c)
            }
            XCTAssertEqual(t, 2 * x.count - 2 - hull)
        }
    }
}
