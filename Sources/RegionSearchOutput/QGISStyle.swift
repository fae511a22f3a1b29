/// QGIS layer styles (`.qml` documents) for the result layers: what QGIS shows when it opens a
/// layer whose `.qml` sits beside it or whose GeoPackage holds it in `layer_styles`.
///
/// Regions: a rule-based renderer (QGIS's form of "graduated per keyword"): one rule per query
/// keyword (`"keyword" = '…'`), inside it one rule per nesting level (`"level" = n`), inside that
/// one rule per density bin of ``ColorScale`` on ``RegionFeatureSchema/colorDensity(_:)``
/// (keyword POIs per km²), filled with the keyword's ramp colour and the bin's opacity and
/// outlined in the ramp's darkest colour, 2 px; the legend reads "restaurant › level 1 ›
/// 200–400 per km²", and each level can be switched off in the Layers panel. Features are drawn
/// in order of `level` (coarsest first), so a finer region lies on top of the one holding it: it
/// is denser, so its bin is as dark or darker, and its fill over its parent's darkens it further.
/// POIs: one small circle per POI. Both carry the fields' descriptions as aliases.
public enum QGISStyle {
    /// The regions style for `keywords` (query order, which picks each keyword's ramp) with
    /// `levels[k]` nesting levels for keyword `k` (at least one; one each when nil).
    public static func regions(keywords: [String], levels: [Int]? = nil) -> String {
        var rules = ""
        var symbols = ""
        var symbolIndex = 0
        let labels = ColorScale.binLabels
        for (k, keyword) in keywords.enumerated() {
            let keywordFilter = "\"keyword\" = " + sqlString(keyword)
            rules +=
                "      <rule key=\"{keyword-\(k)}\" label=\"\(xml(keyword))\" filter=\"\(xml(keywordFilter))\">\n"
            let count = max(1, levels.flatMap { k < $0.count ? $0[k] : nil } ?? 1)
            for level in 0..<count {
                let label = level == 0 ? "level 0 (coarsest)" : "level \(level)"
                rules +=
                    "        <rule key=\"{keyword-\(k)-level-\(level)}\" label=\"\(label)\" "
                    + "filter=\"\(xml(levelFilter(level)))\">\n"
                for bin in 0..<ColorScale.binLowerBounds.count {
                    let fill = ColorScale.ramps[k % ColorScale.ramps.count][bin]
                    let symbol = fillSymbol(
                        name: String(symbolIndex), fill: fill, stroke: ColorScale.stroke(keyword: k),
                        opacity: ColorScale.opacities[bin])
                    rules +=
                        "          <rule key=\"{keyword-\(k)-level-\(level)-bin-\(bin)}\" symbol=\"\(symbolIndex)\" "
                        + "label=\"\(xml(labels[bin])) per km²\" filter=\"\(xml(binFilter(bin)))\"/>\n"
                    symbols += symbol
                    symbolIndex += 1
                }
                rules += "        </rule>\n"
            }
            rules += "      </rule>\n"
        }
        return document(
            geometryType: 2,
            renderer: """
                  <renderer-v2 type="RuleRenderer" symbollevels="0" enableorderby="1" forceraster="0">
                    <rules key="{root}">
                \(rules)    </rules>
                    <symbols>
                \(symbols)    </symbols>
                    <orderby>
                      <orderByClause asc="1" nullsFirst="1">"level"</orderByClause>
                    </orderby>
                  </renderer-v2>

                """, fields: RegionFeatureSchema.fields, labeling: regionLabeling)
    }

    /// The filter of nesting level `level`.
    static func levelFilter(_ level: Int) -> String { "\"level\" = \(level)" }

    /// The regions' labels: each region's `label` (a place, street or common name, see
    /// RegionSearchLineage's `RegionLabeler`) over its centre, dark bold text on a white halo;
    /// regions without one show nothing.
    static let regionLabeling = """
          <labeling type="simple">
            <settings calloutType="simple">
              <text-style fieldName="label" isExpression="0" fontFamily="Sans Serif" fontSize="9" fontWeight="75"
                namedStyle="Bold" textColor="40,40,40,255" textOpacity="1">
                <text-buffer bufferDraw="1" bufferSize="1" bufferSizeUnits="MM" bufferColor="255,255,255,255"
                  bufferOpacity="0.85"/>
              </text-style>
              <placement placement="1" centroidInside="1" centroidWhole="0" priority="5"/>
              <rendering obstacle="1" displayAll="0" upsidedownLabels="0" fontLimitPixelSize="0"/>
            </settings>
          </labeling>

        """

    /// The POI layer's style: a small circle per POI.
    public static func pois(fields: [FeatureLayer.Field]) -> String {
        let marker = """
                  <symbol type="marker" name="0" alpha="1" clip_to_extent="1" force_rhr="0">
                    <layer class="SimpleMarker" enabled="1" locked="0" pass="0">
                      <Option type="Map">
                        <Option type="QString" name="color" value="51,51,51,200"/>
                        <Option type="QString" name="name" value="circle"/>
                        <Option type="QString" name="outline_color" value="255,255,255,255"/>
                        <Option type="QString" name="outline_width" value="0.5"/>
                        <Option type="QString" name="outline_width_unit" value="Pixel"/>
                        <Option type="QString" name="size" value="4"/>
                        <Option type="QString" name="size_unit" value="Pixel"/>
                      </Option>
                    </layer>
                  </symbol>

            """
        return document(
            geometryType: 0,
            renderer: """
                  <renderer-v2 type="singleSymbol" symbollevels="0" enableorderby="0" forceraster="0">
                    <symbols>
                \(marker)    </symbols>
                  </renderer-v2>

                """, fields: fields)
    }

    /// The filter of density bin `bin`: [lower, next lower) on the colour density; the first bin
    /// takes everything below the second bound, the last everything from its bound up.
    static func binFilter(_ bin: Int) -> String {
        let d = RegionFeatureSchema.colorDensityExpression
        let bounds = ColorScale.binLowerBounds
        if bin == 0 { return "\(d) < \(number(bounds[1]))" }
        if bin == bounds.count - 1 { return "\(d) >= \(number(bounds[bin]))" }
        return "\(d) >= \(number(bounds[bin])) AND \(d) < \(number(bounds[bin + 1]))"
    }

    private static func document(
        geometryType: Int, renderer: String, fields: [FeatureLayer.Field], labeling: String = ""
    ) -> String {
        var aliases = ""
        for (i, f) in fields.enumerated() {
            aliases += "    <alias field=\"\(xml(f.name))\" index=\"\(i)\" name=\"\(xml(f.description))\"/>\n"
        }
        return """
            <!DOCTYPE qgis PUBLIC 'http://mrcc.com/qgis.dtd' 'SYSTEM'>
            <qgis version="3.28.0" styleCategories="Symbology|Fields|Labeling" labelsEnabled="\(labeling.isEmpty ? 0 : 1)">
            \(renderer)\(labeling)  <aliases>
            \(aliases)  </aliases>
              <layerGeometryType>\(geometryType)</layerGeometryType>
            </qgis>

            """
    }

    private static func fillSymbol(name: String, fill: String, stroke: String, opacity: Double) -> String {
        """
              <symbol type="fill" name="\(name)" alpha="\(number(opacity))" clip_to_extent="1" force_rhr="0">
                <layer class="SimpleFill" enabled="1" locked="0" pass="0">
                  <Option type="Map">
                    <Option type="QString" name="color" value="\(rgba(fill))"/>
                    <Option type="QString" name="joinstyle" value="round"/>
                    <Option type="QString" name="outline_color" value="\(rgba(stroke))"/>
                    <Option type="QString" name="outline_style" value="solid"/>
                    <Option type="QString" name="outline_width" value="\(number(ColorScale.strokeWidth))"/>
                    <Option type="QString" name="outline_width_unit" value="Pixel"/>
                    <Option type="QString" name="style" value="solid"/>
                  </Option>
                </layer>
              </symbol>

        """
    }

    /// "#fee5d9" → "254,229,217,255" (QGIS's colour form).
    static func rgba(_ hex: String) -> String {
        let digits = Array(hex.dropFirst())
        var parts: [String] = []
        for i in stride(from: 0, to: 6, by: 2) { parts.append(String(Int(String(digits[i...i + 1]), radix: 16) ?? 0)) }
        return parts.joined(separator: ",") + ",255"
    }

    /// A QGIS/SQL string literal ('…', quotes doubled).
    static func sqlString(_ s: String) -> String {
        "'" + s.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "''") + "'"
    }

    private static func number(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e15 ? String(Int64(v)) : "\(v)"
    }

    /// Escapes text for an XML attribute value.
    static func xml(_ s: String) -> String {
        var out = ""
        for c in s.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\n": out += "&#10;"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }
}
