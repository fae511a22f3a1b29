import Foundation

/// Splits one keyword field into keyword values, dropping missing-value markers.
///
/// Rules (see ``InputSpec/KeywordSplit``):
/// - `plain`: the trimmed value is one keyword.
/// - `hierarchy`: split at the separator; every non-empty trimmed part is a keyword.
/// - `list`: a Python or JSON list literal. Items are single- or double-quoted strings with
///   backslash escapes (`\\ \' \" \n \t \r \b \f \/ \xHH \uHHHH \UHHHHHHHH`, JSON surrogate pairs;
///   an unknown escape keeps its backslash, as Python does; a `u` prefix is allowed) or bare
///   tokens (numbers, `None`, `null`; `None`/`null` are missing). Whitespace and a trailing comma
///   are allowed. A value that is not a well-formed flat list is kept whole, as `plain`.
/// - `auto`: `list` when the trimmed value starts with `[` and ends with `]`, else `hierarchy`.
/// - `hstore`: OSM tags in PostgreSQL hstore text, `"amenity"=>"cafe", "cuisine"=>"a;b"` (pairs
///   separated by commas; keys and values double-quoted with `\"` and `\\` escapes; a value may
///   be `NULL`). Only the tags of the OSM readers' default keyword keys (``OSMOptions``: amenity,
///   shop, cuisine, tourism, …) give values, by the OSM readers' rules: split at `;`, `yes`
///   replaced by the key, each value with its tag key (``ValueSlice/key``); addresses, websites,
///   opening hours and the like are left out. A value cut short (files that truncate long
///   cells: 581 of Chicago's 7,626 `other_tags` end at 255 characters) keeps its complete pairs,
///   and of a tag value cut in the middle the `;`-parts before the last (which may be cut); a
///   value that does not start as hstore is kept whole, as `plain`.
///
/// Every resulting value is trimmed and dropped when empty or equal to a missing-value marker.
struct KeywordSplitter: Sendable {
    private let missing: MissingValues

    public init(missingValues: [String]) {
        missing = MissingValues(missingValues)
    }

    /// A keyword value found by ``collect(_:mode:separator:into:scratch:)``: a byte range of the
    /// field, or of `scratch` (list items that had escapes).
    struct ValueSlice: Sendable {
        public var start: Int32
        public var count: Int32
        var inScratch: Bool
        /// `hstore` values: the tag key, an index into ``hstoreKeys``; -1: the field's own key.
        var key: Int16 = -1
    }

    /// The tag keys whose values `hstore` keeps (the OSM readers' default keyword keys).
    static let hstoreKeys: [[UInt8]] = OSMOptions.defaultKeywordKeys.map { Array($0.utf8) }

    /// Appends the keyword values of `field` to `values` (without a closure, so hot callers
    /// need not copy anything); unescaped list items are stored in `scratch`.
    @inline(__always)
    func collect(
        _ field: UnsafeBufferPointer<UInt8>, mode: InputSpec.KeywordSplit, separator: UnsafeBufferPointer<UInt8>,
        into values: inout [ValueSlice], scratch: inout [UInt8]
    ) {
        let value = field.trimmingASCIIWhitespace()
        if value.isEmpty { return }
        let base = field.baseAddress!
        switch mode {
        case .plain:
            emit(value, base, &values)
        case .hierarchy:
            splitAtSeparator(value, base, separator: separator, &values)
        case .list:
            if !parseList(value, base, &values, &scratch) { emit(value, base, &values) }
        case .hstore:
            if !parseHStore(value, base, &values, &scratch) { emit(value, base, &values) }
        case .auto:
            if value[0] == UInt8(ascii: "["), value[value.count - 1] == UInt8(ascii: "]"),
                parseList(value, base, &values, &scratch)
            {
                return
            }
            splitAtSeparator(value, base, separator: separator, &values)
        }
    }

    /// Calls `body` with each keyword value of `field`, in order, and its ``ValueSlice/key``.
    func forEachValue(
        _ field: UnsafeBufferPointer<UInt8>, mode: InputSpec.KeywordSplit, separator: UnsafeBufferPointer<UInt8>,
        _ body: (UnsafeBufferPointer<UInt8>, Int16) -> Void
    ) {
        var values: [ValueSlice] = []
        var scratch: [UInt8] = []
        collect(field, mode: mode, separator: separator, into: &values, scratch: &scratch)
        scratch.withUnsafeBufferPointer { s in
            for v in values { body(Self.bytes(v, field: field, scratch: s), v.key) }
        }
    }

    /// The bytes of a collected value.
    @inline(__always)
    public static func bytes(_ v: ValueSlice, field: UnsafeBufferPointer<UInt8>, scratch: UnsafeBufferPointer<UInt8>)
        -> UnsafeBufferPointer<UInt8>
    {
        let base = v.inScratch ? scratch.baseAddress : field.baseAddress
        return UnsafeBufferPointer(start: base.map { $0 + Int(v.start) }, count: Int(v.count))
    }

    /// Appends the keyword values of `field` to `out` as strings.
    public func split(
        _ field: UnsafeBufferPointer<UInt8>, mode: InputSpec.KeywordSplit, separator: [UInt8], into out: inout [String]
    ) {
        separator.withUnsafeBufferPointer { sep in
            forEachValue(field, mode: mode, separator: sep) { v, _ in out.append(String(decoding: v, as: UTF8.self)) }
        }
    }

    /// Appends the keyword values of `field` to `out` and the key of each to `keys`: the tag key
    /// of an `hstore` value, else `key`.
    func split(
        _ field: UnsafeBufferPointer<UInt8>, mode: InputSpec.KeywordSplit, separator: [UInt8], key: String,
        into out: inout [String], keys: inout [String]
    ) {
        separator.withUnsafeBufferPointer { sep in
            forEachValue(field, mode: mode, separator: sep) { v, k in
                out.append(String(decoding: v, as: UTF8.self))
                keys.append(k >= 0 ? String(decoding: Self.hstoreKeys[Int(k)], as: UTF8.self) : key)
            }
        }
    }

    /// Whether a whole field is a missing-value marker (or empty after trimming).
    @inline(__always)
    public func isMissing(_ field: UnsafeBufferPointer<UInt8>) -> Bool {
        missing.contains(field.trimmingASCIIWhitespace())
    }

    @inline(__always)
    private func emit(_ value: UnsafeBufferPointer<UInt8>, _ base: UnsafePointer<UInt8>, _ values: inout [ValueSlice]) {
        let v = value.trimmingASCIIWhitespace()
        if missing.contains(v) { return }
        values.append(ValueSlice(start: Int32(v.baseAddress! - base), count: Int32(v.count), inScratch: false))
    }

    @inline(__always)
    private func splitAtSeparator(
        _ value: UnsafeBufferPointer<UInt8>, _ base: UnsafePointer<UInt8>, separator: UnsafeBufferPointer<UInt8>,
        _ values: inout [ValueSlice]
    ) {
        guard let first = separator.first else {
            emit(value, base, &values)
            return
        }
        let n = value.count
        let m = separator.count
        if m == 1 && memchr(value.baseAddress!, Int32(first), n) == nil {
            emit(value, base, &values)
            return
        }
        var start = 0
        var i = 0
        while i < n {
            if value[i] == first, i + m <= n, m == 1 || separator.indices.allSatisfy({ value[i + $0] == separator[$0] })
            {
                emit(UnsafeBufferPointer(rebasing: value[start..<i]), base, &values)
                i += m
                start = i
            } else {
                i += 1
            }
        }
        emit(UnsafeBufferPointer(rebasing: value[start..<n]), base, &values)
    }

    /// Parses a flat list literal; on success appends its items and returns true. On failure
    /// nothing is appended.
    private func parseList(
        _ value: UnsafeBufferPointer<UInt8>, _ base: UnsafePointer<UInt8>, _ values: inout [ValueSlice],
        _ scratch: inout [UInt8]
    ) -> Bool {
        let n = value.count
        guard n >= 2, value[0] == UInt8(ascii: "["), value[n - 1] == UInt8(ascii: "]") else { return false }
        let savedValues = values.count
        let savedScratch = scratch.count
        func fail() -> Bool {
            values.removeSubrange(savedValues...)
            scratch.removeSubrange(savedScratch...)
            return false
        }
        var i = 1
        let end = n - 1  // index of the closing bracket
        func skipSpace() {
            while i < end, value[i] == 0x20 || value[i] == 0x09 || value[i] == 0x0A || value[i] == 0x0D { i += 1 }
        }
        while true {
            skipSpace()
            if i >= end { break }
            var c = value[i]
            if c == UInt8(ascii: "u") || c == UInt8(ascii: "U"), i + 1 < end,
                value[i + 1] == 0x27 || value[i + 1] == 0x22
            {
                i += 1
                c = value[i]
            }
            if c == 0x27 || c == 0x22 {  // ' or "
                let itemStart = scratch.count
                guard let after = Self.parseQuoted(value, from: i, end: end, into: &scratch) else { return fail() }
                i = after
                // Trim and drop markers within scratch.
                var lo = itemStart
                var hi = scratch.count
                while lo < hi, scratch[lo] == 0x20 || scratch[lo] == 0x09 || scratch[lo] == 0x0A || scratch[lo] == 0x0D
                { lo += 1 }
                while hi > lo,
                    scratch[hi - 1] == 0x20 || scratch[hi - 1] == 0x09 || scratch[hi - 1] == 0x0A
                        || scratch[hi - 1] == 0x0D
                { hi -= 1 }
                let isMarker = scratch.withUnsafeBufferPointer {
                    missing.contains(UnsafeBufferPointer(rebasing: $0[lo..<hi]))
                }
                if isMarker {
                    scratch.removeSubrange(itemStart...)
                } else {
                    values.append(ValueSlice(start: Int32(lo), count: Int32(hi - lo), inScratch: true))
                }
            } else if c == UInt8(ascii: ",") || c == UInt8(ascii: "[") || c == UInt8(ascii: "]")
                || c == UInt8(ascii: "{")
            {
                return fail()
            } else {
                let start = i
                while i < end, value[i] != UInt8(ascii: ","), value[i] != 0x27, value[i] != 0x22,
                    value[i] != UInt8(ascii: "[")
                {
                    i += 1
                }
                if i < end, value[i] != UInt8(ascii: ",") { return fail() }
                let token = UnsafeBufferPointer(rebasing: value[start..<i]).trimmingASCIIWhitespace()
                if !(token.elementsEqual("None".utf8) || token.elementsEqual("null".utf8)) {
                    emit(token, base, &values)
                }
            }
            skipSpace()
            if i >= end { break }
            guard value[i] == UInt8(ascii: ",") else { return fail() }
            i += 1
        }
        return true
    }

    /// Parses hstore text (see the type documentation) and appends the values of the keyword
    /// keys' tags of its complete pairs; false (nothing appended) when not even the first pair
    /// is complete.
    private func parseHStore(
        _ value: UnsafeBufferPointer<UInt8>, _ base: UnsafePointer<UInt8>, _ values: inout [ValueSlice],
        _ scratch: inout [UInt8]
    ) -> Bool {
        let n = value.count
        var pairs = 0
        // Where a pair breaks off, the pairs before it stand (the tail was cut).
        func fail() -> Bool { pairs > 0 }
        let offset = value.baseAddress! - base
        var i = 0
        func skipSpace() {
            while i < n, value[i] == 0x20 || value[i] == 0x09 || value[i] == 0x0A || value[i] == 0x0D { i += 1 }
        }
        /// The quoted string at `i` (its contents' range, whether it has escapes); `i` moves past it.
        func quoted() -> (range: Range<Int>, escaped: Bool)? {
            guard i < n, value[i] == 0x22 else { return nil }
            var j = i + 1
            var escaped = false
            while j < n {
                if value[j] == 0x5C {
                    escaped = true
                    j += 2
                    continue
                }
                if value[j] == 0x22 {
                    defer { i = j + 1 }
                    return ((i + 1)..<j, escaped)
                }
                j += 1
            }
            return nil
        }
        while true {
            skipSpace()
            if i >= n { break }
            guard let key = quoted() else { return fail() }
            skipSpace()
            guard i + 1 < n, value[i] == UInt8(ascii: "="), value[i + 1] == UInt8(ascii: ">") else { return fail() }
            i += 2
            skipSpace()
            var tag: (range: Range<Int>, escaped: Bool)?
            if let q = quoted() {
                tag = q
            } else if i < n, value[i] == 0x22 {
                // The text ends inside this tag value: its parts before the last one are whole.
                if !key.escaped, let k = Self.hstoreKeys.firstIndex(where: { $0.elementsEqual(value[key.range]) }),
                    let cut = value[(i + 1)...].lastIndex(of: UInt8(ascii: ";"))
                {
                    let range = (i + 1)..<cut
                    let escaped = value[range].contains(0x5C)
                    appendTagValues(
                        value, (range, escaped), key: Int16(k), keyRange: key.range, offset: offset, &values, &scratch)
                }
                return true
            } else if i + 4 <= n, UnsafeBufferPointer(rebasing: value[i..<(i + 4)]).elementsEqual("NULL".utf8) {
                i += 4
            } else {
                return fail()
            }
            pairs += 1
            if let tag, !key.escaped,
                let k = Self.hstoreKeys.firstIndex(where: { $0.elementsEqual(value[key.range]) })
            {
                appendTagValues(
                    value, tag, key: Int16(k), keyRange: key.range, offset: offset, &values, &scratch)
            }
            skipSpace()
            if i >= n { break }
            guard value[i] == UInt8(ascii: ",") else { return fail() }
            i += 1
        }
        return true
    }

    /// The values of one hstore tag (split at `;`, trimmed; `yes` becomes the key), unescaped
    /// into `scratch` when the tag value has escapes.
    private func appendTagValues(
        _ value: UnsafeBufferPointer<UInt8>, _ tag: (range: Range<Int>, escaped: Bool), key: Int16,
        keyRange: Range<Int>, offset: Int, _ values: inout [ValueSlice], _ scratch: inout [UInt8]
    ) {
        var source = UnsafeBufferPointer(rebasing: value[tag.range])
        var unescaped: [UInt8] = []
        if tag.escaped {
            var j = 0
            while j < source.count {
                if source[j] == 0x5C && j + 1 < source.count { j += 1 }
                unescaped.append(source[j])
                j += 1
            }
        }
        let scratchStart = scratch.count
        if tag.escaped { scratch += unescaped }
        unescaped.withUnsafeBufferPointer { u in
            if tag.escaped { source = u }
            var start = 0
            while start <= source.count {
                var stop = start
                while stop < source.count, source[stop] != UInt8(ascii: ";") { stop += 1 }
                let part = UnsafeBufferPointer(rebasing: source[start..<stop]).trimmingASCIIWhitespace()
                start = stop + 1
                if missing.contains(part) { continue }
                if part.elementsEqual("yes".utf8) {
                    values.append(
                        ValueSlice(
                            start: Int32(offset + keyRange.lowerBound), count: Int32(keyRange.count), inScratch: false,
                            key: key))
                    continue
                }
                let at = part.baseAddress! - source.baseAddress!
                let s = tag.escaped ? scratchStart + at : offset + tag.range.lowerBound + at
                values.append(ValueSlice(start: Int32(s), count: Int32(part.count), inScratch: tag.escaped, key: key))
            }
        }
    }

    /// Parses a quoted string starting at `start` (the quote) into `out`; returns the index
    /// after the closing quote, or nil when it is unterminated.
    private static func parseQuoted(_ v: UnsafeBufferPointer<UInt8>, from start: Int, end: Int, into out: inout [UInt8])
        -> Int?
    {
        let q = v[start]
        var i = start + 1
        while i < end {
            let c = v[i]
            if c == q { return i + 1 }
            if c != UInt8(ascii: "\\") {
                out.append(c)
                i += 1
                continue
            }
            guard i + 1 < end else { return nil }
            let e = v[i + 1]
            i += 2
            switch e {
            case UInt8(ascii: "\\"), 0x27, 0x22, UInt8(ascii: "/"): out.append(e)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "x"), UInt8(ascii: "u"), UInt8(ascii: "U"):
                let digits = e == UInt8(ascii: "x") ? 2 : (e == UInt8(ascii: "u") ? 4 : 8)
                guard var code = hexValue(v, at: i, digits: digits, end: end) else {
                    out.append(UInt8(ascii: "\\"))
                    out.append(e)
                    continue
                }
                i += digits
                if e == UInt8(ascii: "u"), code >= 0xD800, code < 0xDC00, i + 6 <= end, v[i] == UInt8(ascii: "\\"),
                    v[i + 1] == UInt8(ascii: "u"), let low = hexValue(v, at: i + 2, digits: 4, end: end), low >= 0xDC00,
                    low < 0xE000
                {
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    i += 6
                }
                let scalar = Unicode.Scalar(code) ?? "\u{FFFD}"
                out.append(contentsOf: String(scalar).utf8)
            default:
                out.append(UInt8(ascii: "\\"))
                out.append(e)
            }
        }
        return nil
    }

    private static func hexValue(_ v: UnsafeBufferPointer<UInt8>, at i: Int, digits: Int, end: Int) -> UInt32? {
        guard i + digits <= end else { return nil }
        var code: UInt32 = 0
        for k in 0..<digits {
            let c = v[i + k]
            let d: UInt32
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = UInt32(c - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = UInt32(c - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = UInt32(c - UInt8(ascii: "A") + 10)
            default: return nil
            }
            code = code << 4 | d
        }
        return code
    }
}

/// A set of missing-value markers, compared byte for byte. The empty value is always missing.
struct MissingValues: Sendable {
    private let values: [[UInt8]]
    /// Bit i set when some marker has i bytes (i < 64), and the markers' first bytes: cheap
    /// pre-checks, since most values are not markers.
    private let lengths: UInt64
    private let firstBytes: (UInt64, UInt64, UInt64, UInt64)

    init(_ markers: [String]) {
        values = markers.map { Array($0.utf8) }.filter { !$0.isEmpty }
        var mask: UInt64 = 0
        var first: [UInt64] = [0, 0, 0, 0]
        for v in values {
            if v.count < 64 { mask |= 1 << UInt64(v.count) } else { mask |= 1 << 63 }
            first[Int(v[0] >> 6)] |= 1 << UInt64(v[0] & 63)
        }
        lengths = mask
        firstBytes = (first[0], first[1], first[2], first[3])
    }

    @inline(__always)
    func contains(_ v: UnsafeBufferPointer<UInt8>) -> Bool {
        let n = v.count
        if n == 0 { return true }
        if lengths & (1 << UInt64(min(n, 63))) == 0 { return false }
        let c = v[0]
        let word: UInt64
        switch c >> 6 {
        case 0: word = firstBytes.0
        case 1: word = firstBytes.1
        case 2: word = firstBytes.2
        default: word = firstBytes.3
        }
        if word & (1 << UInt64(c & 63)) == 0 { return false }
        for m in values where m.count == n {
            if m.withUnsafeBufferPointer({ memcmp($0.baseAddress!, v.baseAddress!, n) == 0 }) { return true }
        }
        return false
    }
}

extension UnsafeBufferPointer where Element == UInt8 {
    /// The slice without leading and trailing ASCII spaces, tabs, CR and LF.
    @inline(__always)
    func trimmingASCIIWhitespace() -> UnsafeBufferPointer<UInt8> {
        var lo = 0
        var hi = count
        while lo < hi, self[lo] == 0x20 || self[lo] == 0x09 || self[lo] == 0x0A || self[lo] == 0x0D { lo += 1 }
        while hi > lo, self[hi - 1] == 0x20 || self[hi - 1] == 0x09 || self[hi - 1] == 0x0A || self[hi - 1] == 0x0D {
            hi -= 1
        }
        if lo == 0 && hi == count { return self }
        return UnsafeBufferPointer(start: baseAddress.map { $0 + lo }, count: hi - lo)
    }
}
