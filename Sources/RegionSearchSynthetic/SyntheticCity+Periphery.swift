import Foundation
import RegionSearchCore
import RegionSearchOutput

/// `--scenario periphery`: a metro from a dense core to a periphery where POIs are kilometres apart.
///
/// Background density falls off as exp(−r / L) from the centre, L = extent / 22 (1.8 km in the
/// default 40 km square): with 100,000 POIs about 4,800 per km² at the centre, one per 4 km²
/// 18 km out (POIs a kilometre apart) and fewer still in the corners. East of a wavy coast (15 %
/// of the extent east of the centre) lies water, with a bay cut into the land 10 % south; six
/// parks and lakes (ellipses of 300–1,200 m) in the core and mid ring hold no POIs. Planted clusters (truncated Gaussians like the clusters scenario's):
/// half in the core (r < 7.5 % of the extent, radius 150–350 m), half in the mid ring (7.5–20 %,
/// 250–600 m), each holding 25–50 % as many keyword POIs as background POIs lie in its disc.
/// Must-not: the water and the parks and lakes (`void`), and the outer periphery beyond 25 % of
/// the extent (`sparse`, one per planted keyword).
extension SyntheticCity {
    static func peripheryCity(_ config: Config, _ rng: inout SeededRandom) throws -> SyntheticLayout {
        let extent = config.extentKm * 1000
        let half = extent / 2
        let scale = extent / 22
        // Water: east of the coast x = xc(y), and a bay (disc) cut into the land.
        func coast(_ y: Double) -> Double { 0.15 * extent + 0.02 * extent * sin(2 * .pi * y / (0.3 * extent)) }
        let bayY = -0.1 * extent
        let bayX = coast(bayY)
        let bayRadius = 0.06 * extent
        func water(_ x: Double, _ y: Double) -> Bool { x > coast(y) || hypot(x - bayX, y - bayY) < bayRadius }

        // Parks and lakes.
        struct Ellipse {
            var x, y, a, b, angle: Double
            func contains(_ px: Double, _ py: Double) -> Bool {
                let dx = px - x
                let dy = py - y
                let u = dx * cos(angle) + dy * sin(angle)
                let v = -dx * sin(angle) + dy * cos(angle)
                return (u / a) * (u / a) + (v / b) * (v / b) <= 1
            }
            func boundary(_ n: Int) -> (x: [Double], y: [Double]) {
                let t = (0..<n).map { 2 * Double.pi * Double($0) / Double(n) }
                return (
                    t.map { x + a * cos($0) * cos(angle) - b * sin($0) * sin(angle) },
                    t.map { y + a * cos($0) * sin(angle) + b * sin($0) * cos(angle) }
                )
            }
        }
        var voids: [Ellipse] = []
        var attempts = 0
        while voids.count < 6 && attempts < 10_000 {
            attempts += 1
            let r = rng.uniform(0.02, 0.2) * extent
            let theta = rng.uniform(0, 2 * .pi)
            let a = rng.uniform(300, 1200)
            let e = Ellipse(
                x: r * cos(theta), y: r * sin(theta), a: a, b: a / rng.uniform(1, 2.5), angle: rng.uniform(0, .pi))
            let edge = e.boundary(32)
            if zip(edge.x, edge.y).contains(where: { water($0.0, $0.1) }) || water(e.x, e.y) { continue }
            if voids.contains(where: { hypot($0.x - e.x, $0.y - e.y) < $0.a + e.a + 300 }) { continue }
            voids.append(e)
        }
        func free(_ x: Double, _ y: Double) -> Bool {
            abs(x) <= half && abs(y) <= half && !water(x, y) && !voids.contains { $0.contains(x, y) }
        }

        // Clusters: count from the expected background in their disc.
        let planted = config.clusters
        let backgroundCount = Double(max(0, config.n))
        func density(_ r: Double) -> Double { backgroundCount / (2 * .pi * scale * scale) * exp(-r / scale) }
        struct Disc {
            var x, y, radius: Double
            var count: Int
            var ring: String
        }
        var discs: [Disc] = []
        attempts = 0
        while discs.count < planted {
            attempts += 1
            if attempts > 100_000 {
                throw ToolFailure(
                    "cannot place \(planted) clusters on the land of a \(config.extentKm) km metro; give fewer "
                        + "(--clusters)", status: .usage)
            }
            let core = discs.count < (planted + 1) / 2
            let r = core ? rng.uniform(0, 0.075) * extent : rng.uniform(0.075, 0.2) * extent
            let theta = rng.uniform(0, 2 * .pi)
            let radius = core ? rng.uniform(150, 350) : rng.uniform(250, 600)
            let share = rng.uniform(0.25, 0.5)
            let x = r * cos(theta)
            let y = r * sin(theta)
            let edge = (0..<32).map {
                (x + radius * cos(Double($0) * .pi / 16), y + radius * sin(Double($0) * .pi / 16))
            }
            if !free(x, y) || edge.contains(where: { !free($0.0, $0.1) }) { continue }
            if discs.contains(where: { hypot($0.x - x, $0.y - y) < $0.radius + radius + 300 }) { continue }
            let expected = density(r) * .pi * radius * radius
            discs.append(
                Disc(
                    x: x, y: y, radius: radius, count: max(20, Int((share * expected).rounded())),
                    ring: core ? "core" : "mid"))
        }
        var layout = SyntheticLayout()
        for (i, d) in discs.enumerated() {
            let keyword = config.keywords[i % max(config.keywords.count, 1)]
            var placed = 0
            while placed < d.count {
                let u = rng.normal() * d.radius / 2
                let v = rng.normal() * d.radius / 2
                guard u * u + v * v <= d.radius * d.radius, free(d.x + u, d.y + v) else { continue }
                layout.append(x: d.x + u, y: d.y + v, category: keyword, name: name(keyword, &rng), cluster: i)
                placed += 1
            }
            let t = (0..<128).map { 2 * Double.pi * Double($0) / 128 }
            layout.truths.append(
                Area(
                    keyword: keyword, kind: "cluster",
                    polygons: [[(t.map { d.x + d.radius * cos($0) }, t.map { d.y + d.radius * sin($0) })]],
                    count: d.count,
                    properties: [
                        ("radius_m", .number((d.radius * 10).rounded() / 10)), ("ring", .string(d.ring)),
                        ("background_per_km2", .number((density(hypot(d.x, d.y)) * 1e6).rounded())),
                    ]))
        }

        // Background: radius Gamma(2, L) (surface density ∝ exp(−r/L)), uniform angle.
        let categories = CategoryDraw(config)
        for _ in 0..<max(0, config.n - layout.count) {
            var x = 0.0
            var y = 0.0
            repeat {
                var u1 = rng.uniform()
                while u1 <= 0 { u1 = rng.uniform() }
                var u2 = rng.uniform()
                while u2 <= 0 { u2 = rng.uniform() }
                let r = -scale * (log(u1) + log(u2))
                let theta = rng.uniform(0, 2 * .pi)
                x = r * cos(theta)
                y = r * sin(theta)
            } while !free(x, y)
            let category = categories.draw(&rng)
            layout.append(x: x, y: y, category: category, name: name(category, &rng), cluster: -1)
        }

        // Must-not areas: the water, the parks and lakes, the outer periphery per keyword.
        let geos = GEOSContext()
        let square = try geos.polygon(x: [-half, half, half, -half], y: [-half, -half, half, half])
        // The coast as a polygon 2 m out to sea, so that its chords stay off the land (they cut
        // the curve by under 0.3 m).
        let coastY = Array(stride(from: -half, through: half, by: extent / 400))
        let sea = try geos.polygon(x: coastY.map { coast($0) + 2 } + [half + 1, half + 1], y: coastY + [half, -half])
        let bayRing = (0..<128).map { 2 * Double.pi * Double($0) / 128 }
        let bay = try geos.polygon(
            x: bayRing.map { bayX + bayRadius * cos($0) }, y: bayRing.map { bayY + bayRadius * sin($0) })
        let waterArea = try sea.union(bay).intersection(square)
        layout.mustNot.append(
            Area(
                keyword: "*", kind: "void", polygons: try polygons(of: waterArea), count: 0,
                properties: [("name", .string("bay"))]))
        for (i, v) in voids.enumerated() {
            layout.mustNot.append(
                Area(
                    keyword: "*", kind: "void", polygons: [[v.boundary(64)]], count: 0,
                    properties: [("name", .string(i % 2 == 0 ? "park" : "lake"))]))
        }
        let inner = try geos.polygon(
            x: bayRing.map { 0.25 * extent * cos($0) }, y: bayRing.map { 0.25 * extent * sin($0) })
        let outer = try square.difference(inner)
        for keyword in config.keywords {
            layout.mustNot.append(
                Area(
                    keyword: keyword, kind: "sparse", polygons: try polygons(of: outer), count: 0,
                    properties: [("name", .string("periphery"))]))
        }
        return layout
    }
}
