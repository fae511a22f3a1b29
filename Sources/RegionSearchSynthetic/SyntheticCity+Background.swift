import Foundation
import RegionSearchCore

/// The background POIs shared by the scenarios: categories by weight (or given rates), names,
/// the five Gaussian downtowns and the 60 % uniform / 40 % downtown mix.
extension SyntheticCity {
    /// A POI name for a category: one of its stems and a number.
    static func name(_ category: String, _ rng: inout SeededRandom) -> String {
        let stems = categories.first { $0.0 == category }?.2 ?? [category]
        return "\(stems[rng.below(stems.count)]) \(1 + rng.below(998))"
    }

    /// The share of background POIs with this category: its rate when given, else its weight's
    /// share of what the rates leave.
    static func backgroundShare(_ category: String, _ config: Config) -> Double {
        if let r = config.backgroundRates[category] { return r }
        let weights = categories.filter { config.backgroundRates[$0.0] == nil }
        let total = weights.reduce(0) { $0 + $1.1 }
        let rest = 1 - config.backgroundRates.values.reduce(0, +)
        return (weights.first { $0.0 == category }?.1 ?? 0) / total * max(0, rest)
    }

    /// Draws background categories: the given rates first, then the weights of the other
    /// categories (without `excluding`, whose draws skip the rates).
    struct CategoryDraw {
        let rates: [(String, Double)]
        let weights: [(String, Double)]
        let totalWeight: Double

        init(_ config: Config, excluding: String? = nil) {
            let overridden = config.backgroundRates.keys.sorted()
            rates = excluding == nil ? overridden.map { ($0, config.backgroundRates[$0] ?? 0) } : []
            weights = categories.filter { !overridden.contains($0.0) && $0.0 != excluding }.map { ($0.0, $0.1) }
            totalWeight = weights.reduce(0) { $0 + $1.1 }
        }

        func draw(_ rng: inout SeededRandom) -> String {
            var u = rng.uniform()
            for (kw, r) in rates {
                if u < r { return kw }
                u -= r
            }
            var w = rng.uniform() * totalWeight
            for (name, weight) in weights {
                if w < weight { return name }
                w -= weight
            }
            return weights.last!.0
        }
    }

    /// Five downtowns: centre and σ (metres).
    static func downtowns(_ config: Config, _ rng: inout SeededRandom) -> [(Double, Double, Double)] {
        let half = config.extentKm * 500
        return (0..<5).map { _ in
            (
                rng.uniform(-half * 0.6, half * 0.6), rng.uniform(-half * 0.6, half * 0.6),
                rng.uniform(0.05, 0.1333) * config.extentKm * 1000
            )
        }
    }

    /// Appends `count` background POIs: the first (1 − downtownShare) uniform over the extent, the
    /// rest around the downtowns; positions where `free` is false are drawn again.
    static func addBackground(
        _ count: Int, to layout: inout SyntheticLayout, _ config: Config, _ rng: inout SeededRandom,
        downtowns: [(Double, Double, Double)], free: (Double, Double) -> Bool
    ) {
        let half = config.extentKm * 500
        let categories = CategoryDraw(config)
        for k in 0..<count {
            var x = 0.0
            var y = 0.0
            repeat {
                if Double(k) < Double(count) * (1 - config.downtownShare) {
                    x = rng.uniform(-half, half)
                    y = rng.uniform(-half, half)
                } else {
                    let d = downtowns[rng.below(5)]
                    x = d.0 + rng.normal() * d.2
                    y = d.1 + rng.normal() * d.2
                }
            } while abs(x) > half || abs(y) > half || !free(x, y)
            let category = categories.draw(&rng)
            layout.append(x: x, y: y, category: category, name: name(category, &rng), cluster: -1)
        }
    }
}
