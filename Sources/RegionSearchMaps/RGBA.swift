/// An RGBA colour, components 0…1.
public struct RGBA: Sendable, Equatable {
    public var r, g, b, a: Double

    public init(_ r: Double, _ g: Double, _ b: Double, _ a: Double = 1) {
        self.r = r
        self.g = g
        self.b = b
        self.a = a
    }

    /// From "#rrggbb" (alpha 1) or "#rrggbbaa"; nil for anything else.
    public init?(hex: String) {
        let digits = hex.hasPrefix("#") ? String(hex.dropFirst()) : hex
        guard digits.count == 6 || digits.count == 8, let v = UInt32(digits, radix: 16) else { return nil }
        let value = digits.count == 6 ? (v << 8) | 0xff : v
        self.init(
            Double(value >> 24 & 0xff) / 255, Double(value >> 16 & 0xff) / 255, Double(value >> 8 & 0xff) / 255,
            Double(value & 0xff) / 255)
    }

    /// The colour from a ``RegionSearchOutput/ColorScale`` hex string; ramps are constants, so a
    /// malformed one is a bug caught by the tests.
    static func scale(_ hex: String, alpha: Double = 1) -> RGBA {
        var c = RGBA(hex: hex) ?? RGBA(0, 0, 0)
        c.a = alpha
        return c
    }

    /// The same colour with another alpha.
    func with(alpha: Double) -> RGBA { RGBA(r, g, b, alpha) }
}
