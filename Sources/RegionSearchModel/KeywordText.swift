import Foundation

/// Normalisation of keyword text: Unicode NFKC, then full case folding, with control characters
/// turned into spaces and runs of white space collapsed.
///
/// NFKC maps compatibility forms to their plain equivalents (ＣＡＦＥ → CAFE, ⽕锅 → 火锅, ﬁ → fi);
/// case folding makes CAFE, Cafe and cafe equal (and Straße equal to STRASSE). A POI's keyword
/// values are normalised one by one and joined by ``separator``.
///
/// **Keys.** An item of the keyword text may start with a *key code*: one or more bytes from
/// 0x01–0x1F other than 0x0A, naming the tag key, column or property the value came from (index
/// `i` of the pois artifact's `keyword_keys` column, written in base 30 with those bytes as
/// digits, see ``keyCode(_:)``). Normalised values never contain control bytes, so a code is
/// unambiguous, costs one byte for the first 30 keys, and is invisible to plain queries: a
/// control byte is neither a query byte nor a word character, so `parking` finds
/// `<code of fclass>parking` exactly as it finds `parking`. Only `key=value` queries read codes.
public enum KeywordText {
    /// Joins the keyword values of one POI in the `keywords` column.
    public static let separator: Character = "\n"
    public static let separatorByte: UInt8 = 0x0A

    /// The 30 bytes that write key codes, in digit order.
    static let keyDigits: [UInt8] = Array(0x01...0x09) + Array(0x0B...0x1F)

    /// Whether `b` is a key-code byte (0x01–0x1F except the separator 0x0A).
    @inline(__always)
    public static func isKeyCodeByte(_ b: UInt8) -> Bool { b >= 0x01 && b <= 0x1F && b != separatorByte }

    /// The code of key index `index` (≥ 0): its shortest base-30 form, most significant digit
    /// first.
    public static func keyCode(_ index: Int) -> [UInt8] {
        precondition(index >= 0, "key index must not be negative")
        var n = index
        var digits: [UInt8] = []
        repeat {
            digits.append(keyDigits[n % 30])
            n /= 30
        } while n > 0
        return digits.reversed()
    }

    /// The key index written by a code (the inverse of ``keyCode(_:)``).
    static func keyIndex(_ code: some Collection<UInt8>) -> Int {
        code.reduce(0) { $0 * 30 + Int($1 <= 0x09 ? $1 - 0x01 : $1 - 0x02) }
    }

    /// The items of a keyword text: each value with the index of its key (nil: no key).
    public static func items(_ text: String) -> [(key: Int?, value: String)] {
        text.utf8.split(separator: separatorByte).map { item in
            let code = item.prefix(while: isKeyCodeByte)
            let value = String(decoding: item.dropFirst(code.count), as: UTF8.self)
            return (code.isEmpty ? nil : keyIndex(code), value)
        }
    }

    /// The values of a keyword text without their keys, in order.
    public static func values(_ text: String) -> [String] { items(text).map(\.value) }

    /// A keyword text for people: one item a line, `key=value` where it has a key (`keys` is the
    /// pois artifact's key table), the plain value otherwise.
    public static func readable(_ text: String, keys: [String]) -> String {
        items(text).map { item in
            guard let k = item.key else { return item.value }
            return (k < keys.count ? keys[k] : "#\(k)") + "=" + item.value
        }.joined(separator: String(separator))
    }

    /// Normalises one value.
    public static func normalize(_ raw: String) -> String {
        var raw = raw
        let ascii = raw.withUTF8 { isASCII($0) }
        var folded: String
        if ascii {
            folded = raw
        } else {
            folded =
                raw.precomposedStringWithCompatibilityMapping
                .folding(options: [.caseInsensitive], locale: nil)
                .precomposedStringWithCompatibilityMapping
        }
        var s =
            folded.withUTF8 { bytes -> String? in
                if isCollapsed(bytes) { return nil }
                return String(unsafeUninitializedCapacity: bytes.count) { collapse(bytes, into: $0.baseAddress!) }
            } ?? folded
        if !ascii {
            // Unicode white space other than ASCII (e.g. U+3000 ideographic space after NFKC is
            // already U+0020; NBSP becomes U+0020 too) — collapse what remains.
            if s.unicodeScalars.contains(where: { $0.properties.isWhitespace && $0 != " " }) {
                s = s.unicodeScalars.split(whereSeparator: { $0.properties.isWhitespace })
                    .map { String(String.UnicodeScalarView($0)) }.joined(separator: " ")
            }
        }
        return s
    }

    /// Whether every byte is ASCII (checked eight at a time).
    @inlinable
    public static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let p = bytes.baseAddress else { return true }
        let n = bytes.count
        var i = 0
        while i + 8 <= n {
            if UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return false }
            i += 8
        }
        while i < n {
            if p[i] >= 0x80 { return false }
            i += 1
        }
        return true
    }

    /// Whether ``collapse(_:into:)`` would return `bytes` unchanged: no ASCII upper case, no
    /// control characters, no space at either end or after another space (the common case,
    /// checked without writing anything; the empty value is collapsed).
    @inlinable
    public static func isCollapsed(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = bytes.first, let last = bytes.last else { return true }
        if first == 0x20 || last == 0x20 { return false }
        var previousSpace = false
        for b in bytes {
            if b < 0x20 || b == 0x7F || (b >= 0x41 && b <= 0x5A) || (b == 0x20 && previousSpace) { return false }
            previousSpace = b == 0x20
        }
        return true
    }

    /// The byte pass of ``normalize(_:)``, the last step for every value (and the only one for
    /// ASCII values): ASCII upper case to lower case; control characters, DEL and spaces to one
    /// space between words, none at either end. Other bytes are kept, so UTF-8 stays valid. Writes
    /// at most `bytes.count` bytes to `out` and returns how many it wrote.
    @inlinable
    public static func collapse(_ bytes: UnsafeBufferPointer<UInt8>, into out: UnsafeMutablePointer<UInt8>) -> Int {
        var n = 0
        var pendingSpace = false
        for var b in bytes {
            if b <= 0x20 || b == 0x7F {
                pendingSpace = n > 0
                continue
            }
            if b >= 0x41 && b <= 0x5A { b += 0x20 }
            if pendingSpace {
                out[n] = 0x20
                n += 1
                pendingSpace = false
            }
            out[n] = b
            n += 1
        }
        return n
    }
}
