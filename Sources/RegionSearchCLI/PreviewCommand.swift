import Foundation
import RegionSearchCore
import RegionSearchIngest
import RegionSearchMaps

/// `regionsearch-preview` (`regionsearch preview`): the static map (PNG, SVG, PDF) and the
/// offline web map of any region GeoJSON, with the POIs it was found in.
public enum PreviewCommand {
    static let poisOption = CommandSpec.Option(
        "pois", .value, placeholder: "POIS",
        help:
            "POIs to draw and to count keyword densities with: pois.rsa or any input ingest reads (CSV, GeoJSON, OSM).")
    static let keywordOption = CommandSpec.Option(
        "keyword", .repeated, placeholder: "K",
        help: "Show this keyword (repeat for several; default: every keyword of the regions file).")
    static let bboxOption = CommandSpec.Option(
        "bbox", .value, placeholder: "W,S,E,N", help: "Show this extent, degrees (default: the POIs and every region).")
    static let outOption = CommandSpec.Option(
        "out", .value, placeholder: "STEM",
        help: "Write STEM.png, STEM.svg, … (default: the regions file's path without its extension).")
    static let formatsOption = CommandSpec.Option(
        "formats", .value, placeholder: "LIST", help: "Comma-separated, of png, svg, pdf, html (default png,svg,html).")
    static let widthOption = CommandSpec.Option(
        "width", .value, placeholder: "PX", help: "Width of the static map in pixels (default 1600).")
    static let titleOption = CommandSpec.Option(
        "title", .value, placeholder: "TEXT", help: "Title (default: the regions file's name).")
    static let attributionOption = CommandSpec.Option(
        "attribution", .value, placeholder: "TEXT",
        help: "Data attribution shown on the maps, e.g. \"© OpenStreetMap contributors, ODbL\".")
    static let basemapOption = CommandSpec.Option(
        "basemap", .value, placeholder: "URL",
        help: "Tile URL template for the web map, e.g. https://tile.openstreetmap.org/{z}/{x}/{y}.png (needs network).")
    static let basemapAttributionOption = CommandSpec.Option(
        "basemap-attribution", .value, placeholder: "TEXT", help: "Attribution of the basemap's tiles.")

    static let spec = CommandSpec(
        name: "regionsearch-preview",
        abstract: "draw a region GeoJSON as a map image (PNG/SVG/PDF) and an offline web map (HTML)",
        usage:
            "regionsearch-preview REGIONS.geojson [--pois POIS] [--keyword K]... [--bbox W,S,E,N] [--out STEM] "
            + "[--formats png,svg,pdf,html] [--width PX] [--title TEXT] [--attribution TEXT] [--basemap URL]",
        discussion: """
            The static map has one panel per keyword over the same extent: every POI as a light grey dot, the
            keyword's POIs in its colour, its regions filled darker where denser, rank labels, a legend of the
            density bins, a scale bar, the CRS and the attribution. Colours follow the one colour scale of every
            output: fixed bins of keyword POIs per km² inside the region polygon (the regions'
            keyword_density_per_km2 property, or counted from --pois), one ColorBrewer ramp per keyword.

            The web map is one HTML file that needs no network: Leaflet (Debian's libjs-leaflet) and the data are
            inlined; a keyword switcher, region properties on click, and the keyword's POIs loaded only in the
            visible area as you pan and zoom.

            `regionsearch run` writes the same files next to a manifest's output (see docs/MAPS.md). Files that
            already hold the same bytes are not rewritten.
            """,
        options: [
            poisOption, keywordOption, bboxOption, outOption, formatsOption, widthOption, titleOption,
            attributionOption, basemapOption, basemapAttributionOption,
        ],
        acceptsPositionals: true)

    /// Entry point of `regionsearch-preview`.
    public static func main() -> Never {
        ToolMain.run(spec) { cl in try run(cl) }
    }

    static func run(_ cl: ParsedCommandLine) throws {
        guard cl.positionals.count == 1 else {
            throw UsageError(
                cl.positionals.isEmpty
                    ? "give the regions GeoJSON: \(spec.usage)"
                    : "expected one regions file, got \(cl.positionals.count) arguments")
        }
        let regions = cl.positionals[0]
        var options = MapOptions()
        if let text = cl.value(formatsOption) { options.formats = try parseFormats(text) }
        if let text = cl.value(widthOption) {
            guard let w = Int(text), MapOptions.widthRange.contains(w) else {
                throw UsageError(
                    "--width: expected an integer in \(MapOptions.widthRange.lowerBound)…"
                        + "\(MapOptions.widthRange.upperBound), got \"\(text)\""
                )
            }
            options.width = w
        }
        if let text = cl.value(bboxOption) {
            switch GeoBox.parse(text) {
            case .success(let b): options.bbox = b
            case .failure(let e): throw UsageError("--bbox: \(e.message)")
            }
        }
        if let basemap = cl.value(basemapOption) {
            do {
                options.basemap = try BasemapTemplate(basemap).url
            } catch {
                throw UsageError("--basemap: \(error)")
            }
        }
        options.basemapAttribution = cl.value(basemapAttributionOption)
        let keywords = cl.all(keywordOption)
        if let pois = cl.value(poisOption) { Log.info("reading POIs from \(pois)") }
        let data = try MapData.load(
            regions: regions, pois: cl.value(poisOption), only: keywords.isEmpty ? nil : keywords,
            title: cl.value(titleOption), attribution: cl.value(attributionOption) ?? "")
        let (files, notes) = try MapProducts.render(data, options: options)
        for note in notes { Log.warning(note) }
        let stem = cl.value(outOption) ?? MapProducts.stem(of: regions)
        for (path, written) in try MapProducts.write(files, stem: stem) {
            Log.info(written ? "wrote \(path)" : "\(path) is up to date")
        }
    }

    /// "png,svg" → the formats; unknown names are a usage error.
    static func parseFormats(_ text: String) throws(UsageError) -> [MapFormat] {
        var out: [MapFormat] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let name = part.trimmingCharacters(in: .whitespaces).lowercased()
            guard let f = MapFormat(rawValue: name) else {
                throw UsageError(
                    "--formats: unknown format \"\(name)\"; choose from "
                        + MapFormat.allCases.map(\.rawValue).joined(separator: ", ")
                )
            }
            out.append(f)
        }
        return out
    }
}
