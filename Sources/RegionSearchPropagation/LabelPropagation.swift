import Foundation
import RegionSearchCore
import RegionSearchModel

/// Label spreading after Zhou, Bousquet, Lal, Weston & Schölkopf, "Learning with Local and Global
/// Consistency" (NIPS 2004), on a POI adjacency graph.
///
/// - Edge weights: a Gaussian with a self-tuning local scale (Zelnik-Manor & Perona 2004),
///   `w_ij = exp(−d_ij² / (σ_i σ_j))`, where σ_i is the graph's `scale` of point i (the distance
///   to its k-th nearest neighbour), so the kernel adapts to POI spacing that varies 30× across a city.
/// - `S = D^-1/2 W D^-1/2` with `D = diag(Σ_j w_ij)`, stored as Float32 (halves memory traffic).
/// - The scores are the fixed point `F* = (1−α)(I−αS)⁻¹Y` of Zhou's iteration `F ← αSF + (1−α)Y`.
///   Two solvers reach it from `F = Y`:
///   - `jacobi`: Zhou's iteration as written; the error shrinks by about α per step.
///   - `chebyshev` (default): Chebyshev semi-iteration for `(I−αS)F = (1−α)Y` using the known
///     spectrum bounds of `I−αS`, `[1−α, 1+α]` (S's eigenvalues lie in [−1, 1]); the error shrinks
///     by `(√κ−1)/(√κ+1)` per step with `κ = (1+α)/(1−α)` — 0.56 instead of 0.85 at α = 0.85, so
///     about a third of the iterations, with one sparse product per step and no dot products.
///   Both stop a column when no score changes by more than `tolerance` in one step.
/// - Columns (keywords) are updated together, several per SIMD register, in one pass over the
///   graph. A column that has converged is frozen (its step is zeroed), so its result does not
///   depend on which other columns share the run. Rows are split over threads and every row's
///   sum is computed in a fixed order, so results are identical for any thread count.
public struct LabelPropagation {
    /// `S` in CSR form sharing the graph's row structure.
    public let offsets: Column<UInt64>
    public let neighbors: Column<UInt32>
    public let values: [Float]
    public var nodeCount: Int { offsets.count - 1 }

    public enum Solver: String, CaseIterable, Sendable {
        case chebyshev, jacobi
    }

    public struct Options: Sendable {
        public var alpha: Double
        public var tolerance: Double
        public var maxIterations: Int
        public var solver: Solver
        public init(
            alpha: Double = 0.9, tolerance: Double = 1e-6, maxIterations: Int = 1000, solver: Solver = .chebyshev
        ) {
            self.alpha = alpha
            self.tolerance = tolerance
            self.maxIterations = maxIterations
            self.solver = solver
        }
    }

    /// Per-column outcome of a run.
    public struct ColumnStatus: Sendable, Equatable {
        public var iterations: Int
        /// The largest change of any score in the column's last step.
        public var residual: Double
        public var converged: Bool
    }

    /// Builds `S` from a graph with edge lengths and local scales.
    public init(graph: AdjacencyGraph) {
        let n = graph.nodeCount
        var weights = [Double](repeating: 0, count: graph.neighbors.count)
        var degree = [Double](repeating: 0, count: n)
        var normalized = [Float](repeating: 0, count: graph.neighbors.count)
        graph.offsets.withUnsafeBufferPointer { off in
            graph.neighbors.withUnsafeBufferPointer { nb in
                graph.length.withUnsafeBufferPointer { len in
                    graph.scale.withUnsafeBufferPointer { sc in
                        weights.withUnsafeMutableBufferPointer { w in
                            degree.withUnsafeMutableBufferPointer { deg in
                                Parallel.forRanges(n, minChunk: 8192) { rows in
                                    for i in rows {
                                        var sum = 0.0
                                        let si = Double(sc[i])
                                        for e in Int(off[i])..<Int(off[i + 1]) {
                                            let d = Double(len[e])
                                            let s = si * Double(sc[Int(nb[e])])
                                            let v = s > 0 ? Foundation.exp(-(d * d) / s) : (d == 0 ? 1 : 0)
                                            w[e] = v
                                            sum += v
                                        }
                                        deg[i] = sum
                                    }
                                }
                                // S_ij = w_ij / sqrt(d_i d_j); isolated nodes keep an empty row.
                                var inv = [Double](repeating: 0, count: n)
                                for i in 0..<n where deg[i] > 0 { inv[i] = 1 / deg[i].squareRoot() }
                                inv.withUnsafeBufferPointer { inv in
                                    normalized.withUnsafeMutableBufferPointer { out in
                                        Parallel.forRanges(n, minChunk: 8192) { rows in
                                            for i in rows {
                                                for e in Int(off[i])..<Int(off[i + 1]) {
                                                    out[e] = Float(w[e] * inv[i] * inv[Int(nb[e])])
                                                }
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        offsets = graph.offsets
        neighbors = graph.neighbors
        values = normalized
    }

    /// Builds directly from CSR arrays of S (tests).
    public init(offsets: [UInt64], neighbors: [UInt32], values: [Float]) {
        self.offsets = Column(offsets)
        self.neighbors = Column(neighbors)
        self.values = values
    }

    /// Runs the solver for `labels.count` label vectors at once.
    ///
    /// - Parameter labels: `labels[c][i]` is Y for column c at node i (0 or 1, or any weight).
    /// - Parameter progress: called after each iteration with the iteration number and the
    ///   largest change among columns still running.
    public func run(labels: [[Double]], options: Options, progress: ((Int, Double) -> Void)? = nil)
        -> (scores: [[Double]], status: [ColumnStatus])
    {
        let k = labels.count
        guard k > 0 else { return ([], []) }
        precondition(labels.allSatisfy { $0.count == nodeCount })
        // Columns are independent: run them in groups of at most 64 (each group's rows padded to
        // a multiple of the SIMD width).
        if k > 64 {
            var scores: [[Double]] = []
            var status: [ColumnStatus] = []
            for start in stride(from: 0, to: k, by: 64) {
                let part = run(labels: Array(labels[start..<min(k, start + 64)]), options: options, progress: progress)
                scores += part.scores
                status += part.status
            }
            return (scores, status)
        }
        if options.solver == .chebyshev { return solveChebyshev(labels, options, progress) }
        switch k {
        case 1: return solve(labels, options, progress, lanes: SIMD2<Double>.self, width: 1)
        case 2: return solve(labels, options, progress, lanes: SIMD2<Double>.self, width: 2)
        default: return solve(labels, options, progress, lanes: SIMD4<Double>.self, width: (k + 3) / 4 * 4)
        }
    }

    /// Chebyshev semi-iteration for `(I − αS)F = (1 − α)Y` on all columns at once.
    private func solveChebyshev(_ labels: [[Double]], _ options: Options, _ progress: ((Int, Double) -> Void)?)
        -> (scores: [[Double]], status: [ColumnStatus])
    {
        let n = nodeCount
        let k = labels.count
        // Row-major n × w; one or two columns stay unpadded, more are padded to 4-column groups.
        let w = k <= 2 ? k : (k + 3) / 4 * 4
        let groupWidth = min(w, 4)
        let alpha = options.alpha
        // Rows per work item: small enough that a block's part of S stays in cache while every
        // band of columns sweeps it, many enough to balance threads.
        let blockCount = max(1, min((n + 4095) / 4096, max(Parallel.threadCount * 16, n / 8192)))
        let blockSize = (n + blockCount - 1) / blockCount

        // x0 = Y; r0 = b − (I − αS)x0 with b = (1 − α)Y; d0 = r0 (θ = 1, the spectrum's centre).
        // The step d is what every row gathers from its neighbours: Float32 halves that traffic.
        // x and r stay Float64 and r is updated with the rounded step, so r = b − Ax holds for
        // the x actually accumulated and the fixed point is unchanged.
        var x = [Double](repeating: 0, count: n * w)
        var r = [Double](repeating: 0, count: n * w)
        var d = [Float](repeating: 0, count: n * w)
        var dNext = [Float](repeating: 0, count: n * w)
        withMatrix { m in
            x.withUnsafeMutableBufferPointer { xb in
                r.withUnsafeMutableBufferPointer { rb in
                    d.withUnsafeMutableBufferPointer { db in
                        let xp = xb.baseAddress!
                        let rp = rb.baseAddress!
                        let dp = db.baseAddress!
                        Parallel.forRanges(n, minChunk: 8192) { rows in
                            for c in 0..<k {
                                labels[c].withUnsafeBufferPointer { y in
                                    for i in rows { xp[i &* w &+ c] = y[i] }
                                }
                            }
                        }
                        // r temporarily holds S·x0.
                        let all = ChebyshevKernel.bands(
                            width: w, activeGroups: [Bool](repeating: true, count: w / groupWidth))
                        Parallel.forEach(blockCount) { block in
                            let rows = (block * blockSize)..<min(n, (block + 1) * blockSize)
                            guard !rows.isEmpty else { return }
                            for band in all {
                                ChebyshevKernel.multiply(
                                    lanes: band.lanes, offset: band.offset, rows: rows, m, v: xp, out: rp, width: w)
                            }
                            for t in (rows.lowerBound &* w)..<(rows.upperBound &* w) {
                                let xt = xp[t]
                                let rt = (1 - alpha) * xt - (xt - alpha * rp[t])
                                rp[t] = rt
                                dp[t] = Float(rt)
                            }
                        }
                    }
                }
            }
        }
        var active = [Bool](repeating: true, count: k)
        var status = [ColumnStatus](
            repeating: ColumnStatus(iterations: 0, residual: .infinity, converged: false), count: k)
        var blockMax = [Double](repeating: 0, count: blockCount * w)
        var mask = [Double](repeating: 0, count: w)
        for c in 0..<k { mask[c] = 1 }
        // Chebyshev scalars (Saad, Iterative Methods, Alg. 12.1) for spectrum [1−α, 1+α].
        let delta = alpha
        let sigma1 = 1 / alpha
        var rho0 = 1 / sigma1
        var iteration = 0
        while iteration < options.maxIterations && active.contains(true) {
            iteration += 1
            let rho1 = 1 / (2 * sigma1 - rho0)
            let c1 = rho1 * rho0
            let c2 = 2 * rho1 / delta
            // A group whose columns have all converged keeps a zero step: x and r would not
            // change by a single bit, so it is skipped.
            var activeGroups = [Bool](repeating: false, count: w / groupWidth)
            for c in 0..<k where active[c] { activeGroups[c / groupWidth] = true }
            let bands = ChebyshevKernel.bands(width: w, activeGroups: activeGroups)
            withMatrix { m in
                x.withUnsafeMutableBufferPointer { xb in
                    r.withUnsafeMutableBufferPointer { rb in
                        d.withUnsafeBufferPointer { db in
                            dNext.withUnsafeMutableBufferPointer { dn in
                                mask.withUnsafeBufferPointer { mk in
                                    blockMax.withUnsafeMutableBufferPointer { bm in
                                        let state = ChebyshevKernel.State(
                                            x: xb.baseAddress!, r: rb.baseAddress!, d: db.baseAddress!,
                                            dNext: dn.baseAddress!, mask: mk.baseAddress!, width: w)
                                        let bm = bm
                                        Parallel.forEach(blockCount) { block in
                                            let rows = (block * blockSize)..<min(n, (block + 1) * blockSize)
                                            guard !rows.isEmpty else { return }
                                            for band in bands {
                                                ChebyshevKernel.step(
                                                    lanes: band.lanes, offset: band.offset, rows: rows, alpha: alpha,
                                                    c1: c1, c2: c2,
                                                    m, state, maxOut: bm.baseAddress! + (block * w + band.offset))
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
            swap(&d, &dNext)
            rho0 = rho1
            let (worst, converged) = Self.recordIteration(
                iteration, partMax: blockMax, parts: blockCount, width: w, tolerance: options.tolerance,
                status: &status, active: &active, mask: &mask)
            for c in converged {
                // Freeze: a zero step leaves x and r of this column unchanged from now on.
                d.withUnsafeMutableBufferPointer { db in
                    for i in 0..<n { db[i &* w &+ c] = 0 }
                }
            }
            progress?(iteration, worst)
        }
        return (columns(of: x, width: w, count: k), status)
    }

    /// Calls `body` with raw views of S.
    private func withMatrix<R>(_ body: (ChebyshevKernel.Matrix) -> R) -> R {
        offsets.withUnsafeBufferPointer { off in
            neighbors.withUnsafeBufferPointer { nb in
                values.withUnsafeBufferPointer { sv in
                    body(
                        ChebyshevKernel.Matrix(
                            offsets: off.baseAddress!, neighbors: nb.baseAddress!, values: sv.baseAddress!))
                }
            }
        }
    }

    /// Columns 0..<k of a row-major n × w matrix, as separate arrays.
    /// Folds one iteration's per-part maxima (`parts` rows of `width` lanes) into the status of
    /// every active column. A column whose largest change is below `tolerance` is converged: it
    /// becomes inactive and its mask lane 0. Returns the largest change over the columns that were
    /// active and the columns that converged in this iteration.
    private static func recordIteration(
        _ iteration: Int, partMax: [Double], parts: Int, width w: Int, tolerance: Double,
        status: inout [ColumnStatus], active: inout [Bool], mask: inout [Double]
    ) -> (worst: Double, converged: [Int]) {
        var worst = 0.0
        var converged: [Int] = []
        for c in 0..<status.count where active[c] {
            var change = 0.0
            for part in 0..<parts { change = max(change, partMax[part * w + c]) }
            status[c].iterations = iteration
            status[c].residual = change
            if change < tolerance {
                status[c].converged = true
                active[c] = false
                mask[c] = 0
                converged.append(c)
            }
            worst = max(worst, change)
        }
        return (worst, converged)
    }

    private func columns(of x: [Double], width w: Int, count k: Int) -> [[Double]] {
        let n = nodeCount
        var scores = [[Double]](repeating: [], count: k)
        x.withUnsafeBufferPointer { xb in
            for c in 0..<k {
                scores[c] = [Double](unsafeUninitializedCapacity: n) { out, count in
                    let out = out
                    Parallel.forRanges(n, minChunk: 1 << 16) { rows in
                        for i in rows { out[i] = xb[i &* w &+ c] }
                    }
                    count = n
                }
            }
        }
        return scores
    }

    /// Zhou's iteration (`jacobi`), columns in SIMD registers of `V`.
    private func solve<V: SIMD>(
        _ labels: [[Double]], _ options: Options, _ progress: ((Int, Double) -> Void)?,
        lanes: V.Type, width: Int
    ) -> (scores: [[Double]], status: [ColumnStatus]) where V.Scalar == Double {
        let n = nodeCount
        let k = labels.count
        let w = width
        let alpha = options.alpha
        // Row-major n × w layouts: one pass over a row's neighbours updates every column.
        var x = [Double](repeating: 0, count: n * w)
        var base = [Double](repeating: 0, count: n * w)
        for c in 0..<k {
            let y = labels[c]
            for i in 0..<n {
                x[i * w + c] = y[i]
                base[i * w + c] = (1 - alpha) * y[i]
            }
        }
        var xNext = x
        var active = [Bool](repeating: true, count: k)
        var status = [ColumnStatus](
            repeating: ColumnStatus(iterations: 0, residual: .infinity, converged: false), count: k)
        let chunkCount = max(1, min(n / 2048, Parallel.threadCount * 16))
        let chunkSize = (n + chunkCount - 1) / chunkCount
        var chunkMax = [Double](repeating: 0, count: chunkCount * w)
        var mask = [Double](repeating: 0, count: w)
        for c in 0..<k { mask[c] = 1 }
        var iteration = 0
        while iteration < options.maxIterations && active.contains(true) {
            iteration += 1
            let maskVector = mask
            offsets.withUnsafeBufferPointer { off in
                neighbors.withUnsafeBufferPointer { nb in
                    values.withUnsafeBufferPointer { sv in
                        maskVector.withUnsafeBufferPointer { mk in
                            chunkMax.withUnsafeMutableBufferPointer { cm in
                                x.withUnsafeBufferPointer { xb in
                                    base.withUnsafeBufferPointer { bb in
                                        xNext.withUnsafeMutableBufferPointer { xn in
                                            Parallel.forEach(chunkCount) { chunk in
                                                let lo = chunk * chunkSize
                                                let hi = min(n, lo + chunkSize)
                                                Self.jacobiRows(
                                                    lo..<hi, width: w, alpha: alpha, off: off, nb: nb, sv: sv, mask: mk,
                                                    x: xb, base: bb, xNext: xn,
                                                    maxOut: UnsafeMutableBufferPointer(
                                                        rebasing: cm[(chunk * w)..<(chunk * w + w)]),
                                                    lanes: V.self)
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
            swap(&x, &xNext)
            let (worst, _) = Self.recordIteration(
                iteration, partMax: chunkMax, parts: chunkCount, width: w, tolerance: options.tolerance,
                status: &status, active: &active, mask: &mask)
            progress?(iteration, worst)
        }
        return (columns(of: x, width: w, count: k), status)
    }

    @inline(__always)
    private static func load<V: SIMD>(_ p: UnsafePointer<Double>, _ offset: Int, _: V.Type) -> V
    where V.Scalar == Double {
        UnsafeRawPointer(p + offset).loadUnaligned(as: V.self)
    }

    @inline(__always)
    private static func store<V: SIMD>(_ v: V, _ p: UnsafeMutablePointer<Double>, _ offset: Int)
    where V.Scalar == Double {
        UnsafeMutableRawPointer(p + offset).storeBytes(of: v, as: V.self)
    }

    /// One Zhou step for rows `rows`: x' = x + mask·(αSx + (1−α)Y − x).
    @_specialize(exported:false,where V == SIMD2<Double>)
    @_specialize(exported:false,where V == SIMD4<Double>)
    private static func jacobiRows<V: SIMD>(
        _ rows: Range<Int>, width w: Int, alpha: Double,
        off: UnsafeBufferPointer<UInt64>, nb: UnsafeBufferPointer<UInt32>, sv: UnsafeBufferPointer<Float>,
        mask: UnsafeBufferPointer<Double>, x: UnsafeBufferPointer<Double>, base: UnsafeBufferPointer<Double>,
        xNext: UnsafeMutableBufferPointer<Double>, maxOut: UnsafeMutableBufferPointer<Double>, lanes: V.Type
    ) where V.Scalar == Double {
        let xp = x.baseAddress!
        let bp = base.baseAddress!
        let xn = xNext.baseAddress!
        let mp = mask.baseAddress!
        if w == 1 {
            var m = 0.0
            for i in rows {
                var acc = 0.0
                for e in Int(off[i])..<Int(off[i + 1]) { acc += Double(sv[e]) * xp[Int(nb[e])] }
                let change = mp[0] * (alpha * acc + bp[i] - xp[i])
                xn[i] = xp[i] + change
                m = max(m, abs(change))
            }
            maxOut[0] = m
            return
        }
        let step = V.scalarCount
        let av = V(repeating: alpha)
        for o in stride(from: 0, to: w, by: step) {
            let mv = load(mp, o, V.self)
            var mx = V(repeating: 0)
            for i in rows {
                var acc = V(repeating: 0)
                for e in Int(off[i])..<Int(off[i + 1]) {
                    acc += V(repeating: Double(sv[e])) * load(xp, Int(nb[e]) * w + o, V.self)
                }
                let at = i * w + o
                let xi = load(xp, at, V.self)
                let change = mv * (av * acc + load(bp, at, V.self) - xi)
                store(xi + change, xn, at)
                mx = pointwiseMax(mx, pointwiseMax(change, -change))
            }
            for t in 0..<step { maxOut[o + t] = mx[t] }
        }
    }
}
