/// The inner loops of the Chebyshev solver (see ``LabelPropagation``): one sweep over a block of
/// rows for a band of adjacent columns held in one SIMD vector.
///
/// State matrices are row-major `n × w` (row i's columns at `i·w ..< i·w + w`; the solver gives
/// each band its own `n × lanes` block, ``LabelPropagation/bandMajor(_:bands:rows:)``), `S` is CSR; x and r are
/// stored as `T` (Float64, or Float32 for a result stored as Float32) and computed in Float64. A band of
/// L = 1, 2, 4, 8 or 16 columns is processed in one pass over the row structure, so the index and
/// weight loads and the loop overhead are shared by all of its columns. Each lane performs the
/// scalar formula's operations in the scalar order (`acc += s·d` over the row's entries, then the
/// row update), so results do not depend on how columns are banded or rows are split.
enum ChebyshevKernel {
    /// Raw views of `S` in CSR form.
    struct Matrix {
        var offsets: UnsafePointer<UInt64>
        var neighbors: UnsafePointer<UInt32>
        var values: UnsafePointer<Float>
    }

    /// The step's state: iterate x, residual r, step d (read) and the next step (written).
    struct State<T: ChebyshevStored> {
        var x: UnsafeMutablePointer<T>
        var r: UnsafeMutablePointer<T>
        var d: UnsafePointer<Float>
        var dNext: UnsafeMutablePointer<Float>
        var mask: UnsafePointer<Double>
        var width: Int
    }

    /// Columns `offset ..< offset + lanes` of rows `rows`: x += d; r −= (I − αS)d;
    /// d' = mask·(c1·d + c2·r). Writes max |d| per lane to `maxOut[0 ..< lanes]`.
    static func step<T>(
        lanes: Int, offset: Int, rows: Range<Int>, alpha: Double, c1: Double, c2: Double, _ m: Matrix,
        _ s: State<T>, maxOut: UnsafeMutablePointer<Double>
    ) {
        // A band as wide as the matrix (1–2 keywords: 4 columns) gets its row stride as a constant:
        // the neighbour's address is then a shift, not a multiply on the gather's critical path.
        let full = offset == 0 && s.width == lanes
        switch lanes {
        case 1: stepScalar(offset, rows, alpha, c1, c2, m, s, maxOut)
        case 2:
            store(
                full
                    ? stepLanes(SIMD2<Double>.self, 0, rows, alpha, c1, c2, m, s, width: 2)
                    : stepLanes(SIMD2<Double>.self, offset, rows, alpha, c1, c2, m, s, width: s.width), maxOut)
        case 4:
            store(
                full
                    ? stepLanes(SIMD4<Double>.self, 0, rows, alpha, c1, c2, m, s, width: 4)
                    : stepLanes(SIMD4<Double>.self, offset, rows, alpha, c1, c2, m, s, width: s.width), maxOut)
        case 8: store(stepLanes(SIMD8<Double>.self, offset, rows, alpha, c1, c2, m, s, width: s.width), maxOut)
        case 16: store(stepLanes(SIMD16<Double>.self, offset, rows, alpha, c1, c2, m, s, width: s.width), maxOut)
        default: preconditionFailure("unsupported band width \(lanes)")
        }
    }

    /// `out = S · v` on columns `offset ..< offset + lanes` of rows `rows`: v is n × width, out holds
    /// the rows of `rows` alone (row i at `(i − rows.lowerBound)·width`).
    static func multiply<T: ChebyshevStored>(
        lanes: Int, offset: Int, rows: Range<Int>, _ m: Matrix, v: UnsafePointer<T>,
        out: UnsafeMutablePointer<Double>, width: Int
    ) {
        switch lanes {
        case 1: multiplyLanes(SIMD2<Double>.self, scalar: true, offset, rows, m, v, out, width)
        case 2: multiplyLanes(SIMD2<Double>.self, scalar: false, offset, rows, m, v, out, width)
        case 4: multiplyLanes(SIMD4<Double>.self, scalar: false, offset, rows, m, v, out, width)
        case 8: multiplyLanes(SIMD8<Double>.self, scalar: false, offset, rows, m, v, out, width)
        case 16: multiplyLanes(SIMD16<Double>.self, scalar: false, offset, rows, m, v, out, width)
        default: preconditionFailure("unsupported band width \(lanes)")
        }
    }

    /// Splits `width` adjacent columns into bands of 16, 8, 4, 2 or 1 (the widest that fits
    /// first): (offset, lanes) pairs.
    static func bands(width: Int) -> [(offset: Int, lanes: Int)] {
        var out: [(Int, Int)] = []
        var at = 0
        while at < width {
            let rest = width - at
            let take = rest >= 16 ? 16 : rest >= 8 ? 8 : rest >= 4 ? 4 : rest >= 2 ? 2 : 1
            out.append((at, take))
            at += take
        }
        return out
    }

    /// The row width for `k` columns: `k` padded to a multiple of 4 when that takes fewer bands
    /// (each band is one pass over S's row structure: 3 columns go as one band of 4), `k` itself
    /// otherwise (17 columns as 16 + 1 move a sixth less than 16 + 4). Padding columns cost their
    /// memory traffic and compute nothing.
    static func width(columns k: Int) -> Int {
        let padded = (k + 3) / 4 * 4
        return bands(width: padded).count < bands(width: k).count ? padded : k
    }

    @inline(__always)
    private static func store<V: ChebyshevLanes>(_ v: V, _ out: UnsafeMutablePointer<Double>) {
        UnsafeMutableRawPointer(out).storeBytes(of: v, as: V.self)
    }

    @inline(__always)
    private static func stepLanes<V: ChebyshevLanes, T>(
        _: V.Type, _ o: Int, _ rows: Range<Int>, _ alpha: Double,
        _ c1: Double, _ c2: Double, _ m: Matrix, _ s: State<T>, width w: Int
    ) -> V {
        let c1v = V(repeating: c1)
        let c2v = V(repeating: c2)
        let av = V(repeating: alpha)
        let mv = UnsafeRawPointer(s.mask + o).loadUnaligned(as: V.self)
        let d = UnsafeRawPointer(s.d + o)
        var mx = V(repeating: 0)
        var e = Int(m.offsets[rows.lowerBound])
        for i in rows {
            let end = Int(m.offsets[i + 1])
            var acc = V(repeating: 0)
            while e < end {
                let dj = V(widening: d.loadUnaligned(fromByteOffset: Int(m.neighbors[e]) &* w &* 4, as: V.Narrow.self))
                acc += V(repeating: Double(m.values[e])) * dj
                e += 1
            }
            let at = i &* w &+ o
            let di = V(widening: d.loadUnaligned(fromByteOffset: i &* w &* 4, as: V.Narrow.self))
            let xi = T.load(s.x + at, V.self) + di
            T.store(xi, s.x + at)
            let ri = T.load(s.r + at, V.self) - (di - av * acc)
            T.store(ri, s.r + at)
            UnsafeMutableRawPointer(s.dNext + at).storeBytes(
                of: (mv * (c1v * di + c2v * ri)).narrowed, as: V.Narrow.self)
            // A constant-count lane loop: LLVM turns it into and/compare/blend (SIMD masks would not be).
            for t in 0..<V.scalarCount { mx[t] = max(mx[t], abs(di[t])) }
        }
        return mx
    }

    private static func stepScalar<T>(
        _ o: Int, _ rows: Range<Int>, _ alpha: Double, _ c1: Double, _ c2: Double,
        _ m: Matrix, _ s: State<T>, _ maxOut: UnsafeMutablePointer<Double>
    ) {
        let w = s.width
        let m0 = s.mask[o]
        var mx = 0.0
        var e = Int(m.offsets[rows.lowerBound])
        for i in rows {
            let end = Int(m.offsets[i + 1])
            var acc = 0.0
            while e < end {
                acc += Double(m.values[e]) * Double(s.d[Int(m.neighbors[e]) &* w &+ o])
                e += 1
            }
            let at = i &* w &+ o
            let di = Double(s.d[at])
            s.x[at] = T(Double(s.x[at]) + di)
            let ri = Double(s.r[at]) - (di - alpha * acc)
            s.r[at] = T(ri)
            s.dNext[at] = Float(m0 * (c1 * di + c2 * ri))
            mx = max(mx, abs(di))
        }
        maxOut[0] = mx
    }

    @inline(__always)
    private static func multiplyLanes<V: ChebyshevLanes, T: ChebyshevStored>(
        _: V.Type, scalar: Bool, _ o: Int, _ rows: Range<Int>,
        _ m: Matrix, _ v: UnsafePointer<T>, _ out: UnsafeMutablePointer<Double>, _ w: Int
    ) {
        let first = rows.lowerBound
        var e = Int(m.offsets[rows.lowerBound])
        if scalar {
            for i in rows {
                let end = Int(m.offsets[i + 1])
                var acc = 0.0
                while e < end {
                    acc += Double(m.values[e]) * Double(v[Int(m.neighbors[e]) &* w &+ o])
                    e += 1
                }
                out[(i &- first) &* w &+ o] = acc
            }
            return
        }
        let base = v + o
        for i in rows {
            let end = Int(m.offsets[i + 1])
            var acc = V(repeating: 0)
            while e < end {
                acc += V(repeating: Double(m.values[e])) * T.load(base + Int(m.neighbors[e]) &* w, V.self)
                e += 1
            }
            UnsafeMutableRawPointer(out + ((i &- first) &* w &+ o)).storeBytes(of: acc, as: V.self)
        }
    }
}
