import Foundation

/// Finds earlier rows with the same id without a String per row: an open-addressing table
/// whose slots pack a 32-bit hash and the row number (one memory access per probe), compared
/// against the stored ids when the hashes match. The probe start is taken from the stored
/// 32 bits, so the table can grow without the ids.
struct IdIndex {
    /// 0 = empty; else (hash32 << 32) | (row + 1).
    private var slots: [UInt64]
    private var mask: Int
    private(set) var count = 0

    init(capacity: Int = 1 << 14) {
        var n = 16
        while n < capacity * 2 { n <<= 1 }
        slots = Self.zeroedSlots(n)
        mask = n - 1
    }

    /// A zeroed slot array; large ones ask for transparent huge pages before the first touch,
    /// since probes jump across the whole table (fewer TLB misses and page faults).
    private static func zeroedSlots(_ n: Int) -> [UInt64] {
        [UInt64](unsafeUninitializedCapacity: n) { buffer, count in
            HugePages.advise(UnsafeMutableRawPointer(buffer.baseAddress!), bytes: n * 8)
            buffer.baseAddress!.initialize(repeating: 0, count: n)
            count = n
        }
    }

    /// The 32 bits of a ``ShortHash`` the table works with.
    @inline(__always)
    static func hash32(_ hash: UInt64) -> UInt64 { (hash ^ (hash >> 32)) & 0xFFFF_FFFF }

    /// Loads the slots that ids with these hashes start probing at, in a tight loop of
    /// independent loads (many cache misses in flight at once), so that the inserts that
    /// follow find them in the cache. Returns a value only to keep the loads.
    func touch(_ hashes: UnsafeBufferPointer<UInt64>) -> UInt64 {
        slots.withUnsafeBufferPointer { s in
            var sink: UInt64 = 0
            let m = mask
            for h in hashes { sink &+= s[Int(Self.hash32(h)) & m] }
            return sink
        }
    }

    /// The row already holding `id` (with `hash = ShortHash.hash(id)`), or nil after recording
    /// `row` for it (the caller then stores `id` as row `row` before the next call). Row r's id
    /// is `bytes[offsets[r] ..< offsets[r + 1]]`.
    @inline(__always)
    mutating func firstRow(
        for id: UnsafeBufferPointer<UInt8>, hash: UInt64, row: Int, bytes: UnsafePointer<UInt8>,
        offsets: UnsafeBufferPointer<UInt64>
    ) -> Int? {
        if count * 3 >= slots.count * 2 { grow() }
        let h = Self.hash32(hash)
        var i = Int(h) & mask
        while true {
            let s = slots[i]
            if s == 0 {
                slots[i] = h << 32 | UInt64(row + 1)
                count += 1
                return nil
            }
            if s >> 32 == h {
                let r = Int(s & 0xFFFF_FFFF) - 1
                let lo = Int(offsets[r])
                let hi = Int(offsets[r + 1])
                if hi - lo == id.count && (id.count == 0 || memcmp(bytes + lo, id.baseAddress!, id.count) == 0) {
                    return r
                }
            }
            i = (i + 1) & mask
        }
    }

    /// Makes room for `n` ids without rehashing on the way (load factor at most 2/3).
    mutating func reserve(_ n: Int) {
        while slots.count * 2 < n * 3 + 3 { grow() }
    }

    private mutating func grow() {
        let old = slots
        let n = old.count * 2
        slots = Self.zeroedSlots(n)
        mask = n - 1
        for s in old where s != 0 {
            var i = Int(s >> 32) & mask
            while slots[i] != 0 { i = (i + 1) & mask }
            slots[i] = s
        }
    }
}
