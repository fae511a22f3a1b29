import RegionSearchCore

/// Where one connected set of keyword POIs is two places: the top split of its density tree, kept
/// when both sides stand `persistence` times above the saddle between them.
///
/// The set's keyword-graph edges are taken from the densest down, each at the lower density of its
/// two ends, joining the set's POIs as the floor falls: the tree HDBSCAN condenses. The last join
/// of two sides that each hold at least `minimum` POIs is the set's top split, at its saddle
/// density s. When the median density of each side is at least `persistence` × s, the ground
/// between them is less than half as dense as either side. The sides are the POIs each had
/// gathered just above s; POIs joined at s or below (the ground between) belong to neither.
///
/// Two café districts on one bank of a river, joined by a thinner line of cafés along it, are one
/// set of dense POIs, and a person draws two places. Three things are not split:
/// - **An evenly dense set.** Its density's noise makes pieces that meet again just below their
///   own density.
/// - **A street.** A dining street whose restaurants thin out for a stretch dips as deeply as two
///   districts do. A side whose POIs lie along a line (their principal axes `aspect` times as
///   long as wide, ``isLine(_:aspect:)``) is a stretch of a street, and the street stays one.
/// - **A core.** A city's dense core holds districts. Split once, its sides hold places of their
///   own (they would split again), and it stays one region: level 0 is the coarsest structure, and
///   its districts are the finer levels (``DensityHierarchy``). Only a set that falls apart into
///   two places, neither of which falls apart again, is split.
enum SaddleSplit {
    /// The two sides of `positions` (each sorted) and the saddle density, or nil when the set is
    /// one place by the density test (neither the street nor the core rule is applied here).
    /// `density` is indexed by position; `edges` may hold edges outside the set (skipped).
    static func split(
        _ positions: [Int32], edges: [(a: Int32, b: Int32)], density: [Double], minimum: Int, persistence: Double
    ) -> (sides: [[Int32]], saddle: Double)? {
        guard persistence > 1, minimum >= 1, positions.count >= 2 * minimum else { return nil }
        var inSet = [Bool](repeating: false, count: density.count)
        for p in positions { inSet[Int(p)] = true }
        func weight(_ e: Int) -> Double { min(density[Int(edges[e].a)], density[Int(edges[e].b)]) }
        // Densest first; ties in edge order, so the tree is the same on every run.
        var order = edges.indices.filter { inSet[Int(edges[$0].a)] && inSet[Int(edges[$0].b)] }
        order.sort { weight($0) > weight($1) || (weight($0) == weight($1) && $0 < $1) }
        var sets = UnionFind(count: density.count)
        var size = [Int](repeating: 1, count: density.count)
        var last = -1
        for (i, e) in order.enumerated() {
            let (a, b) = (sets.find(edges[e].a), sets.find(edges[e].b))
            guard a != b else { continue }
            let bothLarge = size[Int(a)] >= minimum && size[Int(b)] >= minimum
            let root = sets.union(a, b).root
            size[Int(root)] = size[Int(a)] + size[Int(b)]
            if bothLarge { last = i }
        }
        guard last >= 0 else { return nil }
        let saddle = weight(order[last])
        // The two sides as they stood just before the top split.
        var before = UnionFind(count: density.count)
        for e in order[..<last] { before.union(edges[e].a, edges[e].b) }
        let roots = (before.find(edges[order[last]].a), before.find(edges[order[last]].b))
        var sides: [[Int32]] = [[], []]
        for p in positions {
            let r = before.find(p)
            if r == roots.0 {
                sides[0].append(p)
            } else if r == roots.1 {
                sides[1].append(p)
            }
        }
        for side in sides {
            let values = side.map { density[Int($0)] }
            // No density at all (the propagation off, or nothing of the keyword around) says nothing.
            let median = Selection.median(values)
            guard median > 0, median >= persistence * saddle else { return nil }
        }
        return (sides.sorted { $0[0] < $1[0] }, saddle)
    }

    /// Whether `points` lie along a line: the larger principal axis of their spread at least
    /// `aspect` times the smaller (for POIs spread evenly over a band, its length over its width).
    static func isLine(_ points: [(x: Double, y: Double)], aspect: Double) -> Bool {
        guard aspect > 0, points.count >= 3 else { return false }
        let n = Double(points.count)
        let mx = points.reduce(0) { $0 + $1.x } / n
        let my = points.reduce(0) { $0 + $1.y } / n
        var (sxx, syy, sxy) = (0.0, 0.0, 0.0)
        for p in points {
            sxx += (p.x - mx) * (p.x - mx)
            syy += (p.y - my) * (p.y - my)
            sxy += (p.x - mx) * (p.y - my)
        }
        // The covariance matrix's eigenvalues: the variances along the two principal axes.
        let mean = (sxx + syy) / 2
        let spread = (((sxx - syy) / 2) * ((sxx - syy) / 2) + sxy * sxy).squareRoot()
        let (major, minor) = (mean + spread, max(mean - spread, 0))
        return major >= aspect * aspect * minor
    }

    /// `sets` with each set that is two places (the type's three rules) replaced by its two sides,
    /// in its place (the sides in order of their smallest position). `point` gives a position's
    /// coordinates.
    static func places(
        _ sets: [[Int32]], edges: [(a: Int32, b: Int32)], density: [Double], minimum: Int, persistence: Double,
        aspect: Double, point: (Int32) -> (x: Double, y: Double)
    ) -> [[Int32]] {
        guard persistence > 1 else { return sets }
        func twoPlaces(_ set: [Int32]) -> [[Int32]]? {
            guard let split = split(set, edges: edges, density: density, minimum: minimum, persistence: persistence),
                !split.sides.contains(where: { isLine($0.map(point), aspect: aspect) })
            else { return nil }
            return split.sides
        }
        var out: [[Int32]] = []
        for set in sets {
            if let sides = twoPlaces(set), sides.allSatisfy({ twoPlaces($0) == nil }) {
                out += sides
            } else {
                out.append(set)
            }
        }
        return out
    }
}
