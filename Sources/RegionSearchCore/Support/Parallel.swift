import Dispatch
import Foundation

/// Work splitting over a fixed number of threads.
///
/// Every parallel loop in RegionSearch partitions its work into chunks whose results do not
/// depend on which thread computes them, so output bytes are identical for any thread count.
public enum Parallel {
    /// Worker threads; set from `--threads` (default: all cores).
    nonisolated(unsafe) public static var threadCount = max(1, ProcessInfo.processInfo.activeProcessorCount)

    /// Calls `body(chunk)` for every chunk in `0..<chunks`, spread over ``threadCount`` threads.
    public static func forEach(_ chunks: Int, _ body: (Int) -> Void) {
        let workers = min(threadCount, chunks)
        if workers <= 1 {
            for c in 0..<chunks { body(c) }
            return
        }
        withoutActuallyEscaping(body) { body in
            DispatchQueue.concurrentPerform(iterations: workers) { w in
                var c = w
                while c < chunks {
                    body(c)
                    c += workers
                }
            }
        }
    }

    /// Splits `0..<n` into about `chunksPerThread × threadCount` contiguous ranges (at least
    /// `minChunk` long) and calls `body` for each.
    public static func forRanges(_ n: Int, minChunk: Int = 4096, _ body: (Range<Int>) -> Void) {
        let target = max(1, min(n / max(minChunk, 1), threadCount * 8))
        let size = (n + target - 1) / target
        forEach(target) { c in
            let lo = c * size
            let hi = min(n, lo + size)
            if lo < hi { body(lo..<hi) }
        }
    }

    /// Applies the `--threads` option (validated) to ``threadCount``.
    public static func configure(from text: String?) throws(UsageError) {
        guard let text else { return }
        guard let n = Int(text), n >= 1, n <= 1024 else {
            throw UsageError("--threads: expected an integer in [1, 1024], got \"\(text)\"")
        }
        threadCount = n
    }
}
