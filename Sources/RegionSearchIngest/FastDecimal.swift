import RegionSearchCore

/// Decimal coordinates (`-12.3456789`) parsed in one tight pass; anything else (exponents,
/// more than 15 significant digits, junk) goes to ``parseDecimal(_:)``, which gives the same
/// correctly rounded result for the common form, so the two never disagree.
enum FastDecimal {
    private static let powers: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
    ]

    @inline(__always)
    static func parse(_ s: UnsafeBufferPointer<UInt8>) -> Double? {
        guard let p = s.baseAddress, s.count > 0, s.count <= 17 else { return parseDecimal(s) }
        let n = s.count
        var i = 0
        let negative = p[0] == UInt8(ascii: "-")
        if negative || p[0] == UInt8(ascii: "+") { i = 1 }
        var m: UInt64 = 0
        let intStart = i
        while i < n {
            let d = p[i] &- 48
            if d >= 10 { break }
            m = m &* 10 &+ UInt64(d)
            i += 1
        }
        var digits = i - intStart
        var fraction = 0
        if i < n && p[i] == UInt8(ascii: ".") {
            i += 1
            let fracStart = i
            while i < n {
                let d = p[i] &- 48
                if d >= 10 { break }
                m = m &* 10 &+ UInt64(d)
                i += 1
            }
            fraction = i - fracStart
            digits += fraction
        }
        // At most 15 digits in all (so m < 2^53 is exact) and nothing else in the text.
        guard i == n, digits > 0, digits <= 15 else { return parseDecimal(s) }
        let v = Double(m) / powers[fraction]
        return negative ? -v : v
    }
}
