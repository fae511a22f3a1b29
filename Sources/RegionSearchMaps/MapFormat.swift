/// The files a map is written as, by file extension.
public enum MapFormat: String, CaseIterable, Sendable, Comparable {
    /// The static map as a PNG image (Cairo).
    case png
    /// The same drawing as SVG (vectors; the POI dots as an embedded image).
    case svg
    /// The same drawing as a one-page PDF.
    case pdf
    /// The offline web map: one HTML file with Leaflet and the data inlined.
    case html

    public static func < (a: MapFormat, b: MapFormat) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}
