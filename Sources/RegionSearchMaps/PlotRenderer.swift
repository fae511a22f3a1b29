import Foundation
import RegionSearchCore

/// Draws a ``PlotFigure`` with Cairo as PNG and SVG: a title, a legend of the series, and one
/// plot per panel (up to three in a row) with labelled axes; bars carry their values.
/// Deterministic: the same figure gives the same bytes.
public struct PlotRenderer {
    /// ColorBrewer Dark2: distinct, print-safe series colours.
    static let palette = ["#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e", "#e6ab02", "#a6761d", "#666666"]
    public var width: Double

    public init(width: Double = 1500) { self.width = width }

    /// The figure in the requested formats (``MapFormat/png`` and ``MapFormat/svg``; others are ignored).
    public func render(_ figure: PlotFigure, formats: [MapFormat] = [.png, .svg]) throws -> [MapFormat: [UInt8]] {
        let scratch = try CairoSurface(.image, width: 8, height: 8)
        let measure = try CairoContext(scratch)
        let layout = Layout(figure: figure, width: width, measure: measure)
        var out: [MapFormat: [UInt8]] = [:]
        for format in formats.sorted() {
            let kind: CairoSurface.Kind
            switch format {
            case .png: kind = .image
            case .svg: kind = .svg
            case .pdf: kind = .pdf
            case .html: continue
            }
            let surface = try CairoSurface(kind, width: width, height: layout.height)
            let cr = try CairoContext(surface)
            draw(figure, layout, cr)
            try cr.check("draw plot")
            out[format] = kind == .image ? try surface.pngBytes() : try surface.finish()
        }
        return out
    }

    /// Where things go.
    struct Layout {
        let margin = 28.0
        let columns: Int
        let panelWidth: Double
        let panelHeight = 330.0
        let legendLines: [[Int]]
        let legendTop = 104.0
        let legendLineHeight = 22.0
        var panelsTop: Double { legendTop + Double(legendLines.count) * legendLineHeight + 18 }
        let rows: Int
        var height: Double { (panelsTop + Double(rows) * (panelHeight + 24) + margin).rounded(.up) }

        init(figure: PlotFigure, width: Double, measure: CairoContext) {
            columns = min(3, max(1, figure.panels.count))
            rows = (figure.panels.count + columns - 1) / columns
            panelWidth = ((width - 2 * margin - Double(columns - 1) * 24) / Double(columns)).rounded(.down)
            // Legend entries flow over lines of the page's width.
            measure.selectFont(size: 14)
            var lines: [[Int]] = [[]]
            var x = 0.0
            for (i, name) in figure.seriesNames.enumerated() {
                let w = 26 + measure.textSize(name).width + 22
                if x + w > width - 2 * margin && !lines[lines.count - 1].isEmpty {
                    lines.append([])
                    x = 0
                }
                lines[lines.count - 1].append(i)
                x += w
            }
            legendLines = lines
        }

        func panelOrigin(_ i: Int) -> (x: Double, y: Double) {
            (margin + Double(i % columns) * (panelWidth + 24), panelsTop + Double(i / columns) * (panelHeight + 24))
        }
    }

    static func color(_ series: Int) -> RGBA { RGBA(hex: palette[series % palette.count])! }

    private func draw(_ figure: PlotFigure, _ layout: Layout, _ cr: CairoContext) {
        cr.paint(MapStyle.paper)
        cr.selectFont(size: 24, bold: true)
        cr.text(figure.title, x: layout.margin, y: layout.margin + 22, MapStyle.ink)
        cr.selectFont(size: 15)
        cr.text(figure.subtitle, x: layout.margin, y: layout.margin + 48, MapStyle.secondaryInk)
        cr.selectFont(size: 14)
        for (l, line) in layout.legendLines.enumerated() {
            var x = layout.margin
            let y = layout.legendTop + Double(l) * layout.legendLineHeight
            for i in line {
                let c = Self.color(i)
                if figure.kind == .lines {
                    cr.line(from: (x, y - 5), to: (x + 20, y - 5), c, width: 2.5)
                    cr.circle(x: x + 10, y: y - 5, radius: 3.5, fill: c, stroke: nil)
                } else {
                    cr.fillRectangle(x: x, y: y - 12, width: 20, height: 13, c)
                }
                cr.text(figure.seriesNames[i], x: x + 26, y: y, MapStyle.ink)
                x += 26 + cr.textSize(figure.seriesNames[i]).width + 22
            }
        }
        for (p, panel) in figure.panels.enumerated() {
            drawPanel(
                figure, panel, origin: layout.panelOrigin(p), width: layout.panelWidth, height: layout.panelHeight, cr)
        }
    }

    private func drawPanel(
        _ figure: PlotFigure, _ panel: PlotFigure.Panel, origin: (x: Double, y: Double), width: Double,
        height: Double, _ cr: CairoContext
    ) {
        let left = origin.x + 52
        let top = origin.y + 34
        let plotWidth = width - 64
        let plotHeight = height - 34 - 58
        let bottom = top + plotHeight
        cr.selectFont(size: 16, bold: true)
        cr.text(panel.title, x: origin.x, y: origin.y + 18, MapStyle.ink)

        let all = panel.values.joined().compactMap { $0 }.filter(\.isFinite)
        let range = panel.yRange ?? (0...Self.niceCeiling(all.max() ?? 1))
        let ticks = Self.ticks(range)
        func y(_ v: Double) -> Double {
            bottom - (v - range.lowerBound) / (range.upperBound - range.lowerBound) * plotHeight
        }
        cr.selectFont(size: 12)
        for t in ticks {
            cr.line(from: (left, y(t)), to: (left + plotWidth, y(t)), RGBA(0, 0, 0, 0.1), width: 1)
            cr.text(Self.tickLabel(t), x: left - 6, y: y(t) + 4, MapStyle.secondaryInk, align: .right)
        }
        cr.line(from: (left, top), to: (left, bottom), MapStyle.secondaryInk, width: 1)
        cr.line(from: (left, bottom), to: (left + plotWidth, bottom), MapStyle.secondaryInk, width: 1)

        let n = figure.xLabels.count
        guard n > 0 else { return }
        // x positions in pixels: numeric for lines when given, else evenly spaced slots.
        var xs: [Double] = []
        if figure.kind == .lines, let pos = figure.xPositions, let lo = pos.min(), let hi = pos.max(), hi > lo {
            xs = pos.map { left + 24 + ($0 - lo) / (hi - lo) * (plotWidth - 48) }
        } else {
            let slot = plotWidth / Double(n)
            xs = (0..<n).map { left + slot * (Double($0) + 0.5) }
        }
        cr.selectFont(size: 12)
        // Labels wider than their slot would run into each other: every other one is set a line
        // lower (alternating rows), which keeps twelve input names legible on a 440 px panel.
        let slotWidth = n > 1 ? abs(xs[1] - xs[0]) : plotWidth
        let crowded = figure.xLabels.contains { Double($0.count) * 6.5 > slotWidth - 4 }
        for (i, label) in figure.xLabels.enumerated() {
            let lower = crowded && i % 2 == 1
            cr.line(from: (xs[i], bottom), to: (xs[i], bottom + (lower ? 16 : 4)), MapStyle.secondaryInk, width: 1)
            cr.text(label, x: xs[i], y: bottom + (lower ? 32 : 18), MapStyle.ink, align: .center)
        }
        cr.selectFont(size: 13)
        cr.text(
            figure.xLabel, x: left + plotWidth / 2, y: bottom + (crowded ? 52 : 40), MapStyle.secondaryInk,
            align: .center)

        let series = panel.values.count
        switch figure.kind {
        case .lines:
            for s in 0..<series {
                let c = Self.color(s)
                let points: [(x: Double, y: Double)?] = (0..<n).map { i in
                    guard let v = panel.values[s][i], v.isFinite else { return nil }
                    return (xs[i], y(v))
                }
                cr.polyline(points, c, width: 2.5)
                for p in points.compactMap({ $0 }) {
                    cr.circle(x: p.x, y: p.y, radius: 4, fill: c, stroke: MapStyle.paper)
                }
            }
        case .bars:
            let slot = plotWidth / Double(n)
            let barWidth = min(46, (slot * 0.8) / Double(max(series, 1)))
            cr.selectFont(size: 10.5)
            for i in 0..<n {
                let groupLeft = xs[i] - barWidth * Double(series) / 2
                for s in 0..<series {
                    guard let v = panel.values[s][i], v.isFinite else { continue }
                    let x = groupLeft + Double(s) * barWidth
                    let top = y(max(v, range.lowerBound))
                    cr.fillRectangle(x: x + 1, y: top, width: barWidth - 2, height: bottom - top, Self.color(s))
                    if barWidth >= 24 {
                        cr.text(Self.valueLabel(v), x: x + barWidth / 2, y: top - 3, MapStyle.ink, align: .center)
                    }
                }
            }
        }
    }

    /// A round number at or above `v` (1, 2 or 5 × 10ⁿ); 1 for nothing positive.
    static func niceCeiling(_ v: Double) -> Double {
        guard v > 0, v.isFinite else { return 1 }
        let e = pow(10, floor(log10(v)))
        for m in [1.0, 2.0, 5.0, 10.0] where m * e >= v { return m * e }
        return 10 * e
    }

    /// Five ticks over the range.
    static func ticks(_ r: ClosedRange<Double>) -> [Double] {
        (0...4).map { r.lowerBound + (r.upperBound - r.lowerBound) * Double($0) / 4 }
    }

    static func tickLabel(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e9 ? String(Int(v)) : String(format: "%.2f", v)
    }

    static func valueLabel(_ v: Double) -> String {
        v == v.rounded() && abs(v) >= 1 ? String(Int(v)) : String(format: "%.2f", v)
    }
}
