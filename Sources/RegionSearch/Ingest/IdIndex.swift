import Foundation

/// Finds earlier rows with the same id without a String per row: an open-addressing table of
/// row numbers and id hashes, compared against the `ids` column.
struct IdIndex {
    private var slots: [UInt32]
    private var hashes: [UInt64]
    private var mask: Int
    private(set) var count = 0
    private static let empty = UInt32.max

    init(capacity: Int = 1 << 14) {
        var n = 16
        while n < capacity * 2 { n <<= 1 }
        slots = [UInt32](repeating: Self.empty, count: n)
        hashes = [UInt64](repeating: 0, count: n)
        mask = n - 1
    }

    /// The row already holding `id`, or nil after recording `row` for it (the caller then
    /// stores `id` as row `row` before the next call). Row r's id is
    /// `bytes[offsets[r] ..< offsets[r + 1]]`; every recorded row is stored.
    @inline(__always)
    mutating func firstRow(for id: UnsafeBufferPointer<UInt8>, row: Int, bytes: UnsafePointer<UInt8>, offsets: UnsafeBufferPointer<UInt64>) -> Int? {
        if count * 2 >= slots.count { grow() }
        let h = ShortHash.hash(id)
        var i = Int(truncatingIfNeeded: h) & mask
        while true {
            let s = slots[i]
            if s == Self.empty {
                slots[i] = UInt32(row)
                hashes[i] = h
                count += 1
                return nil
            }
            if hashes[i] == h {
                let lo = Int(offsets[Int(s)])
                let hi = Int(offsets[Int(s) + 1])
                if hi - lo == id.count && (id.count == 0 || memcmp(bytes + lo, id.baseAddress!, id.count) == 0) { return Int(s) }
            }
            i = (i + 1) & mask
        }
    }

    /// Makes room for `n` ids without rehashing on the way.
    mutating func reserve(_ n: Int) {
        while slots.count < n * 2 + 2 { grow() }
    }

    private mutating func grow() {
        let oldSlots = slots
        let oldHashes = hashes
        let n = oldSlots.count * 2
        slots = [UInt32](repeating: Self.empty, count: n)
        hashes = [UInt64](repeating: 0, count: n)
        mask = n - 1
        for k in 0..<oldSlots.count where oldSlots[k] != Self.empty {
            var i = Int(truncatingIfNeeded: oldHashes[k]) & mask
            while slots[i] != Self.empty { i = (i + 1) & mask }
            slots[i] = oldSlots[k]
            hashes[i] = oldHashes[k]
        }
    }
}
