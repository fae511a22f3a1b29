/// Text from an input made safe to print on a terminal: a binary file's bytes or a field's
/// control characters must not reach it as they are (an escape sequence in a header could
/// rewrite the user's screen; NUL and bell bytes make the message unreadable).
///
/// Printable characters pass unchanged (any script); C0 and C1 controls, DEL, and the bytes of
/// invalid UTF-8 become `\xNN` (tab `\t`, line feed `\n`, carriage return `\r`); the result is
/// cut at `limit` characters with `…`.
public enum PrintableText {
    /// `text` with control characters escaped, at most `limit` characters.
    public static func of(_ text: String, limit: Int = 200) -> String {
        of(bytes: Array(text.utf8), limit: limit)
    }

    /// Bytes as text: valid UTF-8 decoded, anything else and every control character escaped.
    public static func of(bytes: some Collection<UInt8>, limit: Int = 200) -> String {
        var out = ""
        var count = 0
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        // Decoding byte by byte keeps the offending bytes for the escape when a sequence is invalid.
        var pending: [UInt8] = []
        var source = AnyIterator<UInt8> {
            guard let b = iterator.next() else { return nil }
            pending.append(b)
            return b
        }
        loop: while count < limit {
            switch decoder.decode(&source) {
            case .scalarValue(let scalar):
                pending.removeAll(keepingCapacity: true)
                out += escaped(scalar)
                count += 1
            case .emptyInput:
                break loop
            case .error:
                for b in pending { out += "\\x" + hex(b) }
                pending.removeAll(keepingCapacity: true)
                count += 1
            }
        }
        if count >= limit, case .scalarValue = decoder.decode(&source) { out += "…" }
        return out
    }

    private static func escaped(_ scalar: Unicode.Scalar) -> String {
        switch scalar.value {
        case 0x09: return "\\t"
        case 0x0A: return "\\n"
        case 0x0D: return "\\r"
        case 0x00..<0x20, 0x7F..<0xA0: return "\\x" + hex(UInt8(truncatingIfNeeded: scalar.value))
        default: return String(scalar)
        }
    }

    private static func hex(_ b: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String(digits[Int(b >> 4)]) + String(digits[Int(b & 15)])
    }
}
