import RegionSearchCore

/// Reads a WKT or EWKT point: `POINT(lon lat)`, `POINT Z (lon lat h)`, `POINT M`, `POINT ZM`,
/// `SRID=4326;POINT(...)`, `POINT EMPTY`; case-insensitive, blanks allowed anywhere between
/// tokens. Other geometry types, other SRIDs and malformed text are `.invalid`.
enum WKTPoint: Equatable {
    case point(Double, Double)
    case empty
    case invalid

    public static func parse(_ v: UnsafeBufferPointer<UInt8>) -> WKTPoint {
        var i = 0
        let n = v.count
        func skipSpace() { while i < n, v[i] == 0x20 || v[i] == 0x09 || v[i] == 0x0A || v[i] == 0x0D { i += 1 } }
        func keyword(_ word: String) -> Bool {
            let w = Array(word.utf8)
            guard i + w.count <= n else { return false }
            for k in 0..<w.count where v[i + k] | 0x20 != w[k] { return false }
            i += w.count
            return true
        }
        skipSpace()
        if keyword("srid=") {
            let s = i
            while i < n, v[i] != UInt8(ascii: ";") { i += 1 }
            guard i < n, String(decoding: UnsafeBufferPointer(rebasing: v[s..<i]), as: UTF8.self) == "4326" else {
                return .invalid
            }
            i += 1
            skipSpace()
        }
        guard keyword("point") else { return .invalid }
        skipSpace()
        var dimensions = 2
        if keyword("empty") {
            skipSpace()
            return i == n ? .empty : .invalid
        }
        if keyword("zm") {
            dimensions = 4
        } else if keyword("z") || keyword("m") {
            dimensions = 3
        }
        skipSpace()
        if keyword("empty") {
            skipSpace()
            return i == n ? .empty : .invalid
        }
        guard i < n, v[i] == UInt8(ascii: "(") else { return .invalid }
        i += 1
        var numbers: [Double] = []
        while true {
            skipSpace()
            let s = i
            while i < n, v[i] != 0x20, v[i] != 0x09, v[i] != UInt8(ascii: ")") { i += 1 }
            if i == s { break }
            guard let d = DecimalParser.parse(UnsafeBufferPointer(rebasing: v[s..<i])) else { return .invalid }
            numbers.append(d)
            if numbers.count > 4 { return .invalid }
        }
        guard i < n, v[i] == UInt8(ascii: ")") else { return .invalid }
        i += 1
        skipSpace()
        guard i == n, numbers.count == dimensions || (dimensions == 2 && numbers.count <= 4 && numbers.count >= 2)
        else {
            return .invalid
        }
        return .point(numbers[0], numbers[1])
    }
}
