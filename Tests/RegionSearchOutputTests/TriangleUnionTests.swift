import CGEOS
import XCTest

@testable import RegionSearchCore
@testable import RegionSearchGraph
@testable import RegionSearchOutput

/// The hull builder's fast union of skeleton triangles against GEOS's cascaded union, and its
/// nesting test against brute force, on triangles made the way the builder makes them: the
/// 3-cycles of a random subset of a Delaunay triangulation's edges (which include the triangles
/// around points of degree three, holding a corner inside them).
final class TriangleUnionTests: XCTestCase {
    /// Points in a jittered cluster, the edges of their triangulation kept with probability `keep`,
    /// and every 3-cycle of the kept edges (corners ascending).
    func cycles(seed: UInt64, n: Int, keep: Double) -> (x: [Double], y: [Double], corners: [(Int, Int, Int)]) {
        var rng = SeededRandom(seed: seed)
        var x: [Double] = []
        var y: [Double] = []
        for _ in 0..<n {
            x.append(1000 * Double.random(in: 0..<1, using: &rng))
            y.append(1000 * Double.random(in: 0..<1, using: &rng))
        }
        let mesh = x.withUnsafeBufferPointer { bx in
            y.withUnsafeBufferPointer { by in TriangleMesh(DelaunayTriangulation(x: bx, y: by), x: bx, y: by) }
        }
        let (a, b) = mesh.edges()
        var neighbours = [Set<Int>](repeating: [], count: n)
        for e in 0..<a.count where Double.random(in: 0..<1, using: &rng) < keep {
            neighbours[Int(a[e])].insert(Int(b[e]))
            neighbours[Int(b[e])].insert(Int(a[e]))
        }
        var corners: [(Int, Int, Int)] = []
        for p in 0..<n {
            for q in neighbours[p] where q > p {
                for r in neighbours[q] where r > q && neighbours[p].contains(r) { corners.append((p, q, r)) }
            }
        }
        return (x, y, corners)
    }

    func testNestingMatchesBruteForce() {
        for seed in UInt64(1)...4 {
            let (x, y, corners) = cycles(seed: seed, n: 400, keep: 0.9)
            let nesting = RegionPolygonBuilder.nesting(corners, x: x, y: y)
            let used = Set(corners.flatMap { [$0.0, $0.1, $0.2] })
            var nestedCount = 0
            for (k, (a, b, c)) in corners.enumerated() {
                let turn = TriangleOutline.orientation(x[a], y[a], x[b], y[b], x[c], y[c])
                let inside = used.contains { p in
                    p != a && p != b && p != c
                        && TriangleOutline.orientation(x[a], y[a], x[b], y[b], x[p], y[p]) == turn
                        && TriangleOutline.orientation(x[b], y[b], x[c], y[c], x[p], y[p]) == turn
                        && TriangleOutline.orientation(x[c], y[c], x[a], y[a], x[p], y[p]) == turn
                }
                XCTAssertEqual(nesting[k], inside, "seed \(seed), triangle \(k)")
                if inside { nestedCount += 1 }
            }
            XCTAssertGreaterThan(nestedCount, 0, "seed \(seed): the data should have nesting triangles")
        }
    }

    func testFastUnionEqualsCascadedUnion() throws {
        let geos = GEOSContext()
        var holes = 0
        defer { XCTAssertGreaterThan(holes, 0, "the data should have holes") }
        for (seed, keep) in [(UInt64(5), 1.0), (6, 0.9), (7, 0.75), (8, 0.6)] {
            let (x, y, corners) = cycles(seed: seed, n: 500, keep: keep)
            let triangles = try corners.map { a, b, c in
                try geos.polygon(x: [x[a], x[b], x[c]], y: [y[a], y[b], y[c]])
            }
            let cascaded = try geos.unionAll(triangles)
            let fast = try RegionPolygonBuilder.triangleUnion(corners, x: x, y: y, geos: geos)
            XCTAssertTrue(fast.isValid, "seed \(seed)")
            // The same point set: nothing of either outside the other.
            XCTAssertLessThanOrEqual(try fast.difference(cascaded).area, 1e-9 * cascaded.area, "seed \(seed)")
            XCTAssertLessThanOrEqual(try cascaded.difference(fast).area, 1e-9 * cascaded.area, "seed \(seed)")
            XCTAssertEqual(fast.area, cascaded.area, accuracy: 1e-9 * cascaded.area)
            // And the fast path is the one taken: the triangles that nest nothing trace to a valid
            // outline with their total area.
            let nesting = RegionPolygonBuilder.nesting(corners, x: x, y: y)
            let faces = corners.indices.filter { !nesting[$0] }.map { corners[$0] }
            guard let outline = TriangleOutline.polygons(faces, x: x, y: y) else {
                XCTFail("seed \(seed): no outline traced")
                continue
            }
            let parts = try outline.map { rings in
                try geos.polygon(rings: rings.map { ring in (x: ring.map { x[$0] }, y: ring.map { y[$0] }) })
            }
            let traced = try geos.collection(GEOS_MULTIPOLYGON, of: parts)
            XCTAssertTrue(traced.isValid, "seed \(seed): \(traced.validityReason)")
            let faceArea = try faces.reduce(0.0) { sum, t in
                try sum + geos.polygon(x: [x[t.0], x[t.1], x[t.2]], y: [y[t.0], y[t.1], y[t.2]]).area
            }
            XCTAssertEqual(traced.area, faceArea, accuracy: 1e-9 * faceArea, "seed \(seed)")
            // The same parts and holes as GEOS's own union of those triangles.
            let faceUnion = try geos.unionAll(
                faces.map { t in try geos.polygon(x: [x[t.0], x[t.1], x[t.2]], y: [y[t.0], y[t.1], y[t.2]]) })
            let geosParts = try faceUnion.polygons()
            XCTAssertEqual(outline.count, geosParts.count, "seed \(seed): parts")
            XCTAssertEqual(
                outline.map { $0.count - 1 }.reduce(0, +), try geosParts.map { try $0.rings().count - 1 }.reduce(0, +),
                "seed \(seed): holes")
            holes += outline.map { $0.count - 1 }.reduce(0, +)
        }
    }

    /// A 3 × 3 block of unit squares (two triangles each) without the corner square (0, 0) and the
    /// centre square, which touch at (1, 1): one polygon of area 7 whose hole touches its exterior
    /// ring at that corner, and two blocks touching only at a corner: two polygons.
    func testHolesAndPartsThatTouchAtACorner() throws {
        let geos = GEOSContext()
        var x: [Double] = []
        var y: [Double] = []
        for j in 0...3 {
            for i in 0...3 {
                x.append(Double(i))
                y.append(Double(j))
            }
        }
        func squares(_ cells: [(Int, Int)]) -> [(Int, Int, Int)] {
            cells.flatMap { i, j -> [(Int, Int, Int)] in
                let p = j * 4 + i
                return [(p, p + 1, p + 5), (p, p + 5, p + 4)]
            }
        }
        let ring = [(1, 0), (2, 0), (0, 1), (2, 1), (0, 2), (1, 2), (2, 2)]
        let outline = try XCTUnwrap(TriangleOutline.polygons(squares(ring), x: x, y: y))
        XCTAssertEqual(outline.count, 1)
        XCTAssertEqual(outline.first?.count, 2, "an exterior ring and one hole")
        let union = try RegionPolygonBuilder.triangleUnion(squares(ring), x: x, y: y, geos: geos)
        XCTAssertTrue(union.isValid, union.validityReason)
        XCTAssertEqual(union.area, 7, accuracy: 1e-12)
        let diagonal = try XCTUnwrap(TriangleOutline.polygons(squares([(0, 0), (1, 1)]), x: x, y: y))
        XCTAssertEqual(diagonal.map(\.count), [1, 1], "two polygons without holes")
    }

    /// Triangles that are no coverage (overlapping copies of one triangle) fall back to the cascaded
    /// union instead of failing or losing area.
    func testOverlappingTrianglesFallBack() throws {
        let geos = GEOSContext()
        let x = [0.0, 10, 0, 0, 10, 0]
        let y = [0.0, 0, 10, 0, 0, 10]
        let union = try RegionPolygonBuilder.triangleUnion([(0, 1, 2), (3, 4, 5)], x: x, y: y, geos: geos)
        XCTAssertTrue(union.isValid)
        XCTAssertEqual(union.area, 50, accuracy: 1e-9)
    }
}
