/// Finds the first byte that makes a buffer invalid UTF-8 (RFC 3629: no overlong forms, no
/// surrogates, nothing above U+10FFFF), so a rejected record can say exactly where.
public enum UTF8Check {
    /// The index of the first byte of the first invalid sequence, or nil when all is valid.
    @inline(__always)
    public static func firstInvalid(_ p: UnsafePointer<UInt8>, count n: Int) -> Int? {
        var i = 0
        // ASCII fast path, eight bytes at a time.
        while i + 8 <= n {
            let w = UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self)
            if w & 0x8080_8080_8080_8080 != 0 { break }
            i += 8
        }
        while i < n {
            let c = p[i]
            if c < 0x80 {
                i += 1
                continue
            }
            return validateFrom(p, count: n, start: i)
        }
        return nil
    }

    /// The general validator from `start` on.
    private static func validateFrom(_ p: UnsafePointer<UInt8>, count n: Int, start: Int) -> Int? {
        var i = start
        while i < n {
            let c = p[i]
            if c < 0x80 {
                i += 1
                while i + 8 <= n && UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 == 0
                { i += 8 }
                continue
            }
            let len: Int
            var lo: UInt8 = 0x80
            var hi: UInt8 = 0xBF
            switch c {
            case 0xC2...0xDF: len = 2
            case 0xE0:
                len = 3
                lo = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: len = 3
            case 0xED:
                len = 3
                hi = 0x9F
            case 0xF0:
                len = 4
                lo = 0x90
            case 0xF1...0xF3: len = 4
            case 0xF4:
                len = 4
                hi = 0x8F
            default: return i
            }
            guard i + len <= n else { return i }
            let c1 = p[i + 1]
            if c1 < lo || c1 > hi { return i }
            for k in 2..<max(2, len) where p[i + k] & 0xC0 != 0x80 { return i }
            i += len
        }
        return nil
    }
}
