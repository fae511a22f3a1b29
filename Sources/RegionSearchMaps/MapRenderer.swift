import Foundation
import RegionSearchCore
import RegionSearchIngest
import RegionSearchOutput

/// Draws the static map of a run with Cairo: one panel per keyword, the same extent in each —
/// every POI as a light grey dot, the keyword's POIs in its colour, its region polygons filled
/// on ``RegionSearchOutput/ColorScale`` (darker = denser) with strong outlines and rank labels,
/// a legend with the density bins, a scale bar in metres, the CRS and the data attribution.
///
/// The same drawing goes to PNG, SVG and PDF. The POI dots are painted as an image layer (one
/// per panel), so an SVG or PDF of a million POIs stays small; polygons, labels and legends are
/// vectors. Output is deterministic: the same data and width give the same bytes.
public struct MapRenderer {
    /// The largest font size from `largest` down to `smallest`, in steps of `step`, at which
    /// `fits` holds (`smallest` when none does). Each size is measured, not scaled from one
    /// measurement: hinted glyph advances do not grow in proportion to the size.
    static func fittingSize(largest: Double, smallest: Double, step: Double, fits: (Double) -> Bool) -> Double {
        var size = largest
        while size > smallest && !fits(size) { size -= step }
        return max(size, smallest)
    }

    /// Page width in pixels; every size scales with it (1600 = the reference layout).
    public var width: Int
    /// The extent to show (lon/lat); nil = the POIs' central 99 % and every region.
    public var bbox: GeoBox?

    public init(width: Int = 1600, bbox: GeoBox? = nil) {
        self.width = width
        self.bbox = bbox
    }

    /// Renders the requested static formats (``MapFormat/png``, ``MapFormat/svg``,
    /// ``MapFormat/pdf``; others are ignored). `notes` says what could not be drawn as asked
    /// (characters the font lacks).
    public func render(_ data: MapData, formats: [MapFormat]) throws -> (files: [MapFormat: [UInt8]], notes: [String]) {
        let scratch = try CairoSurface(.image, width: 8, height: 8)
        let measure = try CairoContext(scratch)
        let scene = try MapScene(data: data, width: width, bbox: bbox, measure: measure)
        let layers = try POILayers(scene)
        var files: [MapFormat: [UInt8]] = [:]
        var notes: [String] = []
        for format in formats.sorted() {
            let surface: CairoSurface
            switch format {
            case .png: surface = try CairoSurface(.image, width: scene.width, height: scene.height)
            case .svg: surface = try CairoSurface(.svg, width: scene.width, height: scene.height)
            case .pdf: surface = try CairoSurface(.pdf, width: scene.width, height: scene.height)
            case .html: continue
            }
            let cr = try CairoContext(surface)
            var painter = Painter(scene: scene, layers: layers, cr: cr)
            painter.draw()
            try cr.check("draw \(format.rawValue) map")
            if notes.isEmpty { notes = painter.missingGlyphNotes }
            files[format] = format == .png ? try surface.pngBytes() : try surface.finish()
        }
        return (files, notes)
    }

    /// The raster POI layers of every panel: the grey context dots (the same in every panel)
    /// and each keyword's coloured dots.
    final class POILayers {
        let context: CairoSurface?
        let keyword: [CairoSurface?]

        init(_ scene: MapScene) throws {
            let data = scene.data
            guard data.poiCount > 0 else {
                context = nil
                keyword = data.keywords.map { _ in nil }
                return
            }
            func inside(_ p: (x: Double, y: Double)) -> Bool {
                p.x > -8 && p.y > -8 && p.x < scene.boxWidth + 8 && p.y < scene.boxHeight + 8
            }
            var all: [(x: Double, y: Double)] = []
            for i in 0..<data.poiCount where scene.poiX[i].isFinite {
                let p = scene.local(scene.poiX[i], scene.poiY[i])
                if inside(p) { all.append(p) }
            }
            let area = scene.boxWidth * scene.boxHeight
            let grey = try CairoSurface(.image, width: scene.boxWidth, height: scene.boxHeight)
            let greyRadius = MapStyle.dotRadius(
                MapStyle.contextPOIRadius * scene.s, count: all.count, area: area, coverage: 0.3)
            grey.stamp(try Self.sprite(radius: greyRadius, fill: MapStyle.contextPOI, ring: nil), at: all)
            context = grey
            var layers: [CairoSurface?] = []
            for (k, kw) in data.keywords.enumerated() {
                var points: [(x: Double, y: Double)] = []
                for i in 0..<data.poiCount where data.matches[k][i] && scene.poiX[i].isFinite {
                    let p = scene.local(scene.poiX[i], scene.poiY[i])
                    if inside(p) { points.append(p) }
                }
                let surface = try CairoSurface(.image, width: scene.boxWidth, height: scene.boxHeight)
                let radius = MapStyle.dotRadius(
                    MapStyle.keywordPOIRadius * scene.s, count: points.count, area: area, coverage: 0.12)
                // A white ring only on dots large enough to carry one.
                let sprite = try Self.sprite(
                    radius: radius, fill: MapStyle.keywordPOI(kw.colorIndex),
                    ring: radius >= 2 * scene.s ? (MapStyle.keywordPOIRing, 1.2 * scene.s) : nil)
                surface.stamp(sprite, at: points)
                layers.append(surface)
            }
            keyword = layers
        }

        /// One dot drawn by Cairo, centred on the centre pixel of a small image.
        static func sprite(radius: Double, fill: RGBA, ring: (RGBA, Double)?) throws -> CairoSurface {
            let half = Int((radius + (ring?.1 ?? 0)).rounded(.up)) + 1
            let size = Double(2 * half + 1)
            let sprite = try CairoSurface(.image, width: size, height: size)
            let c = try CairoContext(sprite)
            let centre = Double(half) + 0.5
            // The ring under the fill, so it shows only outside the dot.
            if let ring { c.circle(x: centre, y: centre, radius: radius, fill: nil, stroke: ring.0, lineWidth: ring.1) }
            c.circle(x: centre, y: centre, radius: radius, fill: fill, stroke: nil)
            try c.check("draw a POI dot")
            return sprite
        }
    }

    /// Draws one page of the scene on one surface.
    struct Painter {
        let scene: MapScene
        let layers: POILayers
        let cr: CairoContext
        private var missing: [String: [Character]] = [:]

        init(scene: MapScene, layers: POILayers, cr: CairoContext) {
            self.scene = scene
            self.layers = layers
            self.cr = cr
        }

        var s: Double { scene.s }

        /// One note per text with characters the font cannot show.
        var missingGlyphNotes: [String] {
            missing.keys.sorted().map { text in
                let chars = missing[text]!.map { "'\($0)'" }.joined(separator: ", ")
                return "the font '\(MapStyle.fontFamily)' has no glyph for \(chars) in \"\(text)\" (drawn as boxes); "
                    + "install \(MapStyle.fontPackage) or a font with these characters"
            }
        }

        /// Draws text, noting characters the font lacks.
        private mutating func text(
            _ t: String, x: Double, y: Double, size: Double, bold: Bool = false, color: RGBA = MapStyle.ink,
            align: CairoContext.Alignment = .left, halo: RGBA? = nil, haloWidth: Double = 3
        ) {
            cr.selectFont(size: size, bold: bold)
            let lacking = cr.missingGlyphs(in: t)
            if !lacking.isEmpty { missing[t] = lacking }
            cr.text(t, x: x, y: y, color, align: align, halo: halo, haloWidth: haloWidth)
        }

        mutating func draw() {
            cr.paint(MapStyle.paper)
            text(scene.title, x: scene.margin, y: scene.margin + 30 * s, size: 28 * s, bold: true)
            text(
                scene.subtitle, x: scene.margin, y: scene.margin + 60 * s, size: 17 * s, color: MapStyle.secondaryInk)
            for k in scene.data.keywords.indices { panel(k) }
            for (i, line) in scene.footerLines.enumerated() {
                text(
                    line, x: scene.margin, y: scene.footerTop + Double(i) * scene.footerLineHeight + 15 * s,
                    size: scene.footerFontSize, color: MapStyle.secondaryInk)
            }
        }

        private mutating func panel(_ k: Int) {
            let data = scene.data
            let keyword = data.keywords[k]
            let origin = scene.panelOrigin(k)
            let box = scene.boxOrigin(k)
            let (bw, bh) = (scene.boxWidth, scene.boxHeight)
            // Coarsest level first: a finer region lies over the one holding it, darker.
            let regions = data.drawingOrder(keyword: k)

            // Title row: the keyword, then its counts.
            cr.save()
            cr.clip(x: origin.x, y: origin.y, width: bw, height: scene.panelTitleHeight)
            let baseline = origin.y + 24 * s
            text(keyword.name, x: origin.x, y: baseline, size: 20 * s, bold: true)
            cr.selectFont(size: 20 * s, bold: true)
            let titleWidth = cr.textSize(keyword.name).width
            var counts = " — \(regions.count) region\(regions.count == 1 ? "" : "s")"
            let perLevel = scene.regionsPerLevel(keyword: k)
            if perLevel.count > 1 {
                counts += " (by level " + perLevel.map(String.init).joined(separator: ", ") + ")"
            }
            if data.poiCount > 0 {
                counts += " · \(groupedCount(data.keywordPOICount(k))) of \(groupedCount(data.poiCount)) POIs match"
            }
            // Smaller where the counts would run past the panel (a long keyword, many levels): the
            // clip would cut them mid-word.
            let countsSize = MapRenderer.fittingSize(largest: 15 * s, smallest: 11 * s, step: 0.5 * s) { size in
                cr.selectFont(size: size, bold: false)
                return cr.textSize(counts).width <= bw - titleWidth
            }
            text(counts, x: origin.x + titleWidth, y: baseline, size: countsSize, color: MapStyle.secondaryInk)
            cr.restore()

            // The map box.
            cr.save()
            cr.clip(x: box.x, y: box.y, width: bw, height: bh)
            cr.paint(MapStyle.mapBackground)
            if let grey = layers.context { cr.paint(grey, x: box.x, y: box.y) }
            // Regions over the POIs: the keyword's dots first, then the fills tint them.
            if k < layers.keyword.count, let dots = layers.keyword[k] { cr.paint(dots, x: box.x, y: box.y) }
            let ramp = keyword.colorIndex
            let stroke = RGBA.scale(ColorScale.stroke(keyword: ramp))
            var pixelRings: [Int: [[(x: Double, y: Double)]]] = [:]
            // Each region filled and outlined in turn, level by level: a finer region's fill lies
            // over its parent's fill and outline, and its own outline over both.
            for r in regions {
                var rings: [[(x: Double, y: Double)]] = []
                for polygon in scene.regionXY[r] {
                    for ring in polygon {
                        rings.append(
                            ring.map { p in
                                let q = scene.local(p.x, p.y)
                                return (box.x + q.x, box.y + q.y)
                            })
                    }
                }
                pixelRings[r] = rings
                let region = data.regions[r]
                let fill = RGBA.scale(
                    ColorScale.fill(keyword: ramp, density: region.density),
                    alpha: ColorScale.opacity(density: region.density))
                cr.polygon(rings, fill: fill, stroke: nil, lineWidth: 0)
                cr.polygon(rings, fill: nil, stroke: stroke, lineWidth: ColorScale.strokeWidth * s)
            }
            // A ring marks a region too small to see, above every fill; not one whose parent is
            // ringed already (the parent's ring marks the place).
            var ringed = Set<Int>()
            var anchors: [(region: Int, box: Rect)] = []
            for r in regions {
                guard let b = Rect.bounding(pixelRings[r]!.flatMap { $0 }) else { continue }
                var anchor = b
                if max(b.w, b.h) < MapStyle.smallRegionPixels * s {
                    let radius = MapStyle.smallRegionRingRadius * s
                    let c = b.center
                    anchor = Rect(x: c.x - radius, y: c.y - radius, w: 2 * radius, h: 2 * radius)
                    if !data.regions[r].ancestors(in: data.regions).contains(where: ringed.contains) {
                        cr.circle(x: c.x, y: c.y, radius: radius, fill: nil, stroke: stroke, lineWidth: 1.6 * s)
                        ringed.insert(r)
                    }
                }
                // Labels for the coarsest level: a finer region's rank is its rank within its
                // level, and every level's would crowd the map (its popup in the web map says it).
                if data.regions[r].level == 0 { anchors.append((r, anchor)) }
            }
            // Rank labels, best rank first so it gets the best spot.
            let boxRect = Rect(x: box.x, y: box.y, w: bw, h: bh)
            var labels: [Rect] = []
            for (r, anchor) in anchors.sorted(by: {
                (data.regions[$0.region].rank ?? .max) < (data.regions[$1.region].rank ?? .max)
            }) {
                guard let label = data.regions[r].caption else { continue }
                cr.selectFont(size: 15 * s, bold: true)
                let size = cr.textSize(label)
                let (w, h) = (size.width + 2 * s, cr.ascent * 0.75)
                let spot = Self.labelSpot(anchor: anchor, width: w, height: h, s: s, taken: labels, within: boxRect)
                labels.append(spot)
                text(
                    label, x: spot.x + s, y: spot.y + h, size: 15 * s, bold: true, color: stroke, halo: MapStyle.halo,
                    haloWidth: 4 * s)
            }
            scaleBar(box: box)
            cr.restore()
            cr.strokeRectangle(
                x: box.x + 0.5, y: box.y + 0.5, width: bw - 1, height: bh - 1, MapStyle.mapBorder, lineWidth: 1)
            legend(k, regions: regions, top: box.y + bh)
        }

        /// The first free spot around a region for a label `width` × `height`: inside a large
        /// region, else beside its corners, else above or below; overlapping if nothing is free.
        static func labelSpot(
            anchor a: Rect, width w: Double, height h: Double, s: Double, taken: [Rect], within box: Rect
        )
            -> Rect
        {
            let d = 3 * s
            var candidates: [Rect] = []
            if a.w > 4 * w && a.h > 3 * h {
                candidates.append(Rect(x: a.center.x - w / 2, y: a.center.y - h / 2, w: w, h: h))
            }
            candidates += [
                Rect(x: a.x + a.w + d, y: a.y - h / 2, w: w, h: h),
                Rect(x: a.x - d - w, y: a.y - h / 2, w: w, h: h),
                Rect(x: a.x + a.w + d, y: a.y + a.h - h / 2, w: w, h: h),
                Rect(x: a.x - d - w, y: a.y + a.h - h / 2, w: w, h: h),
                Rect(x: a.center.x - w / 2, y: a.y - d - h, w: w, h: h),
                Rect(x: a.center.x - w / 2, y: a.y + a.h + d, w: w, h: h),
            ]
            for c in candidates where box.contains(c) && !taken.contains(where: { $0.intersects(c, margin: s) }) {
                return c
            }
            return candidates.first { box.contains($0) } ?? candidates[0]
        }

        /// A scale bar in the map box's lower-left corner: two segments of a round length.
        private mutating func scaleBar(box: (x: Double, y: Double)) {
            let metresPerPixel = scene.metresPerUnit / scene.pixelsPerUnit
            guard metresPerPixel.isFinite, metresPerPixel > 0 else { return }
            let length = Self.niceLength(atMost: 0.22 * scene.boxWidth * metresPerPixel)
            let pixels = length / metresPerPixel
            let label =
                length >= 1000 ? JSONValue.formatNumber(length / 1000) + " km" : JSONValue.formatNumber(length) + " m"
            let x = box.x + 14 * s
            let y = box.y + scene.boxHeight - 16 * s
            cr.selectFont(size: 13 * s)
            let labelWidth = cr.textSize(label).width
            cr.fillRectangle(
                x: x - 8 * s, y: y - 26 * s, width: pixels + labelWidth + 26 * s, height: 34 * s, RGBA(1, 1, 1, 0.82))
            let barHeight = 6 * s
            cr.fillRectangle(x: x, y: y - barHeight, width: pixels / 2, height: barHeight, MapStyle.ink)
            cr.fillRectangle(x: x + pixels / 2, y: y - barHeight, width: pixels / 2, height: barHeight, RGBA(1, 1, 1))
            cr.strokeRectangle(
                x: x, y: y - barHeight, width: pixels, height: barHeight, MapStyle.ink, lineWidth: 1.2 * s)
            text("0", x: x, y: y - barHeight - 5 * s, size: 12 * s, align: .center)
            text(label, x: x + pixels + 6 * s, y: y, size: 13 * s)
        }

        /// The largest 1, 2 or 5 × 10ⁿ metres not above `limit`.
        static func niceLength(atMost limit: Double) -> Double {
            guard limit > 0 else { return 1 }
            let e = pow(10, floor(log10(limit)))
            for m in [5.0, 2.0, 1.0] where m * e <= limit { return m * e }
            return e
        }

        /// The panel's legend: what the colour means, one swatch per density bin.
        private mutating func legend(_ k: Int, regions: [Int], top: Double) {
            let keyword = scene.data.keywords[k]
            let x0 = scene.panelOrigin(k).x
            text(
                "Keyword POIs per km² inside the region (fixed bins):", x: x0, y: top + 19 * s, size: 13 * s,
                color: MapStyle.secondaryInk)
            let bins = ColorScale.binLowerBounds.count
            let spacing = 4 * s
            let w = (scene.boxWidth - Double(bins - 1) * spacing) / Double(bins)
            let used = Set(regions.map { scene.data.regions[$0].bin })
            let stroke = RGBA.scale(ColorScale.stroke(keyword: keyword.colorIndex))
            for b in 0..<bins {
                let x = x0 + Double(b) * (w + spacing)
                let y = top + 26 * s
                let density = ColorScale.binLowerBounds[b]
                cr.fillRectangle(x: x, y: y, width: w, height: 15 * s, MapStyle.mapBackground)
                cr.fillRectangle(
                    x: x, y: y, width: w, height: 15 * s,
                    RGBA.scale(
                        ColorScale.fill(keyword: keyword.colorIndex, density: density),
                        alpha: ColorScale.opacity(density: density)))
                cr.strokeRectangle(
                    x: x, y: y, width: w, height: 15 * s, stroke, lineWidth: (used.contains(b) ? 2.2 : 0.8) * s)
                text(
                    ColorScale.binLabels[b], x: x + w / 2, y: y + 31 * s, size: 12.5 * s, bold: used.contains(b),
                    color: used.contains(b) ? MapStyle.ink : MapStyle.secondaryInk, align: .center)
            }
            if scene.data.levelCount > 1 {
                // The longest that fits the panel.
                cr.selectFont(size: 13 * s)
                let line =
                    [
                        "Levels: 0 = coarsest; a finer level lies inside the one above it, denser, drawn over it.",
                        "Levels: 0 = coarsest; finer ones lie inside, denser, drawn over it.",
                        "Level 0 = coarsest; finer levels inside, drawn over.",
                    ].first { cr.textSize($0).width <= scene.boxWidth } ?? "Level 0 = coarsest"
                text(line, x: x0, y: top + 80 * s, size: 13 * s, color: MapStyle.secondaryInk)
            }
        }
    }
}
