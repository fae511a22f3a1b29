import Foundation

/// Label spreading after Zhou, Bousquet, Lal, Weston & Schölkopf, "Learning with Local and Global
/// Consistency" (NIPS 2004), on a POI adjacency graph.
///
/// - Edge weights: a Gaussian with a self-tuning local scale (Zelnik-Manor & Perona 2004),
///   `w_ij = exp(−d_ij² / (σ_i σ_j))`, where σ_i is the graph's `scale` of point i (the distance
///   to its k-th nearest neighbour), so the kernel adapts to POI spacing that varies 30× across a city.
/// - `S = D^-1/2 W D^-1/2` with `D = diag(Σ_j w_ij)`.
/// - Iteration `F ← αSF + (1−α)Y` from `F = Y`, per column until `max_i |ΔF_i| < tolerance` or
///   `maxIterations`; a column that has converged is frozen, so its result does not depend on
///   which other columns share the run. The fixed point is `F* = (1−α)(I−αS)⁻¹Y`.
/// All columns (keywords) are updated in one pass over the graph; rows are split over threads and
/// every row's sum is computed in a fixed order, so results are identical for any thread count.
public struct LabelPropagation {
    /// `S` in CSR form sharing the graph's row structure.
    public let offsets: [UInt64]
    public let neighbors: [UInt32]
    public let values: [Double]
    public var nodeCount: Int { offsets.count - 1 }

    public struct Options: Sendable {
        public var alpha: Double
        public var tolerance: Double
        public var maxIterations: Int
        public init(alpha: Double = 0.85, tolerance: Double = 1e-6, maxIterations: Int = 1000) {
            self.alpha = alpha
            self.tolerance = tolerance
            self.maxIterations = maxIterations
        }
    }

    /// Per-column outcome of a run.
    public struct ColumnStatus: Sendable, Equatable {
        public var iterations: Int
        /// `max_i |F_t − F_{t−1}|` at the last iteration.
        public var residual: Double
        public var converged: Bool
    }

    /// Builds `S` from a graph with edge lengths and local scales.
    public init(graph: AdjacencyGraph) {
        let n = graph.nodeCount
        var weights = [Double](repeating: 0, count: graph.neighbors.count)
        var degree = [Double](repeating: 0, count: n)
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
                                    Parallel.forRanges(n, minChunk: 8192) { rows in
                                        for i in rows {
                                            for e in Int(off[i])..<Int(off[i + 1]) {
                                                w[e] *= inv[i] * inv[Int(nb[e])]
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
        values = weights
    }

    /// Builds directly from CSR arrays of S (tests).
    public init(offsets: [UInt64], neighbors: [UInt32], values: [Double]) {
        self.offsets = offsets
        self.neighbors = neighbors
        self.values = values
    }

    /// Runs the iteration for `columns` label vectors at once.
    ///
    /// - Parameter labels: `labels[c][i]` is Y for column c at node i (0 or 1, or any weight).
    /// - Parameter progress: called after each iteration with the iteration number and the
    ///   largest residual among columns still running.
    /// - Returns: F per column and the status of each column.
    public func run(labels: [[Double]], options: Options, progress: ((Int, Double) -> Void)? = nil)
        -> (scores: [[Double]], status: [ColumnStatus])
    {
        let n = nodeCount
        let k = labels.count
        precondition(labels.allSatisfy { $0.count == n })
        guard k > 0 else { return ([], []) }
        let alpha = options.alpha
        // Row-major n × k layouts: one pass over a row's neighbours updates every column.
        var current = [Double](repeating: 0, count: n * k)
        var base = [Double](repeating: 0, count: n * k)
        for c in 0..<k {
            for i in 0..<n {
                current[i * k + c] = labels[c][i]
                base[i * k + c] = (1 - alpha) * labels[c][i]
            }
        }
        var next = current
        var active = [Bool](repeating: true, count: k)
        var status = [ColumnStatus](repeating: ColumnStatus(iterations: 0, residual: .infinity, converged: false), count: k)
        let chunkCount = max(1, min(n / 4096, Parallel.threadCount * 16))
        let chunkSize = (n + chunkCount - 1) / chunkCount
        var chunkMax = [Double](repeating: 0, count: chunkCount * k)
        var iteration = 0
        while iteration < options.maxIterations && active.contains(true) {
            iteration += 1
            let activeMask = active
            offsets.withUnsafeBufferPointer { off in
                neighbors.withUnsafeBufferPointer { nb in
                    values.withUnsafeBufferPointer { sv in
                        current.withUnsafeBufferPointer { cur in
                            base.withUnsafeBufferPointer { bs in
                                next.withUnsafeMutableBufferPointer { nx in
                                    chunkMax.withUnsafeMutableBufferPointer { cm in
                                        activeMask.withUnsafeBufferPointer { act in
                                            Parallel.forEach(chunkCount) { chunk in
                                                let lo = chunk * chunkSize
                                                let hi = min(n, lo + chunkSize)
                                                for c in 0..<k { cm[chunk * k + c] = 0 }
                                                guard lo < hi else { return }
                                                if k == 1 {
                                                    var m = 0.0
                                                    for i in lo..<hi {
                                                        var acc = 0.0
                                                        for e in Int(off[i])..<Int(off[i + 1]) {
                                                            acc += sv[e] * cur[Int(nb[e])]
                                                        }
                                                        let v = alpha * acc + bs[i]
                                                        m = max(m, abs(v - cur[i]))
                                                        nx[i] = v
                                                    }
                                                    cm[chunk] = m
                                                    return
                                                }
                                                var acc = [Double](repeating: 0, count: k)
                                                acc.withUnsafeMutableBufferPointer { a in
                                                    for i in lo..<hi {
                                                        for c in 0..<k { a[c] = 0 }
                                                        for e in Int(off[i])..<Int(off[i + 1]) {
                                                            let s = sv[e]
                                                            let row = Int(nb[e]) * k
                                                            for c in 0..<k { a[c] += s * cur[row + c] }
                                                        }
                                                        for c in 0..<k {
                                                            let idx = i * k + c
                                                            if act[c] {
                                                                let v = alpha * a[c] + bs[idx]
                                                                cm[chunk * k + c] = max(cm[chunk * k + c], abs(v - cur[idx]))
                                                                nx[idx] = v
                                                            } else {
                                                                nx[idx] = cur[idx]
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
                }
            }
            swap(&current, &next)
            var worst = 0.0
            for c in 0..<k where active[c] {
                var r = 0.0
                for chunk in 0..<chunkCount { r = max(r, chunkMax[chunk * k + c]) }
                status[c].iterations = iteration
                status[c].residual = r
                if r < options.tolerance {
                    status[c].converged = true
                    active[c] = false
                }
                worst = max(worst, r)
            }
            progress?(iteration, worst)
        }
        var scores = [[Double]](repeating: [Double](repeating: 0, count: n), count: k)
        for c in 0..<k {
            scores[c].withUnsafeMutableBufferPointer { out in
                for i in 0..<n { out[i] = current[i * k + c] }
            }
        }
        return (scores, status)
    }
}
