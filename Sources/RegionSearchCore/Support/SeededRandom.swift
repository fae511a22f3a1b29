import Foundation

/// xoshiro256** seeded through SplitMix64: a fast, well-tested generator whose sequence depends
/// only on the seed (Swift's SystemRandomNumberGenerator is not reproducible).
public struct SeededRandom: RandomNumberGenerator {
    private var s: (UInt64, UInt64, UInt64, UInt64)

    /// Starts from an explicit state (for checking against the reference implementation).
    init(state: (UInt64, UInt64, UInt64, UInt64)) { s = state }

    public init(seed: UInt64) {
        var z = seed
        func splitmix() -> UInt64 {
            z &+= 0x9E37_79B9_7F4A_7C15
            var x = z
            x = (x ^ (x >> 30)) &* 0xBF58_476D_1CE4_E5B9
            x = (x ^ (x >> 27)) &* 0x94D0_49BB_1331_11EB
            return x ^ (x >> 31)
        }
        s = (splitmix(), splitmix(), splitmix(), splitmix())
    }

    public mutating func next() -> UInt64 {
        let m = s.1 &* 5
        let result = ((m << 7) | (m >> 57)) &* 9
        let t = s.1 << 17
        s.2 ^= s.0
        s.3 ^= s.1
        s.1 ^= s.2
        s.0 ^= s.3
        s.2 ^= t
        s.3 = (s.3 << 45) | (s.3 >> 19)
        return result
    }

    /// Uniform in [0, 1).
    public mutating func uniform() -> Double { Double(next() >> 11) * 0x1.0p-53 }

    /// Uniform in [a, b).
    public mutating func uniform(_ a: Double, _ b: Double) -> Double { a + (b - a) * uniform() }

    /// Uniform integer in [0, n).
    public mutating func below(_ n: Int) -> Int { Int(next() % UInt64(max(n, 1))) }

    /// Standard normal (Box–Muller; one value per call, deterministic).
    public mutating func normal() -> Double {
        var u = uniform()
        while u <= 0 { u = uniform() }
        let v = uniform()
        return (-2 * Foundation.log(u)).squareRoot() * cos(2 * .pi * v)
    }
}
