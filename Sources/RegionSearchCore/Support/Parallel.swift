import Dispatch
import Foundation
import Synchronization

/// Work splitting over a fixed number of threads.
///
/// Every parallel loop in RegionSearch partitions its work into chunks whose results do not
/// depend on which thread computes them, so output bytes are identical for any thread count.
public enum Parallel {
    /// Worker threads; set from `--threads` (default: all cores).
    private static let configured = Atomic<Int>(max(1, ProcessInfo.processInfo.activeProcessorCount))

    /// Worker threads; set from `--threads` (default: all cores).
    public static var threadCount: Int {
        get { configured.load(ordering: .relaxed) }
        set { configured.store(max(1, newValue), ordering: .relaxed) }
    }

    /// Calls `body(chunk)` for every chunk in `0..<chunks`, spread over ``threadCount`` threads.
    public static func forEach(_ chunks: Int, _ body: (Int) -> Void) {
        let workers = min(threadCount, chunks)
        if workers <= 1 {
            for c in 0..<chunks { body(c) }
            return
        }
        withoutActuallyEscaping(body) { body in
            // The chunks are disjoint by contract (each writes only its own part of the output),
            // which is what makes sharing `body` between the workers safe; Swift cannot see that.
            let shared = UncheckedSendable(body)
            DispatchQueue.concurrentPerform(iterations: workers) { w in
                var c = w
                while c < chunks {
                    shared.value(c)
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

    /// Applies a `--threads` value (``CommandSpec/Option/threads(_:)``, checked when it was
    /// parsed) to ``threadCount``; nil keeps all cores.
    public static func configure(threads: Int?) {
        if let threads { threadCount = threads }
    }
}

/// A value handed to concurrent workers whose use of it is race-free by a contract the compiler
/// cannot check (disjoint chunks of one output, see ``Parallel``). Use nowhere else.
public struct UncheckedSendable<Value>: @unchecked Sendable {
    public let value: Value
    public init(_ value: Value) { self.value = value }
}
