#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A small streaming XML tokenizer: start tags with attributes (entities decoded), end tags,
/// self-closing tags. Text, comments, processing instructions, CDATA and DOCTYPE are skipped.
///
/// It checks what matters for reading data safely — tags nest and match, attributes are
/// well-formed, entities are known, the input ends with every element closed — and reports
/// violations with line and byte offset. One markup token may be at most 1 MiB long, so memory
/// stays bounded whatever the input. Names and values returned for a token are valid until the
/// next call to ``next()``.
final class XMLTokenizer {
    enum Event {
        case start
        case end
        case endOfInput
    }

    static let maxMarkup = 1 << 20
    private static let initialCapacity = 1 << 18

    let path: String
    /// The input; its fields go by these names below.
    private var window: ByteWindow
    private var buffer: UnsafeMutablePointer<UInt8> { window.bytes }
    /// First unconsumed byte and end of valid data in `buffer`.
    private var start: Int {
        get { window.pos }
        set { window.pos = newValue }
    }
    private var fill: Int { window.end }
    /// Stream offset of `buffer[0]`.
    private var bufferBase: UInt64 { window.base }
    /// Line number at `start`.
    private var line: UInt64 = 1

    /// Line and stream offset of the current token's `<`.
    private(set) var tokenLine: UInt64 = 1
    private(set) var tokenOffset: UInt64 = 0
    /// Name of the current start or end tag.
    private(set) var name = UnsafeRawBufferPointer(start: nil, count: 0)
    /// Whether the current start tag is self-closing (`<tag …/>`; no end event follows).
    private(set) var isSelfClosing = false
    /// Number of open elements around the current token (0 for the root element).
    private(set) var depth = 0

    private struct Attribute {
        var nameStart: Int
        var nameCount: Int
        var valueStart: Int
        var valueCount: Int
        /// The value holds entities or literal line breaks/tabs to be normalised.
        var needsDecoding: Bool
    }
    private var attributes: [Attribute] = []
    /// Names of open elements (concatenated) with their start lines, for end-tag matching.
    private var openNames: [UInt8] = []
    private var openElements: [(nameEnd: Int, line: UInt64)] = []
    private var sawRoot = false

    init(reader: ByteReader) {
        path = reader.path
        window = ByteWindow(reader: reader, capacity: XMLTokenizer.initialCapacity)
    }

    deinit { window.deallocate() }

    /// Stream offset just past the last consumed token.
    var consumedOffset: UInt64 { bufferBase + UInt64(start) }

    func malformed(_ what: String, line: UInt64? = nil, offset: UInt64? = nil) -> InputError {
        .unsupported(
            path: path,
            reason: "malformed XML at line \(line ?? tokenLine) (byte \(offset ?? tokenOffset)): \(what)")
    }

    /// Whether the current tag's name is `bytes`.
    func nameIs(_ bytes: [UInt8]) -> Bool {
        name.count == bytes.count
            && bytes.withUnsafeBytes { memcmp($0.baseAddress!, name.baseAddress!, bytes.count) == 0 }
    }

    /// The decoded value of attribute `key` of the current start tag, or nil.
    func attribute(_ key: [UInt8]) -> UnsafeRawBufferPointer? {
        for a in attributes where a.nameCount == key.count {
            let matches = key.withUnsafeBufferPointer { k in memcmp(buffer + a.nameStart, k.baseAddress!, k.count) == 0
            }
            if matches { return UnsafeRawBufferPointer(start: buffer + a.valueStart, count: a.valueCount) }
        }
        return nil
    }

    // MARK: Buffer

    /// Moves unconsumed bytes to the front and reads more; false at the end of the input. The
    /// window grows up to `maxMarkup`: unconsumed bytes that fill it are one overlong token.
    private func refill() throws -> Bool {
        if window.atEOF { return false }
        if fill - start >= XMLTokenizer.maxMarkup {
            throw malformed("markup longer than 1 MiB (missing '>'?)", line: line, offset: window.absolutePosition)
        }
        // On a copy: an access to `window` that lasts through the read would cost every other
        // access to it a dynamic exclusivity check.
        var w = window
        defer { window = w }
        return try w.refill() > 0
    }

    @inline(__always)
    private func countLines(_ from: Int, _ to: Int) { line += window.newlines(from: from, to: to) }

    /// Consumes input up to and including `terminator` (comments, PIs, CDATA), without keeping it.
    private func skip(past terminator: [UInt8], what: String) throws {
        let openLine = tokenLine
        let openOffset = tokenOffset
        while true {
            var i = start
            let last = fill - terminator.count
            while i <= last {
                if buffer[i] == terminator[0] {
                    var k = 1
                    while k < terminator.count && buffer[i + k] == terminator[k] { k += 1 }
                    if k == terminator.count {
                        countLines(start, i + k)
                        start = i + k
                        return
                    }
                }
                i += 1
            }
            // Keep a possible partial terminator at the end of the buffer.
            let keep = max(start, fill - (terminator.count - 1))
            countLines(start, keep)
            start = keep
            guard try refill() else {
                throw malformed("\(what) is not closed before the end of the file", line: openLine, offset: openOffset)
            }
        }
    }

    // MARK: Tokens

    /// The next start or end tag, or the end of the input.
    func next() throws -> Event {
        while true {
            // Text up to the next '<' is skipped; outside the root element only white space (and a
            // byte-order mark at the very start) is allowed, which also rejects non-XML files early.
            var lt = start
            while lt < fill && buffer[lt] != UInt8(ascii: "<") { lt += 1 }
            if openElements.isEmpty {
                var k = start
                if k == 0 && window.startsWithByteOrderMark { k = 3 }
                while k < lt && XMLTokenizer.isSpace(buffer[k]) { k += 1 }
                if k < lt {
                    countLines(start, k)
                    throw malformed(
                        sawRoot ? "text after the root element" : "text before the first element (not an XML file?)",
                        line: line, offset: bufferBase + UInt64(k))
                }
            }
            countLines(start, lt)
            start = lt
            if lt == fill {
                if try refill() { continue }
                return try finish()
            }
            tokenLine = line
            tokenOffset = bufferBase + UInt64(start)
            while fill - start < 2 {
                guard try refill() else { throw malformed("file ends inside markup") }
            }
            let second = buffer[start + 1]
            if second == UInt8(ascii: "?") {
                try skip(past: Array("?>".utf8), what: "processing instruction")
                continue
            }
            if second == UInt8(ascii: "!") {
                try skipDeclaration()
                continue
            }
            var complete: Event?
            while true {
                complete = try second == UInt8(ascii: "/") ? parseEndTag() : parseStartTag()
                if complete != nil { break }
                guard try refill() else { throw malformed("file ends inside a tag") }
            }
            return complete!
        }
    }

    /// `<!-- … -->`, `<![CDATA[ … ]]>`, `<!DOCTYPE …>`.
    private func skipDeclaration() throws {
        while fill - start < 9, try refill() {}
        func startsWith(_ text: String) -> Bool {
            let bytes = Array(text.utf8)
            guard fill - start >= bytes.count else { return false }
            for (k, b) in bytes.enumerated() where buffer[start + k] != b { return false }
            return true
        }
        if startsWith("<!--") {
            start += 4
            try skip(past: Array("-->".utf8), what: "comment")
        } else if startsWith("<![CDATA[") {
            start += 9
            try skip(past: Array("]]>".utf8), what: "CDATA section")
        } else if startsWith("<!DOCTYPE") {
            // An internal subset could declare entities; OSM files never have one.
            while true {
                var i = start
                while i < fill && buffer[i] != UInt8(ascii: ">") && buffer[i] != UInt8(ascii: "[") { i += 1 }
                if i < fill {
                    guard buffer[i] == UInt8(ascii: ">") else {
                        throw malformed("DOCTYPE with an internal subset is not supported")
                    }
                    countLines(start, i + 1)
                    start = i + 1
                    return
                }
                guard fill - start < XMLTokenizer.maxMarkup, try refill() else {
                    throw malformed("DOCTYPE is not closed")
                }
            }
        } else {
            throw malformed("unknown markup declaration")
        }
    }

    @inline(__always)
    private static func isSpace(_ c: UInt8) -> Bool {
        c == 0x20 || c == 0x0A || c == 0x09 || c == 0x0D
    }

    @inline(__always)
    private static func endsName(_ c: UInt8) -> Bool {
        isSpace(c) || c == UInt8(ascii: ">") || c == UInt8(ascii: "/") || c == UInt8(ascii: "=")
    }

    /// Parses `<name attr="v" …>` or `<name …/>` at `start`; nil when the buffer ends first.
    private func parseStartTag() throws -> Event? {
        attributes.removeAll(keepingCapacity: true)
        var i = start + 1
        let nameStart = i
        while i < fill && !XMLTokenizer.endsName(buffer[i]) { i += 1 }
        guard i < fill else { return nil }
        guard i > nameStart else { throw malformed("'<' not followed by a tag name") }
        let nameCount = i - nameStart
        var selfClosing = false
        while true {
            while i < fill && XMLTokenizer.isSpace(buffer[i]) { i += 1 }
            guard i < fill else { return nil }
            let c = buffer[i]
            if c == UInt8(ascii: ">") {
                i += 1
                break
            }
            if c == UInt8(ascii: "/") {
                guard i + 1 < fill else { return nil }
                guard buffer[i + 1] == UInt8(ascii: ">") else {
                    throw malformed("'/' inside a tag not followed by '>'")
                }
                selfClosing = true
                i += 2
                break
            }
            // attribute name
            let attrStart = i
            while i < fill && !XMLTokenizer.endsName(buffer[i]) { i += 1 }
            guard i < fill else { return nil }
            guard i > attrStart else { throw malformed("unexpected '\(Character(Unicode.Scalar(c)))' in a tag") }
            let attrCount = i - attrStart
            while i < fill && XMLTokenizer.isSpace(buffer[i]) { i += 1 }
            guard i < fill else { return nil }
            guard buffer[i] == UInt8(ascii: "=") else { throw malformed("attribute without '=' and a value") }
            i += 1
            while i < fill && XMLTokenizer.isSpace(buffer[i]) { i += 1 }
            guard i < fill else { return nil }
            let quote = buffer[i]
            guard quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else {
                throw malformed("attribute value not in quotes")
            }
            i += 1
            let valueStart = i
            var needsDecoding = false
            while i < fill && buffer[i] != quote {
                let v = buffer[i]
                if v == UInt8(ascii: "&") || v == 0x0A || v == 0x09 || v == 0x0D { needsDecoding = true }
                if v == UInt8(ascii: "<") { throw malformed("'<' inside an attribute value") }
                i += 1
            }
            guard i < fill else { return nil }
            attributes.append(
                Attribute(
                    nameStart: attrStart, nameCount: attrCount, valueStart: valueStart, valueCount: i - valueStart,
                    needsDecoding: needsDecoding))
            i += 1
            guard i < fill else { return nil }
            guard XMLTokenizer.isSpace(buffer[i]) || buffer[i] == UInt8(ascii: ">") || buffer[i] == UInt8(ascii: "/")
            else {
                throw malformed("attributes must be separated by white space")
            }
        }
        // The tag is complete. Count its lines before decoding, which may turn `&#10;` into a
        // line feed. Then decode values in place (decoded text is never longer than its source,
        // and the tag is not parsed again, so nothing is decoded twice).
        countLines(start, i)
        for k in attributes.indices where attributes[k].needsDecoding {
            attributes[k].valueCount = try decodeInPlace(attributes[k].valueStart, attributes[k].valueCount)
        }
        if openElements.isEmpty {
            if sawRoot { throw malformed("a second root element after the first one ended") }
            sawRoot = true
        }
        depth = openElements.count
        name = UnsafeRawBufferPointer(start: buffer + nameStart, count: nameCount)
        isSelfClosing = selfClosing
        if !selfClosing {
            guard openElements.count < 256 else { throw malformed("elements nested more than 256 deep") }
            openNames.append(contentsOf: UnsafeBufferPointer(start: buffer + nameStart, count: nameCount))
            openElements.append((openNames.count, tokenLine))
        }
        start = i
        return .start
    }

    /// Parses `</name>` at `start`; nil when the buffer ends first.
    private func parseEndTag() throws -> Event? {
        var i = start + 2
        let nameStart = i
        while i < fill && !XMLTokenizer.endsName(buffer[i]) { i += 1 }
        let nameCount = i - nameStart
        while i < fill && XMLTokenizer.isSpace(buffer[i]) { i += 1 }
        guard i < fill else { return nil }
        guard buffer[i] == UInt8(ascii: ">"), nameCount > 0 else { throw malformed("malformed end tag") }
        i += 1
        let tagName = UnsafeRawBufferPointer(start: buffer + nameStart, count: nameCount)
        guard let open = openElements.last else {
            throw malformed("end tag </\(String(decoding: tagName, as: UTF8.self))> without a start tag")
        }
        let openStart = openElements.count > 1 ? openElements[openElements.count - 2].nameEnd : 0
        let matches =
            open.nameEnd - openStart == nameCount
            && openNames.withUnsafeBytes { memcmp($0.baseAddress! + openStart, buffer + nameStart, nameCount) == 0 }
        guard matches else {
            let expected = openNames.withUnsafeBytes {
                String(decoding: UnsafeRawBufferPointer(rebasing: $0[openStart..<open.nameEnd]), as: UTF8.self)
            }
            throw malformed(
                "end tag </\(String(decoding: tagName, as: UTF8.self))> does not match <\(expected)> "
                    + "opened at line \(open.line)"
            )
        }
        openElements.removeLast()
        openNames.removeLast(open.nameEnd - openStart)
        depth = openElements.count
        name = tagName
        isSelfClosing = false
        countLines(start, i)
        start = i
        return .end
    }

    private func finish() throws -> Event {
        tokenLine = line
        tokenOffset = bufferBase + UInt64(fill)
        if let open = openElements.last {
            let openStart = openElements.count > 1 ? openElements[openElements.count - 2].nameEnd : 0
            let name = openNames.withUnsafeBytes {
                String(decoding: UnsafeRawBufferPointer(rebasing: $0[openStart..<open.nameEnd]), as: UTF8.self)
            }
            throw malformed("the file ends before <\(name)> opened at line \(open.line) is closed (truncated?)")
        }
        guard sawRoot else { throw malformed("no XML element in the file") }
        return .endOfInput
    }

    /// Decodes the attribute value at `buffer[from..<from+count]` in place — entities replaced,
    /// literal white space normalised to spaces (XML attribute-value normalisation) — and returns
    /// the decoded length.
    private func decodeInPlace(_ from: Int, _ count: Int) throws -> Int {
        let to = from + count
        var i = from
        var out = from
        while i < to {
            let c = buffer[i]
            if c == UInt8(ascii: "&") {
                var end = i + 1
                while end < to && buffer[end] != UInt8(ascii: ";") && end - i < 12 { end += 1 }
                guard end < to, buffer[end] == UInt8(ascii: ";") else { throw malformed("'&' not starting an entity") }
                let decoded = try entity(UnsafeBufferPointer(start: buffer + i + 1, count: end - i - 1))
                // Every entity is longer than its UTF-8 expansion, so `out` stays behind `i`.
                for b in decoded {
                    buffer[out] = b
                    out += 1
                }
                i = end + 1
            } else if c == 0x0D {
                buffer[out] = 0x20
                out += 1
                i += (i + 1 < to && buffer[i + 1] == 0x0A) ? 2 : 1
            } else {
                buffer[out] = c == 0x0A || c == 0x09 ? 0x20 : c
                out += 1
                i += 1
            }
        }
        return out - from
    }

    /// The UTF-8 bytes of the entity `&e;`.
    private func entity(_ e: UnsafeBufferPointer<UInt8>) throws -> String.UTF8View {
        func equals(_ s: StaticString) -> Bool {
            s.utf8CodeUnitCount == e.count && memcmp(s.utf8Start, e.baseAddress!, e.count) == 0
        }
        if equals("amp") { return "&".utf8 }
        if equals("lt") { return "<".utf8 }
        if equals("gt") { return ">".utf8 }
        if equals("quot") { return "\"".utf8 }
        if equals("apos") { return "'".utf8 }
        let text = String(decoding: e, as: UTF8.self)
        guard e.count >= 2, e[0] == UInt8(ascii: "#") else { throw malformed("unknown entity &\(text);") }
        var value: UInt32 = 0
        let hex = e[1] == UInt8(ascii: "x")
        var k = hex ? 2 : 1
        guard k < e.count else { throw malformed("empty character reference &\(text);") }
        while k < e.count {
            let d = e[k]
            let digit: UInt32
            switch d {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(d - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f") where hex: digit = UInt32(d - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F") where hex: digit = UInt32(d - UInt8(ascii: "A") + 10)
            default: throw malformed("bad character reference &\(text);")
            }
            value = value * (hex ? 16 : 10) + digit
            guard value <= 0x10FFFF else { throw malformed("character reference &\(text); is beyond Unicode") }
            k += 1
        }
        // XML's Char production: no NUL, no C0 controls but tab/LF/CR, no surrogates, no U+FFFE/FFFF.
        let allowed =
            value == 0x9 || value == 0xA || value == 0xD || (value >= 0x20 && value <= 0xD7FF)
            || (value >= 0xE000 && value <= 0xFFFD) || value >= 0x10000
        guard allowed, let scalar = Unicode.Scalar(value) else {
            throw malformed("character reference &\(text); is not an allowed XML character")
        }
        return String(Character(scalar)).utf8
    }
}
