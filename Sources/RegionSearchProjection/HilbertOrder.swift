import RegionSearchCore

/// Spatial ordering of points along a Hilbert curve.
///
/// Points that are close in the plane get close indices, so the graph, propagation and region
/// stages touch memory locally (neighbours share cache lines). The order is a pure function of
/// the coordinates, with ties broken by the original index, so it is deterministic.
enum HilbertOrder {
    /// Bits per axis of the curve's grid (65,536 cells per side).
    public static let bits = 16

    /// Hilbert index of cell (x, y) on a 2^bits grid: four levels per table lookup.
    ///
    /// At each level the quadrant digit depends on the cell's two bits after the orientation the
    /// levels above imposed, and that orientation is one of four (identity, swap, complement,
    /// both — they commute), so the curve is a four-state machine; the table runs it four
    /// levels (8 input bits) at a time. Equal to ``indexByLevels(x:y:)`` for every input.
    @inline(__always)
    public static func index(x: UInt32, y: UInt32) -> UInt32 {
        var d: UInt32 = 0
        var state = 0
        var shift = bits - 4
        while shift >= 0 {
            let e = fourLevels[state << 8 | Int((x >> UInt32(shift)) & 15) << 4 | Int((y >> UInt32(shift)) & 15)]
            d = d << 8 | UInt32(e & 0xFF)
            state = Int(e >> 8)
            shift -= 4
        }
        return d
    }

    /// (state, 4 bits of x, 4 bits of y) → 8 bits of index | next state << 8.
    private static let fourLevels: [UInt16] = {
        var table = [UInt16](repeating: 0, count: 4 * 256)
        for state in 0..<4 {
            for xb in 0..<16 {
                for yb in 0..<16 {
                    var s = state  // bit 0: swap, bit 1: complement
                    var out = 0
                    for level in stride(from: 3, through: 0, by: -1) {
                        var rx = (xb >> level) & 1
                        var ry = (yb >> level) & 1
                        if s & 1 != 0 { swap(&rx, &ry) }
                        if s & 2 != 0 {
                            rx ^= 1
                            ry ^= 1
                        }
                        out = out << 2 | ((3 * rx) ^ ry)
                        if ry == 0 { s ^= rx == 1 ? 3 : 1 }
                    }
                    table[state << 8 | xb << 4 | yb] = UInt16(out | s << 8)
                }
            }
        }
        return table
    }()

    /// Hilbert index of cell (x, y), one level at a time (the definition ``index(x:y:)`` follows).
    static func indexByLevels(x: UInt32, y: UInt32) -> UInt32 {
        var rx: UInt32 = 0
        var ry: UInt32 = 0
        var d: UInt32 = 0
        var x = x
        var y = y
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
    static func permutation(x: UnsafeBufferPointer<Double>, y: UnsafeBufferPointer<Double>) -> [UInt32] {
        let n = x.count
        guard n > 1 else { return n == 1 ? [0] : [] }
        let box = PointBounds(x: x, y: y)
        let (minX, minY, maxX, maxY) = (box.minX, box.minY, box.maxX, box.maxY)
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

    /// Indices 0..<n sorted by key, stable (ties keep index order).
    static func radixSortedIndices(_ keys: [UInt32]) -> [UInt32] { RadixSort.order(byKeys: keys) }
}
