import Foundation
import RegionSearchCore
import RegionSearchOutput

/// `--scenario rivers-downtown`: rivers through dense downtowns and between boroughs, with
/// keyword clusters facing each other across them.
///
/// Two zones 6 km tall, stacked south to north, as wide as makes `n` POIs (at least 6 km; 4–6 % fewer
/// are written: those that fall in the rivers or beyond the zones are left out). Both
/// have a uniform base field with local spacing (the expected distance to the 5th nearest other
/// POI) 120 m, and a meandering river from the west edge to the east edge whose band holds no POI:
///
/// - **downtown** (south zone): a 150 m river, y = A sin(2πx/λ + φ) about the zone's middle with A
///   U(100, 250) m and λ U(2, 3.5) km, through downtowns every ~6 km along it: Gaussian bumps
///   (σ 1.5 km) centred on the river that make the spacing 50 m at their centre, so both banks are
///   dense. `clusters` (4) pairs of keyword clusters per downtown, 1 km apart along the river.
/// - **boroughs** (north zone): a river U(400, 600) m wide (A U(50, 150) m, λ U(3, 6) km) between
///   two boroughs per ~6 km: Gaussian bumps (σ 1.2 km, spacing 60 m at their centre) whose centres
///   lie 1 km from either bank. max(1, `clusters` / 2) pairs per borough pair, 1.2 km apart.
///
/// Each cluster of a pair lies on its own bank: the disc of radius 6 s (s the local spacing at the
/// river there) whose centre is 0.6 × radius beyond the water's edge, less everything within 15 m
/// of the water, holding half as many keyword POIs as the field has there (at least 20), spread
/// uniformly. Truth: each cluster on its own (kind `cluster`; `river`, `setting`, `bank`,
/// `band_width_m`, `field_spacing_m`, `radius_m`): a region spanning both banks is wrong. Must-not:
/// the two rivers, kind `river` (the evaluator counts the regions that span them).
extension SyntheticCity {
    static let riversDowntownZoneHeight = 6000.0
    static let riversDowntownColumn = 6000.0
    /// Local spacings: the base field, a downtown's centre, a borough's centre.
    static let riversDowntownSpacing = (base: 120.0, downtown: 50.0, borough: 60.0)
    static let riversDowntownSigma = (downtown: 1500.0, borough: 1200.0)
    static let downtownRiverWidth = 150.0
    static let boroughRiverWidth = (min: 400.0, max: 600.0)
    /// How far a borough's centre lies from its bank.
    static let boroughOffset = 1000.0

    /// POIs per m² for a local spacing s (the 5th-neighbour distance of a Poisson field).
    static func densityForSpacing(_ s: Double) -> Double { pow(fifthNeighbourFactor / s, 2) }

    static func riversDowntownCity(_ config: Config, _ rng: inout SeededRandom) throws -> SyntheticLayout {
        let height = riversDowntownZoneHeight
        let spacing = riversDowntownSpacing
        let base = densityForSpacing(spacing.base)
        let downtownPeak = densityForSpacing(spacing.downtown) - base
        let boroughPeak = densityForSpacing(spacing.borough) - base
        let sigma = riversDowntownSigma
        let downtownPOIs = downtownPeak * 2 * .pi * sigma.downtown * sigma.downtown
        let boroughPOIs = boroughPeak * 2 * .pi * sigma.borough * sigma.borough
        // POIs per metre of width: both zones' base fields, a downtown and two boroughs per column.
        let perMetre = base * 2 * height + (downtownPOIs + 2 * boroughPOIs) / riversDowntownColumn
        let width = max(riversDowntownColumn, Double(config.n) / perMetre)
        let columns = max(1, Int((width / riversDowntownColumn).rounded()))
        let centres = (0..<columns).map { -width / 2 + (Double($0) + 0.5) * width / Double(columns) }
        let pairs = max(1, config.clusters)
        let geos = GEOSContext()
        let categories = CategoryDraw(config)
        var layout = SyntheticLayout()

        for zone in 0..<2 {
            let downtown = zone == 0
            let y0 = downtown ? -height : 0
            let mid = y0 + height / 2
            let amplitude = downtown ? rng.uniform(100, 250) : rng.uniform(50, 150)
            let wavelength = downtown ? rng.uniform(2000, 3500) : rng.uniform(3000, 6000)
            let phase = rng.uniform(0, 2 * .pi)
            let bandWidth = downtown ? downtownRiverWidth : rng.uniform(boroughRiverWidth.min, boroughRiverWidth.max)
            let halfBand = bandWidth / 2
            func centre(_ x: Double) -> Double { mid + amplitude * sin(2 * .pi * x / wavelength + phase) }
            func slope(_ x: Double) -> Double {
                amplitude * 2 * .pi / wavelength * cos(2 * .pi * x / wavelength + phase)
            }
            // The bumps: (x, y, σ, peak density, POIs).
            var bumps: [(x: Double, y: Double, sigma: Double, peak: Double, count: Double)] = []
            for cx in centres {
                if downtown {
                    bumps.append((cx, mid, sigma.downtown, downtownPeak, downtownPOIs))
                } else {
                    for side in [1.0, -1.0] {
                        bumps.append(
                            (cx, mid + side * (halfBand + boroughOffset), sigma.borough, boroughPeak, boroughPOIs))
                    }
                }
            }
            func density(_ x: Double, _ y: Double) -> Double {
                var d = base
                for b in bumps {
                    let dx = x - b.x
                    let dy = y - b.y
                    let r2: Double = dx * dx + dy * dy
                    d += b.peak * exp(-r2 / (2 * b.sigma * b.sigma))
                }
                return d
            }
            let xs = Array(stride(from: -width / 2 - 300, through: width / 2 + 300, by: 10))
            let river = Polyline(x: xs, y: xs.map(centre), radius: halfBand + riverBankGap)
            let line = try geos.lineString(x: river.x, y: river.y)
            let margin = try line.buffer(halfBand + riverBankGap)

            // Cluster pairs.
            let zonePairs = downtown ? pairs : max(1, pairs / 2)
            let step = downtown ? 1000.0 : 1200.0
            let offsets: [Double] = (0..<zonePairs).map { (Double($0) - Double(zonePairs - 1) / 2) * step }
            for cx in centres {
                for offset in offsets {
                    let px = cx + offset
                    let s = slope(px)
                    let l = (1 + s * s).squareRoot()
                    let (nx, ny) = (-s / l, 1 / l)
                    let local = fifthNeighbourFactor / density(px, centre(px)).squareRoot()
                    let radius = 6 * local
                    for side in [1.0, -1.0] {
                        let offsetFromLine = halfBand + 0.6 * radius
                        let kx = px + side * nx * offsetFromLine
                        let ky = centre(px) + side * ny * offsetFromLine
                        try plantBankCluster(
                            x: kx, y: ky, radius: radius, side: side, centre: centre, river: river, margin: margin,
                            halfBand: halfBand, density: density(kx, ky), config: config, geos: geos,
                            layout: &layout, rng: &rng,
                            properties: [
                                ("river", .number(Double(zone))),
                                ("setting", .string(downtown ? "downtown" : "boroughs")),
                                ("bank", .string(side > 0 ? "north" : "south")),
                                ("band_width_m", .number((bandWidth * 10).rounded() / 10)),
                                ("field_spacing_m", .number((local * 10).rounded() / 10)),
                                ("radius_m", .number((radius * 10).rounded() / 10)),
                            ])
                    }
                }
            }

            // The field: the base uniform over the zone, the bumps Gaussian; nothing in the river
            // or outside the zone.
            func add(_ x: Double, _ y: Double, _ rng: inout SeededRandom) {
                guard abs(x) <= width / 2, y >= y0, y <= y0 + height, !river.isWithin(halfBand, x: x, y: y) else {
                    return
                }
                let category = categories.draw(&rng)
                layout.append(x: x, y: y, category: category, name: name(category, &rng), cluster: -1)
            }
            for _ in 0..<Int((base * width * height).rounded()) {
                let x = rng.uniform(-width / 2, width / 2)
                let y = rng.uniform(y0, y0 + height)
                add(x, y, &rng)
            }
            for b in bumps {
                for _ in 0..<Int(b.count.rounded()) {
                    let x = b.x + rng.normal() * b.sigma
                    let y = b.y + rng.normal() * b.sigma
                    add(x, y, &rng)
                }
            }
            let zoneBox = try geos.polygon(
                x: [-width / 2, width / 2, width / 2, -width / 2], y: [y0, y0, y0 + height, y0 + height])
            let band = try line.buffer(halfBand).intersection(zoneBox)
            layout.mustNot.append(
                Area(
                    keyword: "*", kind: "river", polygons: try polygons(of: band), count: 0,
                    properties: [
                        ("name", .string("river \(zone)")), ("setting", .string(downtown ? "downtown" : "boroughs")),
                        ("band_width_m", .number((bandWidth * 10).rounded() / 10)),
                    ]))
        }
        return layout
    }
}
