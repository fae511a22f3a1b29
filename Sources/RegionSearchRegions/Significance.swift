import Foundation

/// Significance of a region's keyword concentration against the keyword's own base rate.
///
/// A region holds n POIs of which k match. Under the null hypothesis that the keyword is spread
/// over POIs independently of place, k ~ Binomial(n, p) with p the keyword's base rate over the
/// whole input. The raw tail P(X ≥ k) is small for every region the detector returns — it chose
/// them for being concentrated — so it is corrected for the number of candidate regions the search
/// could have produced: about one per POI (N), times ``shapesPerWindow`` for the freedom of the
/// region's size and shape around it. The region's p-value is `min(1, N · shapesPerWindow · P(X ≥ k))`,
/// a Bonferroni bound in the manner of scan statistics. Across all regions of all keywords the run
/// then controls the false discovery rate with the Benjamini–Hochberg step-up procedure (q-values).
public enum Significance {
    /// Candidate shapes per POI. Calibrated on cities with no planted clusters (keyword rates
    /// 0.5 %, 3 % and 50 %, 2k to 1M POIs, 2–12 seeds each): the most extreme chance region there
    /// reaches N · P(X ≥ k) ≥ 1.3·10⁻³ (the intersection–union statistic of `RegionsStage`), so a
    /// factor of 100 keeps every chance region's p-value above 0.13 (EXPERIMENTS.md).
    public static let shapesPerWindow = 100.0

    /// Candidate shapes per keyword POI for the `lift` measure's regions (connected sets of keyword
    /// POIs, centred on one of them), with the hull's corners left out of the counts
    /// (``RegionFinder/testFootprint(_:match:)``). Calibrated on cities with no planted clusters
    /// (`scripts/null-calibration`, 100k POIs seeds 101–110 and 1M seeds 101–103, keywords at
    /// 0.5 %, about 2 % and 50 %): the most extreme chance region reaches windows · P(X ≥ k) =
    /// 0.063, so a factor of 2 keeps every chance region's p-value above 0.12 (EXPERIMENTS.md).
    static let liftShapes = 2.0

    /// log P(X ≥ k) for X ~ Binomial(n, p), computed in log space (no underflow for tiny tails).
    static func logUpperTail(k: Int, n: Int, p: Double) -> Double {
        if k <= 0 { return 0 }
        if k > n { return -.infinity }
        if p <= 0 { return -.infinity }
        if p >= 1 { return 0 }
        let lp = Foundation.log(p)
        let lq = Foundation.log1p(-p)
        func logTerm(_ j: Int) -> Double {
            lgamma(Double(n) + 1) - lgamma(Double(j) + 1) - lgamma(Double(n - j) + 1) + Double(j) * lp + Double(n - j)
                * lq
        }
        let mode = Int((Double(n + 1) * p).rounded(.down))
        if k <= mode {
            // The tail holds the bulk: 1 − P(X ≤ k−1), summed from k−1 downwards.
            var lower = -Double.infinity
            var j = k - 1
            var first = logTerm(j)
            while j >= 0 {
                let t = logTerm(j)
                lower = logAdd(lower, t)
                if t < first - 40 { break }
                first = max(first, t)
                j -= 1
            }
            let v = 1 - Foundation.exp(lower)
            return v > 0 ? Foundation.log(v) : Foundation.log(Double.leastNormalMagnitude)
        }
        var sum = -Double.infinity
        var j = k
        let top = logTerm(k)
        while j <= n {
            let t = logTerm(j)
            sum = logAdd(sum, t)
            if t < top - 40 { break }  // terms fall geometrically above the mode
            j += 1
        }
        return min(0, sum)
    }

    @inline(__always)
    static func logAdd(_ a: Double, _ b: Double) -> Double {
        if a == -.infinity { return b }
        if b == -.infinity { return a }
        let m = max(a, b)
        return m + Foundation.log(Foundation.exp(a - m) + Foundation.exp(b - m))
    }

    /// The region's p-value: `min(1, windows · shapesPerWindow · P(X ≥ k))`.
    public static func pValue(k: Int, n: Int, p: Double, windows: Int, shapes: Double = shapesPerWindow) -> Double {
        let logTail = logUpperTail(k: k, n: n, p: p)
        let v = Foundation.exp(logTail + Foundation.log(Double(max(1, windows)) * shapes))
        return min(1, v)
    }

    /// log P(X ≥ k) for X ~ Poisson(mean), summed in log space from k upwards (terms fall
    /// geometrically once j exceeds the mean; for k ≤ mean the complement is summed).
    static func logPoissonUpperTail(k: Int, mean: Double) -> Double {
        if k <= 0 { return 0 }
        if mean <= 0 { return -.infinity }
        let lm = Foundation.log(mean)
        func logTerm(_ j: Int) -> Double { Double(j) * lm - mean - lgamma(Double(j) + 1) }
        if Double(k) <= mean {
            var lower = -Double.infinity
            for j in 0..<k { lower = logAdd(lower, logTerm(j)) }
            let v = 1 - Foundation.exp(lower)
            return v > 0 ? Foundation.log(v) : Foundation.log(Double.leastNormalMagnitude)
        }
        var sum = -Double.infinity
        let top = logTerm(k)
        var j = k
        while true {
            let t = logTerm(j)
            sum = logAdd(sum, t)
            if t < top - 40 || j > k + 100_000 { break }
            j += 1
        }
        return min(0, sum)
    }

    /// A density region's p-value: `min(1, windows · P(X ≥ k))` for X ~ Poisson(expected), the
    /// count of keyword POIs its area would hold at the keyword's typical density (a scan bound
    /// over the `windows` places such a region could be centred on).
    public static func densityPValue(k: Int, expected: Double, windows: Int) -> Double {
        let v = Foundation.exp(logPoissonUpperTail(k: k, mean: expected) + Foundation.log(Double(max(1, windows))))
        return min(1, v)
    }

    /// Benjamini–Hochberg q-values for `pValues` (same order). Ties are ordered by index, so the
    /// result is deterministic.
    static func benjaminiHochberg(_ pValues: [Double]) -> [Double] {
        let m = pValues.count
        guard m > 0 else { return [] }
        let order = (0..<m).sorted { (pValues[$0], $0) < (pValues[$1], $1) }
        var q = [Double](repeating: 1, count: m)
        var running = 1.0
        for rank in stride(from: m, through: 1, by: -1) {
            let i = order[rank - 1]
            running = min(running, pValues[i] * Double(m) / Double(rank))
            q[i] = min(1, running)
        }
        return q
    }

    /// The Benjamini–Hochberg q-values of `pool` (every keyword's candidates of a run), looked up
    /// for some of its p-values: the same values `benjaminiHochberg(pool)` gives them, since tied
    /// p-values get one q-value. Every p-value looked up must be one of the pool's (asserted; a
    /// release build gives one outside it the q-value of the largest pooled p-value below it).
    static func pooledBenjaminiHochberg(_ pool: [Double]) -> @Sendable ([Double]) -> [Double] {
        let sorted = pool.sorted()
        let q = benjaminiHochberg(sorted)
        return { pValues in
            pValues.map { p in
                // The last pooled p-value ≤ p: a tie's q-value is the same at every one of its ranks.
                var lo = 0
                var hi = sorted.count
                while lo < hi {
                    let mid = (lo + hi) / 2
                    if sorted[mid] <= p { lo = mid + 1 } else { hi = mid }
                }
                assert(lo > 0 && sorted[lo - 1] == p, "a p-value outside the pool")
                return lo > 0 ? q[lo - 1] : 1
            }
        }
    }
}
