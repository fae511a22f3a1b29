import Foundation
import RegionSearchCore
import RegionSearchModel

/// Seeded, deterministic pseudo-random numbers (SplitMix64) for the graph and OSM fuzz tests;
/// their fixed sequences are part of the test cases (the library's `SeededRandom` is a different
/// generator).
struct GraphTestRandom {
    private var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    mutating func uniform() -> Double { Double(next() >> 11) * 0x1p-53 }

    /// Uniform in 0..<n (0 for n ≤ 1).
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(max(n, 1))) }

    /// Standard normal (Box–Muller).
    mutating func normal() -> Double {
        let u = max(uniform(), 1e-300)
        let v = uniform()
        return (-2 * log(u)).squareRoot() * cos(2 * Double.pi * v)
    }
}

/// Synthetic projected point sets for tests and benchmarks, in metres near a UTM-like origin
/// (so coordinate differences are not exact in floating point, as with real data).
struct PointSet {
    var x: [Double] = []
    var y: [Double] = []
    var count: Int { x.count }

    static let originX = 500_000.0, originY = 6_600_000.0

    /// n points uniform in a square of side `side` metres.
    static func uniform(_ n: Int, seed: UInt64, side: Double = 10_000) -> PointSet {
        var r = GraphTestRandom(seed: seed)
        var p = PointSet()
        for _ in 0..<n {
            p.x.append(originX + r.uniform() * side)
            p.y.append(originY + r.uniform() * side)
        }
        return p
    }

    /// City-like: a sparse uniform background plus Gaussian clusters of very different spread,
    /// so point density varies by well over 30×.
    static func clustered(_ n: Int, seed: UInt64, side: Double = 20_000) -> PointSet {
        var r = GraphTestRandom(seed: seed)
        var p = PointSet()
        let clusters = max(1, n / 5000 + 3)
        var centres: [(Double, Double, Double)] = []
        for c in 0..<clusters {
            let spread = [40.0, 150.0, 600.0, 2000.0][c % 4]
            centres.append((r.uniform() * side, r.uniform() * side, spread))
        }
        for i in 0..<n {
            if i % 10 == 0 {
                p.x.append(originX + r.uniform() * side)
                p.y.append(originY + r.uniform() * side)
            } else {
                let (cx, cy, s) = centres[r.below(clusters)]
                p.x.append(originX + cx + s * r.normal())
                p.y.append(originY + cy + s * r.normal())
            }
        }
        return p
    }

    /// A regular grid (nx × ny, spacing metres): full of cocircular quadruples.
    static func grid(_ nx: Int, _ ny: Int, spacing: Double = 10, originX: Double = originX, originY: Double = originY)
        -> PointSet
    {
        var p = PointSet()
        for j in 0..<ny {
            for i in 0..<nx {
                p.x.append(originX + Double(i) * spacing)
                p.y.append(originY + Double(j) * spacing)
            }
        }
        return p
    }

    /// n points on one line (direction (dx, dy)), at irregular distances, in random order.
    static func collinear(_ n: Int, seed: UInt64, dx: Double = 3, dy: Double = 4) -> PointSet {
        var r = GraphTestRandom(seed: seed)
        var p = PointSet()
        var used = Set<Int>()
        while p.count < n {
            let t = r.below(100 * n + 10)
            if !used.insert(t).inserted { continue }
            p.x.append(1000 + Double(t) * dx)
            p.y.append(2000 + Double(t) * dy)
        }
        return p
    }

    /// Appends `extra` copies of randomly chosen existing points, some several times.
    func withDuplicates(_ extra: Int, seed: UInt64) -> PointSet {
        var r = GraphTestRandom(seed: seed)
        var p = self
        for _ in 0..<extra {
            let i = r.below(p.count)
            p.x.append(p.x[i])
            p.y.append(p.y[i])
        }
        return p
    }

    /// Points shuffled deterministically.
    func shuffled(seed: UInt64) -> PointSet {
        var r = GraphTestRandom(seed: seed)
        var order = Array(0..<count)
        for i in stride(from: count - 1, to: 0, by: -1) { order.swapAt(i, r.below(i + 1)) }
        return PointSet(x: order.map { x[$0] }, y: order.map { y[$0] })
    }

    /// Points in Hilbert-curve order of their position on a 2^16 × 2^16 grid over the bounding
    /// box (ties by index), as the project stage stores them.
    func hilbertSorted() -> PointSet {
        guard count > 1 else { return self }
        let minX = x.min()!
        let maxX = x.max()!
        let minY = y.min()!
        let maxY = y.max()!
        let span = max(maxX - minX, maxY - minY, 1e-9)
        let side = 1 << 16
        var keys = [UInt64](repeating: 0, count: count)
        for i in 0..<count {
            let gx = min(side - 1, Int((x[i] - minX) / span * Double(side)))
            let gy = min(side - 1, Int((y[i] - minY) / span * Double(side)))
            keys[i] = Self.hilbertIndex(gx, gy, side: side) << 32 | UInt64(i)
        }
        keys.sort()
        return PointSet(x: keys.map { x[Int($0 & 0xFFFF_FFFF)] }, y: keys.map { y[Int($0 & 0xFFFF_FFFF)] })
    }

    static func hilbertIndex(_ px: Int, _ py: Int, side: Int) -> UInt64 {
        var x = px
        var y = py
        var d: UInt64 = 0
        var s = side / 2
        while s > 0 {
            let rx = (x & s) > 0 ? 1 : 0
            let ry = (y & s) > 0 ? 1 : 0
            d += UInt64(s) * UInt64(s) * UInt64((3 * rx) ^ ry)
            if ry == 0 {
                if rx == 1 {
                    x = s - 1 - x
                    y = s - 1 - y
                }
                swap(&x, &y)
            }
            s /= 2
        }
        return d
    }

    /// Writes a `projected` artifact of these points (rows = indices, lon/lat left 0).
    func writeProjected(to path: String) throws {
        var p = ProjectedPoints()
        p.x = Column(x)
        p.y = Column(y)
        p.lon = Column([Double](repeating: 0, count: count))
        p.lat = Column([Double](repeating: 0, count: count))
        p.row = Column((0..<UInt32(count)).map { $0 })
        let provenance = JSONValue.object([("project", .object([("version", .number(1))]))])
        try p.writer(
            metadata: .object([("crs", .string("EPSG:32633")), ("synthetic", .bool(true)), ("provenance", provenance)])
        )
        .write(to: path)
    }
}
