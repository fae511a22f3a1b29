import Foundation
import RegionSearchCore
import RegionSearchIngest

/// The static map laid out: the data projected into the map's CRS, the common extent of the
/// panels, and where every panel, legend and footer line goes on a page `width` pixels wide.
///
/// Every panel shows the same extent at the same scale (small multiples), one keyword each, so
/// regions can be compared across keywords by eye.
final class MapScene {
    let data: MapData
    let projection: MapProjection
    /// Page size in pixels.
    let width: Double
    private(set) var height = 0.0
    /// Scale of every size relative to a 1600 px page.
    let s: Double

    /// POIs and region rings in CRS units (NaN where PROJ failed).
    let poiX: [Double]
    let poiY: [Double]
    /// region → polygon → ring → points.
    let regionXY: [[[[(x: Double, y: Double)]]]]

    /// The extent every panel shows, in CRS units, with the box's aspect ratio.
    private(set) var minX = 0.0
    private(set) var minY = 0.0
    private(set) var maxX = 1.0
    private(set) var maxY = 1.0
    /// Map box size in pixels (integers, so the raster POI layers align with the page's pixels).
    private(set) var boxWidth = 0.0
    private(set) var boxHeight = 0.0
    private(set) var columns = 1
    /// Pixels per CRS unit.
    private(set) var pixelsPerUnit = 1.0
    /// Ground metres per CRS unit at the extent's centre (for the scale bar).
    private(set) var metresPerUnit = 1.0

    var margin: Double { 28 * s }
    var gap: Double { 26 * s }
    var headerHeight: Double { 84 * s }
    var panelTitleHeight: Double { 34 * s }
    /// The density bins, and a line on the levels when regions nest.
    var legendHeight: Double { (data.levelCount > 1 ? 86 : 64) * s }
    var footerLineHeight: Double { 21 * s }
    var footerFontSize: Double { 14.5 * s }
    private(set) var footerLines: [String] = []
    private(set) var footerTop = 0.0

    init(data: MapData, width: Int, bbox: GeoBox?, measure: CairoContext) throws {
        self.data = data
        self.width = Double(width)
        s = Double(width) / 1600
        var allLon = data.lon
        var allLat = data.lat
        for r in data.regions {
            for p in r.polygons {
                allLon += p[0].lon
                allLat += p[0].lat
            }
        }
        if let bbox {
            allLon += [bbox.west, bbox.east]
            allLat += [bbox.south, bbox.north]
        }
        projection = try MapProjection(crs: data.crs, lon: allLon, lat: allLat)
        (poiX, poiY) = try projection.project(lon: data.lon, lat: data.lat)
        var rings: [[[[(x: Double, y: Double)]]]] = []
        for r in data.regions {
            var polygons: [[[(x: Double, y: Double)]]] = []
            for p in r.polygons {
                var out: [[(x: Double, y: Double)]] = []
                for ring in p {
                    let (x, y) = try projection.project(lon: ring.lon, lat: ring.lat)
                    out.append(zip(x, y).filter { $0.0.isFinite && $0.1.isFinite }.map { (x: $0.0, y: $0.1) })
                }
                polygons.append(out)
            }
            rings.append(polygons)
        }
        regionXY = rings
        try layOut(bbox: bbox, measure: measure)
    }

    // MARK: - Layout

    /// The largest width or height of an image Cairo makes (`cairo_image_surface_create`).
    static let maximumImageSide = 32767.0

    private func layOut(bbox: GeoBox?, measure: CairoContext) throws {
        // The extent: the bbox when given; else the central 99 % of the POIs and every region.
        var xs: [Double] = []
        var ys: [Double] = []
        if let bbox {
            var lon: [Double] = []
            var lat: [Double] = []
            for k in 0...8 {
                let t = Double(k) / 8
                lon += [
                    bbox.west + t * (bbox.east - bbox.west), bbox.west + t * (bbox.east - bbox.west), bbox.west,
                    bbox.east,
                ]
                lat += [
                    bbox.south, bbox.north, bbox.south + t * (bbox.north - bbox.south),
                    bbox.south + t * (bbox.north - bbox.south),
                ]
            }
            let (x, y) = try projection.project(lon: lon, lat: lat)
            xs = x.filter(\.isFinite)
            ys = y.filter(\.isFinite)
        } else {
            let fx = poiX.filter(\.isFinite).sorted()
            let fy = poiY.filter(\.isFinite).sorted()
            if !fx.isEmpty {
                let lo = Int(Double(fx.count - 1) * 0.005)
                let hi = fx.count - 1 - lo
                xs += [fx[lo], fx[hi]]
                ys += [fy[lo], fy[hi]]
            }
            for polygon in regionXY.joined() {
                for p in polygon.first ?? [] {
                    xs.append(p.x)
                    ys.append(p.y)
                }
            }
        }
        guard let x0 = xs.min(), let x1 = xs.max(), let y0 = ys.min(), let y1 = ys.max() else {
            throw ToolFailure("nothing to draw: no region polygons and no POIs inside the map's extent")
        }
        // At least 200 m across, and 4 % of air around (none when the user gave the bbox).
        let pad = bbox == nil ? 0.04 : 0
        var w = max(x1 - x0, 1e-9)
        var h = max(y1 - y0, 1e-9)
        let cx = (x0 + x1) / 2
        let cy = (y0 + y1) / 2
        let minimum = 200 / max(projection.groundMetresPerUnit(x: cx, y: cy, span: max(w, 1)), 1e-9)
        w = max(w * (1 + 2 * pad), minimum)
        h = max(h * (1 + 2 * pad), minimum)

        measure.selectFont(size: footerFontSize)
        footerLines = footerParagraphs.flatMap { Self.wrap($0, width: width - 2 * margin, measure: measure) }
        let footerHeight = Double(footerLines.count) * footerLineHeight + margin
        let n = max(1, data.keywords.count)
        let aspect = min(1.25, max(0.55, h / w))
        // One panel per keyword, three in a row; more in a row where so many keywords would make
        // the page taller than Cairo draws an image (a hundred keywords: 35,000 pixels).
        var rows = 1
        columns = n == 1 ? 1 : (n <= 4 ? 2 : 3)
        while true {
            rows = (n + columns - 1) / columns
            boxWidth = ((width - 2 * margin - Double(columns - 1) * gap) / Double(columns)).rounded(.down)
            boxHeight = (boxWidth * aspect).rounded()
            let total =
                margin + headerHeight + Double(rows) * (panelTitleHeight + boxHeight + legendHeight + gap)
                + footerHeight
            if total.rounded(.up) <= Self.maximumImageSide || columns >= n { break }
            columns += 1
        }
        // Grow the short side of the extent to the box's aspect ratio.
        if h / w < boxHeight / boxWidth { h = w * boxHeight / boxWidth } else { w = h * boxWidth / boxHeight }
        minX = cx - w / 2
        maxX = cx + w / 2
        minY = cy - h / 2
        maxY = cy + h / 2
        pixelsPerUnit = boxWidth / w
        metresPerUnit = projection.groundMetresPerUnit(x: cx, y: cy, span: w / 4)

        footerTop = margin + headerHeight + Double(rows) * (panelTitleHeight + boxHeight + legendHeight + gap)
        height = (footerTop + footerHeight).rounded(.up)
    }

    /// Top-left corner of panel `i`'s title row.
    func panelOrigin(_ i: Int) -> (x: Double, y: Double) {
        let col = i % columns
        let row = i / columns
        return (
            (margin + Double(col) * (boxWidth + gap)).rounded(),
            (margin + headerHeight + Double(row) * (panelTitleHeight + boxHeight + legendHeight + gap)).rounded()
        )
    }

    /// Top-left corner of panel `i`'s map box (integral pixels).
    func boxOrigin(_ i: Int) -> (x: Double, y: Double) {
        let o = panelOrigin(i)
        return (o.x, (o.y + panelTitleHeight).rounded())
    }

    /// A CRS point in pixels relative to a map box's top-left corner.
    @inline(__always)
    func local(_ x: Double, _ y: Double) -> (x: Double, y: Double) {
        ((x - minX) * pixelsPerUnit, (maxY - y) * pixelsPerUnit)
    }

    /// Keyword `k`'s regions per level, level 0 first (one entry when none nest).
    func regionsPerLevel(keyword k: Int) -> [Int] {
        var counts = [Int](repeating: 0, count: data.levelCount)
        for r in data.regions where r.keyword == k { counts[r.level] += 1 }
        while counts.count > 1 && counts.last == 0 { counts.removeLast() }
        return counts
    }

    // MARK: - Texts

    var title: String { "RegionSearch — " + data.title }

    var subtitle: String {
        let k = data.keywords.count
        var text =
            "Where each keyword's POIs are dense: \(data.regions.count) region\(data.regions.count == 1 ? "" : "s")"
        text += " for \(k) keyword\(k == 1 ? "" : "s")"
        if data.levelCount > 1 { text += " at \(data.levelCount) nested levels" }
        if data.poiCount > 0 { text += ", among \(groupedCount(data.poiCount)) POIs" }
        return text
    }

    var footerParagraphs: [String] {
        var out = [
            "Colour: keyword POIs per km² inside each region polygon, in fixed bins shared by every keyword, run and "
                + "map (not stretched to this run's range); darker and more opaque = denser. Outline: the keyword's "
                + "darkest colour. Numbers: each region's rank within its keyword (1 = best); a ring marks a region "
                + "too small to see at this scale."
        ]
        if data.levelCount > 1 {
            out[0] =
                "Colour: keyword POIs per km² inside each region polygon, in fixed bins shared by every keyword, run "
                + "and map (not stretched to this run's range); darker and more opaque = denser. Outline: the "
                + "keyword's darkest colour. Levels: regions nest; level 0 is the coarsest (a city's or town's dense "
                + "core), and a region of level n + 1 lies inside one of level n, denser than it (a district in a "
                + "core); a dining street is the finest level of the core it runs through. Each level is drawn over "
                + "the one holding it, so nested regions "
                + "darken toward their densest part. Numbers: the rank of each level-0 region within its keyword "
                + "(1 = best); a ring marks a region too small to see at this scale."
        }
        var second = data.poiCount > 0 ? "Grey dots: all POIs; coloured dots: the POIs matching the keyword. " : ""
        second += "Map projection: \(projection.label); scale bars true at the map's centre."
        out.append(second)
        out.append(
            (data.attribution.isEmpty ? "" : "Data: \(data.attribution). ")
                + "Made with RegionSearch \(RegionSearchVersion.current).")
        return out
    }

    /// Greedy word wrap (at spaces; a word longer than the line stands alone).
    static func wrap(_ text: String, width: Double, measure: CairoContext) -> [String] {
        var lines: [String] = []
        var current = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: false) {
            let candidate = current.isEmpty ? String(word) : current + " " + word
            if !current.isEmpty && measure.textSize(candidate).width > width {
                lines.append(current)
                current = String(word)
            } else {
                current = candidate
            }
        }
        if !current.isEmpty { lines.append(current) }
        return lines
    }
}
