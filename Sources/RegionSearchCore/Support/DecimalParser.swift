/// The one parser of ASCII decimal numbers (JSON numbers, CSV and OSM coordinates, WKT), correctly
/// rounded to the nearest Double.
///
/// Accepted: an optional sign, digits with an optional `.` and fraction (`7.`, `.5` and `-.5`
/// included), an optional exponent (`e`/`E`, optional sign, digits). Not accepted: anything else,
/// including blanks, `inf`, `nan` and hex. Callers that need a stricter grammar (JSON) check it
/// first.
///
/// Three tiers, each exact, so the result never depends on which one ran:
/// 1. the common coordinate form (at most 17 characters, at most 15 digits, no exponent): one
///    pass, then one division of two exactly representable numbers;
/// 2. up to 15 significant digits with a decimal exponent of at most 22 either way and no
///    exponent part: one multiplication or division of exact numbers;
/// 3. everything else: `Double(String)` (strtod semantics, correctly rounded).
public enum DecimalParser {
    /// The number in `s`, or nil when `s` is not a decimal number.
    ///
    /// Transparent, so tier 1 is inlined at every call site, across modules too: the ingest hot
    /// loop calls it twice per record, and `@inlinable @inline(__always)` still left a call there.
    @_transparent
    public static func parse(_ s: UnsafeBufferPointer<UInt8>) -> Double? {
        guard let p = s.baseAddress, s.count > 0, s.count <= 17 else { return parseGeneral(s) }
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
        guard i == n, digits > 0, digits <= 15 else { return parseGeneral(s) }
        let v = Double(m) / powerOfTen(fraction)
        return negative ? -v : v
    }

    /// 10^k for 0 ≤ k ≤ 22 (each exactly representable).
    @inlinable @inline(__always)
    static func powerOfTen(_ k: Int) -> Double {
        switch k {
        case 0: return 1e0
        case 1: return 1e1
        case 2: return 1e2
        case 3: return 1e3
        case 4: return 1e4
        case 5: return 1e5
        case 6: return 1e6
        case 7: return 1e7
        case 8: return 1e8
        case 9: return 1e9
        case 10: return 1e10
        case 11: return 1e11
        case 12: return 1e12
        case 13: return 1e13
        case 14: return 1e14
        case 15: return 1e15
        case 16: return 1e16
        case 17: return 1e17
        case 18: return 1e18
        case 19: return 1e19
        case 20: return 1e20
        case 21: return 1e21
        default: return 1e22
        }
    }

    /// Tiers 2 and 3.
    @usableFromInline
    static func parseGeneral(_ s: UnsafeBufferPointer<UInt8>) -> Double? {
        var i = 0
        let n = s.count
        guard n > 0 else { return nil }
        var negative = false
        if s[0] == UInt8(ascii: "-") {
            negative = true
            i = 1
        } else if s[0] == UInt8(ascii: "+") {
            i = 1
        }
        var mantissa: UInt64 = 0
        var digits = 0
        var exponent = 0
        var sawDigit = false
        while i < n, s[i] &- 48 < 10 {
            sawDigit = true
            if digits < 18 {
                mantissa = mantissa &* 10 &+ UInt64(s[i] &- 48)
                if mantissa != 0 { digits += 1 }
            } else {
                exponent += 1
                digits += 1
            }
            i += 1
        }
        if i < n, s[i] == UInt8(ascii: ".") {
            i += 1
            while i < n, s[i] &- 48 < 10 {
                sawDigit = true
                if digits < 18 {
                    mantissa = mantissa &* 10 &+ UInt64(s[i] &- 48)
                    if mantissa != 0 { digits += 1 }
                    exponent -= 1
                } else {
                    digits += 1
                }
                i += 1
            }
        }
        guard sawDigit else { return nil }
        var slow = false
        if i < n {
            guard s[i] == UInt8(ascii: "e") || s[i] == UInt8(ascii: "E") else { return nil }
            slow = true
        }
        if !slow && digits <= 15 && exponent >= -22 && exponent <= 22 {
            var d = Double(mantissa)
            if exponent < 0 { d /= powerOfTen(-exponent) } else { d *= powerOfTen(exponent) }
            return negative ? -d : d
        }
        guard let text = String(validating: s, as: UTF8.self) else { return nil }
        // Double(String) accepts "inf"/"nan" spellings and hex floats; the scan above has already
        // confirmed the decimal shape up to an exponent, so validate the exponent part here.
        if i < n {
            var j = i + 1
            if j < n, s[j] == UInt8(ascii: "+") || s[j] == UInt8(ascii: "-") { j += 1 }
            let expStart = j
            while j < n, s[j] &- 48 < 10 { j += 1 }
            guard j == n, j > expStart else { return nil }
        }
        return Double(text)
    }
}
