import Foundation

/// Small statistics for benchmark tables: medians of repeats and growth exponents.
public enum BenchmarkStatistics {
    /// The median (mean of the middle two for an even count); NaN for no values.
    public static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return .nan }
        let s = values.sorted()
        let m = s.count / 2
        return s.count % 2 == 1 ? s[m] : (s[m - 1] + s[m]) / 2
    }

    /// The exponent b in t ∝ n^b between two sizes: log(t₂/t₁) / log(n₂/n₁).
    public static func exponent(n1: Double, t1: Double, n2: Double, t2: Double) -> Double {
        guard n1 > 0, n2 > n1, t1 > 0, t2 > 0 else { return .nan }
        return log(t2 / t1) / log(n2 / n1)
    }

    /// The exponent an exact n log n cost would show between the same two sizes (slightly above 1).
    static func nLogNExponent(n1: Double, n2: Double) -> Double {
        exponent(n1: n1, t1: n1 * log(n1), n2: n2, t2: n2 * log(n2))
    }

    /// Least-squares slope of log t against log n over all sizes with a positive value.
    static func fittedExponent(_ points: [(n: Double, t: Double)]) -> Double {
        let p = points.filter { $0.n > 0 && $0.t > 0 }
        guard p.count >= 2 else { return .nan }
        let xs = p.map { log($0.n) }
        let ys = p.map { log($0.t) }
        let mx = xs.reduce(0, +) / Double(xs.count)
        let my = ys.reduce(0, +) / Double(ys.count)
        var sxy = 0.0
        var sxx = 0.0
        for (x, y) in zip(xs, ys) {
            sxy += (x - mx) * (y - my)
            sxx += (x - mx) * (x - mx)
        }
        return sxx > 0 ? sxy / sxx : .nan
    }
}
