import XCTest

@testable import RegionSearchCore
@testable import RegionSearchGraph
@testable import RegionSearchModel
@testable import RegionSearchOutput
@testable import RegionSearchPropagation
@testable import RegionSearchSynthetic
@testable import RegionSearchTestSupport

/// The speed-ups keep a slower second implementation beside the fast path; these tests check
/// that the two agree exactly (bit for bit), on inputs chosen to hit the awkward cases.
final class FastPathEquivalenceTests: XCTestCase {
    private func graphsEqual(
        _ a: AdjacencyGraph, _ b: AdjacencyGraph, _ name: String, file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertEqual(Array(a.offsets), Array(b.offsets), "\(name): offsets", file: file, line: line)
        XCTAssertEqual(Array(a.neighbors), Array(b.neighbors), "\(name): neighbours", file: file, line: line)
        XCTAssertEqual(
            Array(a.length).map { $0.bitPattern }, Array(b.length).map { $0.bitPattern }, "\(name): lengths",
            file: file, line: line)
    }

    /// Runs `body` for every case on 1 and 3 threads, with the points, their coincident groups and
    /// the distinct locations' coordinates (`ux`, `uy`), as the graph builder prepares them.
    private func forEachCase<Extra>(
        _ cases: [(String, PointSet, Extra)],
        _ body: (
            _ what: String, _ extra: Extra, _ x: UnsafeBufferPointer<Double>, _ y: UnsafeBufferPointer<Double>,
            _ groups: CoincidentPoints, _ ux: [Double], _ uy: [Double]
        ) -> Void
    ) {
        let saved = Parallel.threadCount
        defer { Parallel.threadCount = saved }
        for (name, p, extra) in cases {
            for threads in [1, 3] {
                Parallel.threadCount = threads
                p.x.withUnsafeBufferPointer { x in
                    p.y.withUnsafeBufferPointer { y in
                        let groups = CoincidentPoints(x: x, y: y)
                        body(
                            "\(name), \(threads) threads", extra, x, y, groups, groups.unique.map { x[Int($0)] },
                            groups.unique.map { y[Int($0)] })
                    }
                }
            }
        }
    }

    /// The zero-length edges from each duplicate to its representative, appended to `a`, `b`.
    private func appendDuplicateLinks(_ groups: CoincidentPoints, _ a: inout [UInt32], _ b: inout [UInt32]) {
        for i in 0..<groups.representative.count where Int(groups.representative[i]) != i {
            a.append(UInt32(i))
            b.append(groups.representative[i])
        }
    }

    /// The kNN union merged straight into CSR equals the generic builder fed the directed pairs
    /// and the duplicate links (with and without duplicates, grid ties, tiny inputs, any thread count).
    func testKNNUnionEqualsTheGenericCSRBuilder() {
        let cases: [(String, PointSet, Int)] = [
            ("uniform", PointSet.uniform(3000, seed: 21).hilbertSorted(), 8),
            (
                "clustered with duplicates",
                PointSet.clustered(2500, seed: 22).withDuplicates(700, seed: 23).hilbertSorted(), 8
            ),
            (
                "duplicates, unsorted",
                PointSet.clustered(1500, seed: 24).withDuplicates(500, seed: 25).shuffled(seed: 26), 5
            ),
            ("grid ties", PointSet.grid(40, 30, spacing: 10).shuffled(seed: 27), 8),
            ("k larger than n", PointSet.uniform(6, seed: 28), 8),
            ("one point", PointSet.uniform(1, seed: 29), 8),
        ]
        forEachCase(cases) { name, k, x, y, groups, ux, uy in
            let knn = ux.withUnsafeBufferPointer { ux in
                uy.withUnsafeBufferPointer { uy in NearestNeighbors(x: ux, y: uy, k: k) }
            }
            // Reading the locations through `unique` gives the same lists as copying them out.
            let viaSubset = groups.unique.withUnsafeBufferPointer { NearestNeighbors(x: x, y: y, subset: $0, k: k) }
            XCTAssertEqual(viaSubset.neighbors, knn.neighbors, "\(name): subset kNN")
            var a: [UInt32] = []
            var b: [UInt32] = []
            for q in 0..<groups.unique.count {
                for t in 0..<knn.k {
                    a.append(groups.unique[q])
                    b.append(groups.unique[Int(knn.neighbors[q * knn.k + t])])
                }
            }
            appendDuplicateLinks(groups, &a, &b)
            let reference = CSRBuilder.build(nodeCount: x.count, a: a, b: b, x: x, y: y)
            var lists = knn.neighbors
            let fast = CSRBuilder.buildKNNUnion(lists: &lists, k: knn.k, groups: groups, x: x, y: y)
            graphsEqual(fast, reference, name)
        }
    }

    /// The k nearest other locations found by best-first search along the triangulation (what the
    /// kNN method now uses when the void pass triangulates anyway) equal the k-d tree's lists,
    /// entry for entry: duplicates, unsorted input, grid ties and cocircular rings (where the
    /// order among equal distances is by index), collinear points (a chain, no triangles), k up
    /// to and beyond the number of locations, any thread count.
    func testKNNListsFromTheTriangulationEqualTheTree() {
        // Twenty lattice points exactly 25 m from a centre (7² + 24² = 15² + 20² = 25²), and the centre.
        var ringX: [Double] = [500_000]
        var ringY: [Double] = [5_000_000]
        for (a, b) in [(7.0, 24.0), (24, 7), (15, 20), (20, 15)] {
            for (sa, sb) in [(1.0, 1.0), (1, -1), (-1, 1), (-1, -1)] {
                ringX.append(500_000 + sa * a)
                ringY.append(5_000_000 + sb * b)
            }
        }
        for (a, b) in [(25.0, 0.0), (-25, 0), (0, 25), (0, -25)] {
            ringX.append(500_000 + a)
            ringY.append(5_000_000 + b)
        }
        let ring = PointSet(x: ringX, y: ringY)
        let cases: [(String, PointSet, Void)] = [
            ("uniform", PointSet.uniform(3000, seed: 61).hilbertSorted(), ()),
            (
                "clustered with duplicates",
                PointSet.clustered(2500, seed: 62).withDuplicates(700, seed: 63).hilbertSorted(), ()
            ),
            (
                "duplicates, unsorted",
                PointSet.clustered(1500, seed: 64).withDuplicates(500, seed: 65).shuffled(seed: 66), ()
            ),
            ("grid ties", PointSet.grid(40, 30, spacing: 10).shuffled(seed: 67), ()),
            ("ring with centre", ring.withDuplicates(6, seed: 68), ()),
            ("collinear", PointSet.collinear(50, seed: 69), ()),
            ("four points", PointSet.uniform(4, seed: 70), ()),
        ]
        forEachCase(cases) { name, _, x, y, groups, ux, uy in
            let mesh = ux.withUnsafeBufferPointer { ux in
                uy.withUnsafeBufferPointer { uy in TriangleMesh(DelaunayTriangulation(x: ux, y: uy), x: ux, y: uy) }
            }
            let delaunay = GraphBuilder.delaunayCSR(mesh, groups: groups, x: x, y: y)
            for k in [1, 5, 8, 12, 40] {
                let tree = groups.unique.withUnsafeBufferPointer { NearestNeighbors(x: x, y: y, subset: $0, k: k) }
                guard let search = NearestNeighbors(delaunay: delaunay, x: x, y: y, groups: groups, k: k) else {
                    XCTFail("\(name), k = \(k): no lists from the triangulation")
                    continue
                }
                XCTAssertEqual(search.k, tree.k, "\(name), k = \(k)")
                XCTAssertEqual(search.neighbors, tree.neighbors, "\(name), k = \(k)")
            }
        }
    }

    /// The Delaunay CSR made straight from the halfedges equals the generic builder fed the mesh's
    /// edges and the duplicate links (duplicates, unsorted input, cocircular grids, three points);
    /// collinear points have no triangles and are left to the generic builder.
    func testDelaunayCSREqualsTheGenericCSRBuilder() {
        let cases: [(String, PointSet, Void)] = [
            ("uniform", PointSet.uniform(3000, seed: 41).hilbertSorted(), ()),
            (
                "clustered with duplicates",
                PointSet.clustered(2500, seed: 42).withDuplicates(700, seed: 43).hilbertSorted(), ()
            ),
            (
                "duplicates, unsorted",
                PointSet.clustered(1500, seed: 44).withDuplicates(500, seed: 45).shuffled(seed: 46), ()
            ),
            ("grid ties", PointSet.grid(40, 30, spacing: 10).shuffled(seed: 47), ()),
            ("three points", PointSet.uniform(3, seed: 48), ()),
        ]
        forEachCase(cases) { name, _, x, y, groups, ux, uy in
            let mesh = ux.withUnsafeBufferPointer { ux in
                uy.withUnsafeBufferPointer { uy in TriangleMesh(DelaunayTriangulation(x: ux, y: uy), x: ux, y: uy) }
            }
            var (a, b) = mesh.edges()
            a = a.map { groups.unique[Int($0)] }
            b = b.map { groups.unique[Int($0)] }
            appendDuplicateLinks(groups, &a, &b)
            let reference = CSRBuilder.build(nodeCount: x.count, a: a, b: b, x: x, y: y)
            guard let fast = CSRBuilder.buildDelaunay(mesh: mesh, groups: groups, x: x, y: y) else {
                XCTFail("\(name): no triangles")
                return
            }
            graphsEqual(fast, reference, name)
        }
        let line = PointSet(x: [0, 1, 2, 3], y: [0, 1, 2, 3])
        line.x.withUnsafeBufferPointer { x in
            line.y.withUnsafeBufferPointer { y in
                let groups = CoincidentPoints(x: x, y: y)
                let mesh = TriangleMesh(DelaunayTriangulation(x: x, y: y), x: x, y: y)
                XCTAssertNil(CSRBuilder.buildDelaunay(mesh: mesh, groups: groups, x: x, y: y))
            }
        }
    }

    /// Columns run together in SIMD bands give exactly what each column gives alone, whatever
    /// the band width (1, 2, 4, 8, 16 lanes) and whatever columns share the run.
    func testChebyshevBandsMatchColumnsRunAlone() {
        let p = PointSet.clustered(600, seed: 31).hilbertSorted()
        let graph = TestSupport.bruteForceKNN(x: p.x, y: p.y, k: 6)
        let propagation = LabelPropagation(graph: graph)
        var rng = SeededRandom(seed: 32)
        // Columns of different sparsity (every column runs the same fixed number of iterations).
        var labels: [[Double]] = []
        for c in 0..<19 {
            let rate = [0.002, 0.02, 0.2, 0.6][c % 4]
            labels.append((0..<p.count).map { _ in rng.uniform() < rate ? 1 : 0 })
        }
        labels.append([Double](repeating: 1, count: p.count))
        let options = LabelPropagation.Options(alpha: 0.85, tolerance: 1e-6, maxIterations: 1000)
        let (together, status) = propagation.run(labels: labels, options: options)
        XCTAssertEqual(Set(status.map { $0.iterations }), [LabelPropagation.iterationCount(options)])
        for count in [1, 2, 3, 5, 9, 17] {
            let (subset, _) = propagation.run(labels: Array(labels.prefix(count)), options: options)
            for c in 0..<count {
                XCTAssertEqual(
                    subset[c].map { $0.bitPattern }, together[c].map { $0.bitPattern }, "column \(c) of \(count)")
            }
        }
        for c in [0, 7, 19] {
            let (alone, s) = propagation.run(labels: [labels[c]], options: options)
            XCTAssertEqual(alone[0].map { $0.bitPattern }, together[c].map { $0.bitPattern }, "column \(c) alone")
            XCTAssertEqual(s[0], status[c])
        }
    }

    /// A column used in place reads exactly what a copy reads, and keeps its artifact alive.
    func testArtifactColumnViewsEqualCopies() throws {
        let dir = TestSupport.temporaryDirectory()
        let path = dir + "/view.rsa"
        var w = ArtifactWriter(kind: .projected, rowCount: 3)
        w.add("x", [1.5, -2.0, 3.25])
        w.add("row", [UInt32(7), 8, 9])
        try w.write(to: path)
        var view: Column<Double>
        do {
            let file = try ArtifactFile(path: path, expected: .projected)
            view = try file.view("x", count: 3)
            XCTAssertEqual(Array(view), try file.array("x", as: Double.self))
            XCTAssertThrowsError(try file.view("row", as: UInt32.self, count: 4))
        }
        // The file object is gone; the column still holds it.
        XCTAssertEqual(Array(view), [1.5, -2.0, 3.25])
        view = Column([4, 5])
        XCTAssertEqual(view, [4, 5])
    }

    /// The radix sort gives the permutation a stable comparison sort gives: keys with many ties,
    /// keys on a narrow range (skipped digits), all keys equal, short inputs (the fallback) and
    /// 64-bit keys that differ only in their top digit.
    func testRadixSortEqualsAStableComparisonSort() {
        var rng = SeededRandom(seed: 41)
        func reference<K: FixedWidthInteger>(_ keys: [K]) -> [UInt32] {
            (0..<UInt32(keys.count)).sorted { keys[Int($0)] != keys[Int($1)] ? keys[Int($0)] < keys[Int($1)] : $0 < $1 }
        }
        let n = 20_000
        let u32: [[UInt32]] = [
            (0..<n).map { _ in UInt32(truncatingIfNeeded: rng.next()) },
            (0..<n).map { _ in UInt32(truncatingIfNeeded: rng.next() % 50) },
            (0..<n).map { _ in 1_000_000 + UInt32(truncatingIfNeeded: rng.next() % 3000) },
            [UInt32](repeating: 7, count: n),
            (0..<100).map { _ in UInt32(truncatingIfNeeded: rng.next() % 10) },
        ]
        for (c, keys) in u32.enumerated() {
            XCTAssertEqual(RadixSort.order(byKeys: keys), reference(keys), "UInt32 case \(c)")
        }
        let u64: [[UInt64]] = [
            (0..<n).map { _ in rng.next() },
            (0..<n).map { _ in (rng.next() % 4) << 62 },
            (0..<n).map { _ in Double(rng.uniform() * 1e6).bitPattern },
        ]
        for (c, keys) in u64.enumerated() {
            XCTAssertEqual(RadixSort.order(byKeys: keys), reference(keys), "UInt64 case \(c)")
        }
    }

    /// The smoothed spacing σ̄ (stamps; medians by rank or quickselect) equals the definition computed the slow
    /// way — the sorted, de-duplicated two-ring and the median of its sorted values — bit for bit,
    /// on Delaunay graphs with duplicates and hubs, for any thread count.
    func testSmoothedScaleEqualsSortedTwoRingMedian() throws {
        let saved = Parallel.threadCount
        defer { Parallel.threadCount = saved }
        let cases: [(String, PointSet)] = [
            ("clustered", PointSet.clustered(12_000, seed: 42).hilbertSorted()),
            ("duplicates", PointSet.clustered(9_000, seed: 43).withDuplicates(2_000, seed: 44).hilbertSorted()),
            ("grid", PointSet.grid(30, 30, spacing: 5)),
        ]
        for (name, p) in cases {
            let (graph, _) = try p.x.withUnsafeBufferPointer { x in
                try p.y.withUnsafeBufferPointer { y in
                    try GraphBuilder.build(x: x, y: y, options: GraphOptions(method: .delaunay))
                }
            }
            var expected = [Float](repeating: 0, count: graph.nodeCount)
            for i in 0..<graph.nodeCount {
                var ring = [Int(i)] + graph.range(i).map { Int(graph.neighbors[$0]) }
                for j in ring.dropFirst() { ring += graph.range(j).map { Int(graph.neighbors[$0]) } }
                let values = Set(ring).map { graph.scale[$0] }.sorted()
                let m = values.count
                let median = m % 2 == 1 ? values[m / 2] : 0.5 * (values[m / 2 - 1] + values[m / 2])
                expected[i] = max(median, graph.scale[i] * 0.70710678)
            }
            for threads in [1, 2, 3] {
                Parallel.threadCount = threads
                let fast = VoidEdges.smoothedScale(graph)
                XCTAssertEqual(fast.map(\.bitPattern), expected.map(\.bitPattern), "\(name), \(threads) threads")
            }
        }
    }

    /// Spacings taken from one shared nearest-location query (the longest k) equal those each
    /// query makes for itself, bit for bit: duplicates, few locations, k beyond the locations.
    func testSharedNearestLocationListsGiveTheSameSpacings() {
        let cases: [(String, PointSet)] = [
            ("clustered with duplicates", PointSet.clustered(3000, seed: 46).withDuplicates(900, seed: 47)),
            ("grid ties", PointSet.grid(20, 15, spacing: 10)),
            ("three locations", PointSet.uniform(3, seed: 48).withDuplicates(5, seed: 49)),
        ]
        for (name, p) in cases {
            let subset = (0..<UInt32(p.count)).filter { $0 % 3 != 1 }
            let g = p.x.withUnsafeBufferPointer { x in
                p.y.withUnsafeBufferPointer { SubsetGeometry(x: x, y: $0, subset: subset) }
            }
            for k in [1, 2, 5, 8] {
                let shared = g.nearestLocations(2 * k)
                for kk in [k, 2 * k] {
                    XCTAssertEqual(
                        g.kthNeighbourDistance(kk, nearest: shared).map(\.bitPattern),
                        g.kthNeighbourDistance(kk).map(\.bitPattern), "\(name): neighbour k=\(kk)")
                    XCTAssertEqual(
                        g.kthLocationDistance(kk, nearest: shared).map(\.bitPattern),
                        g.kthLocationDistance(kk).map(\.bitPattern), "\(name): location k=\(kk)")
                }
            }
        }
    }

    /// The kNN void flags by stamp arrays equal the definition evaluated by binary searches (the
    /// previous implementation), on kNN and Delaunay graphs of the same points with duplicates and
    /// with many random void flags, for any thread count; and so do the flags found on the
    /// nearest-location lists before their union (``VoidEdges/knnVoidPairs``).
    func testKNNVoidFlagsEqualTheBinarySearchDefinition() throws {
        let saved = Parallel.threadCount
        defer { Parallel.threadCount = saved }
        let p = PointSet.clustered(12_000, seed: 50).withDuplicates(1_500, seed: 51).hilbertSorted()
        let (knn, _) = try p.x.withUnsafeBufferPointer { x in
            try p.y.withUnsafeBufferPointer { y in
                try GraphBuilder.build(
                    x: x, y: y, options: GraphOptions(method: .knn, k: 8, pruneFactor: 0, voidRadius: 0, farFactor: 0))
            }
        }
        let (delaunay, _) = try p.x.withUnsafeBufferPointer { x in
            try p.y.withUnsafeBufferPointer { y in
                try GraphBuilder.build(
                    x: x, y: y, options: GraphOptions(method: .delaunay, pruneFactor: 0, voidRadius: 0, farFactor: 0))
            }
        }
        func entry(_ u: Int, _ v: Int) -> Int? {
            var lo = Int(delaunay.offsets[u])
            var hi = Int(delaunay.offsets[u + 1])
            while lo < hi {
                let mid = (lo + hi) / 2
                if delaunay.neighbors[mid] < UInt32(v) { lo = mid + 1 } else { hi = mid }
            }
            return lo < Int(delaunay.offsets[u + 1]) && delaunay.neighbors[lo] == UInt32(v) ? lo : nil
        }
        // Random void flags, both directions of an edge alike (as the void pass flags them).
        var rng = SeededRandom(seed: 52)
        var dflags = [UInt8](repeating: 0, count: delaunay.neighbors.count)
        for u in 0..<delaunay.nodeCount {
            for d in delaunay.range(u) where Int(delaunay.neighbors[d]) > u && rng.uniform() < 0.2 {
                dflags[d] = 1
                dflags[entry(Int(delaunay.neighbors[d]), u)!] = 1
            }
        }
        var expected = [UInt8](repeating: 0, count: knn.neighbors.count)
        for i in 0..<knn.nodeCount {
            for e in knn.range(i) where knn.length[e] > 0 {
                let j = Int(knn.neighbors[e])
                if let d = entry(i, j) {
                    expected[e] = dflags[d]
                    continue
                }
                var joined = false
                for d in delaunay.range(i) where dflags[d] == 0 {
                    if let d2 = entry(Int(delaunay.neighbors[d]), j), dflags[d2] == 0 {
                        joined = true
                        break
                    }
                }
                if !joined { expected[e] = 1 }
            }
        }
        XCTAssertGreaterThan(expected.filter { $0 == 1 }.count, 100)
        for threads in [1, 2, 3] {
            Parallel.threadCount = threads
            XCTAssertEqual(
                VoidEdges.knnFlags(knn: knn, delaunay: delaunay, delaunayFlags: dflags), expected, "\(threads) threads")
            // The same test on the nearest-location lists before their union (what the graph
            // stage does when it triangulates anyway), the pairs then marked in the union.
            let groups = p.x.withUnsafeBufferPointer { x in
                p.y.withUnsafeBufferPointer { CoincidentPoints(x: x, y: $0) }
            }
            let lists = p.x.withUnsafeBufferPointer { x in
                p.y.withUnsafeBufferPointer { y in
                    groups.unique.withUnsafeBufferPointer { NearestNeighbors(x: x, y: y, subset: $0, k: 8) }
                }
            }
            let pairs = VoidEdges.knnVoidPairs(
                lists: lists.neighbors, k: lists.k, unique: groups.unique, delaunay: delaunay, delaunayFlags: dflags)
            XCTAssertEqual(
                VoidEdges.flags(of: knn, voidPairs: pairs), expected, "lists, \(threads) threads")
        }
    }
}
