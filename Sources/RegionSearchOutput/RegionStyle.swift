import RegionSearchGDAL

/// The colours of a region feature in formats that carry a style per feature (KML): an OGR
/// style string from ``ColorScale`` — the keyword's ramp colour for the feature's density bin
/// with the bin's opacity, outlined in the ramp's darkest colour, 2 px — the same colours as
/// the QGIS style.
public enum RegionStyle {
    /// `BRUSH(fc:#rrggbbaa);PEN(c:#rrggbbff,w:2px)` for keyword `keyword` (query order) at
    /// `density` keyword POIs per km².
    public static func ogrStyle(keyword: Int, density: Double) -> String {
        let alpha = Int((ColorScale.opacity(density: density) * 255).rounded())
        return "BRUSH(fc:\(ColorScale.fill(keyword: keyword, density: density))\(hex(alpha)));"
            + "PEN(c:\(ColorScale.stroke(keyword: keyword))ff,w:\(Int(ColorScale.strokeWidth))px)"
    }

    /// The regions layer with each feature's style string and the QGIS style set.
    public static func apply(to layer: FeatureLayer, keywords: [String]) -> FeatureLayer {
        guard let keywordField = layer.fields.firstIndex(where: { $0.name == "keyword" }) else { return layer }
        var styled = layer.styled { feature in
            guard case .string(let keyword) = feature.values[keywordField],
                let k = keywords.firstIndex(of: keyword)
            else { return nil }
            return ogrStyle(keyword: k, density: RegionFeatureSchema.colorDensity(feature.values))
        }
        styled.qgisStyle = QGISStyle.regions(keywords: keywords, levels: levelCounts(layer, keywords: keywords))
        return styled
    }

    /// The number of nesting levels of each keyword's regions in `layer` (its deepest `level`
    /// + 1; one for a keyword without regions), for the QGIS style's rules.
    public static func levelCounts(_ layer: FeatureLayer, keywords: [String]) -> [Int] {
        var counts = [Int](repeating: 1, count: keywords.count)
        guard let keywordField = layer.fields.firstIndex(where: { $0.name == "keyword" }),
            let levelField = layer.fields.firstIndex(where: { $0.name == "level" })
        else { return counts }
        for i in 0..<layer.count {
            let values = layer.feature(i).values
            guard case .string(let keyword) = values[keywordField], let k = keywords.firstIndex(of: keyword),
                case .integer(let level) = values[levelField]
            else { continue }
            counts[k] = max(counts[k], Int(level) + 1)
        }
        return counts
    }

    private static func hex(_ v: Int) -> String {
        let s = String(max(0, min(255, v)), radix: 16)
        return s.count == 1 ? "0" + s : s
    }
}
