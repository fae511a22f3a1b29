/// Groups of points with exactly equal coordinates.
///
/// The graph is built over distinct locations only: each group's *representative* is its lowest
/// index, and every other member (a *duplicate*) is later linked to it by a single zero-length
/// edge. Coordinates compare as numbers, so −0.0 equals +0.0.
struct CoincidentPoints: Sendable {
    /// For each point, the lowest index with the same coordinates (itself for representatives).
    public let representative: [UInt32]
    /// The representatives in ascending order: the distinct locations.
    public let unique: [UInt32]

    var duplicateCount: Int { representative.count - unique.count }

    /// Groups already found (``SubsetGeometry`` keeps them).
    init(representative: [UInt32], unique: [UInt32]) {
        self.representative = representative
        self.unique = unique
    }

    public init(x: UnsafeBufferPointer<Double>, y: UnsafeBufferPointer<Double>) {
        let n = x.count
        var capacity = 16
        while capacity < 2 * n { capacity <<= 1 }
        let mask = capacity - 1
        var table = [Int32](repeating: -1, count: capacity)
        var rep = [UInt32](repeating: 0, count: n)
        var unique: [UInt32] = []
        unique.reserveCapacity(n)
        table.withUnsafeMutableBufferPointer { slots in
            rep.withUnsafeMutableBufferPointer { rep in
                for i in 0..<n {
                    let xi = x[i]
                    let yi = y[i]
                    // Points arrive in spatial order, so a duplicate often follows its twin.
                    if i > 0 && xi == x[i - 1] && yi == y[i - 1] {
                        rep[i] = rep[i - 1]
                        continue
                    }
                    let xb = (xi == 0 ? 0 : xi).bitPattern
                    let yb = (yi == 0 ? 0 : yi).bitPattern
                    var h = xb &* 0x9E37_79B9_7F4A_7C15 ^ (yb &* 0xC2B2_AE3D_27D4_EB4F)
                    h ^= h >> 31
                    h = h &* 0xBF58_476D_1CE4_E5B9
                    h ^= h >> 29
                    var slot = Int(truncatingIfNeeded: h) & mask
                    while true {
                        let s = Int(slots[slot])
                        if s < 0 {
                            slots[slot] = Int32(truncatingIfNeeded: i)
                            rep[i] = UInt32(truncatingIfNeeded: i)
                            unique.append(UInt32(truncatingIfNeeded: i))
                            break
                        }
                        if x[s] == xi && y[s] == yi {
                            rep[i] = UInt32(truncatingIfNeeded: s)
                            break
                        }
                        slot = (slot + 1) & mask
                    }
                }
            }
        }
        representative = rep
        self.unique = unique
    }
}
