import XCTest

@testable import RegionSearchCore
@testable import RegionSearchGraph

/// The two halves stitched along their cut give the single sweep's canonical triangulation, or
/// nothing (never a different one).
final class SplitTriangulationTests: XCTestCase {
    private var savedThreads = 1

    override func setUp() {
        savedThreads = Parallel.threadCount
        Parallel.threadCount = 2
    }

    override func tearDown() { Parallel.threadCount = savedThreads }

    /// The canonical triangles as sorted triples (canonical triangles start at their lowest vertex).
    private func triples(_ m: TriangleMesh) -> [[UInt32]] {
        (0..<m.triangleCount).map { k in Array(m.triangles[(3 * k)..<(3 * k + 3)]) }.sorted {
            $0.lexicographicallyPrecedes($1)
        }
    }

    /// Every twin is the same edge the other way round; returns the hull halfedges' count.
    private func checkTwins(_ m: TriangleMesh, file: StaticString = #filePath, line: UInt = #line) -> Int {
        var hull = 0
        for e in 0..<m.triangles.count {
            let t = Int(m.halfedges[e])
            if t < 0 {
                hull += 1
                continue
            }
            XCTAssertEqual(Int(m.halfedges[t]), e, file: file, line: line)
            XCTAssertEqual(m.triangles[e], m.triangles[TriangleMesh.next(t)], file: file, line: line)
            XCTAssertEqual(m.triangles[TriangleMesh.next(e)], m.triangles[t], file: file, line: line)
        }
        return hull
    }

    /// Gaussian clusters (`each` points, deviation `sigma`) centred uniformly in 0..<centres, and a
    /// uniform background over `box` (minX, minY, maxX, maxY).
    private func city(
        _ rng: inout SeededRandom, clusters: Int, each: Int, sigma: Double, centres: (Double, Double),
        background: Int, box: (Double, Double, Double, Double)
    ) -> (x: [Double], y: [Double]) {
        var x: [Double] = []
        var y: [Double] = []
        for _ in 0..<clusters {
            let cx = rng.uniform(0, centres.0)
            let cy = rng.uniform(0, centres.1)
            for _ in 0..<each {
                x.append(cx + sigma * rng.normal())
                y.append(cy + sigma * rng.normal())
            }
        }
        for _ in 0..<background {
            x.append(rng.uniform(box.0, box.2))
            y.append(rng.uniform(box.1, box.3))
        }
        return (x, y)
    }

    private struct Outcome {
        var stitched: SplitTriangulation.Stitched?
        var split: TriangleMesh?
        var single: TriangleMesh
    }

    private func both(_ x: [Double], _ y: [Double]) -> Outcome {
        x.withUnsafeBufferPointer { xb in
            y.withUnsafeBufferPointer { yb in
                let stitched = SplitTriangulation.triangulate(x: xb, y: yb, minimumPoints: 0)
                let split = stitched.map {
                    TriangleMesh(delaunayTriangles: $0.triangles, halfedges: $0.halfedges, x: xb, y: yb)
                }
                let single = TriangleMesh(DelaunayTriangulation(x: xb, y: yb), x: xb, y: yb)
                return Outcome(stitched: stitched, split: split, single: single)
            }
        }
    }

    /// Stitched and single sweep agree triangle for triangle, with consistent twins.
    private func assertSame(_ o: Outcome, file: StaticString = #filePath, line: UInt = #line) {
        guard let split = o.split else { return }
        XCTAssertEqual(split.triangleCount, o.single.triangleCount, file: file, line: line)
        XCTAssertEqual(triples(split), triples(o.single), file: file, line: line)
        XCTAssertEqual(checkTwins(split, file: file, line: line), checkTwins(o.single, file: file, line: line))
    }

    func testRandomPointsStitchToTheSingleSweepsTriangulation() {
        for seed in [1, 2, 3] as [UInt64] {
            var rng = SeededRandom(seed: seed)
            let n = 20_000
            let x = (0..<n).map { _ in rng.uniform(0, 5_000) }
            let y = (0..<n).map { _ in rng.uniform(0, 3_000) }
            let o = both(x, y)
            XCTAssertNotNil(o.stitched, "seed \(seed): uniform points stitch")
            // The seam is a thin share of the points.
            XCTAssertLessThan(o.stitched?.seamPoints ?? n, n / 20)
            assertSame(o)
        }
    }

    /// A city: dense cores, a sparse ring, far outliers that make long hull edges and huge
    /// circles, and an empty river band across the cut (large circles straddling it); tall, so
    /// the cut runs across y.
    func testClusteredPointsWithOutliersAndABandStitch() {
        var rng = SeededRandom(seed: 42)
        var (x, y) = city(
            &rng, clusters: 12, each: 1_500, sigma: 60, centres: (2_000, 8_000), background: 4_000,
            box: (-1_000, -1_000, 3_000, 9_000))
        for k in 0..<6 {
            x.append(Double(k) * 40_000 - 100_000)
            y.append(k % 2 == 0 ? -60_000 : 70_000)
        }
        // An empty band 400 m wide across the middle of y.
        let keep = (0..<x.count).filter { !(y[$0] > 3_800 && y[$0] < 4_200) }
        let bx = keep.map { x[$0] }
        let by = keep.map { y[$0] }
        let o = both(bx, by)
        XCTAssertNotNil(o.stitched)
        assertSame(o)
    }

    /// A lattice: cells are exactly cocircular everywhere, also across the cut, where the halves and
    /// the seam may each pick other diagonals; the canonical form makes them one. Exact and
    /// jittered.
    func testLatticesStitchOrDeclineButNeverDiffer() {
        for jitter in [false, true] {
            var rng = SeededRandom(seed: 7)
            var x: [Double] = []
            var y: [Double] = []
            for r in 0..<120 {
                for c in 0..<150 {
                    let j = jitter && (r * 150 + c) % 7 == 0
                    x.append(Double(c) * 10 + (j ? rng.uniform(-2, 2) : 0))
                    y.append(Double(r) * 10 + (j ? rng.uniform(-2, 2) : 0))
                }
            }
            let o = both(x, y)
            XCTAssertNotNil(o.stitched, "jitter \(jitter)")
            assertSame(o)
        }
    }

    /// Points in convex position along an arc around a cloud: every arc point is on its half's
    /// hull, so the seam would hold most points and the split declines.
    func testPointsOnAnArcStitchOrDecline() {
        var x: [Double] = []
        var y: [Double] = []
        for k in 0..<3_000 {
            let a = Double(k) / 3_000 * Double.pi
            x.append(1_000 * cos(a))
            y.append(1_000 * sin(a))
        }
        var rng = SeededRandom(seed: 5)
        for _ in 0..<2_000 {
            x.append(rng.uniform(-500, 500))
            y.append(rng.uniform(10, 400))
        }
        let o = both(x, y)
        XCTAssertNil(o.stitched)
        assertSame(o)
    }

    func testOneThreadOrFewPointsIsLeftToTheSingleSweep() {
        var rng = SeededRandom(seed: 3)
        let x = (0..<5_000).map { _ in rng.uniform(0, 100) }
        let y = (0..<5_000).map { _ in rng.uniform(0, 100) }
        x.withUnsafeBufferPointer { xb in
            y.withUnsafeBufferPointer { yb in
                XCTAssertNil(SplitTriangulation.triangulate(x: xb, y: yb), "below the default minimum")
                XCTAssertNotNil(SplitTriangulation.triangulate(x: xb, y: yb, minimumPoints: 0))
                Parallel.threadCount = 1
                XCTAssertNil(SplitTriangulation.triangulate(x: xb, y: yb, minimumPoints: 0), "one thread")
            }
        }
    }

    /// The graph built above the minimum (two halves) is the graph built on one thread (one
    /// sweep), array for array.
    func testGraphFromTheStitchedHalvesIsTheSingleSweepsGraph() throws {
        var rng = SeededRandom(seed: 11)
        let (x, y) = city(
            &rng, clusters: 20, each: 2_500, sigma: 150, centres: (20_000, 10_000), background: 25_000,
            box: (0, 0, 20_000, 10_000))
        XCTAssertGreaterThan(x.count, SplitTriangulation.minimumPoints)
        let stitched = x.withUnsafeBufferPointer { xb in
            y.withUnsafeBufferPointer { SplitTriangulation.triangulate(x: xb, y: $0) }
        }
        XCTAssertNotNil(stitched, "the graph below takes the split path")
        let options = GraphOptions()
        let two = try x.withUnsafeBufferPointer { xb in
            try y.withUnsafeBufferPointer { try GraphBuilder.build(x: xb, y: $0, options: options) }
        }
        Parallel.threadCount = 1
        let one = try x.withUnsafeBufferPointer { xb in
            try y.withUnsafeBufferPointer { try GraphBuilder.build(x: xb, y: $0, options: options) }
        }
        XCTAssertEqual(Array(two.graph.offsets), Array(one.graph.offsets))
        XCTAssertEqual(Array(two.graph.neighbors), Array(one.graph.neighbors))
        XCTAssertEqual(Array(two.graph.scale), Array(one.graph.scale))
        XCTAssertEqual(two.statistics.edges, one.statistics.edges)
        XCTAssertEqual(two.statistics.droppedByEmptyBand, one.statistics.droppedByEmptyBand)
    }

    /// Integer columns put many points exactly on the cut and on the strip's edges (lo, hi); the
    /// same points scaled to 1e28 and 1e-28 metres (the graph stage takes up to 1e30). Stitched,
    /// the same triangulation as one sweep, and the same stitch on two threads as on four.
    func testPointsOnTheCutAndExtremeScalesStitchOrDeclineButNeverDiffer() {
        var rng = SeededRandom(seed: 31)
        var x: [Double] = []
        var y: [Double] = []
        var seen = Set<[Double]>()
        while x.count < 6_000 {
            let p = [Double(rng.below(40)), rng.uniform(0, 500).rounded()]
            if seen.insert(p).inserted {
                x.append(p[0])
                y.append(p[1])
            }
        }
        for scale in [1.0, 1e28, 1e-28] {
            let sx = x.map { $0 * scale }
            let sy = y.map { $0 * scale }
            let o = both(sx, sy)
            XCTAssertNotNil(o.stitched, "scale \(scale)")
            assertSame(o)
            Parallel.threadCount = 4
            let four = both(sx, sy)
            Parallel.threadCount = 2
            XCTAssertEqual(four.stitched?.triangles, o.stitched?.triangles, "scale \(scale)")
            XCTAssertEqual(four.stitched?.halfedges, o.stitched?.halfedges, "scale \(scale)")
        }
    }
}
