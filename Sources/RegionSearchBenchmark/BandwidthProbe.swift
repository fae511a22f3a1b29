import Foundation
import RegionSearchCore

/// The machine's sustainable memory bandwidth, measured the way STREAM's triad does
/// (`a[i] = b[i] + s·c[i]` over arrays far larger than the caches, 24 bytes counted per element,
/// on one thread and on all threads): the yardstick for the propagation's bandwidth bound
/// (bytes the solver must move per iteration × iterations ÷ this rate).
///
/// Runs in a child process of the benchmark (`regionsearch-bench --bandwidth-probe`), so its
/// 384 MB of arrays never raise the benchmark's own footprint.
public enum BandwidthProbe {
    /// Elements per array: 3 × 128 MiB, well beyond any cache.
    static let count = 16 << 20

    /// Best of `repeats` passes, bytes per second, on one thread and on `Parallel.threadCount`.
    public static func measure(repeats: Int = 5) -> JSONValue {
        let n = count
        let a = UnsafeMutableBufferPointer<Double>.allocate(capacity: n)
        let b = UnsafeMutableBufferPointer<Double>.allocate(capacity: n)
        let c = UnsafeMutableBufferPointer<Double>.allocate(capacity: n)
        defer {
            a.deallocate()
            b.deallocate()
            c.deallocate()
        }
        a.initialize(repeating: 1)
        b.initialize(repeating: 2)
        c.initialize(repeating: 3)
        let threads = max(1, Parallel.threadCount)
        func triad(_ workers: Int) -> Double {
            var best = Double.infinity
            for _ in 0..<max(1, repeats) {
                let t0 = monotonicSeconds()
                Parallel.forEach(workers) { w in
                    let lo = n * w / workers
                    let hi = n * (w + 1) / workers
                    for i in lo..<hi { a[i] = b[i] + 3 * c[i] }
                }
                best = min(best, monotonicSeconds() - t0)
            }
            return Double(24 * n) / best
        }
        let single = triad(1)
        let all = triad(threads)
        return .object([
            ("method", .string("STREAM triad a = b + 3c, 3 × \(n) doubles, 24 bytes per element, best of \(repeats)")),
            ("threads", .number(Double(threads))),
            ("single_thread_bytes_per_s", .number(single)),
            ("all_threads_bytes_per_s", .number(all)),
        ])
    }

    /// Bytes the scores' Chebyshev solve moves per iteration over a graph of `nodes` rows and
    /// `entries` CSR entries, `rowWidth` columns per row (the solver's padded width, which the
    /// propagate stage reports as `row_width`), counted like STREAM (each array read or written
    /// once, no write-allocate): the row offsets (8 B per row), neighbour indices and weights
    /// (4 + 4 B per entry), then per row and column the step read (Float32), x and r read and
    /// written (Float64 each: the scores keep Float64 state) and the next step written.
    public static func solverBytesPerIteration(nodes: Int, entries: Int, rowWidth w: Int) -> Double {
        Double(8 * nodes + 8 * entries) + Double(nodes * w) * (4 + 16 + 16 + 4)
    }
}
