import RegionSearchCore

/// A plain-text table for terminal reports: text columns left-aligned, number columns
/// right-aligned, with widths measured in terminal cells (CJK characters take two).
struct TextTable {
    var header: [String]
    var rows: [[String]] = []
    /// Columns aligned left (the first one always is).
    var leftAligned: Set<Int>

    init(header: [String], leftAligned: Set<Int> = [0]) {
        self.header = header
        self.leftAligned = leftAligned.union([0])
    }

    mutating func add(_ row: [String]) { rows.append(row) }

    func render(indent: String = "") -> String {
        let all = [header] + rows
        let columns = all.map(\.count).max() ?? 0
        var widths = [Int](repeating: 0, count: columns)
        for row in all { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], Self.displayWidth(cell)) } }
        var out = ""
        for row in all {
            var line = indent
            for (i, cell) in row.enumerated() {
                let pad = String(repeating: " ", count: widths[i] - Self.displayWidth(cell))
                let gap = i == 0 ? "" : "  "
                line += leftAligned.contains(i) ? gap + cell + pad : gap + pad + cell
            }
            while line.hasSuffix(" ") { line.removeLast() }
            out += line + "\n"
        }
        return out
    }

    /// Terminal cells of `s`: East Asian wide and fullwidth characters count two, combining marks zero.
    static func displayWidth(_ s: String) -> Int {
        var w = 0
        for u in s.unicodeScalars {
            switch u.value {
            case 0x0300...0x036F, 0x200B...0x200F: continue
            case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
                0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x20000...0x3FFFD:
                w += 2
            default: w += 1
            }
        }
        return w
    }
}

/// Rounds to 4 decimals the way Python's `round(x, 4)` does (correctly rounded from the exact
/// binary value, ties to even), so JSON reports compare digit for digit with evaluate.py.
func roundedTo4(_ x: Double) -> Double {
    guard x.isFinite else { return x }
    return Double(String(format: "%.4f", x)) ?? x
}

/// A fixed 4-decimal rendering for tables ("n/a" for nil).
func fixed4(_ x: Double?) -> String {
    guard let x else { return "n/a" }
    return String(format: "%.4f", x)
}

/// A threshold as it appears in metric names: 0.3 → "0.3" (as Python prints it).
public func thresholdLabel(_ t: Double) -> String {
    let s = JSONValue.formatNumber(t)
    return t == t.rounded() && !s.contains("e") ? s + ".0" : s
}
