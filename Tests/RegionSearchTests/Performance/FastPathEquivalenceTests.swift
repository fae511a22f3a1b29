import XCTest

@testable import RegionSearchCLI
@testable import RegionSearchCore
@testable import RegionSearchEvaluation
@testable import RegionSearchGraph
@testable import RegionSearchIngest
@testable import RegionSearchModel
@testable import RegionSearchOutput
@testable import RegionSearchPipeline
@testable import RegionSearchProjection
@testable import RegionSearchPropagation
@testable import RegionSearchRegions
@testable import RegionSearchStages
@testable import RegionSearchSynthetic

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
        let saved = Parallel.threadCount
        defer { Parallel.threadCount = saved }
        for (name, p, k) in cases {
            for threads in [1, 3] {
                Parallel.threadCount = threads
                p.x.withUnsafeBufferPointer { x in
                    p.y.withUnsafeBufferPointer { y in
                        let groups = CoincidentPoints(x: x, y: y)
                        let ux = groups.unique.map { x[Int($0)] }
                        let uy = groups.unique.map { y[Int($0)] }
                        let knn = ux.withUnsafeBufferPointer { ux in
                            uy.withUnsafeBufferPointer { uy in NearestNeighbors(x: ux, y: uy, k: k) }
                        }
                        // Reading the locations through `unique` gives the same lists as copying them out.
                        let viaSubset = groups.unique.withUnsafeBufferPointer {
                            NearestNeighbors(x: x, y: y, subset: $0, k: k)
                        }
                        XCTAssertEqual(viaSubset.neighbors, knn.neighbors, "\(name): subset kNN")
                        var a: [UInt32] = []
                        var b: [UInt32] = []
                        for q in 0..<groups.unique.count {
                            for t in 0..<knn.k {
                                a.append(groups.unique[q])
                                b.append(groups.unique[Int(knn.neighbors[q * knn.k + t])])
                            }
                        }
                        for i in 0..<x.count where Int(groups.representative[i]) != i {
                            a.append(UInt32(i))
                            b.append(groups.representative[i])
                        }
                        let reference = CSRBuilder.build(nodeCount: x.count, a: a, b: b, x: x, y: y)
                        var lists = knn.neighbors
                        let fast = CSRBuilder.buildKNNUnion(lists: &lists, k: knn.k, groups: groups, x: x, y: y)
                        graphsEqual(fast, reference, "\(name), \(threads) threads")
                    }
                }
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
}
