/// Renumbers the ids Cairo's SVG surface takes from process-wide counters.
///
/// Cairo names embedded surfaces and images after their global unique id (`id="surface37"`,
/// `xlink:href="#image12"`), so the same drawing made twice in one process gives different
/// bytes. Each such id is replaced by its number in order of first appearance (`surface1`, …),
/// the same in every process and every run.
enum SVGIdentifiers {
    /// Prefixes of the ids Cairo 1.16 numbers globally.
    static let prefixes = ["surface", "image", "source"]

    static func renumbered(_ bytes: [UInt8]) -> [UInt8] {
        let patterns = prefixes.map { Array($0.utf8) }
        var numbers: [[UInt8]: [[UInt8]: Int]] = [:]
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        let n = bytes.count
        while i < n {
            let c = bytes[i]
            out.append(c)
            i += 1
            // An id starts after a quote (id="…") or a hash (href="#…", url(#…)).
            guard c == UInt8(ascii: "\"") || c == UInt8(ascii: "#") else { continue }
            for p in patterns where i + p.count < n && bytes[i..<(i + p.count)].elementsEqual(p) {
                var j = i + p.count
                while j < n && bytes[j] >= UInt8(ascii: "0") && bytes[j] <= UInt8(ascii: "9") { j += 1 }
                guard j > i + p.count else { break }
                let digits = Array(bytes[(i + p.count)..<j])
                var table = numbers[p] ?? [:]
                let number = table[digits] ?? (table.count + 1)
                table[digits] = number
                numbers[p] = table
                out += p
                out += Array(String(number).utf8)
                i = j
                break
            }
        }
        return out
    }
}
