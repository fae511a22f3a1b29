import Foundation

/// The one colour scale of every output (GeoJSON simplestyle, QGIS styles, map images, the web
/// map): darker = denser, on fixed bins of keyword POIs per km², so a colour means the same
/// density in every region, every keyword and every run.
///
/// Each keyword (in query order) has its own ColorBrewer single-hue ramp; within it, the bin of a
/// region's keyword density picks the step. The bins are fixed, not stretched to a run's range:
/// a region of 150 restaurants per km² is the same colour today and tomorrow, in Helsinki and in
/// Chicago. The outline is the ramp's darkest colour, two pixels wide, so a pale region still
/// stands out on a light basemap.
public enum ColorScale {
    /// Lower bounds of the density bins, keyword POIs per km² (bin i holds [lower[i], lower[i+1])).
    public static let binLowerBounds: [Double] = [0, 25, 50, 100, 200, 400, 800]

    /// ColorBrewer single-hue ramps (seven classes, light → dark): Reds, Blues, Greens, Purples,
    /// Oranges, Greys; keyword `k` uses ramp `k mod 6`.
    public static let ramps: [[String]] = [
        ["#fee5d9", "#fcbba1", "#fc9272", "#fb6a4a", "#ef3b2c", "#cb181d", "#99000d"],
        ["#eff3ff", "#c6dbef", "#9ecae1", "#6baed6", "#4292c6", "#2171b5", "#084594"],
        ["#edf8e9", "#c7e9c0", "#a1d99b", "#74c476", "#41ab5d", "#238b45", "#005a32"],
        ["#f2f0f7", "#dadaeb", "#bcbddc", "#9e9ac8", "#807dba", "#6a51a3", "#4a1486"],
        ["#feedde", "#fdd0a2", "#fdae6b", "#fd8d3c", "#f16913", "#d94801", "#8c2d04"],
        ["#f7f7f7", "#d9d9d9", "#bdbdbd", "#969696", "#737373", "#525252", "#252525"],
    ]

    /// Fill opacity per bin: denser regions are also more opaque.
    public static let opacities: [Double] = [0.35, 0.42, 0.5, 0.58, 0.66, 0.74, 0.82]

    /// Outline width in pixels.
    public static let strokeWidth = 2.0

    /// The bin of a density (keyword POIs per km²); non-finite densities go to the top bin.
    public static func bin(density: Double) -> Int {
        guard density.isFinite else { return binLowerBounds.count - 1 }
        var b = 0
        for (i, lower) in binLowerBounds.enumerated() where density >= lower { b = i }
        return b
    }

    /// Fill colour of a region of keyword `keyword` with `density` keyword POIs per km².
    public static func fill(keyword: Int, density: Double) -> String {
        ramps[keyword % ramps.count][bin(density: density)]
    }

    /// Outline colour of keyword `keyword`'s regions: its ramp's darkest step.
    public static func stroke(keyword: Int) -> String { ramps[keyword % ramps.count].last! }

    /// Fill opacity of a region with `density` keyword POIs per km².
    public static func opacity(density: Double) -> Double { opacities[bin(density: density)] }

    /// Human-readable bin labels for legends: "< 25", "25–50", …, "≥ 800" (per km²).
    public static var binLabels: [String] {
        func f(_ v: Double) -> String { String(Int(v)) }
        var labels: [String] = []
        for i in 0..<binLowerBounds.count {
            if i == 0 {
                labels.append("< \(f(binLowerBounds[1]))")
            } else if i == binLowerBounds.count - 1 {
                labels.append("≥ \(f(binLowerBounds[i]))")
            } else {
                labels.append("\(f(binLowerBounds[i]))–\(f(binLowerBounds[i + 1]))")
            }
        }
        return labels
    }
}
