import RegionSearchCore
import RegionSearchIngest
import RegionSearchMaps

/// The manifest's `maps` section: which map files `regionsearch run` writes beside the output,
/// and how.
///
/// ```json
/// "maps": false                              // no map files
/// "maps": { "png": true, "svg": true, "pdf": false, "html": true, "width": 1600,
///           "bbox": "24.92,60.16,24.96,60.18", "attribution": "© OpenStreetMap contributors, ODbL",
///           "basemap": "https://tile.openstreetmap.org/{z}/{x}/{y}.png",
///           "basemap_attribution": "© OpenStreetMap contributors" }
/// ```
/// Without the key a single run writes `<output stem>.png`, `.svg` and `.html`; an experiment
/// writes none per combination unless the key is given (it writes plots instead).
public struct MapSettings: Equatable, Sendable {
    public static let keys = [
        "png", "svg", "pdf", "html", "width", "bbox", "attribution", "basemap", "basemap_attribution",
    ]

    public var options: MapOptions
    /// The attribution given in the manifest; nil = detected from the inputs (``Manifest/mapAttribution``).
    public var attribution: String?
    /// Whether the manifest has a `maps` key (an experiment writes combination maps only then).
    public var explicit: Bool

    public init(options: MapOptions = MapOptions(), attribution: String? = nil, explicit: Bool = false) {
        self.options = options
        self.attribution = attribution
        self.explicit = explicit
    }

    /// No map files at all.
    public static let disabled = MapSettings(options: MapOptions(formats: []), explicit: true)

    /// Parses the value of `maps`; `invalid(key, reason)` builds the positioned error.
    init(_ value: JSONValue?, invalid: (String, String) -> ManifestError) throws(ManifestError) {
        self.init()
        guard let value, value != .null else { return }
        explicit = true
        if let b = value.boolValue {
            if !b { self = .disabled }
            return
        }
        guard let members = value.objectValue else {
            throw invalid("maps", "expected false, true or an object of map settings, got \(value.typeName)")
        }
        var formats = Set(MapOptions.defaultFormats)
        for (key, v) in members {
            let at = "maps." + key
            switch key {
            case "png", "svg", "pdf", "html":
                guard let on = v.boolValue else { throw invalid(at, "expected true or false, got \(v.typeName)") }
                let format = MapFormat(rawValue: key)!
                if on { formats.insert(format) } else { formats.remove(format) }
            case "width":
                guard let w = v.intValue, MapOptions.widthRange.contains(w) else {
                    throw invalid(
                        at,
                        "expected an integer number of pixels in \(MapOptions.widthRange.lowerBound)…"
                            + "\(MapOptions.widthRange.upperBound), got \(v.serialized())"
                    )
                }
                options.width = w
            case "bbox":
                guard let text = v.stringValue else {
                    throw invalid(at, "expected \"west,south,east,north\" in degrees, got \(v.typeName)")
                }
                switch GeoBox.parseMapExtent(text) {
                case .success(let b): options.bbox = b
                case .failure(let e): throw invalid(at, e.message)
                }
            case "attribution", "basemap", "basemap_attribution":
                guard let text = v.stringValue else {
                    if v == .null { continue }
                    throw invalid(at, "expected a string, got \(v.typeName)")
                }
                if key == "attribution" { attribution = text }
                if key == "basemap_attribution" { options.basemapAttribution = text }
                if key == "basemap" {
                    do {
                        options.basemap = try BasemapTemplate(text).url
                    } catch {
                        throw invalid(at, error.description)
                    }
                }
            default:
                let hint = closestMatch(key, in: Self.keys).map { " (did you mean '\($0)'?)" } ?? ""
                throw invalid(at, "unknown key\(hint); known keys: \(Self.keys.joined(separator: ", "))")
            }
        }
        options.formats = formats.sorted()
    }
}

extension Manifest {
    /// The data attribution the maps show: the manifest's `maps.attribution`, else OpenStreetMap's
    /// (ODbL requires it) when an input is OSM data or the description says the data comes from
    /// OpenStreetMap, else none.
    public var mapAttribution: String {
        if let given = maps.attribution { return given }
        let osm = inputs.contains { input in
            let format = input.spec["format"]?.stringValue ?? ""
            let path = input.path.lowercased()
            return format.hasPrefix("osm") || path.hasSuffix(".pbf") || path.hasSuffix(".osm")
                || path.hasSuffix(".osm.gz") || path.hasSuffix(".osm.bz2")
        }
        return osm || description.contains("OpenStreetMap") ? "© OpenStreetMap contributors, ODbL" : ""
    }
}
