import Foundation
import RegionSearchCore

/// `--scenario towns`: a metro and, 50–100 km from its centre, towns at 1/20–1/10 of its density.
///
/// The metro is the `clusters` city (`--extent-km`, 30 by default: 60 % uniform, 40 % in five
/// downtowns) with `clusters` planted clusters (10 by default; kind `cluster`, as that scenario
/// plants them: radius 150–800 m, U(0.5, 1.5) × max(20, n/1000) keyword POIs). Around it,
/// `towns` towns (8 by default), the k-th at bearing 2πk/towns ± 0.3 rad and distance
/// U(50, 100) km, each a Gaussian of σ U(1, 2) km whose mean density within 2σ is a factor
/// f ~ U(1/20, 1/10) of the metro's mean density (its POIs over the metro's square), and a
/// town's dining centre planted within σ/2 of its centre (kind `town`): 12–24 keyword POIs in a
/// truncated Gaussian of radius U(150, 300) m (σ = r/2, cut at r) — dense for its town (tens of
/// times its keyword density), not more so than the metro's downtowns. Truth: every planted
/// cluster (disc of its radius); `town`, `town_x_m`, `town_y_m` (its centre, metres east and north of
/// the metro's), `distance_km`, `density_factor`, `town_sigma_m`, `town_pois` on the town ones. The
/// metro gets the POIs the towns leave of `n`.
extension SyntheticCity {
    static let townDistanceKm = (min: 50.0, max: 100.0)
    static let townDensityFactor = (min: 1.0 / 20, max: 1.0 / 10)

    static func townCity(_ config: Config, _ rng: inout SeededRandom, clusters: inout [Cluster]) throws
        -> SyntheticLayout
    {
        let count = max(0, config.towns)
        struct Town {
            var x, y, sigma, factor, distance: Double
            var cluster: Cluster
            var pois = 0
        }
        // The towns and their clusters first (their sizes set the metro's share of n).
        var towns: [Town] = []
        for k in 0..<count {
            let bearing = 2 * Double.pi * Double(k) / Double(max(count, 1)) + rng.uniform(-0.3, 0.3)
            let distance = rng.uniform(townDistanceKm.min, townDistanceKm.max) * 1000
            let sigma = rng.uniform(1000, 2000)
            let factor = rng.uniform(townDensityFactor.min, townDensityFactor.max)
            let x = distance * cos(bearing)
            let y = distance * sin(bearing)
            let r = rng.uniform(150, 300)
            let a = rng.uniform(0, 2 * .pi)
            let offset = rng.uniform(0, 0.5) * sigma
            let keyword = config.keywords[(config.clusters + k) % max(config.keywords.count, 1)]
            let planted = 12 + rng.below(13)
            towns.append(
                Town(
                    x: x, y: y, sigma: sigma, factor: factor, distance: distance,
                    cluster: Cluster(
                        keyword: keyword, x: x + offset * cos(a), y: y + offset * sin(a), radius: r, count: planted)))
        }
        // Mean density within 2σ of a Gaussian of N POIs: N (1 − e⁻²) / (π (2σ)²); the metro's is
        // n_metro / extent², and the towns take f of it: solve for n_metro.
        let extent = config.extentKm * 1000
        let capture = 1 - exp(-2.0)
        let perMetroDensity = towns.reduce(0.0) { $0 + $1.factor * .pi * 4 * $1.sigma * $1.sigma / capture }
        let plantedInTowns = towns.reduce(0) { $0 + $1.cluster.count }
        let metroCount = max(
            0, Int((Double(config.n - plantedInTowns) / (1 + perMetroDensity / (extent * extent))).rounded()))
        let metroDensity = Double(metroCount) / (extent * extent)
        for k in towns.indices {
            towns[k].pois = Int(
                (towns[k].factor * metroDensity * .pi * 4 * towns[k].sigma * towns[k].sigma / capture).rounded())
        }

        // The metro: the clusters city with its share of the POIs.
        var metro = config
        metro.n = max(0, config.n - plantedInTowns - towns.reduce(0) { $0 + $1.pois })
        var layout = try clusterCity(metro, &rng, clusters: &clusters)

        // The towns: their background, then their clusters.
        let categories = CategoryDraw(config)
        for town in towns {
            for _ in 0..<town.pois {
                let x = town.x + rng.normal() * town.sigma
                let y = town.y + rng.normal() * town.sigma
                let category = categories.draw(&rng)
                layout.append(x: x, y: y, category: category, name: name(category, &rng), cluster: -1)
            }
        }
        for (k, town) in towns.enumerated() {
            let c = town.cluster
            let index = layout.truths.count
            var placed = 0
            while placed < c.count {
                let u = rng.normal() * c.radius / 2
                let v = rng.normal() * c.radius / 2
                guard u * u + v * v <= c.radius * c.radius else { continue }
                layout.append(x: c.x + u, y: c.y + v, category: c.keyword, name: name(c.keyword, &rng), cluster: index)
                placed += 1
            }
            clusters.append(c)
            let t = (0..<128).map { 2 * Double.pi * Double($0) / 128 }
            layout.truths.append(
                Area(
                    keyword: c.keyword, kind: "town",
                    polygons: [[(t.map { c.x + c.radius * cos($0) }, t.map { c.y + c.radius * sin($0) })]],
                    count: c.count,
                    properties: [
                        ("radius_m", .number((c.radius * 10).rounded() / 10)),
                        ("town", .number(Double(k))), ("town_x_m", .number(town.x.rounded())),
                        ("town_y_m", .number(town.y.rounded())),
                        ("distance_km", .number((town.distance / 100).rounded() / 10)),
                        ("density_factor", .number(rounded4(town.factor))),
                        ("town_sigma_m", .number(town.sigma.rounded())), ("town_pois", .number(Double(town.pois))),
                    ]))
        }
        return layout
    }
}
