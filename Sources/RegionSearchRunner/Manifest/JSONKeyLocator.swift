/// Finds where each member and element of a JSON document starts, so that an error about a
/// value ("graph.prune_factr: unknown key") can point at its line and column.
///
/// ``JSONParser`` keeps no positions (artifact metadata and GeoJSON do not need them); this
/// second, position-only pass runs over a manifest that has already parsed cleanly, so it can be
/// lenient. Paths are spelled like error messages: `graph.k`, `inputs[0].path`.
public struct JSONKeyLocator {
    /// A 1-based line and column (in characters, as ``JSONParseError`` counts them).
    public struct Position: Equatable, Sendable, CustomStringConvertible {
        public var line: Int
        public var column: Int
        public var description: String { "\(line):\(column)" }
    }

    private var positions: [String: Position] = [:]

    /// Records the positions of every member name and array element of `bytes`.
    public init(bytes: [UInt8]) {
        var scanner = Scanner(bytes: bytes)
        scanner.skipBOM()
        scanner.skipWhitespace()
        scanner.value(path: "")
        positions = scanner.found
    }

    /// The position of the member name (for object members) or of the value (for array elements)
    /// at `path`; nil when the document has no such path.
    public func position(of path: String) -> Position? { positions[path] }

    /// The position of `path`, or of its closest enclosing value that exists.
    func nearestPosition(of path: String) -> Position? {
        var p = path
        while !p.isEmpty {
            if let found = positions[p] { return found }
            guard let cut = p.lastIndex(where: { $0 == "." || $0 == "[" }) else { break }
            p = String(p[..<cut])
        }
        return positions[""]
    }

    private struct Scanner {
        let bytes: [UInt8]
        var pos = 0
        var line = 1
        var lineStart = 0
        var found: [String: Position] = [:]

        init(bytes: [UInt8]) { self.bytes = bytes }

        var here: Position {
            var column = 1
            var i = lineStart
            while i < pos {
                if bytes[i] & 0xC0 != 0x80 { column += 1 }
                i += 1
            }
            return Position(line: line, column: column)
        }

        mutating func advance() {
            if bytes[pos] == 0x0A {
                line += 1
                lineStart = pos + 1
            }
            pos += 1
        }

        mutating func skipBOM() {
            if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
                pos = 3
                lineStart = 3
            }
        }

        mutating func skipWhitespace() {
            while pos < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[pos]) { advance() }
        }

        mutating func value(path: String) {
            guard pos < bytes.count else { return }
            if found[path] == nil { found[path] = here }
            switch bytes[pos] {
            case UInt8(ascii: "{"): object(path: path)
            case UInt8(ascii: "["): array(path: path)
            case UInt8(ascii: "\""): _ = string()
            default:
                // Numbers and literals: everything up to a delimiter.
                while pos < bytes.count, ![0x2C, 0x5D, 0x7D, 0x20, 0x0A, 0x0D, 0x09].contains(bytes[pos]) { advance() }
            }
        }

        mutating func object(path: String) {
            advance()
            while true {
                skipWhitespace()
                guard pos < bytes.count else { return }
                if bytes[pos] == UInt8(ascii: "}") {
                    advance()
                    return
                }
                if bytes[pos] == UInt8(ascii: ",") {
                    advance()
                    continue
                }
                guard bytes[pos] == UInt8(ascii: "\"") else { return }
                let at = here
                let key = string()
                let memberPath = path.isEmpty ? key : path + "." + key
                if found[memberPath] == nil { found[memberPath] = at }
                skipWhitespace()
                guard pos < bytes.count, bytes[pos] == UInt8(ascii: ":") else { return }
                advance()
                skipWhitespace()
                // The member's own position stays its name (value() keeps the first one seen).
                value(path: memberPath)
            }
        }

        mutating func array(path: String) {
            advance()
            var index = 0
            while true {
                skipWhitespace()
                guard pos < bytes.count else { return }
                if bytes[pos] == UInt8(ascii: "]") {
                    advance()
                    return
                }
                if bytes[pos] == UInt8(ascii: ",") {
                    advance()
                    continue
                }
                value(path: "\(path)[\(index)]")
                index += 1
            }
        }

        /// Reads a string literal (the parser has validated it) and returns its text.
        mutating func string() -> String {
            advance()
            var out: [UInt8] = []
            while pos < bytes.count {
                let c = bytes[pos]
                if c == UInt8(ascii: "\"") {
                    advance()
                    break
                }
                if c == UInt8(ascii: "\\"), pos + 1 < bytes.count {
                    advance()
                    let e = bytes[pos]
                    advance()
                    switch e {
                    case UInt8(ascii: "n"): out.append(0x0A)
                    case UInt8(ascii: "t"): out.append(0x09)
                    case UInt8(ascii: "r"): out.append(0x0D)
                    case UInt8(ascii: "b"): out.append(0x08)
                    case UInt8(ascii: "f"): out.append(0x0C)
                    case UInt8(ascii: "u"):
                        // Keep the escape's scalar when it is a plain BMP character; surrogate
                        // pairs only occur in keys nobody types, and a miss only loses a position.
                        let end = min(pos + 4, bytes.count)
                        let hex = String(decoding: bytes[pos..<end], as: UTF8.self)
                        while pos < end { advance() }
                        if let v = UInt32(hex, radix: 16), let s = Unicode.Scalar(v) { out += Array(String(s).utf8) }
                    default: out.append(e)
                    }
                    continue
                }
                out.append(c)
                advance()
            }
            return String(decoding: out, as: UTF8.self)
        }
    }
}
