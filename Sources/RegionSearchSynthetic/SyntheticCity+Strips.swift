import Foundation
import RegionSearchCore
import RegionSearchOutput

/// `--scenario strips`: dining strips on commercial streets.
///
/// The background is the usual city (60 % uniform, 40 % in five downtowns). Each strip is a 1–2 km
/// polyline — straight, bent once or twice by 20–60°, axis-aligned (40 %) or at any angle — at
/// least 1 km from the others. It gets 30–40 keyword POIs (its members) spread along it and up to
/// 25 m to either side, and as many other POIs of other categories as make the keyword's share
/// in its 40 m corridor 2–3 × the keyword's background share: a busy street where the keyword is
/// over-represented, not a blob of it. Truth: the 40 m corridor (the polyline buffered by 40 m).
extension SyntheticCity {
    /// Half-width of the band the strip's POIs are spread over, and of the truth corridor.
    static let stripHalfWidth = 25.0
    static let stripCorridor = 40.0

    static func stripCity(_ config: Config, _ rng: inout SeededRandom) throws -> SyntheticLayout {
        let half = config.extentKm * 500
        guard half > 3500 else {
            throw ToolFailure(
                "--scenario strips needs --extent-km of at least 7 (got \(config.extentKm))", status: .usage)
        }
        for keyword in config.keywords where backgroundShare(keyword, config) <= 0 {
            throw ToolFailure(
                "--scenario strips: '\(keyword)' has no background share, so a strip cannot be 2-3 times it; use a "
                    + "category of the generator or give --background-rate \(keyword)=SHARE",
                status: .usage)
        }
        var layout = SyntheticLayout()
        // The background first: each strip's street POIs are set from what already lies in its corridor.
        let downtowns = Self.downtowns(config, &rng)
        addBackground(
            max(0, config.n - 100 * config.clusters), to: &layout, config, &rng, downtowns: downtowns,
            free: { _, _ in true })

        var lines: [(line: Polyline, legs: Int, heading: Double)] = []
        var attempts = 0
        while lines.count < config.clusters {
            attempts += 1
            if attempts > 20_000 {
                throw ToolFailure(
                    "cannot place \(config.clusters) strips 1 km apart in \(config.extentKm) km; give fewer "
                        + "(--clusters) or a larger --extent-km",
                    status: .usage)
            }
            let length = rng.uniform(1000, 2000)
            let legs = 1 + rng.below(3)
            let axisAligned = rng.uniform() < 0.4
            var heading = axisAligned ? Double(rng.below(2)) * .pi / 2 : rng.uniform(0, .pi)
            let firstHeading = heading
            var parts = (0..<legs).map { _ in rng.uniform(0.5, 1.5) }
            let sum = parts.reduce(0, +)
            parts = parts.map { $0 / sum * length }
            var vx = [0.0]
            var vy = [0.0]
            for (k, l) in parts.enumerated() {
                if k > 0 { heading += (rng.uniform() < 0.5 ? -1 : 1) * rng.uniform(20, 60) * .pi / 180 }
                vx.append(vx.last! + l * cos(heading))
                vy.append(vy.last! + l * sin(heading))
            }
            let cx = rng.uniform(-half + 3000, half - 3000)
            let cy = rng.uniform(-half + 3000, half - 3000)
            let mx = (vx.min()! + vx.max()!) / 2
            let my = (vy.min()! + vy.max()!) / 2
            let line = Polyline(x: vx.map { $0 - mx + cx }, y: vy.map { $0 - my + cy }, radius: stripCorridor)
            let samples = stride(from: 0.0, through: line.length, by: 50).map { line.point(at: $0) }
            if lines.contains(where: { other in samples.contains { other.line.distance(x: $0.x, y: $0.y) < 1000 } }) {
                continue
            }
            lines.append((line, legs, firstHeading))
        }

        let geos = GEOSContext()
        let background = layout.count
        for (i, strip) in lines.enumerated() {
            let keyword = config.keywords[i % max(config.keywords.count, 1)]
            let base = backgroundShare(keyword, config)
            let line = strip.line
            var inCorridor = 0
            var keywordInCorridor = 0
            for p in 0..<background where line.isWithin(stripCorridor, x: layout.x[p], y: layout.y[p]) {
                inCorridor += 1
                if layout.category[p] == keyword { keywordInCorridor += 1 }
            }
            let members = 30 + rng.below(11)
            let ratio = rng.uniform(2, 3)
            let target = min(0.95, ratio * base)
            let street = max(
                0, Int((Double(members + keywordInCorridor) / target - Double(members + inCorridor)).rounded()))
            let others = CategoryDraw(config, excluding: keyword)
            for k in 0..<(members + street) {
                let p = line.point(at: rng.uniform(0, line.length))
                let offset = rng.uniform(-stripHalfWidth, stripHalfWidth)
                let category = k < members ? keyword : others.draw(&rng)
                layout.append(
                    x: p.x + offset * p.nx, y: p.y + offset * p.ny, category: category, name: name(category, &rng),
                    cluster: k < members ? i : -1)
            }
            let share = Double(members + keywordInCorridor) / Double(members + street + inCorridor)
            let corridor = try geos.lineString(x: line.x, y: line.y).buffer(stripCorridor)
            layout.truths.append(
                Area(
                    keyword: keyword, kind: "strip", polygons: try polygons(of: corridor), count: members,
                    properties: [
                        ("length_m", .number((line.length * 10).rounded() / 10)), ("legs", .number(Double(strip.legs))),
                        ("heading_deg", .number((strip.heading * 180 / .pi * 10).rounded() / 10)),
                        ("corridor_half_width_m", .number(stripCorridor)), ("n_street_pois", .number(Double(street))),
                        ("base_share", .number(rounded4(base))), ("keyword_share", .number(rounded4(share))),
                        ("share_ratio", .number(rounded4(share / base))),
                    ]))
        }
        return layout
    }

    /// The polygons of a GEOS geometry as open rings (exterior first, then holes).
    static func polygons(of geometry: GEOSGeometry) throws -> [[Area.Ring]] {
        try geometry.polygons().map { p in
            try p.rings().map { r in (Array(r.x.dropLast()), Array(r.y.dropLast())) }
        }
    }

    static func rounded4(_ x: Double) -> Double { (x * 1e4).rounded() / 1e4 }
}
