/// The one reading of numbers typed on a command line — option values and stage parameters alike —
/// and the one wording of their ranges in help and messages.
///
/// Numbers are what ``DecimalParser`` accepts (an optional sign, digits with an optional fraction,
/// an optional exponent), with blanks around them ignored; `inf`, `nan` and hexadecimal are not
/// numbers. An integer is written as digits (exact up to `Int.max`) or as a decimal number with
/// no fractional part (`1e6`).
public enum ValueSyntax {
    /// The finite number `text` holds, or nil.
    public static func number(_ text: some StringProtocol) -> Double? {
        let bytes = Array(text.trimmingBlanks.utf8)
        guard let value = bytes.withUnsafeBufferPointer({ DecimalParser.parse($0) }), value.isFinite else { return nil }
        return value
    }

    /// The integer `text` holds, or nil.
    public static func integer(_ text: some StringProtocol) -> Int? {
        let trimmed = text.trimmingBlanks
        if let exact = Int(trimmed) { return exact }
        guard let d = number(trimmed), d == d.rounded(), abs(d) < 9.0e15 else { return nil }
        return Int(d)
    }

    /// The truth value `text` names: true, yes, 1, on or false, no, 0, off (any case).
    public static func boolean(_ text: some StringProtocol) -> Bool? {
        switch text.lowercased() {
        case "true", "yes", "1", "on": return true
        case "false", "no", "0", "off": return false
        default: return nil
        }
    }

    /// "a number in [0, 1]", "a number > 0", "a number ≤ 5", "a number".
    static func numberRange(min lo: Double?, max hi: Double?, minExclusive: Bool) -> String {
        switch (lo, hi) {
        case (let l?, let h?): return "a number in \(minExclusive ? "(" : "[")\(format(l)), \(format(h))]"
        case (let l?, nil): return "a number \(minExclusive ? ">" : "≥") \(format(l))"
        case (nil, let h?): return "a number ≤ \(format(h))"
        default: return "a number"
        }
    }

    /// "an integer in [1, 64]", "an integer ≥ 1", "an integer ≤ 5", "an integer".
    static func integerRange(min lo: Int?, max hi: Int?) -> String {
        switch (lo, hi) {
        case (let l?, let h?): return "an integer in [\(l), \(h)]"
        case (let l?, nil): return "an integer ≥ \(l)"
        case (nil, let h?): return "an integer ≤ \(h)"
        default: return "an integer"
        }
    }

    static func format(_ d: Double) -> String { JSONValue.formatNumber(d) }
}

extension StringProtocol {
    /// The text without the spaces and tabs around it.
    fileprivate var trimmingBlanks: Substring {
        let s = Substring(self)
        guard let first = s.firstIndex(where: { $0 != " " && $0 != "\t" }) else { return "" }
        let last = s.lastIndex(where: { $0 != " " && $0 != "\t" })!
        return s[first...last]
    }
}
