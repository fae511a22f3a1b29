import RegionSearchCore
import RegionSearchModel

/// Normalises raw keyword values given as bytes into ``KeywordText`` form, fast:
/// - ASCII values take an inline path (lower-case, control characters to spaces, blanks
///   collapsed and trimmed) that gives exactly what ``KeywordText/normalize(_:)`` gives;
/// - other values are looked up in a table keyed by their bytes (categories repeat a lot) and
///   normalised by ``KeywordText/normalize(_:)`` on a miss. The table stops growing at
///   `limit` distinct values; later new values are normalised each time.
struct KeywordCache {
    private var keys = StringColumn()
    private var values = StringColumn()
    private var slots: [Int32]
    private var hashes: [UInt64]
    private var mask: Int
    private let limit: Int

    init(limit: Int = 500_000) {
        self.limit = limit
        slots = [Int32](repeating: -1, count: 1 << 12)
        hashes = [UInt64](repeating: 0, count: 1 << 12)
        mask = (1 << 12) - 1
    }

    /// Appends the normalised form of `raw` (valid UTF-8) to `out`; `cache: false` skips the
    /// table (for values that rarely repeat, such as names).
    @inline(__always)
    mutating func appendNormalized(_ raw: UnsafeBufferPointer<UInt8>, to out: inout GrowableBytes, cache: Bool = true) {
        if Self.isASCII(raw) {
            Self.appendASCII(raw, to: &out)
            return
        }
        if !cache {
            var n = KeywordText.normalize(String(decoding: raw, as: UTF8.self))
            n.withUTF8 { out.append($0) }
            return
        }
        let h = ShortHash.hash(raw)
        var i = Int(truncatingIfNeeded: h) & mask
        while true {
            let s = slots[i]
            if s < 0 { break }
            if hashes[i] == h, keys.withUTF8(Int(s), { $0.elementsEqual(raw) }) {
                values.withUTF8(Int(s)) { out.append($0) }
                return
            }
            i = (i + 1) & mask
        }
        var normalized = KeywordText.normalize(String(decoding: raw, as: UTF8.self))
        normalized.withUTF8 { out.append($0) }
        if keys.count < limit {
            slots[i] = Int32(keys.count)
            hashes[i] = h
            keys.append(utf8: raw)
            values.append(normalized)
            if keys.count * 2 > slots.count { grow() }
        }
    }

    @inline(__always)
    static func isASCII(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let p = b.baseAddress else { return true }
        let n = b.count
        var i = 0
        while i + 8 <= n {
            if UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return false }
            i += 8
        }
        while i < n {
            if p[i] >= 0x80 { return false }
            i += 1
        }
        return true
    }

    /// The ASCII branch of ``KeywordText/normalize(_:)``.
    @inline(__always)
    static func appendASCII(_ raw: UnsafeBufferPointer<UInt8>, to out: inout GrowableBytes) {
        // Common case: already lower-case with single inner spaces: copied as is.
        var plain = raw.count > 0 && raw[0] != 0x20 && raw[raw.count - 1] != 0x20
        var previousSpace = false
        if plain {
            for b in raw {
                if b < 0x20 || b == 0x7F || (b >= 0x41 && b <= 0x5A) || (b == 0x20 && previousSpace) {
                    plain = false
                    break
                }
                previousSpace = b == 0x20
            }
        }
        if plain {
            out.append(raw)
            return
        }
        let start = out.count
        var pendingSpace = false
        for var b in raw {
            if b <= 0x20 || b == 0x7F {
                pendingSpace = out.count > start
                continue
            }
            if b >= 0x41 && b <= 0x5A { b += 0x20 }
            if pendingSpace {
                out.append(0x20)
                pendingSpace = false
            }
            out.append(b)
        }
    }

    private mutating func grow() {
        let oldSlots = slots
        let oldHashes = hashes
        let n = slots.count * 2
        slots = [Int32](repeating: -1, count: n)
        hashes = [UInt64](repeating: 0, count: n)
        mask = n - 1
        for k in 0..<oldSlots.count where oldSlots[k] >= 0 {
            var i = Int(truncatingIfNeeded: oldHashes[k]) & mask
            while slots[i] >= 0 { i = (i + 1) & mask }
            slots[i] = oldSlots[k]
            hashes[i] = oldHashes[k]
        }
    }
}
