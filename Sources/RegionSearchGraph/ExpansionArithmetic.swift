/// Exact floating-point expansion arithmetic after J. R. Shewchuk, "Adaptive Precision
/// Floating-Point Arithmetic and Fast Robust Geometric Predicates" (1997).
///
/// An *expansion* is a sum of doubles, stored smallest magnitude first, whose components do not
/// overlap; it represents its sum exactly. The primitives below (two-sum, two-product by Dekker
/// splitting, expansion sums and scaling with zero elimination) are exact as long as no
/// intermediate overflows or underflows, which holds for coordinates of map scale (see
/// ``GeometricPredicates``). Pointer-based functions mirror the C original and write into
/// caller-provided buffers so the predicates' adaptive stages stay allocation-free.
enum ExpansionArithmetic {
    /// Half an ulp of 1: the relative rounding error of one operation (2⁻⁵³).
    static let epsilon: Double = 0x1p-53
    /// 2^ceil(53/2) + 1, splits a double into two 26-bit halves.
    static let splitter: Double = 134_217_729

    /// x + y = a + b exactly, x = fl(a + b); requires |a| ≥ |b| (or a = 0).
    @inline(__always)
    static func fastTwoSum(_ a: Double, _ b: Double) -> (Double, Double) {
        let x = a + b
        let bvirt = x - a
        return (x, b - bvirt)
    }

    /// x + y = a + b exactly, x = fl(a + b).
    @inline(__always)
    static func twoSum(_ a: Double, _ b: Double) -> (Double, Double) {
        let x = a + b
        let bvirt = x - a
        let avirt = x - bvirt
        let bround = b - bvirt
        let around = a - avirt
        return (x, around + bround)
    }

    /// The rounding error of x = fl(a − b): a − b = x + tail exactly.
    @inline(__always)
    static func twoDiffTail(_ a: Double, _ b: Double, _ x: Double) -> Double {
        let bvirt = a - x
        let avirt = x + bvirt
        let bround = bvirt - b
        let around = a - avirt
        return around + bround
    }

    /// x + y = a − b exactly, x = fl(a − b).
    @inline(__always)
    static func twoDiff(_ a: Double, _ b: Double) -> (Double, Double) {
        let x = a - b
        return (x, twoDiffTail(a, b, x))
    }

    /// Dekker's split: a = hi + lo with both halves fitting in 26 bits.
    @inline(__always)
    static func split(_ a: Double) -> (Double, Double) {
        let c = splitter * a
        let abig = c - a
        let hi = c - abig
        return (hi, a - hi)
    }

    /// x + y = a × b exactly, x = fl(a × b) (Dekker's product with splitting).
    @inline(__always)
    static func twoProduct(_ a: Double, _ b: Double) -> (Double, Double) {
        let x = a * b
        let (ahi, alo) = split(a)
        let (bhi, blo) = split(b)
        return (x, twoProductTail(x, ahi, alo, bhi, blo))
    }

    @inline(__always)
    static func twoProductTail(_ x: Double, _ ahi: Double, _ alo: Double, _ bhi: Double, _ blo: Double) -> Double {
        let err1 = x - ahi * bhi
        let err2 = err1 - alo * bhi
        let err3 = err2 - ahi * blo
        return alo * blo - err3
    }

    /// (a1 + a0) − b as a three-component expansion (x2, x1, x0), largest first.
    @inline(__always)
    static func twoOneDiff(_ a1: Double, _ a0: Double, _ b: Double) -> (Double, Double, Double) {
        let (i, x0) = twoDiff(a0, b)
        let (x2, x1) = twoSum(a1, i)
        return (x2, x1, x0)
    }

    /// (a1 + a0) − (b1 + b0) as a four-component expansion (x3, x2, x1, x0), largest first.
    @inline(__always)
    static func twoTwoDiff(_ a1: Double, _ a0: Double, _ b1: Double, _ b0: Double) -> (Double, Double, Double, Double) {
        let (j, z0, x0) = twoOneDiff(a1, a0, b0)
        let (x3, x2, x1) = twoOneDiff(j, z0, b1)
        return (x3, x2, x1, x0)
    }

    /// h = e + f with zero components removed; returns h's length. h must hold elen + flen
    /// components and must not alias e or f.
    static func sum(
        _ elen: Int, _ e: UnsafePointer<Double>, _ flen: Int, _ f: UnsafePointer<Double>,
        _ h: UnsafeMutablePointer<Double>
    ) -> Int {
        var eindex = 0
        var findex = 0
        var hindex = 0
        var enow = e[0]
        var fnow = f[0]
        var q: Double
        // Take the smaller-magnitude head first; reading past the end is avoided (unlike the C
        // original) by substituting 0 for an exhausted input.
        if (fnow > enow) == (fnow > -enow) {
            q = enow
            eindex += 1
            enow = eindex < elen ? e[eindex] : 0
        } else {
            q = fnow
            findex += 1
            fnow = findex < flen ? f[findex] : 0
        }
        if eindex < elen && findex < flen {
            var qnew: Double
            var hh: Double
            if (fnow > enow) == (fnow > -enow) {
                (qnew, hh) = fastTwoSum(enow, q)
                eindex += 1
                enow = eindex < elen ? e[eindex] : 0
            } else {
                (qnew, hh) = fastTwoSum(fnow, q)
                findex += 1
                fnow = findex < flen ? f[findex] : 0
            }
            q = qnew
            if hh != 0 {
                h[hindex] = hh
                hindex += 1
            }
            while eindex < elen && findex < flen {
                if (fnow > enow) == (fnow > -enow) {
                    (qnew, hh) = twoSum(q, enow)
                    eindex += 1
                    enow = eindex < elen ? e[eindex] : 0
                } else {
                    (qnew, hh) = twoSum(q, fnow)
                    findex += 1
                    fnow = findex < flen ? f[findex] : 0
                }
                q = qnew
                if hh != 0 {
                    h[hindex] = hh
                    hindex += 1
                }
            }
        }
        while eindex < elen {
            let (qnew, hh) = twoSum(q, enow)
            eindex += 1
            enow = eindex < elen ? e[eindex] : 0
            q = qnew
            if hh != 0 {
                h[hindex] = hh
                hindex += 1
            }
        }
        while findex < flen {
            let (qnew, hh) = twoSum(q, fnow)
            findex += 1
            fnow = findex < flen ? f[findex] : 0
            q = qnew
            if hh != 0 {
                h[hindex] = hh
                hindex += 1
            }
        }
        if q != 0 || hindex == 0 {
            h[hindex] = q
            hindex += 1
        }
        return hindex
    }

    /// h = b × e with zero components removed; returns h's length. h must hold 2 × elen
    /// components and must not alias e.
    static func scale(_ elen: Int, _ e: UnsafePointer<Double>, _ b: Double, _ h: UnsafeMutablePointer<Double>) -> Int {
        let (bhi, blo) = split(b)
        var q = e[0] * b
        var hindex = 0
        do {
            let (ahi, alo) = split(e[0])
            let hh = twoProductTail(q, ahi, alo, bhi, blo)
            if hh != 0 {
                h[hindex] = hh
                hindex += 1
            }
        }
        var i = 1
        while i < elen {
            let enow = e[i]
            let product1 = enow * b
            let (ahi, alo) = split(enow)
            let product0 = twoProductTail(product1, ahi, alo, bhi, blo)
            let (sum, hh1) = twoSum(q, product0)
            if hh1 != 0 {
                h[hindex] = hh1
                hindex += 1
            }
            let (qnew, hh2) = fastTwoSum(product1, sum)
            q = qnew
            if hh2 != 0 {
                h[hindex] = hh2
                hindex += 1
            }
            i += 1
        }
        if q != 0 || hindex == 0 {
            h[hindex] = q
            hindex += 1
        }
        return hindex
    }

    /// An approximation of the expansion's value (the rounded sum of its components).
    @inline(__always)
    static func estimate(_ elen: Int, _ e: UnsafePointer<Double>) -> Double {
        var q = e[0]
        var i = 1
        while i < elen {
            q += e[i]
            i += 1
        }
        return q
    }

    // MARK: Array forms for the rare exact fallbacks (clarity over speed there).

    /// a − b exactly, as an expansion.
    static func difference(_ a: Double, _ b: Double) -> [Double] {
        let (x, y) = twoDiff(a, b)
        return y == 0 ? [x] : [y, x]
    }

    static func sum(_ e: [Double], _ f: [Double]) -> [Double] {
        var h = [Double](repeating: 0, count: e.count + f.count)
        let n = e.withUnsafeBufferPointer { eb in
            f.withUnsafeBufferPointer { fb in
                h.withUnsafeMutableBufferPointer { hb in
                    sum(eb.count, eb.baseAddress!, fb.count, fb.baseAddress!, hb.baseAddress!)
                }
            }
        }
        h.removeLast(h.count - n)
        return h
    }

    static func negated(_ e: [Double]) -> [Double] { e.map { -$0 } }

    static func scaled(_ e: [Double], _ b: Double) -> [Double] {
        var h = [Double](repeating: 0, count: 2 * e.count)
        let n = e.withUnsafeBufferPointer { eb in
            h.withUnsafeMutableBufferPointer { hb in scale(eb.count, eb.baseAddress!, b, hb.baseAddress!) }
        }
        h.removeLast(h.count - n)
        return h
    }

    /// e × f exactly: the sum of e scaled by each component of f.
    static func product(_ e: [Double], _ f: [Double]) -> [Double] {
        var acc: [Double] = [0]
        for c in f where c != 0 { acc = sum(acc, scaled(e, c)) }
        return acc
    }

    /// The sign of an exactly represented value: that of its largest (last) nonzero component.
    static func sign(_ e: [Double]) -> Double {
        for c in e.reversed() where c != 0 { return c }
        return 0
    }
}
