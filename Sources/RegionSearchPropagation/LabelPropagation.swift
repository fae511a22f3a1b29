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
///   Both run a fixed number of steps, ``iterationCount(_:)``: the first at which the solver's
///   error bound falls below `tolerance`. The largest change in the last step is recorded as the
///   residual, and a column whose residual exceeds `tolerance` is reported as not converged.
///   The count depends on α, the tolerance and the solver only — never on the data — so a score
///   depends on the graph within ``reach(iterations:)`` hops of its node alone, and a tile that
///   holds that neighbourhood computes the single run's value bit for bit.
/// - Columns (keywords) are updated together, several per SIMD register, in one pass over the
///   graph; every column runs the same steps, so its result does not depend on which other
///   columns share the run. Rows are split over threads and every row's sum is computed in a
///   fixed order, so results are identical for any thread count and any split into tiles.
public struct LabelPropagation {
    /// `S` in CSR form sharing the graph's row structure.
    public let offsets: Column<UInt64>
    public let neighbors: Column<UInt32>
    public let values: [Float]
    public var nodeCount: Int { offsets.count - 1 }

    public enum Solver: String, CaseIterable, Sendable {
        case chebyshev, jacobi
    }

    /// What the Chebyshev solver stores its iterate and residual in; it computes in Float64 either
    /// way. `single` halves those two arrays' memory traffic (the iterations are bound by it), and
    /// is meant for a result that is itself stored as Float32 at a tolerance far above Float32's
    /// rounding over all the steps (the keyword densities: ``PropagationOptions/densityPrecision(_:)``).
    /// The Jacobi solver stores Float64 always.
    public enum Precision: String, Sendable {
        case double, single
    }

    public struct Options: Sendable, Equatable {
        public var alpha: Double
        public var tolerance: Double
        public var maxIterations: Int
        public var solver: Solver
        public var precision: Precision
        public init(
            alpha: Double = 0.9, tolerance: Double = 1e-6, maxIterations: Int = 1000, solver: Solver = .chebyshev,
            precision: Precision = .double
        ) {
            self.alpha = alpha
            self.tolerance = tolerance
            self.maxIterations = maxIterations
            self.solver = solver
            self.precision = precision
        }
    }

    /// Per-column outcome of a run.
    public struct ColumnStatus: Sendable, Equatable {
        public var iterations: Int
        /// The largest change of any score in the column's last step.
        public var residual: Double
        public var converged: Bool

        public init(iterations: Int, residual: Double, converged: Bool) {
            self.iterations = iterations
            self.residual = residual
            self.converged = converged
        }
    }

    /// Builds `S` from a graph with edge lengths and local scales.
    ///
    /// The weights, degrees and values are written whole by the parallel loops that compute them,
    /// so they are made without a zero fill first: that fill, on one thread over fresh memory,
    /// touched every page before the loops did (the weights alone are 480 MB at 10M POIs).
    public init(graph: AdjacencyGraph) {
        let n = graph.nodeCount
        let edges = graph.neighbors.count
        var degree: [Double] = []
        var normalized: [Float] = []
        graph.offsets.withUnsafeBufferPointer { off in
            precondition(n == 0 || Int(off[n]) == edges, "CSR offsets end at the neighbour count")
            graph.neighbors.withUnsafeBufferPointer { nb in
                graph.length.withUnsafeBufferPointer { len in
                    graph.scale.withUnsafeBufferPointer { sc in
                        let weights = [Double](unsafeUninitializedCapacity: edges) { w, weightCount in
                            degree = [Double](unsafeUninitializedCapacity: n) { deg, degreeCount in
                                let (w, deg) = (w, deg)
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
                                degreeCount = n
                            }
                            weightCount = edges
                        }
                        // S_ij = w_ij / sqrt(d_i d_j); isolated nodes keep an empty row.
                        var inv = [Double](repeating: 0, count: n)
                        for i in 0..<n where degree[i] > 0 { inv[i] = 1 / degree[i].squareRoot() }
                        weights.withUnsafeBufferPointer { w in
                            inv.withUnsafeBufferPointer { inv in
                                normalized = [Float](unsafeUninitializedCapacity: edges) { out, count in
                                    let out = out
                                    Parallel.forRanges(n, minChunk: 8192) { rows in
                                        for i in rows {
                                            for e in Int(off[i])..<Int(off[i + 1]) {
                                                out[e] = Float(w[e] * inv[i] * inv[Int(nb[e])])
                                            }
                                        }
                                    }
                                    count = edges
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

    /// The number of iterations every column runs: the first at which the solver's error bound,
    /// relative to the starting error, is at most `tolerance / 10` — `α^k` for Jacobi (‖αS‖₂ ≤ α),
    /// `2ρ^k / (1 + ρ^2k)` with `ρ = (√κ − 1)/(√κ + 1)`, `κ = (1 + α)/(1 − α)` for Chebyshev — and
    /// at most `maxIterations`. The bound holds for the error as a whole (in the norm of the
    /// spectrum), not for the largest change of one score, which is what `tolerance` promises;
    /// the decade of margin keeps that change below it (on the real-data pipelines at the default
    /// 1e-6 the last change is 1–3 × 10⁻⁷, where the bound alone left 0.8–1.4 × 10⁻⁶).
    ///
    /// A fixed count instead of "until the largest change anywhere is below tolerance" makes a
    /// score a function of the graph within `count + 2` hops of its POI only: a tile that holds
    /// that neighbourhood computes exactly the single run's value. Computed by repeated
    /// multiplication (IEEE, no `pow`/`log`), so it is the same on every machine.
    public static func iterationCount(_ options: Options) -> Int {
        let alpha = options.alpha
        let limit = max(1, options.maxIterations)
        let rate: Double
        switch options.solver {
        case .jacobi:
            rate = alpha
        case .chebyshev:
            let kappa = (1 + alpha) / (1 - alpha)
            let root = kappa.squareRoot()
            rate = (root - 1) / (root + 1)
        }
        guard rate > 0 else { return 1 }
        var power = 1.0
        for k in 1...limit {
            power *= rate
            let bound = options.solver == .jacobi ? power : 2 * power / (1 + power * power)
            if bound <= options.tolerance / 10 { return k }
        }
        return limit
    }

    /// The row width the Chebyshev solver stores `columns` columns in: padded to a multiple of 4
    /// only where that saves a pass over S (``ChebyshevKernel/width(columns:)``).
    public static func rowWidth(columns: Int) -> Int { ChebyshevKernel.width(columns: columns) }

    /// How many graph hops around a node its score depends on after `iterations` steps: the
    /// initial residual and every step read one hop of the previous step, and the normalised
    /// weights of a row read its neighbours' degrees (their rows).
    public static func reach(iterations: Int) -> Int { iterations + 2 }

    /// Runs the solver for `labels.count` label vectors at once, ``iterationCount(_:)`` steps.
    ///
    /// - Parameter labels: `labels[c][i]` is Y for column c at node i (0 or 1, or any weight).
    /// - Parameter residualRows: the rows whose largest last change is reported as each column's
    ///   residual (all rows when nil; a tile reports the rows it owns).
    /// - Parameter progress: called after each iteration with the iteration number and the
    ///   largest change of any column.
    public func run(
        labels: [[Double]], options: Options, residualRows: Range<Int>? = nil,
        progress: ((Int, Double) -> Void)? = nil
    ) -> (scores: [[Double]], status: [ColumnStatus]) {
        let k = labels.count
        guard k > 0 else { return ([], []) }
        precondition(labels.allSatisfy { $0.count == nodeCount })
        if nodeCount == 0 {
            let status = ColumnStatus(iterations: Self.iterationCount(options), residual: 0, converged: true)
            return ([[Double]](repeating: [], count: k), [ColumnStatus](repeating: status, count: k))
        }
        let report = residualRows ?? 0..<nodeCount
        precondition(report.lowerBound >= 0 && report.upperBound <= nodeCount)
        // Columns are independent: run them in groups of at most 64.
        if k > 64 {
            var scores: [[Double]] = []
            var status: [ColumnStatus] = []
            for start in stride(from: 0, to: k, by: 64) {
                let part = run(
                    labels: Array(labels[start..<min(k, start + 64)]), options: options, residualRows: report,
                    progress: progress)
                scores += part.scores
                status += part.status
            }
            return (scores, status)
        }
        if options.solver == .chebyshev {
            switch options.precision {
            case .double: return solveChebyshev(labels, options, report, progress, stored: Double.self)
            case .single: return solveChebyshev(labels, options, report, progress, stored: Float.self)
            }
        }
        switch k {
        case 1: return solve(labels, options, report, progress, lanes: SIMD2<Double>.self, width: 1)
        case 2: return solve(labels, options, report, progress, lanes: SIMD2<Double>.self, width: 2)
        default: return solve(labels, options, report, progress, lanes: SIMD4<Double>.self, width: (k + 3) / 4 * 4)
        }
    }

    /// Row blocks covering 0..<n, about `count` of them, cut also at the bounds of `report` so
    /// that the largest change over `report` is a maximum over whole blocks.
    static func blocks(rows n: Int, count: Int, cutAt report: Range<Int>) -> [Range<Int>] {
        let size = max(1, (n + max(count, 1) - 1) / max(count, 1))
        var cuts = Set<Int>([report.lowerBound, report.upperBound])
        for b in stride(from: 0, through: n, by: size) { cuts.insert(b) }
        cuts.insert(n)
        let sorted = cuts.filter { $0 >= 0 && $0 <= n }.sorted()
        var out: [Range<Int>] = []
        for (a, b) in zip(sorted, sorted.dropFirst()) where b > a { out.append(a..<b) }
        return out
    }

    /// Folds the per-block maxima of the last step over the blocks inside `report`.
    private static func residuals(
        blockMax: [Double], blocks: [Range<Int>], report: Range<Int>, width w: Int, columns k: Int
    ) -> [Double] {
        var out = [Double](repeating: 0, count: k)
        for (b, rows) in blocks.enumerated()
        where rows.lowerBound >= report.lowerBound
            && rows.upperBound <= report.upperBound
        {
            for c in 0..<k { out[c] = max(out[c], blockMax[b * w + c]) }
        }
        return out
    }

    /// The status of every column after the fixed number of steps.
    private static func finalStatus(iterations: Int, residuals: [Double], tolerance: Double) -> [ColumnStatus] {
        residuals.map { ColumnStatus(iterations: iterations, residual: $0, converged: $0 <= tolerance) }
    }

    /// Chebyshev semi-iteration for `(I − αS)F = (1 − α)Y` on all columns at once.
    private func solveChebyshev<T: ChebyshevStored>(
        _ labels: [[Double]], _ options: Options, _ report: Range<Int>, _ progress: ((Int, Double) -> Void)?,
        stored _: T.Type
    ) -> (scores: [[Double]], status: [ColumnStatus]) {
        let n = nodeCount
        let k = labels.count
        // w columns, padded only where that saves a pass (``ChebyshevKernel/width(columns:)``),
        // stored band by band (``bandMajor(_:bands:rows:)``).
        let w = ChebyshevKernel.width(columns: k)
        let alpha = options.alpha
        // Rows per work item: small enough that a block's part of S stays in cache while every
        // band of columns sweeps it, many enough to balance threads.
        let blockCount = max(1, min((n + 4095) / 4096, max(Parallel.threadCount * 16, n / 8192)))
        let blocks = Self.blocks(rows: n, count: blockCount, cutAt: report)

        // x0 = Y; r0 = b − (I − αS)x0 with b = (1 − α)Y; d0 = r0 (θ = 1, the spectrum's centre).
        // The step d is what every row gathers from its neighbours: Float32 halves that traffic.
        // x and r are stored as T (Float64 unless `precision` is single) and r is updated with the
        // rounded step, so r = b − Ax holds for the x actually accumulated (to T's rounding) and
        // the fixed point is unchanged.
        var x = [T](repeating: 0, count: n * w)
        var r = [T](repeating: 0, count: n * w)
        var d = [Float](repeating: 0, count: n * w)
        var dNext = [Float](repeating: 0, count: n * w)
        let bands = ChebyshevKernel.bands(width: w)
        withMatrix { m in
            x.withUnsafeMutableBufferPointer { xb in
                r.withUnsafeMutableBufferPointer { rb in
                    d.withUnsafeMutableBufferPointer { db in
                        let xp = xb.baseAddress!
                        let rp = rb.baseAddress!
                        let dp = db.baseAddress!
                        Parallel.forRanges(n, minChunk: 8192) { rows in
                            for c in 0..<k {
                                let (at, stride) = Self.bandMajor(c, bands: bands, rows: n)
                                labels[c].withUnsafeBufferPointer { y in
                                    for i in rows { xp[at &+ i &* stride] = T(y[i]) }
                                }
                            }
                        }
                        Parallel.forEach(blocks.count) { block in
                            let rows = blocks[block]
                            for band in bands {
                                let base = n &* band.offset
                                let lanes = band.lanes
                                let first = rows.lowerBound &* lanes
                                // S·x0 for the block's rows, in Float64 whatever T is.
                                var product = [Double](repeating: 0, count: rows.count &* lanes)
                                product.withUnsafeMutableBufferPointer { sx in
                                    ChebyshevKernel.multiply(
                                        lanes: lanes, offset: 0, rows: rows, m, v: xp + base,
                                        out: sx.baseAddress!, width: lanes)
                                    for t in first..<(rows.upperBound &* lanes) {
                                        let xt = Double(xp[base &+ t])
                                        let rt = (1 - alpha) * xt - (xt - alpha * sx[t &- first])
                                        rp[base &+ t] = T(rt)
                                        dp[base &+ t] = Float(rt)
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        var blockMax = [Double](repeating: 0, count: blocks.count * w)
        var mask = [Double](repeating: 0, count: w)
        for c in 0..<k { mask[c] = 1 }
        // Chebyshev scalars (Saad, Iterative Methods, Alg. 12.1) for spectrum [1−α, 1+α].
        let delta = alpha
        let sigma1 = 1 / alpha
        var rho0 = 1 / sigma1
        let iterations = Self.iterationCount(options)
        for iteration in 1...iterations {
            let rho1 = 1 / (2 * sigma1 - rho0)
            let c1 = rho1 * rho0
            let c2 = 2 * rho1 / delta
            withMatrix { m in
                x.withUnsafeMutableBufferPointer { xb in
                    r.withUnsafeMutableBufferPointer { rb in
                        d.withUnsafeBufferPointer { db in
                            dNext.withUnsafeMutableBufferPointer { dn in
                                mask.withUnsafeBufferPointer { mk in
                                    blockMax.withUnsafeMutableBufferPointer { bm in
                                        // One state per band: its columns' own n × lanes block.
                                        let states = bands.map { band in
                                            let base = n * band.offset
                                            return ChebyshevKernel.State(
                                                x: xb.baseAddress! + base, r: rb.baseAddress! + base,
                                                d: db.baseAddress! + base, dNext: dn.baseAddress! + base,
                                                mask: mk.baseAddress! + band.offset, width: band.lanes)
                                        }
                                        let bm = bm
                                        Parallel.forEach(blocks.count) { block in
                                            let rows = blocks[block]
                                            for (band, state) in zip(bands, states) {
                                                ChebyshevKernel.step(
                                                    lanes: band.lanes, offset: 0, rows: rows, alpha: alpha,
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
            if let progress {
                let worst = Self.residuals(blockMax: blockMax, blocks: blocks, report: report, width: w, columns: k)
                progress(iteration, worst.max() ?? 0)
            }
        }
        let last = Self.residuals(blockMax: blockMax, blocks: blocks, report: report, width: w, columns: k)
        // The residual and the two steps go before the columns are copied out of x: at 10M POIs
        // they are 480–640 MB, and the copy (k × n doubles) would otherwise set the stage's peak.
        r = []
        d = []
        dNext = []
        return (
            columns(ofBandMajor: x, bands: bands, count: k),
            Self.finalStatus(iterations: iterations, residuals: last, tolerance: options.tolerance)
        )
    }

    /// Where column `c` of the Chebyshev solver's state lies: at `start + i·stride` for row i.
    ///
    /// The state is stored band by band (``ChebyshevKernel/bands(width:)``): a band of L columns
    /// holds all rows as a row-major n × L block, starting at n × its first column. A band's pass
    /// then reads and writes whole cache lines of its own columns; in one row-major n × w array,
    /// the 1-column band of 17 columns (16 keywords and the ground) would fetch a cache line of
    /// every row for 4 bytes of each, as much traffic as the 16-column band.
    static func bandMajor(_ c: Int, bands: [(offset: Int, lanes: Int)], rows n: Int) -> (start: Int, stride: Int) {
        let band = bands.last { $0.offset <= c }!
        return (n * band.offset + (c - band.offset), band.lanes)
    }

    /// Columns 0..<k of the band-major state `x` (``bandMajor(_:bands:rows:)``), as Float64 arrays.
    private func columns<T: BinaryFloatingPoint>(
        ofBandMajor x: [T], bands: [(offset: Int, lanes: Int)], count k: Int
    ) -> [[Double]] {
        let n = nodeCount
        var scores = [[Double]](repeating: [], count: k)
        x.withUnsafeBufferPointer { xb in
            for c in 0..<k {
                let (start, stride) = Self.bandMajor(c, bands: bands, rows: n)
                scores[c] = [Double](unsafeUninitializedCapacity: n) { out, count in
                    let out = out
                    Parallel.forRanges(n, minChunk: 1 << 16) { rows in
                        for i in rows { out[i] = Double(xb[start &+ i &* stride]) }
                    }
                    count = n
                }
            }
        }
        return scores
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

    /// Columns 0..<k of a row-major n × w matrix, as separate Float64 arrays.
    private func columns<T: BinaryFloatingPoint>(of x: [T], width w: Int, count k: Int) -> [[Double]] {
        let n = nodeCount
        var scores = [[Double]](repeating: [], count: k)
        x.withUnsafeBufferPointer { xb in
            for c in 0..<k {
                scores[c] = [Double](unsafeUninitializedCapacity: n) { out, count in
                    let out = out
                    Parallel.forRanges(n, minChunk: 1 << 16) { rows in
                        for i in rows { out[i] = Double(xb[i &* w &+ c]) }
                    }
                    count = n
                }
            }
        }
        return scores
    }

    /// Zhou's iteration (`jacobi`), columns in SIMD registers of `V`.
    private func solve<V: SIMD>(
        _ labels: [[Double]], _ options: Options, _ report: Range<Int>, _ progress: ((Int, Double) -> Void)?,
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
        let blocks = Self.blocks(rows: n, count: max(1, min(n / 2048, Parallel.threadCount * 16)), cutAt: report)
        var chunkMax = [Double](repeating: 0, count: blocks.count * w)
        var mask = [Double](repeating: 0, count: w)
        for c in 0..<k { mask[c] = 1 }
        let maskVector = mask
        let iterations = Self.iterationCount(options)
        for iteration in 1...iterations {
            offsets.withUnsafeBufferPointer { off in
                neighbors.withUnsafeBufferPointer { nb in
                    values.withUnsafeBufferPointer { sv in
                        maskVector.withUnsafeBufferPointer { mk in
                            chunkMax.withUnsafeMutableBufferPointer { cm in
                                x.withUnsafeBufferPointer { xb in
                                    base.withUnsafeBufferPointer { bb in
                                        xNext.withUnsafeMutableBufferPointer { xn in
                                            Parallel.forEach(blocks.count) { chunk in
                                                Self.jacobiRows(
                                                    blocks[chunk], width: w, alpha: alpha, off: off, nb: nb, sv: sv,
                                                    mask: mk, x: xb, base: bb, xNext: xn,
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
            if let progress {
                let worst = Self.residuals(blockMax: chunkMax, blocks: blocks, report: report, width: w, columns: k)
                progress(iteration, worst.max() ?? 0)
            }
        }
        let last = Self.residuals(blockMax: chunkMax, blocks: blocks, report: report, width: w, columns: k)
        // As in the Chebyshev solve: the other buffers go before the columns are copied out.
        base = []
        xNext = []
        return (
            columns(of: x, width: w, count: k),
            Self.finalStatus(iterations: iterations, residuals: last, tolerance: options.tolerance)
        )
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
