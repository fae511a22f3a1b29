/// Finds where one JSON value ends without parsing it, so that a streaming reader can hand
/// exactly one value (one GeoJSON feature) to ``JSONParser``.
///
/// It tracks only strings (with escapes) and bracket depth; it is resumable, so a value split
/// across buffer refills is scanned once. It is deliberately lenient (it does not check that
/// `{` closes with `}`): the parser that runs on the extent reports syntax errors precisely.
struct JSONExtentScanner {
    enum Result: Equatable {
        /// The value ends just before this index.
        case complete(Int)
        /// The buffer ended first; call again with more bytes, from this index.
        case needMore(Int)
        /// The input ended inside the value.
        case truncated
        /// Not the start of a JSON value (the byte at this index).
        case invalid(Int)
        /// A record separator (RS, 0x1E, which cannot occur in JSON text) at this index: the
        /// value was cut short (RFC 8142 sequences resynchronise there).
        case interrupted(Int)
    }

    /// Bytes that matter inside a string, and outside one.
    private static let stringStops = ByteTable("\"\\\u{1E}")
    private static let structureStops = ByteTable("\"{}[]\u{1E}")

    /// A 256-entry membership table, allocated once and never written after: safe to share
    /// between threads, which the compiler cannot see through the pointer.
    private struct ByteTable: @unchecked Sendable {
        let pointer: UnsafePointer<UInt8>

        init(_ bytes: String) {
            let t = UnsafeMutablePointer<UInt8>.allocate(capacity: 256)
            t.initialize(repeating: 0, count: 256)
            for b in bytes.utf8 { t[Int(b)] = 1 }
            pointer = UnsafePointer(t)
        }
    }

    private var started = false
    private var scalar = false
    private var depth = 0
    private var inString = false
    private var escape = false

    init() {}

    /// Scans `b[from..<to]`; `atEOF` says whether more bytes can come.
    mutating func scan(_ b: UnsafePointer<UInt8>, from: Int, to: Int, atEOF: Bool) -> Result {
        var i = from
        if !started {
            guard i < to else { return atEOF ? .truncated : .needMore(i) }
            let c = b[i]
            switch c {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth = 1
            case UInt8(ascii: "\""):
                inString = true
                depth = 0
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "t"), UInt8(ascii: "f"),
                UInt8(ascii: "n"):
                scalar = true
            default:
                return .invalid(i)
            }
            started = true
            i += 1
        }
        if scalar {
            while i < to {
                switch b[i] {
                case UInt8(ascii: ","), UInt8(ascii: "]"), UInt8(ascii: "}"), 0x20, 0x09, 0x0A, 0x0D, 0x1E:
                    return .complete(i)
                default: i += 1
                }
            }
            return atEOF ? .complete(i) : .needMore(i)
        }
        let stringStops = Self.stringStops.pointer
        let structureStops = Self.structureStops.pointer
        while i < to {
            if inString {
                if escape {
                    if b[i] == 0x1E { return .interrupted(i) }
                    escape = false
                    i += 1
                    continue
                }
                // Skip ordinary string bytes in a tight loop.
                while i < to && stringStops[Int(b[i])] == 0 { i += 1 }
                if i >= to { break }
                let c = b[i]
                if c == 0x1E { return .interrupted(i) }
                i += 1
                if c == UInt8(ascii: "\\") {
                    escape = true
                } else {
                    inString = false
                    if depth == 0 { return .complete(i) }
                }
                continue
            }
            while i < to && structureStops[Int(b[i])] == 0 { i += 1 }
            if i >= to { break }
            let c = b[i]
            i += 1
            switch c {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                if depth == 0 { return .complete(i) }
            case 0x1E: return .interrupted(i - 1)
            default: break
            }
        }
        return atEOF ? .truncated : .needMore(i)
    }
}
