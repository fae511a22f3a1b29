/// Stable least-significant-digit radix sort of indices by unsigned integer keys (11-bit digits).
///
/// Used for the sweep order of the Delaunay triangulation (64-bit squared distances, whose IEEE
/// bit patterns order like the values when non-negative), for the Hilbert order of projected
/// points (32-bit curve indices) and for the longitude order of the hulls' point census. Stable,
/// so equal keys keep index order and the result is deterministic. All digit histograms come from
/// one pass; digits on which all keys agree are skipped, so keys that span a narrow range cost
/// fewer passes.
///
/// `@inlinable` so that callers in other modules get it specialised for their key type: the
/// generic version, called through witness tables for every shift and mask, took 3–4× longer
/// (callgrind: most of the project stage's instructions were `UInt32` witness calls).
public enum RadixSort {
    @usableFromInline static let digitBits = 11
    @usableFromInline static let buckets = 1 << digitBits

    /// The permutation `order` with `keys[order[0]] <= keys[order[1]] <= ...`, ties by index.
    @inlinable
    public static func order<Key: FixedWidthInteger & UnsignedInteger>(byKeys keys: [Key]) -> [UInt32] {
        keys.withUnsafeBufferPointer { order(byKeys: $0) }
    }

    /// The same over a buffer.
    @inlinable
    public static func order<Key: FixedWidthInteger & UnsignedInteger>(byKeys keys: UnsafeBufferPointer<Key>)
        -> [UInt32]
    {
        let n = keys.count
        if n < 2048 {
            return (0..<UInt32(n)).sorted { keys[Int($0)] != keys[Int($1)] ? keys[Int($0)] < keys[Int($1)] : $0 < $1 }
        }
        let digitBits = Self.digitBits
        let buckets = Self.buckets
        let mask = Key(truncatingIfNeeded: buckets - 1)
        let passes = (Key.bitWidth + digitBits - 1) / digitBits
        var histogram = [Int](repeating: 0, count: passes * buckets)
        histogram.withUnsafeMutableBufferPointer { h in
            for key in keys {
                var v = key
                for p in 0..<passes {
                    h[p * buckets + Int(truncatingIfNeeded: v & mask)] += 1
                    v >>= Key(truncatingIfNeeded: digitBits)
                }
            }
        }
        let keyA = UnsafeMutableBufferPointer<Key>.allocate(capacity: n)
        let keyB = UnsafeMutableBufferPointer<Key>.allocate(capacity: n)
        let idA = UnsafeMutableBufferPointer<UInt32>.allocate(capacity: n)
        let idB = UnsafeMutableBufferPointer<UInt32>.allocate(capacity: n)
        defer {
            keyA.deallocate()
            keyB.deallocate()
            idA.deallocate()
            idB.deallocate()
        }
        var srcKey = keyA
        var dstKey = keyB
        var srcId = idA
        var dstId = idB
        // The first pass that moves anything reads the caller's keys and the identity directly.
        var first = true
        histogram.withUnsafeMutableBufferPointer { h in
            for p in 0..<passes {
                let base = p * buckets
                // A digit shared by every key leaves the order unchanged.
                var shared = false
                for b in 0..<buckets where h[base + b] == n {
                    shared = true
                    break
                }
                if shared { continue }
                var sum = 0
                for b in 0..<buckets {
                    let c = h[base + b]
                    h[base + b] = sum
                    sum += c
                }
                let shift = Key(truncatingIfNeeded: p * digitBits)
                if first {
                    for i in 0..<n {
                        let key = keys[i]
                        let slot = base + Int(truncatingIfNeeded: (key >> shift) & mask)
                        let to = h[slot]
                        h[slot] = to + 1
                        dstKey[to] = key
                        dstId[to] = UInt32(truncatingIfNeeded: i)
                    }
                    first = false
                } else {
                    for i in 0..<n {
                        let key = srcKey[i]
                        let slot = base + Int(truncatingIfNeeded: (key >> shift) & mask)
                        let to = h[slot]
                        h[slot] = to + 1
                        dstKey[to] = key
                        dstId[to] = srcId[i]
                    }
                }
                swap(&srcKey, &dstKey)
                swap(&srcId, &dstId)
            }
        }
        if first {
            return [UInt32](unsafeUninitializedCapacity: n) { buf, c in
                for i in 0..<n { buf[i] = UInt32(truncatingIfNeeded: i) }
                c = n
            }
        }
        return Array(srcId)
    }
}
