import RegionSearchOutput

/// The fixed look of every map and plot: fonts, neutral colours and sizes. Region colours come
/// from ``RegionSearchOutput/ColorScale`` alone, so the PNG, SVG, PDF, HTML and GeoJSON agree.
enum MapStyle {
    /// Resolved by fontconfig; Debian's fonts-noto-cjk has it, covering Latin, Cyrillic and CJK.
    static let fontFamily = "Noto Sans CJK SC"
    /// The Debian package to install when glyphs are missing.
    static let fontPackage = "fonts-noto-cjk"

    static let paper = RGBA(1, 1, 1)
    /// The map background (where there is no basemap): a warm off-white, as paper maps use.
    static let mapBackground = RGBA(hex: "#f4f4f0")!
    static let mapBorder = RGBA(hex: "#9a9a9a")!
    static let ink = RGBA(hex: "#1a1a1a")!
    static let secondaryInk = RGBA(hex: "#555555")!
    static let halo = RGBA(1, 1, 1, 0.92)

    /// Every POI, as context: light grey.
    static let contextPOI = RGBA(hex: "#b9b9b9")!
    static let contextPOIRadius = 1.7
    /// The keyword's POIs: the ramp's second-darkest step with a thin white ring, visible on pale
    /// and dark fills alike.
    static let keywordPOIRadius = 2.6
    static let keywordPOIRing = RGBA(1, 1, 1, 0.9)

    /// A region drawn smaller than this (pixels across) is also marked by a ring, so that a
    /// 20 m region on a city-wide map is still found.
    static let smallRegionPixels = 9.0
    static let smallRegionRingRadius = 8.0

    /// The radius of `count` dots in `area` pixels: `preferred`, or smaller where that many dots
    /// would cover more than `coverage` of the map (a million POIs become a fine texture instead
    /// of a solid sheet), but not below 0.7 px.
    static func dotRadius(_ preferred: Double, count: Int, area: Double, coverage: Double) -> Double {
        guard count > 0, area > 0 else { return preferred }
        let fitting = (coverage * area / (Double(count) * Double.pi)).squareRoot()
        return max(0.7, min(preferred, fitting))
    }

    /// Colour of a keyword's POIs: step 5 of its ramp.
    static func keywordPOI(_ colorIndex: Int) -> RGBA {
        RGBA.scale(ColorScale.ramps[colorIndex % ColorScale.ramps.count][5])
    }
}
