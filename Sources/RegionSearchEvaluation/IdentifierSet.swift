import Foundation
import RegionSearchCore

/// A set of identifiers looked up by their UTF-8 bytes, so that testing a million POI ids
/// from a ``StringColumn`` makes no String per id (open addressing, XXH64, linear probing).
struct IdentifierSet {
    private var members = StringColumn()
    private var slots: [Int32]
    private let mask: Int

    init(_ ids: [String]) {
        var capacity = 16
        while capacity < ids.count * 2 { capacity <<= 1 }
        slots = [Int32](repeating: -1, count: capacity)
        mask = capacity - 1
        for id in ids {
            var s = id
            s.withUTF8 { bytes in
                if find(bytes) == nil {
                    let k = Int32(members.count)
                    members.append(utf8: bytes)
                    var i = Int(truncatingIfNeeded: XXHash64.hash(UnsafeRawBufferPointer(bytes))) & mask
                    while slots[i] >= 0 { i = (i + 1) & mask }
                    slots[i] = k
                }
            }
        }
    }

    /// Distinct identifiers held.
    var count: Int { members.count }

    /// The index of `bytes` among the distinct identifiers, or nil.
    func find(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        var i = Int(truncatingIfNeeded: XXHash64.hash(UnsafeRawBufferPointer(bytes))) & mask
        while true {
            let k = slots[i]
            if k < 0 { return nil }
            let equal = members.withUTF8(Int(k)) { m in
                m.count == bytes.count && (m.count == 0 || memcmp(m.baseAddress!, bytes.baseAddress!, m.count) == 0)
            }
            if equal { return Int(k) }
            i = (i + 1) & mask
        }
    }
}
