/// An append-only byte buffer for hot loops: appends are a capacity check and a `memcpy`
/// (Array's generic `append(contentsOf:)` costs several times more per call for short
/// strings). The memory is owned by a small class, so copies of the struct share it and it is
/// freed with the last copy.
struct GrowableBytes {
    private final class Storage {
        var pointer: UnsafeMutablePointer<UInt8>
        init(capacity: Int) { pointer = .allocate(capacity: capacity) }
        deinit { pointer.deallocate() }
    }

    private let storage: Storage
    private(set) var base: UnsafeMutablePointer<UInt8>
    private(set) var count = 0
    private var capacity: Int

    init(capacity: Int = 1 << 16) {
        self.capacity = max(16, capacity)
        storage = Storage(capacity: self.capacity)
        base = storage.pointer
    }

    @inline(__always)
    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        let n = bytes.count
        if n == 0 { return }
        if count + n > capacity { grow(count + n) }
        let src = UnsafeRawPointer(bytes.baseAddress!)
        let dst = UnsafeMutableRawPointer(base + count)
        // Short strings: two overlapping word copies instead of a memcpy call.
        if n >= 8 && n <= 16 {
            dst.storeBytes(of: src.loadUnaligned(as: UInt64.self), as: UInt64.self)
            (dst + n - 8).storeBytes(of: (src + n - 8).loadUnaligned(as: UInt64.self), as: UInt64.self)
        } else if n >= 4 && n < 8 {
            dst.storeBytes(of: src.loadUnaligned(as: UInt32.self), as: UInt32.self)
            (dst + n - 4).storeBytes(of: (src + n - 4).loadUnaligned(as: UInt32.self), as: UInt32.self)
        } else {
            dst.copyMemory(from: src, byteCount: n)
        }
        count += n
    }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        if count == capacity { grow(count + 1) }
        base[count] = byte
        count += 1
    }

    /// Appends what `body` writes at the end: at most `maxCount` bytes; it returns how many.
    @inline(__always)
    mutating func append(upTo maxCount: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Int) {
        if count + maxCount > capacity { grow(count + maxCount) }
        count += body(base + count)
    }

    /// Makes room for `total` bytes in all.
    mutating func reserve(_ total: Int) {
        if total > capacity { grow(total) }
    }

    /// Drops the bytes from `n` on.
    @inline(__always)
    mutating func truncate(to n: Int) { count = min(count, n) }

    @inline(__always)
    subscript(range: Range<Int>) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: base + range.lowerBound, count: range.count)
    }

    var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base, count: count) }

    private mutating func grow(_ needed: Int) {
        var c = capacity * 2
        while c < needed { c *= 2 }
        let p = UnsafeMutablePointer<UInt8>.allocate(capacity: c)
        HugePages.advise(UnsafeMutableRawPointer(p), bytes: c)
        p.update(from: base, count: count)
        storage.pointer.deallocate()
        storage.pointer = p
        base = p
        capacity = c
    }

    /// The bytes as an array (one copy).
    func array() -> [UInt8] { Array(bytes) }
}
