/// Splits RFC 4180 text into records of fields: `,` separates, `"` quotes (doubled inside), LF or
/// CRLF ends a record outside quotes; a UTF-8 byte-order mark is skipped.
struct CSVRecordSplitter {
    let bytes: [UInt8]
    var pos = 0
    var line: UInt64 = 1

    init(bytes: [UInt8]) {
        self.bytes = bytes
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { pos = 3 }
    }

    /// The next record with the line it starts on, or nil at the end.
    mutating func next(path: String) throws(EvaluateError) -> (UInt64, [String])? {
        guard pos < bytes.count else { return nil }
        let startLine = line
        var fields: [String] = []
        var field: [UInt8] = []
        var inQuotes = false
        var quotedField = false
        while pos < bytes.count {
            let c = bytes[pos]
            pos += 1
            if inQuotes {
                if c == 0x22 {
                    if pos < bytes.count && bytes[pos] == 0x22 {
                        field.append(0x22)
                        pos += 1
                    } else {
                        inQuotes = false
                    }
                } else {
                    if c == 0x0A { line += 1 }
                    field.append(c)
                }
                continue
            }
            switch c {
            case 0x22 where field.isEmpty && !quotedField:
                inQuotes = true
                quotedField = true
            case 0x2C:
                fields.append(try Self.text(field, path: path, line: startLine))
                field = []
                quotedField = false
            case 0x0A, 0x0D:
                if c == 0x0D, pos < bytes.count, bytes[pos] == 0x0A { pos += 1 }
                line += 1
                fields.append(try Self.text(field, path: path, line: startLine))
                return (startLine, fields)
            default:
                field.append(c)
            }
        }
        if inQuotes {
            throw EvaluateError.badRecord(path: path, line: startLine, reason: "a quoted field is not closed before the end of the file")
        }
        fields.append(try Self.text(field, path: path, line: startLine))
        return (startLine, fields)
    }

    private static func text(_ bytes: [UInt8], path: String, line: UInt64) throws(EvaluateError) -> String {
        guard let s = String(validating: bytes, as: UTF8.self) else {
            throw EvaluateError.badRecord(path: path, line: line, reason: "invalid UTF-8")
        }
        return s
    }
}
