/// A fast 64-bit hash for short byte strings (ids, category values) in in-memory hash tables.
/// Not stored anywhere and not used for checksums; only its spread matters.
enum ShortHash {
    @inline(__always)
    static func hash(_ b: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var h: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(b.count)
        guard let p = b.baseAddress else { return mix(h) }
        let n = b.count
        var i = 0
        while i + 8 <= n {
            let w = UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self)
            h = (h ^ w) &* 0xBF58_476D_1CE4_E5B9
            h ^= h >> 29
            i += 8
        }
        if i < n {
            var w: UInt64 = 0
            var shift: UInt64 = 0
            while i < n {
                w |= UInt64(p[i]) << shift
                shift += 8
                i += 1
            }
            h = (h ^ w) &* 0x94D0_49BB_1331_11EB
        }
        return mix(h)
    }

    /// SplitMix64's finaliser.
    @inline(__always)
    static func mix(_ x: UInt64) -> UInt64 {
        var z = x
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
