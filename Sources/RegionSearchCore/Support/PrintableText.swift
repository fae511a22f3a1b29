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

    /// A message for a log line: like ``of(_:limit:)`` without a length limit, but line feeds and
    /// tabs stay (a message may have several lines); a carriage return, an escape sequence or any
    /// other control character from a path or a field is shown as `\r`, `\x1b`, … instead of
    /// acting on the terminal or the log reader.
    public static func message(_ text: String) -> String {
        var clean = true
        for s in text.unicodeScalars where s.value < 0x20 || (0x7F..<0xA0).contains(s.value) || isInvisible(s.value) {
            if s.value != 0x0A && s.value != 0x09 {
                clean = false
                break
            }
        }
        if clean { return text }
        return text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.split(separator: "\t", omittingEmptySubsequences: false).map { of(String($0), limit: Int.max) }
                .joined(separator: "\t")
        }.joined(separator: "\n")
    }

    /// One line of text from a library message that may span several lines (GDAL's): line
    /// breaks become spaces, other control characters are escaped.
    public static func oneLine(_ text: String, limit: Int = 200) -> String {
        let lines = text.split(whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" })
        return of(lines.map { $0.trimmingSpaces() }.filter { !$0.isEmpty }.joined(separator: " "), limit: limit)
    }

    /// Bytes as text: valid UTF-8 decoded, anything else and every control character escaped.
    public static func of(bytes: some Collection<UInt8>, limit: Int = 200) -> String {
        let b = Array(bytes)
        var out = ""
        var count = 0
        var i = 0
        while i < b.count {
            if count == limit {
                out += "…"
                break
            }
            if let (scalar, length) = decode(b, at: i) {
                out += escaped(scalar)
                i += length
            } else {
                out += "\\x" + hex(b[i])
                i += 1
            }
            count += 1
        }
        return out
    }

    /// The scalar of a well-formed UTF-8 sequence at `i` and its length; nil when malformed.
    private static func decode(_ b: [UInt8], at i: Int) -> (Unicode.Scalar, Int)? {
        let lead = b[i]
        let length: Int
        var value: UInt32
        switch lead {
        case 0x00..<0x80: return (Unicode.Scalar(lead), 1)
        case 0xC2..<0xE0: (length, value) = (2, UInt32(lead & 0x1F))
        case 0xE0..<0xF0: (length, value) = (3, UInt32(lead & 0x0F))
        case 0xF0..<0xF5: (length, value) = (4, UInt32(lead & 0x07))
        default: return nil
        }
        guard i + length <= b.count else { return nil }
        for k in 1..<length {
            let c = b[i + k]
            guard c & 0xC0 == 0x80 else { return nil }
            value = value << 6 | UInt32(c & 0x3F)
        }
        // Overlong forms and surrogates are malformed.
        let minimum: UInt32 = length == 2 ? 0x80 : length == 3 ? 0x800 : 0x10000
        guard value >= minimum, let scalar = Unicode.Scalar(value) else { return nil }
        return (scalar, length)
    }

    private static func escaped(_ scalar: Unicode.Scalar) -> String {
        switch scalar.value {
        case 0x09: return "\\t"
        case 0x0A: return "\\n"
        case 0x0D: return "\\r"
        case 0x00..<0x20, 0x7F..<0xA0: return "\\x" + hex(UInt8(truncatingIfNeeded: scalar.value))
        case let v where isInvisible(v): return "\\u{" + String(v, radix: 16) + "}"
        default: return String(scalar)
        }
    }

    /// Characters that show nothing or turn the text around them: zero-width space, word joiner
    /// and invisible operators, the byte-order mark, and the direction marks, embeddings,
    /// overrides and isolates. A keyword of U+200B alone was printed as `""`; an override can
    /// make a path read backwards. (The joiners U+200C and U+200D shape Persian, Indic and emoji
    /// text, and stay.)
    static func isInvisible(_ v: UInt32) -> Bool {
        v == 0x200B || v == 0x200E || v == 0x200F || (0x202A...0x202E).contains(v) || (0x2060...0x2064).contains(v)
            || (0x2066...0x2069).contains(v) || v == 0xFEFF
    }

    private static func hex(_ b: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String(digits[Int(b >> 4)]) + String(digits[Int(b & 15)])
    }
}

extension Substring {
    /// Without leading and trailing spaces and tabs.
    fileprivate func trimmingSpaces() -> Substring {
        var s = self
        while let f = s.first, f == " " || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" { s = s.dropLast() }
        return s
    }
}
