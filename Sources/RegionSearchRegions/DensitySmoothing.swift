import Foundation
import RegionSearchCore

/// Label propagation of a keyword's local density over the keyword's own POI graph.
///
/// A POI's density from the distance to its k-th nearest keyword neighbour is noisy (for k = 5 it
/// varies by about ±45 % where the true density is constant), so single POIs in a merely busy
/// downtown reach a "dense" core by chance, and a dining street's quieter doorways fall out of it.
/// Spreading it over the keyword graph, `F ← α P F + (1 − α) Y` with `Y = log r` (r the density
/// ratio) and P the random-walk normalisation of Gaussian edge weights `exp(−d² / (sᵢ sⱼ))`
/// (s the keyword spacing), averages each POI with its neighbours a few hops away (about
/// 1 / (1 − α)); the fixed point `F* = (1 − α)(I − α P)⁻¹ Y` keeps a constant density constant.
/// Iterated until no value changes by more than 1e-9 (at most 500 steps), sequentially in
/// position order: deterministic.
enum DensitySmoothing {
    static func smooth(
        logRatio y: [Double], edges: [(a: Int32, b: Int32)], lengths: [Double], spacing: [Double], alpha: Double
    ) -> [Double] {
        let m = y.count
        guard alpha > 0, m > 1, !edges.isEmpty else { return y }
        // Symmetric weights in CSR.
        var degree = [Int](repeating: 0, count: m + 1)
        for (a, b) in edges {
            degree[Int(a) + 1] += 1
            degree[Int(b) + 1] += 1
        }
        for i in 0..<m { degree[i + 1] += degree[i] }
        var fill = degree
        var neighbour = [Int32](repeating: 0, count: degree[m])
        var weight = [Double](repeating: 0, count: degree[m])
        for (e, (a, b)) in edges.enumerated() {
            let sa = spacing[Int(a)].isFinite ? max(spacing[Int(a)], 1) : 1
            let sb = spacing[Int(b)].isFinite ? max(spacing[Int(b)], 1) : 1
            let w = Foundation.exp(-lengths[e] * lengths[e] / (sa * sb))
            neighbour[fill[Int(a)]] = b
            weight[fill[Int(a)]] = w
            fill[Int(a)] += 1
            neighbour[fill[Int(b)]] = a
            weight[fill[Int(b)]] = w
            fill[Int(b)] += 1
        }
        var total = [Double](repeating: 0, count: m)
        for i in 0..<m { for e in degree[i]..<degree[i + 1] { total[i] += weight[e] } }
        var f = y
        var next = y
        // The iterations through raw buffers: the same arithmetic in the same order, without the
        // arrays' bounds checks in the loop that takes most of the smoothing's time.
        degree.withUnsafeBufferPointer { degree in
            neighbour.withUnsafeBufferPointer { neighbour in
                weight.withUnsafeBufferPointer { weight in
                    total.withUnsafeBufferPointer { total in
                        y.withUnsafeBufferPointer { y in
                            for _ in 0..<500 {
                                var change = 0.0
                                f.withUnsafeBufferPointer { f in
                                    next.withUnsafeMutableBufferPointer { next in
                                        var e = degree[0]
                                        for i in 0..<m {
                                            let end = degree[i + 1]
                                            var s = 0.0
                                            while e < end {
                                                s += weight[e] * f[Int(neighbour[e])]
                                                e += 1
                                            }
                                            let v = total[i] > 0 ? alpha * s / total[i] + (1 - alpha) * y[i] : y[i]
                                            change = max(change, abs(v - f[i]))
                                            next[i] = v
                                        }
                                    }
                                }
                                swap(&f, &next)
                                if change <= 1e-9 { break }
                            }
                        }
                    }
                }
            }
        }
        return f
    }
}
