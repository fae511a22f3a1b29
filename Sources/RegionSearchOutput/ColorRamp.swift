/// ColorBrewer single-hue ramps (light → dark), one per keyword in query order, so denser
/// regions are drawn darker as in the original map application.
enum ColorRamp {
    /// (light, dark) RGB pairs: Reds, Blues, Greens, Purples, Oranges, Greys.
    static let ramps: [((Int, Int, Int), (Int, Int, Int))] = [
        ((0xFE, 0xE0, 0xD2), (0xA5, 0x0F, 0x15)),
        ((0xDE, 0xEB, 0xF7), (0x08, 0x51, 0x9C)),
        ((0xE5, 0xF5, 0xE0), (0x00, 0x6D, 0x2C)),
        ((0xEF, 0xED, 0xF5), (0x54, 0x27, 0x8F)),
        ((0xFE, 0xED, 0xDE), (0xA6, 0x36, 0x03)),
        ((0xF0, 0xF0, 0xF0), (0x25, 0x25, 0x25)),
    ]

    /// The colour at depth `t` in [0, 1] (1 = darkest) of keyword `keyword`'s ramp, as "#rrggbb".
    static func color(keyword: Int, depth t: Double) -> String {
        let (lo, hi) = ramps[keyword % ramps.count]
        let tt = min(1, max(0, t.isFinite ? t : 1))
        func mix(_ a: Int, _ b: Int) -> Int { Int((Double(a) + (Double(b) - Double(a)) * tt).rounded()) }
        let rgb = [mix(lo.0, hi.0), mix(lo.1, hi.1), mix(lo.2, hi.2)]
        return "#"
            + rgb.map { v in
                let s = String(v, radix: 16)
                return s.count == 1 ? "0" + s : s
            }.joined()
    }

    /// Fill opacity at depth `t`: from 0.35 (faint) to 0.85 (dense).
    public static func opacity(depth t: Double) -> Double {
        let tt = min(1, max(0, t.isFinite ? t : 1))
        return ((0.35 + 0.5 * tt) * 100).rounded() / 100
    }
}
