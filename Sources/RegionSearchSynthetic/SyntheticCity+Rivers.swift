import Foundation
import RegionSearchCore
import RegionSearchOutput

/// `--scenario rivers`: keyword clusters facing each other across empty meandering bands.
///
/// Four zones 4 km tall, stacked south to north, each a uniform random POI field with its own
/// local spacing s (the expected distance to the 5th nearest other POI, `graph.scale_k`: density
/// (1.2305 / s)²) and a meandering river through its middle (y = A sin(2πx/λ + φ), A 200–400 m,
/// λ 1.5–3 km) whose band holds no POI:
///
/// | zone | s | band width | × s |
/// |---|---|---|---|
/// | 0 | 50 m | 150 m | 3 |
/// | 1 | 30 m | 75 m | 2.5 |
/// | 2 | 40 m | 120 m | 3 |
/// | 3 | 60 m | 240 m | 4 |
///
/// The zones are as wide as makes `n` POIs (at least 900 m per cluster pair, so `n` is at least
/// about 13,000 per pair). Along each river `clusters` pairs (default 3) of
/// keyword clusters face each other, one on each bank: each the disc of radius 6 s whose centre
/// lies 0.6 × radius beyond the water's edge, less everything within 15 m of the water, holding
/// half as many keyword POIs as the field has there, spread uniformly. Truth: each cluster on its
/// own (a region spanning both banks is wrong). Must-not: the bands (`void`).
extension SyntheticCity {
    /// (local spacing, band width) per zone, south to north.
    static let riverZones: [(spacing: Double, width: Double)] = [(50, 150), (30, 75), (40, 120), (60, 240)]
    static let riverZoneHeight = 4000.0
    /// How far a cluster stays from the water.
    static let riverBankGap = 15.0
    /// E[distance to the 5th nearest neighbour] × √density for a Poisson field: Γ(5.5) / (Γ(5) √π).
    static let fifthNeighbourFactor = 1.2305

    static func riverCity(_ config: Config, _ rng: inout SeededRandom) throws -> SyntheticLayout {
        let height = riverZoneHeight
        let densities = riverZones.map { pow(fifthNeighbourFactor / $0.spacing, 2) }
        let pairs = max(1, config.clusters)
        // Wide enough for `pairs` clusters of up to 720 m across side by side.
        let width = max(Double(pairs) * 900, Double(config.n) / (height * densities.reduce(0, +)))
        let geos = GEOSContext()
        var layout = SyntheticLayout()
        let categories = CategoryDraw(config)
        for (z, zone) in riverZones.enumerated() {
            let y0 = -2 * height + Double(z) * height
            let mid = y0 + height / 2
            let amplitude = rng.uniform(200, 400)
            let wavelength = rng.uniform(1500, 3000)
            let phase = rng.uniform(0, 2 * .pi)
            func centre(_ x: Double) -> Double { mid + amplitude * sin(2 * .pi * x / wavelength + phase) }
            func slope(_ x: Double) -> Double {
                amplitude * 2 * .pi / wavelength * cos(2 * .pi * x / wavelength + phase)
            }
            let xs = Array(stride(from: -width / 2 - 300, through: width / 2 + 300, by: 10))
            let river = Polyline(x: xs, y: xs.map(centre), radius: zone.width / 2 + riverBankGap)
            let halfBand = zone.width / 2
            let margin = try geos.lineString(x: river.x, y: river.y).buffer(halfBand + riverBankGap)

            // Clusters, a pair at each of `pairs` evenly spaced places.
            for k in 0..<pairs {
                let px = -width / 2 + (Double(k) + 0.5) * width / Double(pairs)
                let (nx, ny) = { () -> (Double, Double) in
                    let s = slope(px)
                    let l = (1 + s * s).squareRoot()
                    return (-s / l, 1 / l)
                }()
                let radius = 6 * zone.spacing
                for side in [1.0, -1.0] {
                    let offset = halfBand + 0.6 * radius
                    let cx = px + side * nx * offset
                    let cy = centre(px) + side * ny * offset
                    try plantBankCluster(
                        x: cx, y: cy, radius: radius, side: side, centre: centre, river: river, margin: margin,
                        halfBand: halfBand, density: densities[z], config: config, geos: geos, layout: &layout,
                        rng: &rng,
                        properties: [
                            ("river", .number(Double(z))), ("bank", .string(side > 0 ? "north" : "south")),
                            ("band_width_m", .number(zone.width)), ("field_spacing_m", .number(zone.spacing)),
                            ("width_factor", .number(zone.width / zone.spacing)),
                            ("radius_m", .number(radius)),
                        ])
                }
            }

            // The field: uniform over the zone, nothing in the band.
            let field = Int((densities[z] * width * height).rounded())
            for _ in 0..<field {
                let x = rng.uniform(-width / 2, width / 2)
                let y = rng.uniform(y0, y0 + height)
                if river.isWithin(halfBand, x: x, y: y) { continue }
                let category = categories.draw(&rng)
                layout.append(x: x, y: y, category: category, name: name(category, &rng), cluster: -1)
            }
            let zoneBox = try geos.polygon(
                x: [-width / 2, width / 2, width / 2, -width / 2], y: [y0, y0, y0 + height, y0 + height])
            let band = try geos.lineString(x: river.x, y: river.y).buffer(halfBand).intersection(zoneBox)
            layout.mustNot.append(
                Area(
                    keyword: "*", kind: "void", polygons: try polygons(of: band), count: 0,
                    properties: [
                        ("name", .string("river \(z)")), ("band_width_m", .number(zone.width)),
                        ("field_spacing_m", .number(zone.spacing)),
                    ]))
        }
        return layout
    }

    /// Plants one river cluster: the disc of `radius` around (x, y) less the river and its 15 m
    /// margin (`margin`), the part that holds the centre, on the bank `side` (+1 north of the river
    /// line `centre`, −1 south); half as many keyword POIs as `density` gives the field there,
    /// at least 20, uniform in that part. Its truth is that part, with `properties`.
    static func plantBankCluster(
        x cx: Double, y cy: Double, radius: Double, side: Double, centre: (Double) -> Double, river: Polyline,
        margin: GEOSGeometry, halfBand: Double, density: Double, config: Config, geos: GEOSContext,
        layout: inout SyntheticLayout, rng: inout SeededRandom, properties: [(String, JSONValue)]
    ) throws {
        let t = (0..<128).map { 2 * Double.pi * Double($0) / 128 }
        let disc = try geos.polygon(x: t.map { cx + radius * cos($0) }, y: t.map { cy + radius * sin($0) })
        let parts = try disc.difference(margin).polygons()
        guard let part = try parts.first(where: { try $0.prepared().covers(x: cx, y: cy) }) else {
            throw ToolFailure("internal error: a river cluster lost its centre", status: .internalError)
        }
        let count = max(20, Int((0.5 * density * part.area).rounded()))
        let cluster = layout.truths.count
        let keyword = config.keywords[cluster % max(config.keywords.count, 1)]
        // Uniform in the inscribed disc of the 128-gon, on this bank, 15 m from the water, and in
        // the truth polygon (a tight meander can cut the disc in several parts).
        let inner = radius * cos(Double.pi / 128)
        let truth = try part.prepared()
        var placed = 0
        while placed < count {
            let x = cx + rng.uniform(-inner, inner)
            let y = cy + rng.uniform(-inner, inner)
            guard hypot(x - cx, y - cy) <= inner, (y - centre(x)) * side > 0,
                !river.isWithin(halfBand + riverBankGap, x: x, y: y), try truth.covers(x: x, y: y)
            else { continue }
            layout.append(x: x, y: y, category: keyword, name: name(keyword, &rng), cluster: cluster)
            placed += 1
        }
        layout.truths.append(
            Area(
                keyword: keyword, kind: "cluster", polygons: try polygons(of: part), count: count,
                properties: properties))
    }
}
