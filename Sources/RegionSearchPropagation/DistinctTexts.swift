import Foundation
import RegionSearchCore

/// The distinct keyword texts of the pois artifact's rows, and which one each row holds.
///
/// Why: a city's keyword texts repeat — a million POIs carry a few hundred to a few thousand
/// distinct categories and tag sets — and every query keyword was matched against every row's
/// text, sixteen passes over 55 MB of text for sixteen keywords. Matched once per distinct text
/// instead, a keyword costs a gather over the rows. Texts are told apart by their bytes (a hash
/// only finds the candidates), so the matches are exactly those of matching each row.
struct DistinctTexts {
    /// Per row, the index of its text among the distinct texts.
    let textOf: [UInt32]
    /// Per distinct text, the first row that holds it (in row order: deterministic).
    let firstRow: [Int]

    /// The distinct texts of rows `0 ..< offsets.count - 1`: row r's text is
    /// `bytes[offsets[r] ..< offsets[r + 1]]`. `hash` only finds candidates (tests give one whose
    /// values collide: texts with one hash and other bytes stay apart).
    init(
        offsets: UnsafeBufferPointer<UInt64>, bytes: UnsafeBufferPointer<UInt8>,
        hash: @Sendable (UnsafeRawBufferPointer) -> UInt64 = { XXHash64.hash($0) }
    ) {
        let rows = max(offsets.count - 1, 0)
        // The hashes in parallel; the table in row order, so the numbering does not depend on
        // the thread count.
        var hashes = [UInt64](repeating: 0, count: rows)
        hashes.withUnsafeMutableBufferPointer { hb in
            Parallel.forRanges(rows, minChunk: 16_384) { range in
                for r in range {
                    hb[r] = hash(Self.text(r, offsets, bytes))
                }
            }
        }
        // The table grows with the distinct texts, not the rows: a few thousand texts keep it in
        // cache, where a table sized for a million rows missed it on every row.
        var capacity = 1024
        var slots = [UInt32](repeating: 0, count: capacity)  // distinct text + 1; 0: empty
        var firstRow: [Int] = []
        var firstHash: [UInt64] = []
        var textOf = [UInt32](repeating: 0, count: rows)
        for r in 0..<rows {
            let h = hashes[r]
            var s = Int(truncatingIfNeeded: h) & (capacity - 1)
            while true {
                let t = Int(slots[s])
                if t == 0 {
                    firstRow.append(r)
                    firstHash.append(h)
                    slots[s] = UInt32(firstRow.count)
                    textOf[r] = UInt32(firstRow.count - 1)
                    if 2 * firstRow.count > capacity {
                        capacity *= 2
                        slots = Self.slots(capacity: capacity, hashes: firstHash)
                    }
                    break
                }
                if firstHash[t - 1] == h
                    && Self.equal(Self.text(firstRow[t - 1], offsets, bytes), Self.text(r, offsets, bytes))
                {
                    textOf[r] = UInt32(t - 1)
                    break
                }
                s = (s + 1) & (capacity - 1)
            }
        }
        self.textOf = textOf
        self.firstRow = firstRow
    }

    /// An open-addressing table of `capacity` (a power of two) slots holding the texts whose
    /// hashes are `hashes`, each text's index + 1 at the first free slot from its hash.
    static func slots(capacity: Int, hashes: [UInt64]) -> [UInt32] {
        var slots = [UInt32](repeating: 0, count: capacity)
        for (t, h) in hashes.enumerated() {
            var s = Int(truncatingIfNeeded: h) & (capacity - 1)
            while slots[s] != 0 { s = (s + 1) & (capacity - 1) }
            slots[s] = UInt32(t + 1)
        }
        return slots
    }

    /// Row r's text.
    static func text(
        _ r: Int, _ offsets: UnsafeBufferPointer<UInt64>, _ bytes: UnsafeBufferPointer<UInt8>
    ) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[Int(offsets[r])..<Int(offsets[r + 1])])
    }

    static func equal(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        guard a.count == b.count else { return false }
        guard let pa = a.baseAddress, let pb = b.baseAddress else { return true }
        return memcmp(pa, pb, a.count) == 0
    }
}
