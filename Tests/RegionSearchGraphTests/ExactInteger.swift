/// A minimal arbitrary-precision signed integer, used as the independent "exact rational
/// arithmetic" oracle for the geometric predicates: every double is an integer multiple of a
/// power of two, so scaling all inputs by the smallest such power makes determinants integer.
struct ExactInteger: Equatable {
    /// Little-endian 32-bit limbs of the magnitude, no trailing zero limbs.
    var limbs: [UInt32]
    var negative: Bool

    init(_ v: Int64) {
        negative = v < 0
        var m = v.magnitude
        limbs = []
        while m > 0 {
            limbs.append(UInt32(truncatingIfNeeded: m))
            m >>= 32
        }
    }

    private init(limbs: [UInt32], negative: Bool) {
        var l = limbs
        while l.last == 0 { l.removeLast() }
        self.limbs = l
        self.negative = l.isEmpty ? false : negative
    }

    var signum: Int { limbs.isEmpty ? 0 : (negative ? -1 : 1) }

    /// Doubles as exact integers in units of 2^minExponent (shared by all of them).
    static func scaled(_ values: [Double]) -> [ExactInteger] { scaledWithUnit(values).values }

    /// As ``scaled(_:)``, also returning the exponent e of the unit 2^e.
    static func scaledWithUnit(_ values: [Double]) -> (values: [ExactInteger], unitExponent: Int) {
        let parts = values.map { v -> (Int64, Int) in
            precondition(v.isFinite && (v == 0 || v.isNormal))
            if v == 0 { return (0, Int.max) }
            let m = Int64(v.significandBitPattern | (1 << 52))
            return (v < 0 ? -m : m, Int(v.exponent) - 52)
        }
        let minExp = parts.map { $0.1 }.min() ?? 0
        return (
            parts.map { (m, e) in e == Int.max ? ExactInteger(0) : ExactInteger(m).shifted(left: e - minExp) }, minExp
        )
    }

    func shifted(left bits: Int) -> ExactInteger {
        if limbs.isEmpty || bits == 0 { return self }
        let words = bits / 32
        let rest = bits % 32
        var out = [UInt32](repeating: 0, count: words)
        var carry: UInt32 = 0
        for l in limbs {
            if rest == 0 {
                out.append(l)
            } else {
                out.append((l << UInt32(rest)) | carry)
                carry = l >> UInt32(32 - rest)
            }
        }
        if carry != 0 { out.append(carry) }
        return ExactInteger(limbs: out, negative: negative)
    }

    private static func compareMagnitude(_ a: [UInt32], _ b: [UInt32]) -> Int {
        if a.count != b.count { return a.count < b.count ? -1 : 1 }
        for i in stride(from: a.count - 1, through: 0, by: -1) where a[i] != b[i] { return a[i] < b[i] ? -1 : 1 }
        return 0
    }

    private static func addMagnitude(_ a: [UInt32], _ b: [UInt32]) -> [UInt32] {
        var out: [UInt32] = []
        var carry: UInt64 = 0
        for i in 0..<max(a.count, b.count) {
            let s = UInt64(i < a.count ? a[i] : 0) + UInt64(i < b.count ? b[i] : 0) + carry
            out.append(UInt32(truncatingIfNeeded: s))
            carry = s >> 32
        }
        if carry != 0 { out.append(UInt32(carry)) }
        return out
    }

    /// a − b for |a| ≥ |b|.
    private static func subtractMagnitude(_ a: [UInt32], _ b: [UInt32]) -> [UInt32] {
        var out: [UInt32] = []
        var borrow: Int64 = 0
        for i in 0..<a.count {
            var d = Int64(a[i]) - Int64(i < b.count ? b[i] : 0) - borrow
            borrow = d < 0 ? 1 : 0
            if d < 0 { d += 1 << 32 }
            out.append(UInt32(d))
        }
        return out
    }

    static func + (a: ExactInteger, b: ExactInteger) -> ExactInteger {
        if a.negative == b.negative { return ExactInteger(limbs: addMagnitude(a.limbs, b.limbs), negative: a.negative) }
        if compareMagnitude(a.limbs, b.limbs) >= 0 {
            return ExactInteger(limbs: subtractMagnitude(a.limbs, b.limbs), negative: a.negative)
        }
        return ExactInteger(limbs: subtractMagnitude(b.limbs, a.limbs), negative: b.negative)
    }

    static prefix func - (a: ExactInteger) -> ExactInteger { ExactInteger(limbs: a.limbs, negative: !a.negative) }

    static func - (a: ExactInteger, b: ExactInteger) -> ExactInteger { a + (-b) }

    static func * (a: ExactInteger, b: ExactInteger) -> ExactInteger {
        if a.limbs.isEmpty || b.limbs.isEmpty { return ExactInteger(0) }
        var out = [UInt32](repeating: 0, count: a.limbs.count + b.limbs.count)
        for i in 0..<a.limbs.count {
            var carry: UInt64 = 0
            for j in 0..<b.limbs.count {
                let t = UInt64(a.limbs[i]) * UInt64(b.limbs[j]) + UInt64(out[i + j]) + carry
                out[i + j] = UInt32(truncatingIfNeeded: t)
                carry = t >> 32
            }
            var k = i + b.limbs.count
            while carry != 0 {
                let t = UInt64(out[k]) + carry
                out[k] = UInt32(truncatingIfNeeded: t)
                carry = t >> 32
                k += 1
            }
        }
        return ExactInteger(limbs: out, negative: a.negative != b.negative)
    }
}

/// Exact orientation and in-circle signs computed with ``ExactInteger``.
enum ExactPredicates {
    static func orient(_ ax: Double, _ ay: Double, _ bx: Double, _ by: Double, _ cx: Double, _ cy: Double) -> Int {
        let v = ExactInteger.scaled([ax, ay, bx, by, cx, cy])
        let (axi, ayi, bxi, byi, cxi, cyi) = (v[0], v[1], v[2], v[3], v[4], v[5])
        return ((axi - cxi) * (byi - cyi) - (ayi - cyi) * (bxi - cxi)).signum
    }

    static func incircle(
        _ ax: Double, _ ay: Double, _ bx: Double, _ by: Double, _ cx: Double, _ cy: Double,
        _ dx: Double, _ dy: Double
    ) -> Int {
        let v = ExactInteger.scaled([ax, ay, bx, by, cx, cy, dx, dy])
        let adx = v[0] - v[6]
        let ady = v[1] - v[7]
        let bdx = v[2] - v[6]
        let bdy = v[3] - v[7]
        let cdx = v[4] - v[6]
        let cdy = v[5] - v[7]
        let alift = adx * adx + ady * ady
        let blift = bdx * bdx + bdy * bdy
        let clift = cdx * cdx + cdy * cdy
        let det = alift * (bdx * cdy - cdx * bdy) + blift * (cdx * ady - adx * cdy) + clift * (adx * bdy - bdx * ady)
        return det.signum
    }
}
