/// A JSON value that keeps object members in document order.
///
/// RegionSearch parses manifests, artifact metadata and GeoJSON with its own parser so that errors
/// can name the line and column, and writes JSON with its own serializer so that output is
/// byte-for-byte deterministic (sorted keys when asked, shortest round-trip numbers).
public enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    public static func == (a: JSONValue, b: JSONValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.bool(let x), .bool(let y)): return x == y
        case (.number(let x), .number(let y)): return x == y
        case (.string(let x), .string(let y)): return x == y
        case (.array(let x), .array(let y)): return x == y
        case (.object(let x), .object(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: return false
        }
    }

    /// The member named `key` of an object, or nil.
    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self {
            for (k, v) in members where k == key { return v }
        }
        return nil
    }

    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    public var doubleValue: Double? {
        if case .number(let d) = self { return d }
        return nil
    }

    /// The value as an integer, when it is a number with no fractional part.
    public var intValue: Int? {
        if case .number(let d) = self, d.rounded() == d, abs(d) < 9.0e15 { return Int(d) }
        return nil
    }

    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    public var arrayValue: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    public var objectValue: [(String, JSONValue)]? {
        if case .object(let o) = self { return o }
        return nil
    }

    /// A short name of the value's JSON type, for error messages.
    public var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "boolean"
        case .number: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }
}

extension JSONValue {
    /// Serializes the value.
    ///
    /// - Parameters:
    ///   - sortedKeys: write object members sorted by key (canonical form for hashing).
    ///   - pretty: indent nested values by two spaces.
    public func serialized(sortedKeys: Bool = false, pretty: Bool = false) -> String {
        var out = ""
        write(to: &out, sortedKeys: sortedKeys, pretty: pretty, indent: 0)
        return out
    }

    private func write(to out: inout String, sortedKeys: Bool, pretty: Bool, indent: Int) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .number(let d): out += JSONValue.formatNumber(d)
        case .string(let s): JSONValue.writeString(s, to: &out)
        case .array(let items):
            if items.isEmpty {
                out += "[]"
                return
            }
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                if pretty { out += "\n" + String(repeating: "  ", count: indent + 1) }
                item.write(to: &out, sortedKeys: sortedKeys, pretty: pretty, indent: indent + 1)
            }
            if pretty { out += "\n" + String(repeating: "  ", count: indent) }
            out += "]"
        case .object(let members):
            if members.isEmpty {
                out += "{}"
                return
            }
            let ordered = sortedKeys ? members.sorted { $0.0.utf8.lexicographicallyPrecedes($1.0.utf8) } : members
            out += "{"
            for (i, (k, v)) in ordered.enumerated() {
                if i > 0 { out += "," }
                if pretty { out += "\n" + String(repeating: "  ", count: indent + 1) }
                JSONValue.writeString(k, to: &out)
                out += pretty ? ": " : ":"
                v.write(to: &out, sortedKeys: sortedKeys, pretty: pretty, indent: indent + 1)
            }
            if pretty { out += "\n" + String(repeating: "  ", count: indent) }
            out += "}"
        }
    }

    /// Integers up to 2^53 print without a fraction; other values use Swift's shortest
    /// round-trip representation. Non-finite values have no JSON form and print as `null`.
    public static func formatNumber(_ d: Double) -> String {
        guard d.isFinite else { return "null" }
        if d == d.rounded(), abs(d) < 9.007_199_254_740_992e15 {
            if d == 0 { return "0" }
            return String(Int64(d))
        }
        var s = "\(d)"
        // Swift prints 1e-06 as "1e-06": valid JSON already; keep as is.
        if s.hasPrefix(".") { s = "0" + s }
        return s
    }

    /// Writes a JSON string literal with the minimal escapes (UTF-8 passes through).
    public static func writeString(_ s: String, to out: inout String) {
        out += "\""
        var needsEscape = false
        for b in s.utf8 where b < 0x20 || b == 0x22 || b == 0x5C {
            needsEscape = true
            break
        }
        if !needsEscape {
            out += s
        } else {
            for scalar in s.unicodeScalars {
                switch scalar {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case "\n": out += "\\n"
                case "\r": out += "\\r"
                case "\t": out += "\\t"
                default:
                    if scalar.value < 0x20 {
                        let h = String(scalar.value, radix: 16)
                        out += "\\u" + String(repeating: "0", count: 4 - h.count) + h
                    } else {
                        out.unicodeScalars.append(scalar)
                    }
                }
            }
        }
        out += "\""
    }
}

/// A JSON syntax error with its position.
public struct JSONParseError: Error, CustomStringConvertible, Equatable {
    public var line: Int
    public var column: Int
    public var byteOffset: Int
    public var reason: String
    public var description: String { "line \(line), column \(column): \(reason)" }
}

/// A strict RFC 8259 parser over UTF-8 bytes that reports line and column of errors.
public struct JSONParser {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var pos = 0
    private var depth = 0
    /// Whether a number beyond a double's range is an error (the default) or ±infinity.
    private var saturating = false
    /// Nesting limit: deeper documents are rejected instead of overflowing the stack.
    static let maxDepth = 512

    private init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    /// Parses one JSON document; trailing non-whitespace is an error.
    public static func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        var copy = text
        let result: Result<JSONValue, JSONParseError> = copy.withUTF8 { buf in
            do throws(JSONParseError) {
                return .success(try parse(bytes: buf))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Parses one JSON document from bytes; a UTF-8 byte-order mark is skipped.
    ///
    /// - Parameter saturating: read a number beyond a double's range (`1e400`, valid JSON) as
    ///   ±infinity instead of failing, for data whose every member need not be used (a GeoJSON
    ///   feature's properties): whoever uses a value checks that it is finite.
    public static func parse(bytes: UnsafeBufferPointer<UInt8>, saturating: Bool = false) throws(JSONParseError)
        -> JSONValue
    {
        var p = JSONParser(bytes: bytes)
        p.saturating = saturating
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { p.pos = 3 }
        p.skipWhitespace()
        let v = try p.parseValue()
        p.skipWhitespace()
        if p.pos != bytes.count { throw p.error("unexpected text after the JSON value") }
        return v
    }

    /// Parses the value starting at `offset` and returns it with the offset just past it.
    public static func parsePrefix(bytes: UnsafeBufferPointer<UInt8>, from offset: Int) throws(JSONParseError)
        -> (JSONValue, Int)
    {
        var p = JSONParser(bytes: bytes)
        p.pos = offset
        p.skipWhitespace()
        let v = try p.parseValue()
        return (v, p.pos)
    }

    private func error(_ reason: String, at offset: Int? = nil) -> JSONParseError {
        let at = min(offset ?? pos, bytes.count)
        var line = 1
        var lineStart = 0
        for i in 0..<at where bytes[i] == 0x0A {
            line += 1
            lineStart = i + 1
        }
        // Column in characters (UTF-8 continuation bytes do not count).
        var column = 1
        var i = lineStart
        while i < at {
            if bytes[i] & 0xC0 != 0x80 { column += 1 }
            i += 1
        }
        return JSONParseError(line: line, column: column, byteOffset: at, reason: reason)
    }

    private mutating func skipWhitespace() {
        while pos < bytes.count {
            let c = bytes[pos]
            if c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 { pos += 1 } else { break }
        }
    }

    private mutating func parseValue() throws(JSONParseError) -> JSONValue {
        guard pos < bytes.count else { throw error("unexpected end of input, expected a value") }
        switch bytes[pos] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): return try parseLiteral("true", .bool(true))
        case UInt8(ascii: "f"): return try parseLiteral("false", .bool(false))
        case UInt8(ascii: "n"): return try parseLiteral("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default:
            throw error("unexpected character '\(Self.printable(bytes[pos]))', expected a value")
        }
    }

    private static func printable(_ b: UInt8) -> String {
        b >= 0x20 && b < 0x7F ? String(UnicodeScalar(b)) : "\\x" + String(b, radix: 16)
    }

    private mutating func parseLiteral(_ word: StaticString, _ value: JSONValue) throws(JSONParseError) -> JSONValue {
        let w = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        guard pos + w.count <= bytes.count else { throw error("unexpected end of input in literal") }
        for i in 0..<w.count where bytes[pos + i] != w[i] {
            throw error("invalid literal, expected '\(word)'")
        }
        pos += w.count
        return value
    }

    private mutating func parseObject() throws(JSONParseError) -> JSONValue {
        depth += 1
        if depth > Self.maxDepth { throw error("nesting deeper than \(Self.maxDepth) levels") }
        defer { depth -= 1 }
        pos += 1
        var members: [(String, JSONValue)] = []
        skipWhitespace()
        if pos < bytes.count, bytes[pos] == UInt8(ascii: "}") {
            pos += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard pos < bytes.count else { throw error("unexpected end of input in object") }
            guard bytes[pos] == UInt8(ascii: "\"") else { throw error("expected a quoted member name") }
            let keyStart = pos
            let key = try parseString()
            for (k, _) in members where k == key {
                throw error("duplicate member name \"\(key)\"", at: keyStart)
            }
            skipWhitespace()
            guard pos < bytes.count, bytes[pos] == UInt8(ascii: ":") else {
                throw error("expected ':' after member name \"\(key)\"")
            }
            pos += 1
            skipWhitespace()
            let v = try parseValue()
            members.append((key, v))
            skipWhitespace()
            guard pos < bytes.count else { throw error("unexpected end of input in object") }
            if bytes[pos] == UInt8(ascii: ",") {
                pos += 1
                continue
            }
            if bytes[pos] == UInt8(ascii: "}") {
                pos += 1
                return .object(members)
            }
            throw error("expected ',' or '}' in object")
        }
    }

    private mutating func parseArray() throws(JSONParseError) -> JSONValue {
        depth += 1
        if depth > Self.maxDepth { throw error("nesting deeper than \(Self.maxDepth) levels") }
        defer { depth -= 1 }
        pos += 1
        var items: [JSONValue] = []
        skipWhitespace()
        if pos < bytes.count, bytes[pos] == UInt8(ascii: "]") {
            pos += 1
            return .array(items)
        }
        while true {
            skipWhitespace()
            items.append(try parseValue())
            skipWhitespace()
            guard pos < bytes.count else { throw error("unexpected end of input in array") }
            if bytes[pos] == UInt8(ascii: ",") {
                pos += 1
                continue
            }
            if bytes[pos] == UInt8(ascii: "]") {
                pos += 1
                return .array(items)
            }
            throw error("expected ',' or ']' in array")
        }
    }

    private mutating func parseHex4() throws(JSONParseError) -> UInt32 {
        guard pos + 4 <= bytes.count else { throw error("truncated \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = bytes[pos]
            let d: UInt32
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = UInt32(c - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = UInt32(c - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = UInt32(c - UInt8(ascii: "A") + 10)
            default: throw error("invalid hex digit in \\u escape")
            }
            v = v * 16 + d
            pos += 1
        }
        return v
    }

    private mutating func parseString() throws(JSONParseError) -> String {
        pos += 1
        let start = pos
        // Fast path: no escapes.
        while pos < bytes.count {
            let c = bytes[pos]
            if c == UInt8(ascii: "\"") {
                let slice = UnsafeBufferPointer(rebasing: bytes[start..<pos])
                guard let s = JSONParser.validUTF8String(slice) else {
                    throw error("invalid UTF-8 in string", at: start)
                }
                pos += 1
                return s
            }
            if c == UInt8(ascii: "\\") || c < 0x20 { break }
            pos += 1
        }
        var out = [UInt8](bytes[start..<pos])
        while true {
            guard pos < bytes.count else { throw error("unterminated string", at: start - 1) }
            let c = bytes[pos]
            if c == UInt8(ascii: "\"") {
                pos += 1
                break
            }
            if c < 0x20 { throw error("control character in string (must be escaped)") }
            if c != UInt8(ascii: "\\") {
                out.append(c)
                pos += 1
                continue
            }
            pos += 1
            guard pos < bytes.count else { throw error("unterminated escape") }
            let e = bytes[pos]
            pos += 1
            switch e {
            case UInt8(ascii: "\""): out.append(0x22)
            case UInt8(ascii: "\\"): out.append(0x5C)
            case UInt8(ascii: "/"): out.append(0x2F)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var code = try parseHex4()
                if code >= 0xD800 && code < 0xDC00 {
                    guard pos + 6 <= bytes.count, bytes[pos] == UInt8(ascii: "\\"), bytes[pos + 1] == UInt8(ascii: "u")
                    else { throw error("unpaired surrogate in \\u escape") }
                    pos += 2
                    let low = try parseHex4()
                    guard low >= 0xDC00 && low < 0xE000 else { throw error("invalid low surrogate in \\u escape") }
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                } else if code >= 0xDC00 && code < 0xE000 {
                    throw error("unpaired surrogate in \\u escape")
                }
                guard let scalar = Unicode.Scalar(code) else { throw error("invalid code point in \\u escape") }
                out.append(contentsOf: Array(String(scalar).utf8))
            default:
                throw error("invalid escape '\\\(Self.printable(e))'")
            }
        }
        guard let s = out.withUnsafeBufferPointer({ JSONParser.validUTF8String($0) }) else {
            throw error("invalid UTF-8 in string", at: start)
        }
        return s
    }

    /// The string of valid UTF-8 bytes, or nil. (`String(validating:as:)` takes a slow generic
    /// path here, costing most of the time of parsing GeoJSON.)
    @inline(__always)
    static func validUTF8String(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        guard let base = bytes.baseAddress else { return "" }
        if UTF8Check.firstInvalid(base, count: bytes.count) != nil { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    private mutating func parseNumber() throws(JSONParseError) -> Double {
        let start = pos
        if bytes[pos] == UInt8(ascii: "-") { pos += 1 }
        guard pos < bytes.count else { throw error("truncated number") }
        if bytes[pos] == UInt8(ascii: "0") {
            pos += 1
        } else if bytes[pos] >= UInt8(ascii: "1") && bytes[pos] <= UInt8(ascii: "9") {
            while pos < bytes.count, bytes[pos] >= UInt8(ascii: "0"), bytes[pos] <= UInt8(ascii: "9") { pos += 1 }
        } else {
            throw error("invalid number")
        }
        if pos < bytes.count, bytes[pos] == UInt8(ascii: ".") {
            pos += 1
            let digits = pos
            while pos < bytes.count, bytes[pos] >= UInt8(ascii: "0"), bytes[pos] <= UInt8(ascii: "9") { pos += 1 }
            if pos == digits { throw error("expected digits after '.' in number") }
        }
        if pos < bytes.count, bytes[pos] == UInt8(ascii: "e") || bytes[pos] == UInt8(ascii: "E") {
            pos += 1
            if pos < bytes.count, bytes[pos] == UInt8(ascii: "+") || bytes[pos] == UInt8(ascii: "-") { pos += 1 }
            let digits = pos
            while pos < bytes.count, bytes[pos] >= UInt8(ascii: "0"), bytes[pos] <= UInt8(ascii: "9") { pos += 1 }
            if pos == digits { throw error("expected digits in exponent") }
        }
        guard let d = DecimalParser.parse(UnsafeBufferPointer(rebasing: bytes[start..<pos])) else {
            throw error("number out of range", at: start)
        }
        if !d.isFinite && !saturating { throw error("number out of range", at: start) }
        return d
    }
}
