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

final class LabelPropagationTests: XCTestCase {
    /// A random planar point set and its kNN graph.
    private func randomGraph(n: Int, seed: UInt64) -> (AdjacencyGraph, [Double], [Double]) {
        var rng = SeededRandom(seed: seed)
        let x = (0..<n).map { _ in rng.uniform(0, 1000) }
        let y = (0..<n).map { _ in rng.uniform(0, 1000) }
        return (TestSupport.bruteForceKNN(x: x, y: y, k: 4), x, y)
    }

    /// Dense S from the sparse propagation matrix.
    private func denseS(_ p: LabelPropagation) -> [[Double]] {
        let n = p.nodeCount
        var s = [[Double]](repeating: [Double](repeating: 0, count: n), count: n)
        for i in 0..<n {
            for e in Int(p.offsets[i])..<Int(p.offsets[i + 1]) { s[i][Int(p.neighbors[e])] = Double(p.values[e]) }
        }
        return s
    }

    func testMatchesClosedFormFixedPoint() {
        let (graph, _, _) = randomGraph(n: 60, seed: 7)
        let prop = LabelPropagation(graph: graph)
        let s = denseS(prop)
        var rng = SeededRandom(seed: 3)
        let y1 = (0..<60).map { _ in rng.uniform() < 0.2 ? 1.0 : 0.0 }
        let y2 = (0..<60).map { _ in rng.uniform() < 0.5 ? 1.0 : 0.0 }
        for alpha in [0.5, 0.85, 0.99] {
            // F* = (1 − α)(I − αS)⁻¹ Y
            var a = s.map { row in row.map { -alpha * $0 } }
            for i in 0..<60 { a[i][i] += 1 }
            let exact1 = TestSupport.solve(a, y1.map { (1 - alpha) * $0 })
            let exact2 = TestSupport.solve(a, y2.map { (1 - alpha) * $0 })
            for solver in LabelPropagation.Solver.allCases {
                let (f, status) = prop.run(
                    labels: [y1, y2],
                    options: .init(alpha: alpha, tolerance: 1e-13, maxIterations: 100_000, solver: solver))
                XCTAssertTrue(status.allSatisfy { $0.converged }, "alpha \(alpha) \(solver)")
                for i in 0..<60 {
                    XCTAssertEqual(f[0][i], exact1[i], accuracy: 1e-9, "alpha \(alpha) \(solver) node \(i)")
                    XCTAssertEqual(f[1][i], exact2[i], accuracy: 1e-9, "alpha \(alpha) \(solver) node \(i)")
                }
            }
        }
    }

    func testSymmetricNormalisationAndGaussianWeights() {
        let (graph, x, y) = randomGraph(n: 40, seed: 11)
        let prop = LabelPropagation(graph: graph)
        let s = denseS(prop)
        // Recompute S from the definition: w = exp(-d²/(σiσj)), S = D^-1/2 W D^-1/2.
        var w = [[Double]](repeating: [Double](repeating: 0, count: 40), count: 40)
        for i in 0..<40 {
            for e in graph.range(i) {
                let j = Int(graph.neighbors[e])
                let d2 = (x[i] - x[j]) * (x[i] - x[j]) + (y[i] - y[j]) * (y[i] - y[j])
                w[i][j] = exp(-d2 / (Double(graph.scale[i]) * Double(graph.scale[j])))
            }
        }
        let deg = w.map { $0.reduce(0, +) }
        for i in 0..<40 {
            for j in 0..<40 {
                XCTAssertEqual(s[i][j], s[j][i], accuracy: 1e-15)
                XCTAssertEqual(s[i][j], w[i][j] / (deg[i] * deg[j]).squareRoot(), accuracy: 1e-6)
            }
        }
    }

    func testResultIndependentOfThreadCountAndOtherColumns() {
        let (graph, _, _) = randomGraph(n: 600, seed: 5)
        let prop = LabelPropagation(graph: graph)
        var rng = SeededRandom(seed: 9)
        let ya = (0..<600).map { _ in rng.uniform() < 0.05 ? 1.0 : 0.0 }
        let yb = (0..<600).map { _ in rng.uniform() < 0.4 ? 1.0 : 0.0 }
        let saved = Parallel.threadCount
        defer { Parallel.threadCount = saved }
        Parallel.threadCount = 1
        let (one, s1) = prop.run(labels: [ya], options: .init())
        Parallel.threadCount = 2
        let (two, s2) = prop.run(labels: [ya, yb], options: .init())
        XCTAssertEqual(one[0], two[0], "a column's scores must not depend on threads or on other columns")
        XCTAssertEqual(s1[0], s2[0])
        XCTAssertLessThan(s1[0].residual, 1e-6)
    }

    func testChebyshevNeedsFewerIterationsForTheSameAnswer() {
        let (graph, _, _) = randomGraph(n: 400, seed: 13)
        let prop = LabelPropagation(graph: graph)
        let y = (0..<400).map { $0 % 9 == 0 ? 1.0 : 0.0 }
        let (fj, sj) = prop.run(labels: [y], options: .init(solver: .jacobi))
        let (fc, sc) = prop.run(labels: [y], options: .init(solver: .chebyshev))
        XCTAssertLessThan(
            Double(sc[0].iterations), 0.75 * Double(sj[0].iterations),
            "chebyshev \(sc[0].iterations) vs jacobi \(sj[0].iterations)")
        // Both stop within tolerance-scale error of the fixed point: at most tol/(1−α) each.
        for i in 0..<400 { XCTAssertEqual(fj[0][i], fc[0][i], accuracy: 2e-5) }
    }

    func testManyColumnsMatchOneByOne() {
        let (graph, _, _) = randomGraph(n: 300, seed: 17)
        let prop = LabelPropagation(graph: graph)
        var rng = SeededRandom(seed: 1)
        let labels = (0..<70).map { c in (0..<300).map { _ in rng.uniform() < 0.02 + Double(c) * 0.01 ? 1.0 : 0.0 } }
        let (all, allStatus) = prop.run(labels: labels, options: .init())
        for c in [0, 5, 31, 64, 69] {
            let (one, oneStatus) = prop.run(labels: [labels[c]], options: .init())
            XCTAssertEqual(one[0], all[c], "column \(c)")
            XCTAssertEqual(oneStatus[0], allStatus[c])
        }
    }

    func testIsolatedNodesKeepTheirOwnLabel() {
        let prop = LabelPropagation(offsets: [0, 0, 0], neighbors: [], values: [])
        let (f, status) = prop.run(labels: [[1, 0]], options: .init(alpha: 0.85, solver: .jacobi))
        XCTAssertEqual(f[0][0], 0.15, accuracy: 1e-12)
        XCTAssertEqual(f[0][1], 0, accuracy: 1e-12)
        XCTAssertTrue(status[0].converged)
    }

    func testCapIsReportedAsNotConverged() {
        let (graph, _, _) = randomGraph(n: 200, seed: 2)
        let prop = LabelPropagation(graph: graph)
        let y = (0..<200).map { $0 % 7 == 0 ? 1.0 : 0.0 }
        let (_, status) = prop.run(labels: [y], options: .init(alpha: 0.99, tolerance: 1e-12, maxIterations: 5))
        XCTAssertFalse(status[0].converged)
        XCTAssertEqual(status[0].iterations, 5)
        XCTAssertGreaterThan(status[0].residual, 1e-12)
    }
}
