import Foundation
import RegionSearchCore
import RegionSearchIngest
import RegionSearchOutput

/// Writes the offline web map: one self-contained HTML file with Leaflet (Debian's
/// libjs-leaflet, inlined), the regions and the POIs, that opens from disk with no network.
///
/// - A keyword switcher (one keyword at a time, with its legend of density bins and levels),
///   regions coloured on ``RegionSearchOutput/ColorScale`` exactly as in the static map and the
///   GeoJSON, rank labels on level 0, every property of a region (its level and parent too) in a
///   popup on click.
/// - Nested levels by zoom, as a person looks at a map: level 0 at every zoom, a finer level from
///   the zoom at which its typical region is ``revealPixels`` across (``levelZoom(_:)``), each
///   drawn over the level holding it; a region of a shown level narrower than
///   ``smallRegionPixels`` on screen is marked by a ring (its coarsest such ancestor's ring marks
///   a chain of them).
/// - The regions lie above every POI (panes: grey dots, the keyword's dots, then the regions and
///   their markers), so they are what is seen first at every zoom.
/// - POIs load only where the user looks: each keyword's POIs (and every POI, in grey) sit in a
///   level-of-detail quadtree (``PointQuadtree``) inside the page's data; as the map moves, the
///   page adds the nodes in view, at the detail the zoom allows, and drops the others. A node's
///   children are visited only while the node is wider on screen than the layer's detail, chosen
///   so that the dots cover at most about a tenth of the map: where a million POIs would make a
///   solid sheet, an even sample shows their density instead.
/// - A Content-Security-Policy allows inline code and `data:` images only (plus the basemap's
///   origin when one is configured), so the page cannot silently depend on the network.
/// - An optional basemap URL template (`https://tile.openstreetmap.org/{z}/{x}/{y}.png`) for
///   users who are online.
///
/// The output is deterministic: the same data and options give the same bytes.
public struct WebMapWriter {
    /// Debian's libjs-leaflet.
    public static let leafletDirectory = "/usr/share/javascript/leaflet"
    /// Points per layer beyond which the page holds an even sample (file size stays bounded).
    static let maxPointsPerLayer = 250_000
    /// A finer level is shown from the zoom at which its median region is this wide on screen
    /// (the larger of its width and height): a shape, not a speck.
    static let revealPixels = 32.0
    /// A region of a shown level narrower than this on screen gets a marker (a ring).
    static let smallRegionPixels = 12.0
    /// The marker's radius, pixels.
    static let markerRadius = 8.0

    public var bbox: GeoBox?
    public var basemap: String?
    public var basemapAttribution: String?

    public init(bbox: GeoBox? = nil, basemap: String? = nil, basemapAttribution: String? = nil) {
        self.bbox = bbox
        self.basemap = basemap
        self.basemapAttribution = basemapAttribution
    }

    /// The HTML page's bytes.
    public func page(_ data: MapData) throws -> [UInt8] {
        let leaflet = try Self.leaflet()
        var csp = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:"
        if let basemap {
            do {
                csp += " " + (try BasemapTemplate(basemap)).origin
            } catch {
                throw ToolFailure("basemap \(error)", status: .usage)
            }
        }
        let json = Self.scriptSafe(document(data))
        var html = "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        // Escaped although the origin was checked: an attribute holds text, never markup.
        html += "<meta http-equiv=\"Content-Security-Policy\" content=\"\(Self.htmlEscaped(csp))\">\n"
        html += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        html += "<meta name=\"generator\" content=\"RegionSearch \(RegionSearchVersion.current)\">\n"
        html += "<title>\(Self.htmlEscaped("RegionSearch — " + data.title))</title>\n"
        html += "<style>\n" + leaflet.css + "\n</style>\n<style>\n" + Self.pageCSS + "</style>\n"
        html += "<script>\n" + leaflet.js + "\n</script>\n</head>\n<body>\n<div id=\"map\"></div>\n"
        html += "<script type=\"application/json\" id=\"regionsearch-data\">" + json + "</script>\n"
        html += "<script>\n" + Self.pageScript + "</script>\n</body>\n</html>\n"
        return Array(html.utf8)
    }

    // MARK: - Data

    /// The page's data as JSON text (written directly: a million coordinates as JSONValue would
    /// be slow).
    func document(_ data: MapData) -> String {
        var out = "{"
        func member(_ key: String, _ value: JSONValue) {
            if out.count > 1 { out += "," }
            JSONValue.writeString(key, to: &out)
            out += ":" + value.serialized()
        }
        member("title", .string("RegionSearch — " + data.title))
        member("attribution", .string(data.attribution))
        if let basemap {
            member(
                "basemap",
                .object([("url", .string(basemap)), ("attribution", .string(basemapAttribution ?? ""))]))
        } else {
            member("basemap", .null)
        }
        let b = extent(data)
        member(
            "bounds",
            .array([.array([.number(b.south), .number(b.west)]), .array([.number(b.north), .number(b.east)])]))
        member("background", .string(Self.hex(MapStyle.mapBackground)))
        member("strokeWidth", .number(ColorScale.strokeWidth))
        member("smallRegionPixels", .number(Self.smallRegionPixels))
        member("markerRadius", .number(Self.markerRadius))
        member(
            "legend",
            .object([
                ("title", .string("Keyword POIs per km² inside the region (fixed bins)")),
                ("labels", .array(ColorScale.binLabels.map { .string($0) })),
                (
                    "levels",
                    .string(
                        "Levels nest: 0 is the coarsest (a city's or town's dense core); a region of level n + 1 lies "
                            + "inside one of level n and is denser (a district), drawn over it; a dining street is the "
                            + "finest level of the core it runs through. Finer levels appear as you zoom in; a ring marks "
                            + "a region too small to see.")
                ),
            ]))
        let everyone = Self.sample(Array(0..<data.poiCount))
        member(
            "contextNote",
            .string(
                everyone.count == data.poiCount
                    ? "all \(groupedCount(data.poiCount)) POIs"
                    : "an even sample of \(groupedCount(everyone.count)) of \(groupedCount(data.poiCount)) POIs"))
        out += ",\"context\":"
        out +=
            data.poiCount > 0
            ? Self.tree(PointQuadtree(lon: data.lon, lat: data.lat, indices: everyone), names: nil) : "null"
        out += ",\"keywords\":["
        for (k, keyword) in data.keywords.enumerated() {
            if k > 0 { out += "," }
            out += keywordJSON(data, k, keyword)
        }
        out += "]}"
        return out
    }

    private func keywordJSON(_ data: MapData, _ k: Int, _ keyword: MapKeyword) -> String {
        let ramp = ColorScale.ramps[keyword.colorIndex % ColorScale.ramps.count]
        var regions: [JSONValue] = []
        // Coarsest level first (the page draws them in this order); ids are indices into the
        // map's region list, so that parents are found whatever the file's region_ids are.
        for i in data.drawingOrder(keyword: k) {
            let r = data.regions[i]
            let box = Self.box(r.polygons)
            var properties: [JSONValue] = []
            for (name, value) in r.properties where !Self.styleKeys.contains(name) {
                properties.append(.array([.string(name), .string(Self.text(value))]))
            }
            properties.append(
                .array([
                    .string("density bin"),
                    .string(ColorScale.binLabels[r.bin] + " keyword POIs per km²"),
                ]))
            regions.append(
                .object([
                    ("geometry", Self.geometry(r.polygons)),
                    ("id", .number(Double(i))),
                    ("parent", r.parent.map { .number(Double($0)) } ?? .null),
                    ("level", .number(Double(r.level))),
                    ("anchor", .array([.number(box.centre.lat), .number(box.centre.lon)])),
                    ("label", Self.labelPoint(r.polygons).map { .array([.number($0.lat), .number($0.lon)]) } ?? .null),
                    ("extent", .number(box.extent)),
                    ("rank", r.rank.map { .number(Double($0)) } ?? .null),
                    ("fill", .string(ColorScale.fill(keyword: keyword.colorIndex, density: r.density))),
                    ("opacity", .number(ColorScale.opacity(density: r.density))),
                    ("properties", .array(properties)),
                ]))
        }
        let matching = data.poiCount > 0 ? (0..<data.poiCount).filter { data.matches[k][$0] } : []
        let shown = Self.sample(matching)
        var out = JSONValue.object([
            ("name", .string(keyword.name)),
            ("ramp", .array(ramp.map { .string($0) })),
            ("opacities", .array(ColorScale.opacities.map { .number($0) })),
            ("stroke", .string(ColorScale.stroke(keyword: keyword.colorIndex))),
            ("poiColor", .string(Self.hex(MapStyle.keywordPOI(keyword.colorIndex)))),
            ("poiCount", .number(Double(matching.count))),
            ("poiShown", .number(Double(shown.count))),
            ("levelZoom", .array(Self.levelZoom(data.regions.filter { $0.keyword == k }).map { .number($0) })),
            ("regions", .array(regions)),
        ]).serialized()
        out.removeLast()
        out += ",\"pois\":"
        out +=
            shown.isEmpty
            ? "null" : Self.tree(PointQuadtree(lon: data.lon, lat: data.lat, indices: shown), names: data.names)
        return out + "}"
    }

    /// The region and POI extent the page opens on (lon/lat), as the static map computes it.
    func extent(_ data: MapData) -> (west: Double, south: Double, east: Double, north: Double) {
        if let bbox { return (bbox.west, bbox.south, bbox.east, bbox.north) }
        var lon: [Double] = []
        var lat: [Double] = []
        if data.poiCount > 0 {
            let xs = data.lon.sorted()
            let ys = data.lat.sorted()
            let lo = Int(Double(xs.count - 1) * 0.005)
            lon += [xs[lo], xs[xs.count - 1 - lo]]
            lat += [ys[lo], ys[ys.count - 1 - lo]]
        }
        for r in data.regions {
            for p in r.polygons {
                lon += p[0].lon
                lat += p[0].lat
            }
        }
        guard let w = lon.min(), let e = lon.max(), let s = lat.min(), let n = lat.max() else {
            return (-180, -85, 180, 85)
        }
        return (w, s, e, n)
    }

    /// A region's extent in Web Mercator: the centre of its bounding box (lon/lat, rounded to
    /// the 7 decimals written) and the larger of its width and height in pixels at zoom 0 (a
    /// 256-pixel world; 2^z times that at zoom z).
    static func box(_ polygons: [[GeoJSONWriter.Ring]]) -> (centre: (lon: Double, lat: Double), extent: Double) {
        let lon = polygons.flatMap { $0[0].lon }
        let lat = polygons.flatMap { $0[0].lat }
        guard let w = lon.min(), let e = lon.max(), let s = lat.min(), let n = lat.max() else { return ((0, 0), 0) }
        func y(_ lat: Double) -> Double {
            let phi = max(-85.0511, min(85.0511, lat)) * .pi / 180
            return log(tan(phi) + 1 / cos(phi)) / (2 * .pi) * 256
        }
        let extent = max((e - w) / 360 * 256, y(n) - y(s))
        return (
            (GeoJSONWriter.rounded((w + e) / 2), GeoJSONWriter.rounded((s + n) / 2)),
            (extent * 1e9).rounded() / 1e9
        )
    }

    /// Where a large region's label goes: the centroid of its largest part's exterior ring
    /// (lon/lat, rounded to 7 decimals), not of the part that happens to come first.
    static func labelPoint(_ polygons: [[GeoJSONWriter.Ring]]) -> (lon: Double, lat: Double)? {
        var best: (area: Double, lon: Double, lat: Double)?
        for polygon in polygons {
            let r = polygon[0]
            guard let x0 = r.lon.first, let y0 = r.lat.first else { continue }
            // Relative to the first vertex, so that the cross products keep their digits.
            let x: [Double] = r.lon.map { $0 - x0 }
            let y: [Double] = r.lat.map { $0 - y0 }
            var a = 0.0
            var cx = 0.0
            var cy = 0.0
            for i in 0..<max(0, x.count - 1) {
                let cross: Double = x[i] * y[i + 1] - x[i + 1] * y[i]
                a += cross
                cx += (x[i] + x[i + 1]) * cross
                cy += (y[i] + y[i + 1]) * cross
            }
            guard a != 0 else { continue }
            if best == nil || abs(a) > best!.area { best = (abs(a), x0 + cx / (3 * a), y0 + cy / (3 * a)) }
        }
        return best.map { (GeoJSONWriter.rounded($0.lon), GeoJSONWriter.rounded($0.lat)) }
    }

    /// The zoom from which each level of a keyword's regions is shown: level 0 always (0); level
    /// n from the zoom at which its median region is ``revealPixels`` across (on the page's
    /// quarter-zoom steps, rounded up), and never before level n − 1.
    static func levelZoom(_ regions: [MapRegion]) -> [Double] {
        let levels = (regions.map(\.level).max() ?? 0) + 1
        var out = [Double](repeating: 0, count: levels)
        for level in 1..<max(levels, 1) {
            let extents = regions.filter { $0.level == level }.map { box($0.polygons).extent }.filter { $0 > 0 }
                .sorted()
            var zoom = out[level - 1]
            if !extents.isEmpty {
                let median = extents[(extents.count - 1) / 2]
                zoom = max(zoom, (log2(revealPixels / median) * 4).rounded(.up) / 4)
            }
            out[level] = max(0, zoom)
        }
        return out
    }

    /// Properties the page shows through the style, not as text.
    static let styleKeys: Set<String> = ["fill", "fill-opacity", "stroke", "stroke-width", "stroke-opacity"]

    /// An even sample of at most ``maxPointsPerLayer`` indices (every k-th).
    static func sample(_ indices: [Int]) -> [Int] {
        guard indices.count > maxPointsPerLayer else { return indices }
        let step = Double(indices.count) / Double(maxPointsPerLayer)
        return (0..<maxPointsPerLayer).map { indices[Int(Double($0) * step)] }
    }

    static func text(_ v: JSONValue) -> String {
        switch v {
        case .string(let s): return s
        case .number(let d): return JSONValue.formatNumber(d)
        case .null: return "–"
        default: return v.serialized()
        }
    }

    /// A GeoJSON geometry: Polygon, or MultiPolygon for several polygons.
    static func geometry(_ polygons: [[GeoJSONWriter.Ring]]) -> JSONValue {
        func ring(_ r: GeoJSONWriter.Ring) -> JSONValue {
            .array(
                zip(r.lon, r.lat).map {
                    .array([.number(GeoJSONWriter.rounded($0.0)), .number(GeoJSONWriter.rounded($0.1))])
                })
        }
        if polygons.count == 1 {
            return .object([("type", .string("Polygon")), ("coordinates", .array(polygons[0].map(ring)))])
        }
        return .object([
            ("type", .string("MultiPolygon")), ("coordinates", .array(polygons.map { .array($0.map(ring)) })),
        ])
    }

    /// `{"o": [lon0, lat0], "q": quantum, "n": [[x0, y0, x1, y1, start, count, c0, c1, c2, c3], …],
    /// "p": [x, y, …], "names": […]}`; a node's bounds are those of its subtree's points
    /// (inclusive), which the page culls and thins by.
    static func tree(_ t: PointQuadtree, names: StringColumn?) -> String {
        var out = "{\"o\":[" + JSONValue.formatNumber(t.origin.lon) + "," + JSONValue.formatNumber(t.origin.lat) + "]"
        out += ",\"q\":" + JSONValue.formatNumber(PointQuadtree.quantum) + ",\"n\":["
        for (i, n) in t.nodes.enumerated() {
            if i > 0 { out += "," }
            out += "[\(n.bx0),\(n.by0),\(n.bx1),\(n.by1),\(n.start),\(n.count)"
            for c in (n.children.isEmpty ? [-1, -1, -1, -1] : n.children) { out += ",\(c)" }
            out += "]"
        }
        out += "],\"p\":["
        for (k, i) in t.order.enumerated() {
            if k > 0 { out += "," }
            out += "\(t.qx[i]),\(t.qy[i])"
        }
        out += "]"
        if let names, names.count > 0, t.order.contains(where: { names.range($0).count > 0 }) {
            out += ",\"names\":["
            for (k, i) in t.order.enumerated() {
                if k > 0 { out += "," }
                JSONValue.writeString(names[i], to: &out)
            }
            out += "]"
        }
        return out + "}"
    }

    // MARK: - Text safety

    /// JSON inside `<script>`: `<` never appears literally (it could end the script element).
    static func scriptSafe(_ json: String) -> String { json.replacingOccurrences(of: "<", with: "\\u003c") }

    static func htmlEscaped(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    static func hex(_ c: RGBA) -> String {
        func h(_ v: Double) -> String {
            let s = String(Int((v * 255).rounded()), radix: 16)
            return s.count == 1 ? "0" + s : s
        }
        return "#" + h(c.r) + h(c.g) + h(c.b)
    }

    // MARK: - Leaflet

    /// Leaflet's script and style sheet, the source-map comments removed (nothing to fetch) and
    /// the style sheet's images inlined as `data:` URLs.
    static func leaflet() throws -> (js: String, css: String) {
        let dir = leafletDirectory
        func read(_ name: String) throws -> Data {
            guard let d = FileManager.default.contents(atPath: dir + "/" + name) else {
                throw ToolFailure(
                    "\(dir)/\(name) not found: the web map needs Leaflet from Debian; install libjs-leaflet "
                        + "(apt-get install libjs-leaflet, or scripts/setup), or turn the web map off "
                        + "(\"maps\": {\"html\": false})"
                )
            }
            return d
        }
        func text(_ name: String) throws -> String {
            String(decoding: try read(name), as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
                .filter { !$0.contains("sourceMappingURL=") }.joined(separator: "\n")
        }
        let js = try text("leaflet.min.js")
        var css = try text("leaflet.css")
        for image in ["layers.png", "layers-2x.png", "marker-icon.png"] {
            let encoded = try read("images/" + image).base64EncodedString()
            css = css.replacingOccurrences(of: "url(images/\(image))", with: "url(data:image/png;base64,\(encoded))")
        }
        guard !js.lowercased().contains("</script"), !css.lowercased().contains("</style") else {
            throw ToolFailure("\(dir): Leaflet's files cannot be inlined (they contain a closing tag)")
        }
        return (js, css)
    }
}
