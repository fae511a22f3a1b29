/// Stable least-significant-digit radix sort of indices by unsigned integer keys (11-bit digits).
///
/// Used for the sweep order of the Delaunay triangulation (64-bit squared distances, whose IEEE
/// bit patterns order like the values when non-negative) and for the Hilbert order of projected
/// points (32-bit curve indices). Stable, so equal keys keep index order and the result is
/// deterministic. All digit histograms come from one pass; digits on which all keys agree are
/// skipped, so keys that span a narrow range cost fewer passes.
public enum RadixSort {
    private static let digitBits = 11
    private static let buckets = 1 << digitBits

    /// The permutation `order` with `keys[order[0]] <= keys[order[1]] <= ...`, ties by index.
    public static func order<Key: FixedWidthInteger & UnsignedInteger>(byKeys keys: [Key]) -> [UInt32] {
        let n = keys.count
        if n < 2048 {
            return (0..<UInt32(n)).sorted { keys[Int($0)] != keys[Int($1)] ? keys[Int($0)] < keys[Int($1)] : $0 < $1 }
        }
        let passes = (Key.bitWidth + digitBits - 1) / digitBits
        var histogram = [Int](repeating: 0, count: passes * buckets)
        histogram.withUnsafeMutableBufferPointer { h in
            keys.withUnsafeBufferPointer { k in
                for key in k {
                    var v = key
                    for p in 0..<passes {
                        h[p * buckets + Int(v & Key(buckets - 1))] += 1
                        v >>= Key(digitBits)
                    }
                }
            }
        }
        var keyA = keys
        var keyB = [Key](repeating: 0, count: n)
        var idA = [UInt32](unsafeUninitializedCapacity: n) { buf, count in
            for i in 0..<n { buf[i] = UInt32(i) }
            count = n
        }
        var idB = [UInt32](repeating: 0, count: n)
        for p in 0..<passes {
            let base = p * buckets
            // A digit shared by every key leaves the order unchanged.
            if histogram[base..<(base + buckets)].contains(n) { continue }
            var sum = 0
            for b in 0..<buckets {
                let c = histogram[base + b]
                histogram[base + b] = sum
                sum += c
            }
            let shift = Key(p * digitBits)
            histogram.withUnsafeMutableBufferPointer { h in
                keyA.withUnsafeBufferPointer { ka in
                    idA.withUnsafeBufferPointer { ia in
                        keyB.withUnsafeMutableBufferPointer { kb in
                            idB.withUnsafeMutableBufferPointer { ib in
                                for i in 0..<n {
                                    let key = ka[i]
                                    let slot = base + Int((key >> shift) & Key(buckets - 1))
                                    let to = h[slot]
                                    h[slot] = to + 1
                                    kb[to] = key
                                    ib[to] = ia[i]
                                }
                            }
                        }
                    }
                }
            }
            swap(&keyA, &keyB)
            swap(&idA, &idB)
        }
        return idA
    }
}
