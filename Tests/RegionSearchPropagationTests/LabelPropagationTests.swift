import XCTest

@testable import RegionSearchCore
@testable import RegionSearchModel
@testable import RegionSearchPropagation
@testable import RegionSearchTestSupport

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

    /// The fixed point F* = (1 − α)(I − αS)⁻¹ Y, solved directly.
    private func fixedPoint(_ s: [[Double]], alpha: Double, labels y: [Double]) -> [Double] {
        var a = s.map { row in row.map { -alpha * $0 } }
        for i in a.indices { a[i][i] += 1 }
        return TestSupport.solve(a, y.map { (1 - alpha) * $0 })
    }

    func testMatchesClosedFormFixedPoint() {
        let (graph, _, _) = randomGraph(n: 60, seed: 7)
        let prop = LabelPropagation(graph: graph)
        let s = denseS(prop)
        var rng = SeededRandom(seed: 3)
        let y1 = (0..<60).map { _ in rng.uniform() < 0.2 ? 1.0 : 0.0 }
        let y2 = (0..<60).map { _ in rng.uniform() < 0.5 ? 1.0 : 0.0 }
        for alpha in [0.5, 0.85, 0.99] {
            let exact1 = fixedPoint(s, alpha: alpha, labels: y1)
            let exact2 = fixedPoint(s, alpha: alpha, labels: y2)
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
        // Both precisions: every band width (16, 8, 4, 2, 1 lanes) must give a column the same bits.
        for precision in [LabelPropagation.Precision.double, .single] {
            let options =
                precision == .double ? LabelPropagation.Options() : .init(tolerance: 1e-4, precision: .single)
            let (all, allStatus) = prop.run(labels: labels, options: options)
            for c in [0, 5, 31, 64, 69] {
                let (one, oneStatus) = prop.run(labels: [labels[c]], options: options)
                XCTAssertEqual(one[0], all[c], "column \(c), \(precision)")
                XCTAssertEqual(oneStatus[0], allStatus[c])
                let (two, _) = prop.run(labels: [labels[c], labels[(c + 1) % 70]], options: options)
                XCTAssertEqual(two[0], all[c], "column \(c) beside one other, \(precision)")
            }
            // Unpadded widths: 17 columns as 16 + 1 lanes, 18 as 16 + 2, 9 as 8 + 1.
            for count in [17, 18, 9] {
                let (part, _) = prop.run(labels: Array(labels.prefix(count)), options: options)
                XCTAssertEqual(part, Array(all.prefix(count)), "\(count) columns, \(precision)")
            }
        }
    }

    /// Single precision stores x and r as Float32: the fixed point is still reached to the
    /// tolerance (against the closed form), and the result stays within Float32's rounding of the
    /// Float64 solver's after the same steps — but is not simply the Float64 path.
    func testSinglePrecisionStateReachesTheFixedPointToTheTolerance() {
        let (graph, _, _) = randomGraph(n: 80, seed: 23)
        let prop = LabelPropagation(graph: graph)
        let s = denseS(prop)
        var rng = SeededRandom(seed: 29)
        let y = (0..<80).map { _ in rng.uniform() < 0.3 ? 1.0 : 0.0 }
        // An area-like column: values of thousands, as the densities' ground column has.
        let area = (0..<80).map { _ in rng.uniform(500, 20_000) }
        let alpha = 0.8
        let exact = [y, area].map { fixedPoint(s, alpha: alpha, labels: $0) }
        for tolerance in [1e-4, 1e-5] {
            let single = prop.run(
                labels: [y, area], options: .init(alpha: alpha, tolerance: tolerance, precision: .single))
            let double = prop.run(
                labels: [y, area], options: .init(alpha: alpha, tolerance: tolerance, precision: .double))
            XCTAssertEqual(single.status.map(\.iterations), double.status.map(\.iterations))
            // The residual is absolute: the labels' column converges, the area column is checked below.
            XCTAssertTrue(single.status[0].converged, "\(single.status[0])")
            XCTAssertEqual(single.status[0].residual, double.status[0].residual, accuracy: tolerance / 10)
            var differs = false
            for c in 0..<2 {
                let scale = c == 0 ? 1.0 : 20_000
                for i in 0..<80 {
                    XCTAssertEqual(single.scores[c][i], exact[c][i], accuracy: tolerance * scale, "col \(c) node \(i)")
                    XCTAssertEqual(
                        single.scores[c][i], double.scores[c][i], accuracy: 3e-6 * scale, "col \(c) node \(i)")
                    differs = differs || single.scores[c][i] != double.scores[c][i]
                }
            }
            XCTAssertTrue(differs, "the single-precision run must store Float32 state")
        }
    }

    func testDensitiesKeepSinglePrecisionStateOnlyWhereTheirRoundingIsATenthOfTheTolerance() throws {
        XCTAssertEqual(PropagationOptions(keywords: ["a"]).densitySolver.precision, .single)
        XCTAssertEqual(PropagationOptions(keywords: ["a"]).solver.precision, .double)
        // Steps × 2⁻²⁴ against a tenth of the tolerance: 18 steps at 1e-4, 20 at 2e-5, 21 at 1e-5
        // (1.25e-6 > 1e-6), 273 at 1e-4 with α 0.999 (1.6e-5 > 1e-5).
        for (alpha, tolerance, steps, precision) in [
            (0.8, 1e-4, 18, LabelPropagation.Precision.single), (0.8, 2e-5, 20, .single), (0.8, 1e-5, 21, .double),
            (0.999, 1e-4, 273, .double),
        ] {
            let solver = LabelPropagation.Options(alpha: alpha, tolerance: tolerance)
            XCTAssertEqual(LabelPropagation.iterationCount(solver), steps, "α \(alpha), tolerance \(tolerance)")
            XCTAssertEqual(PropagationOptions.densityPrecision(solver), precision, "α \(alpha), tolerance \(tolerance)")
            // As a manifest gives them.
            let given = JSONValue.object([
                ("keywords", .array([.string("bank")])), ("density_alpha", .number(alpha)),
                ("density_tolerance", .number(tolerance)),
            ])
            let parsed = try PropagationOptions(
                Parameters.resolve(given, specs: PropagationOptions.specs, context: "test"))
            XCTAssertEqual(parsed.densitySolver.precision, precision, "α \(alpha), tolerance \(tolerance)")
        }
    }

    /// Single precision over several row blocks (10,000 rows: three) and thread counts, and each
    /// column alone: the same bits; and within Float32's rounding of the Float64 solve.
    func testSinglePrecisionIsTheSameOverRowBlocksThreadsAndColumns() {
        // A 100 × 100 grid, S = W / 4 on the four-neighbour links (row sums at most 1).
        let side = 100
        var offsets: [UInt64] = [0]
        var neighbors: [UInt32] = []
        var values: [Float] = []
        for r in 0..<side {
            for c in 0..<side {
                for (dr, dc) in [(-1, 0), (1, 0), (0, -1), (0, 1)] {
                    let (rr, cc) = (r + dr, c + dc)
                    guard rr >= 0, rr < side, cc >= 0, cc < side else { continue }
                    neighbors.append(UInt32(rr * side + cc))
                    values.append(0.25)
                }
                offsets.append(UInt64(neighbors.count))
            }
        }
        let prop = LabelPropagation(offsets: offsets, neighbors: neighbors, values: values)
        let n = side * side
        XCTAssertGreaterThan(n, 2 * 4096, "more than two row blocks")
        var rng = SeededRandom(seed: 31)
        let labels = (0..<5).map { _ in (0..<n).map { _ in rng.uniform() < 0.1 ? 1.0 : 0.0 } }
        let single = LabelPropagation.Options(alpha: 0.8, tolerance: 1e-4, precision: .single)
        let saved = Parallel.threadCount
        defer { Parallel.threadCount = saved }
        Parallel.threadCount = 1
        let one = prop.run(labels: labels, options: single)
        Parallel.threadCount = 3
        let three = prop.run(labels: labels, options: single)
        XCTAssertEqual(one.scores, three.scores, "1 and 3 threads")
        XCTAssertEqual(one.status, three.status)
        for c in 0..<5 {
            XCTAssertEqual(prop.run(labels: [labels[c]], options: single).scores[0], one.scores[c], "column \(c)")
        }
        var double = single
        double.precision = .double
        let reference = prop.run(labels: labels, options: double)
        var differs = false
        for c in 0..<5 {
            for i in 0..<n {
                XCTAssertEqual(one.scores[c][i], reference.scores[c][i], accuracy: 3e-6)
                differs = differs || one.scores[c][i] != reference.scores[c][i]
            }
        }
        XCTAssertTrue(differs, "the single-precision run must store Float32 state")
    }

    func testColumnsArePaddedOnlyWhereThatSavesABand() {
        for width in 1...70 {
            let bands = ChebyshevKernel.bands(width: width)
            XCTAssertEqual(bands.map(\.lanes).reduce(0, +), width)
            XCTAssertEqual(bands.map(\.lanes), bands.map(\.lanes).sorted(by: >), "widest first at \(width)")
            XCTAssertTrue(zip(bands, bands.dropFirst()).allSatisfy { $0.offset + $0.lanes == $1.offset })
        }
        let widths = (1...20).map { ChebyshevKernel.width(columns: $0) }
        XCTAssertEqual(widths, [1, 2, 4, 4, 8, 8, 8, 8, 9, 10, 12, 12, 16, 16, 16, 16, 17, 18, 20, 20])
    }

    /// The solver's band-by-band storage: every (row, column) of every width has its own slot, and
    /// a band's slots are one contiguous block, row after row.
    func testBandMajorStorageGivesEachBandItsOwnBlock() {
        let n = 7
        for width in 1...40 {
            let bands = ChebyshevKernel.bands(width: width)
            var owner = [Int](repeating: -1, count: n * width)
            for c in 0..<width {
                let (start, stride) = LabelPropagation.bandMajor(c, bands: bands, rows: n)
                let band = bands.first { $0.offset <= c && c < $0.offset + $0.lanes }!
                XCTAssertEqual(stride, band.lanes, "width \(width), column \(c)")
                for i in 0..<n {
                    let slot = start + i * stride
                    XCTAssertTrue(slot >= n * band.offset && slot < n * (band.offset + band.lanes))
                    XCTAssertEqual(owner[slot], -1, "width \(width): slot \(slot) taken twice")
                    owner[slot] = c
                }
            }
            XCTAssertFalse(owner.contains(-1), "width \(width): a slot left unused")
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

    /// The fixed count is the first k whose bound is at most tolerance / 10, checked against the
    /// closed forms with logarithms (the implementation multiplies instead).
    func testIterationCountFollowsTheSpectrumBound() {
        for alpha in [0.5, 0.8, 0.9, 0.95, 0.99] {
            for tolerance in [1e-3, 1e-6, 1e-9] {
                let target = tolerance / 10
                let kappa = (1 + alpha) / (1 - alpha)
                let rho = (kappa.squareRoot() - 1) / (kappa.squareRoot() + 1)
                // Chebyshev: 2ρ^k/(1+ρ^2k) ≤ t ⇔ ρ^k ≤ (1 − √(1 − t²))/t ≈ t/2.
                let chebyshev = LabelPropagation.iterationCount(
                    .init(alpha: alpha, tolerance: tolerance, maxIterations: 100_000, solver: .chebyshev))
                let root = target / (1 + (1 - target * target).squareRoot())
                let expected = Int((log(root) / log(rho)).rounded(.up))
                XCTAssertLessThanOrEqual(abs(chebyshev - expected), 1, "chebyshev α \(alpha) tol \(tolerance)")
                let bound = { (k: Int) in 2 * pow(rho, Double(k)) / (1 + pow(rho, Double(2 * k))) }
                XCTAssertLessThanOrEqual(bound(chebyshev), target * (1 + 1e-9))
                XCTAssertGreaterThan(bound(chebyshev - 1), target * (1 - 1e-9))
                let jacobi = LabelPropagation.iterationCount(
                    .init(alpha: alpha, tolerance: tolerance, maxIterations: 100_000, solver: .jacobi))
                XCTAssertLessThanOrEqual(pow(alpha, Double(jacobi)), target * (1 + 1e-9))
                XCTAssertGreaterThan(pow(alpha, Double(jacobi - 1)), target * (1 - 1e-9))
            }
        }
        XCTAssertEqual(LabelPropagation.iterationCount(.init(alpha: 0.9)), 36)
        XCTAssertEqual(
            LabelPropagation.iterationCount(.init(alpha: 0.99, tolerance: 1e-12, maxIterations: 5)), 5, "capped")
    }

    /// A node's score after the fixed count depends only on the graph within reach(iterations)
    /// hops: the subgraph induced by that ball gives the same bits at its centre, for both
    /// solvers, while a much smaller ball does not. (One hop fewer often still gives the same
    /// bits: the far end's influence shrinks by a weight below 1 per hop and falls under the
    /// last bit; the reach is what guarantees it.)
    func testScoreDependsOnlyOnTheReachBall() {
        let (graph, _, _) = randomGraph(n: 1500, seed: 21)
        let y = (0..<1500).map { $0 % 11 == 0 ? 1.0 : 0.0 }
        for solver in LabelPropagation.Solver.allCases {
            let options = LabelPropagation.Options(
                alpha: 0.8, tolerance: solver == .jacobi ? 1e-2 : 1e-4, solver: solver)
            let reach = LabelPropagation.reach(iterations: LabelPropagation.iterationCount(options))
            let (full, fullStatus) = LabelPropagation(graph: graph).run(labels: [y], options: options)
            var smallerDiffers = false
            for centre in [0, 700, 1499] {
                for radius in [reach, reach / 3] {
                    // Breadth-first ball, kept in index order.
                    var depth = [Int](repeating: -1, count: 1500)
                    depth[centre] = 0
                    var queue = [centre]
                    var head = 0
                    while head < queue.count {
                        let i = queue[head]
                        head += 1
                        if depth[i] == radius { continue }
                        for e in graph.range(i) where depth[Int(graph.neighbors[e])] < 0 {
                            depth[Int(graph.neighbors[e])] = depth[i] + 1
                            queue.append(Int(graph.neighbors[e]))
                        }
                    }
                    let ball = (0..<1500).filter { depth[$0] >= 0 }
                    var local = [Int](repeating: -1, count: 1500)
                    for (k, i) in ball.enumerated() { local[i] = k }
                    var offsets: [UInt64] = [0]
                    var nb: [UInt32] = []
                    var len: [Float] = []
                    for i in ball {
                        for e in graph.range(i) where local[Int(graph.neighbors[e])] >= 0 {
                            nb.append(UInt32(local[Int(graph.neighbors[e])]))
                            len.append(graph.length[e])
                        }
                        offsets.append(UInt64(nb.count))
                    }
                    let sub = AdjacencyGraph(
                        offsets: offsets, neighbors: nb, length: len, scale: ball.map { graph.scale[$0] })
                    let c = local[centre]
                    let (part, status) = LabelPropagation(graph: sub).run(
                        labels: [ball.map { y[$0] }], options: options, residualRows: c..<(c + 1))
                    if radius == reach {
                        XCTAssertEqual(part[0][c].bitPattern, full[0][centre].bitPattern, "\(solver) node \(centre)")
                        XCTAssertLessThanOrEqual(status[0].residual, fullStatus[0].residual)
                    } else if part[0][c].bitPattern != full[0][centre].bitPattern {
                        smallerDiffers = true
                    }
                }
            }
            XCTAssertTrue(smallerDiffers, "\(solver): a smaller ball should not be enough (the test would be vacuous)")
        }
    }

    /// The largest change reported over a set of rows is the maximum over those rows only, and
    /// over all rows equals the maximum of the parts (what a tiled run combines).
    func testResidualOverRowsCombinesByMaximum() {
        let (graph, _, _) = randomGraph(n: 900, seed: 5)
        let prop = LabelPropagation(graph: graph)
        let y = (0..<900).map { $0 % 13 == 0 ? 1.0 : 0.0 }
        let (_, all) = prop.run(labels: [y, y.map { 1 - $0 }], options: .init())
        var parts: [[LabelPropagation.ColumnStatus]] = []
        for rows in [0..<301, 301..<777, 777..<900] {
            parts.append(prop.run(labels: [y, y.map { 1 - $0 }], options: .init(), residualRows: rows).status)
        }
        for c in 0..<2 {
            XCTAssertEqual(parts.map { $0[c].residual }.max(), all[c].residual)
        }
    }

    /// Probe labels are a function of the node's index in the whole data set.
    func testProbeLabelsAreCounterBased() {
        let all = NoiseProbe.labels(count: 10_000)
        XCTAssertEqual(NoiseProbe.labels(indices: [17, 4096, 9999]), [all[17], all[4096], all[9999]])
        let plus = all.filter { $0 == 1 }.count
        XCTAssertEqual(Double(plus) / 10_000, 0.5, accuracy: 0.02)
        XCTAssertTrue(all.allSatisfy { $0 == 1 || $0 == -1 })
        // Not trivially periodic.
        XCTAssertNotEqual(Array(all[0..<64]), Array(all[64..<128]))
    }
}
