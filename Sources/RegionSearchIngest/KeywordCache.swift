import RegionSearchCore
import RegionSearchModel

/// Normalises raw keyword values given as bytes into ``KeywordText`` form, fast:
/// - ASCII values skip the String round trip: only ``KeywordText``'s byte pass (lower-case,
///   control characters to spaces, blanks collapsed and trimmed) runs, straight into `out`;
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
        if KeywordText.isASCII(raw) {
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

    /// The ASCII path: ``KeywordText``'s byte pass, which is all that ``KeywordText/normalize(_:)``
    /// does to an ASCII value.
    @inline(__always)
    static func appendASCII(_ raw: UnsafeBufferPointer<UInt8>, to out: inout GrowableBytes) {
        if KeywordText.isCollapsed(raw) {
            out.append(raw)
        } else {
            out.append(upTo: raw.count) { KeywordText.collapse(raw, into: $0) }
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
