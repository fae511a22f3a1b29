/// Spatial ordering of points along a Hilbert curve.
///
/// Points that are close in the plane get close indices, so the graph, propagation and region
/// stages touch memory locally (neighbours share cache lines). The order is a pure function of
/// the coordinates, with ties broken by the original index, so it is deterministic.
public enum HilbertOrder {
    /// Bits per axis of the curve's grid (65,536 cells per side).
    public static let bits = 16

    /// Hilbert index of cell (x, y) on a 2^bits grid.
    @inline(__always)
    public static func index(x: UInt32, y: UInt32) -> UInt32 {
        var rx: UInt32 = 0, ry: UInt32 = 0, d: UInt32 = 0
        var x = x, y = y
        var s: UInt32 = 1 << (bits - 1)
        while s > 0 {
            rx = (x & s) > 0 ? 1 : 0
            ry = (y & s) > 0 ? 1 : 0
            d &+= s &* s &* ((3 &* rx) ^ ry)
            // Rotate the quadrant so the curve stays continuous.
            if ry == 0 {
                if rx == 1 {
                    x = s &- 1 &- x
                    y = s &- 1 &- y
                }
                swap(&x, &y)
            }
            s >>= 1
        }
        return d
    }

    /// The permutation that sorts points along the curve (stable: ties keep input order).
    public static func permutation(x: UnsafeBufferPointer<Double>, y: UnsafeBufferPointer<Double>) -> [UInt32] {
        let n = x.count
        guard n > 1 else { return n == 1 ? [0] : [] }
        var minX = Double.infinity, maxX = -Double.infinity, minY = Double.infinity, maxY = -Double.infinity
        for i in 0..<n {
            minX = min(minX, x[i]); maxX = max(maxX, x[i])
            minY = min(minY, y[i]); maxY = max(maxY, y[i])
        }
        let side = max(maxX - minX, maxY - minY, 1e-9)
        let scale = Double((1 << bits) - 1) / side
        var keys = [UInt32](repeating: 0, count: n)
        keys.withUnsafeMutableBufferPointer { k in
            Parallel.forRanges(n, minChunk: 1 << 16) { r in
                for i in r {
                    let cx = UInt32(((x[i] - minX) * scale).rounded(.down))
                    let cy = UInt32(((y[i] - minY) * scale).rounded(.down))
                    k[i] = index(x: cx, y: cy)
                }
            }
        }
        return radixSortedIndices(keys)
    }

    /// Indices 0..<n sorted by key, stable (LSD radix sort, two 16-bit passes).
    public static func radixSortedIndices(_ keys: [UInt32]) -> [UInt32] {
        let n = keys.count
        var order = [UInt32](unsafeUninitializedCapacity: n) { b, c in
            for i in 0..<n { b[i] = UInt32(i) }
            c = n
        }
        var tmp = [UInt32](repeating: 0, count: n)
        keys.withUnsafeBufferPointer { k in
            for shift in [0, 16] {
                var counts = [Int](repeating: 0, count: 65_537)
                order.withUnsafeBufferPointer { o in
                    for i in 0..<n { counts[Int((k[Int(o[i])] >> UInt32(shift)) & 0xFFFF) + 1] += 1 }
                }
                for i in 0..<65_536 { counts[i + 1] += counts[i] }
                order.withUnsafeBufferPointer { o in
                    tmp.withUnsafeMutableBufferPointer { t in
                        for i in 0..<n {
                            let d = Int((k[Int(o[i])] >> UInt32(shift)) & 0xFFFF)
                            t[counts[d]] = o[i]
                            counts[d] += 1
                        }
                    }
                }
                swap(&order, &tmp)
            }
        }
        return order
    }
}
