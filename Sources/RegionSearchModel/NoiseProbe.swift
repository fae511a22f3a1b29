import RegionSearchCore

/// A random ±1 labelling propagated beside the keywords to measure how noisy a local share is.
///
/// A POI's share is a weighted average of labels, `Σ_j m_ij y_j` with weights `m_ij ≥ 0` summing to
/// 1. If labels were independent with rate p, its variance would be `p(1−p) Σ_j m_ij²` =
/// `p(1−p) / n_eff`: the kernel's effective number of POIs. Propagating independent ±1 labels z
/// gives `Σ_j m_ij z_j` with mean 0 and variance exactly `Σ_j m_ij²`, so the mean square of the
/// probe's share over all POIs estimates `1 / n_eff` for this graph and α — without assuming a
/// model of the graph. The labels come from a fixed seed, so the result is deterministic.
///
/// A node's label is a hash of the seed and its index in the whole data set (counter-based, not
/// the n-th draw of a sequential generator), so a tile that holds only part of the graph labels
/// its nodes exactly as a single run does.
public enum NoiseProbe {
    public static let seed: UInt64 = 0x5245_4749_4F4E_5321  // "REGIONS!"

    /// The ±1 label of the node with index `index` in the whole data set: bit 0 of SplitMix64's
    /// output for the counter `seed + (index + 1)·γ`.
    @inline(__always)
    public static func label(_ index: Int) -> Double {
        var z = seed &+ UInt64(truncatingIfNeeded: index &+ 1) &* 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        return z & 1 == 0 ? -1.0 : 1.0
    }

    /// ±1 labels for n nodes (indices 0..<n).
    public static func labels(count n: Int) -> [Double] { (0..<n).map { label($0) } }

    /// ±1 labels for the nodes whose indices in the whole data set are `indices`.
    public static func labels(indices: [UInt32]) -> [Double] { indices.map { label(Int($0)) } }

    /// Mean of `(probe_i / ones_i)²`: the average `Σ_j m_ij²`, i.e. 1 / effective kernel size.
    public static func meanSquaredWeight(probe: Column<Double>, ones: Column<Double>) -> Double {
        var sum = 0.0
        var count = 0
        for i in 0..<min(probe.count, ones.count) where ones[i] > 0 {
            let v = probe[i] / ones[i]
            sum += v * v
            count += 1
        }
        return count > 0 ? sum / Double(count) : 1
    }
}

extension NoiseProbe {
    /// ``meanSquaredWeight(probe:ones:)`` with the columns in arrays.
    public static func meanSquaredWeight(probe: [Double], ones: [Double]) -> Double {
        meanSquaredWeight(probe: Column(probe), ones: Column(ones))
    }
}
