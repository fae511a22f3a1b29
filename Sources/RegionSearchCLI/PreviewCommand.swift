import Foundation
import RegionSearchCore
import RegionSearchIngest
import RegionSearchMaps
import RegionSearchRunner

/// `regionsearch-preview` (`regionsearch preview`): the static map (PNG, SVG, PDF) and the
/// offline web map of any region GeoJSON, with the POIs it was found in.
public enum PreviewCommand {
    static let poisOption = CommandSpec.Option(
        "pois", .path, placeholder: "POIS",
        help:
            "POIs to draw and to count keyword densities with: pois.rsa or any input ingest reads (CSV, GeoJSON, OSM).")
    static let keywordOption = CommandSpec.Option(
        "keyword", .text, default: .computed("every keyword of the regions file"), repeatable: true, placeholder: "K",
        help: "Show this keyword (repeat for several).")
    static let bboxOption = CommandSpec.Option(
        "bbox", .text, default: .computed("the POIs and every region"), placeholder: "W,S,E,N",
        help: "Show this extent, degrees.")
    static let outOption = CommandSpec.Option(
        "out", .path,
        default: .computed(
            "the regions file's path without its extension; + \".preview\" where a run published its maps there"),
        placeholder: "STEM",
        help: "Write STEM.png, STEM.svg, ….")
    static let formatsOption = CommandSpec.Option(
        "formats", .list(.choice(MapFormat.allCases.map(\.rawValue))),
        default: .value(.array(MapOptions.defaultFormats.map { .string($0.rawValue) })), placeholder: "LIST",
        help: "The files to write.")
    static let widthOption = CommandSpec.Option(
        "width", .integer(MapOptions.widthRange), default: .value(.number(Double(MapOptions.defaultWidth))),
        placeholder: "PX", help: "Width of the static map in pixels.")
    static let titleOption = CommandSpec.Option(
        "title", .text, default: .computed("the regions file's name"), help: "Title.")
    static let attributionOption = CommandSpec.Option(
        "attribution", .text,
        help: "Data attribution shown on the maps, e.g. \"© OpenStreetMap contributors, ODbL\".")
    static let basemapOption = CommandSpec.Option(
        "basemap", .text, placeholder: "URL",
        help: "Tile URL template for the web map, e.g. https://tile.openstreetmap.org/{z}/{x}/{y}.png (needs network).")
    static let basemapAttributionOption = CommandSpec.Option(
        "basemap-attribution", .text, help: "Attribution of the basemap's tiles.")

    static let spec = CommandSpec(
        name: "regionsearch-preview",
        abstract: "draw a region GeoJSON as a map image (PNG/SVG/PDF) and an offline web map (HTML)",
        positionals: ["REGIONS.geojson"],
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
        ])

    /// Entry point of `regionsearch-preview`.
    public static func main() -> Never {
        ToolMain.run(spec) { cl in try run(cl) }
    }

    static func run(_ cl: ParsedCommandLine) throws {
        guard cl.positionals.count == 1 else {
            throw UsageError(
                cl.positionals.isEmpty
                    ? "give the regions GeoJSON: \(spec.shortUsage)"
                    : "expected one regions file, got \(cl.positionals.count) arguments")
        }
        let regions = cl.positionals[0]
        var options = MapOptions()
        options.formats = cl.list(formatsOption).compactMap { $0.stringValue.flatMap(MapFormat.init(rawValue:)) }
        options.width = cl.integer(widthOption)
        if let text = cl.value(bboxOption) {
            switch GeoBox.parseMapExtent(text) {
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
        // Before anything is read or drawn: no map may replace the regions or POI file.
        var stem = cl.value(outOption) ?? MapProducts.stem(of: regions)
        // A run's output has its maps at the default stem's names, published with its set (a
        // preview written through them changed the set's files under its record): by default the
        // preview goes beside them as `<stem>.preview.png`, ….
        let published = { (stem: String) in
            options.formats.map { MapProducts.path(stem: stem, $0) }.filter(PublishedSet.isPublishedFile)
        }
        if cl.value(outOption) == nil, let first = published(stem).first {
            Log.info("\(first) is a map 'regionsearch run' published; writing \(stem).preview.* instead")
            stem += ".preview"
        }
        // A stem names files: an empty one, or a folder, wrote hidden `.png`, `.svg`, `.html`.
        let name = AtomicFile.baseName(of: stem)
        var isFolder: ObjCBool = false
        let folder = FileManager.default.fileExists(atPath: stem, isDirectory: &isFolder) && isFolder.boolValue
        if name.isEmpty || name == "." || name == ".." || stem.hasSuffix("/") || folder {
            throw UsageError(
                "--out \"\(stem)\": expected a path stem that ends in a name, e.g. out/preview (writes "
                    + "out/preview.png, out/preview.html, …)")
        }
        if let path = published(stem).first {
            throw UsageError(
                "--out \"\(stem)\": \(path) is a map that 'regionsearch run' published with its regions, and only a "
                    + "run replaces it; give --out another stem, e.g. --out \(AtomicFile.directory(of: stem))/preview")
        }
        try OutputCollision.check(
            outputs: options.formats.map {
                ("the \($0.rawValue.uppercased()) map", MapProducts.path(stem: stem, $0))
            },
            inputs: [("the regions file", regions)] + (cl.value(poisOption).map { [("--pois", $0)] } ?? []))
        if let pois = cl.value(poisOption) { Log.info("reading POIs from \(pois)") }
        let data = try MapData.load(
            regions: regions, pois: cl.value(poisOption), only: keywords.isEmpty ? nil : keywords,
            title: cl.value(titleOption), attribution: cl.value(attributionOption) ?? "")
        let (files, notes) = try MapProducts.render(data, options: options)
        for note in notes { Log.warning(note) }
        for (path, written) in try MapProducts.write(files, stem: stem) {
            Log.info(written ? "wrote \(path)" : "\(path) is up to date")
        }
    }
}
