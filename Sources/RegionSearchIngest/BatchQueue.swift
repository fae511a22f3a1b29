import Foundation

/// A bounded first-in-first-out hand-over of batches between one producer thread and one
/// consumer thread. The producer blocks when `limit` batches wait; `finish` ends the stream,
/// optionally with the producer's error, which the consumer receives after the last batch.
final class BatchQueue<T>: @unchecked Sendable {
    private let condition = NSCondition()
    private var items: [T?] = []
    private var head = 0
    private var finished = false
    private var failure: Error?
    private var cancelled = false
    private let limit: Int

    init(limit: Int) { self.limit = limit }

    /// Hands over a batch; returns false when the consumer has cancelled.
    func push(_ batch: T) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while items.count - head >= limit && !cancelled { condition.wait() }
        if cancelled { return false }
        items.append(batch)
        condition.broadcast()
        return true
    }

    /// CPU seconds the producer reported with ``finish(error:producerCPUSeconds:)``.
    private(set) var producerCPUSeconds = 0.0

    func finish(error: Error?, producerCPUSeconds: Double = 0) {
        condition.lock()
        finished = true
        failure = error
        self.producerCPUSeconds = producerCPUSeconds
        condition.broadcast()
        condition.unlock()
    }

    /// The next batch, or nil at the end (throws the producer's error there).
    func pop() throws -> T? {
        condition.lock()
        defer { condition.unlock() }
        while head == items.count && !finished { condition.wait() }
        if head < items.count {
            let b = items[head]!
            items[head] = nil
            head += 1
            if head > 64 && head * 2 > items.count {
                items.removeFirst(head)
                head = 0
            }
            condition.broadcast()
            return b
        }
        if let failure { throw failure }
        return nil
    }

    /// Stops the producer (the consumer failed).
    func cancel() {
        condition.lock()
        cancelled = true
        condition.broadcast()
        condition.unlock()
    }
}
