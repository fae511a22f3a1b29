import RegionSearchCore

/// Where one connected set of keyword POIs is two places: the top split of its density tree, kept
/// when both sides stand `persistence` times above the saddle between them.
///
/// The set's keyword-graph edges are taken from the densest down, each at the lower density of its
/// two ends, joining the set's POIs as the floor falls: the tree HDBSCAN condenses. The last join
/// of two pieces that each hold at least `minimum` POIs is the set's top split, at its saddle
/// density s. The sides are the set's POIs joined by edges denser than s, in those two pieces;
/// POIs joined only at s or below (the ground between) belong to neither. When each side still
/// holds `minimum` POIs (one set of them per piece) and its median density is at least
/// `persistence` × s, the ground between them is less than half as dense as either side.
///
/// Two café districts on one bank of a river, joined by a thinner line of cafés along it, are one
/// set of dense POIs, and a person draws two places. These are not split:
/// - **An evenly dense set.** Its density's noise makes pieces that meet again just below their
///   own density.
/// - **A street.** A dining street whose restaurants thin out for a stretch dips as deeply as two
///   districts do. A side whose POIs lie along a line (their principal axes `aspect` times as
///   long as wide, ``isLine(_:aspect:)``), or along a street that bends (their spine over the
///   side's own edges `aspect` times as long as wide and not turning back,
///   ``StreetSpine/isOpenStreet(aspect:)``), is a stretch of a street, and the street stays one.
///   A stretch round a bend is no straight line, and split at the bend the street would also
///   lose its POIs round the saddle, which belong to neither side.
/// - **A core.** A city's dense core holds districts. Split once, its sides hold places of their
///   own (they would split again), and it stays one region: level 0 is the coarsest structure, and
///   its districts are the finer levels (``DensityHierarchy``). Only a set that falls apart into
///   two places, neither of which falls apart again, is split.
/// - **A set with a side that is no region.** Both sides must be candidates on their own (the
///   caller's test: enough POIs, one at the core ratio); otherwise the split would only drop the
///   other side's POIs from the region that held them.
enum SaddleSplit {
    /// The two sides of `positions` (each sorted) and the saddle density, or nil when the set is
    /// one place by the density test (neither the street, core nor candidate rule is applied
    /// here). `density` is indexed by position; `edges` are the set's own edges (an edge with an
    /// end outside it is skipped).
    static func split(
        _ positions: [Int32], edges: [(a: Int32, b: Int32)], density: (Int32) -> Double, minimum: Int,
        persistence: Double
    ) -> (sides: [[Int32]], saddle: Double)? {
        guard persistence > 1, minimum >= 1, positions.count >= 2 * minimum else { return nil }
        // Local indices, so that a call costs the set's size, not the keyword's.
        var local: [Int32: Int32] = [:]
        local.reserveCapacity(positions.count)
        for (i, p) in positions.enumerated() { local[p] = Int32(i) }
        var value = [Double](repeating: 0, count: positions.count)
        for (i, p) in positions.enumerated() {
            let d = density(p)
            // A density that is not a number says nothing about where the set thins out.
            guard d.isFinite else { return nil }
            value[i] = d
        }
        var links: [(a: Int32, b: Int32, weight: Double)] = []
        links.reserveCapacity(edges.count)
        for (a, b) in edges {
            guard let la = local[a], let lb = local[b] else { continue }
            links.append((la, lb, min(value[Int(la)], value[Int(lb)])))
        }
        // Densest first; ties in edge order, so the tree is the same on every run.
        let order = links.indices.sorted {
            links[$0].weight > links[$1].weight || (links[$0].weight == links[$1].weight && $0 < $1)
        }
        var sets = UnionFind(count: positions.count)
        var size = [Int](repeating: 1, count: positions.count)
        var last = -1
        for (i, e) in order.enumerated() {
            let (a, b) = (sets.find(links[e].a), sets.find(links[e].b))
            guard a != b else { continue }
            let bothLarge = size[Int(a)] >= minimum && size[Int(b)] >= minimum
            let root = sets.union(a, b).root
            size[Int(root)] = size[Int(a)] + size[Int(b)]
            if bothLarge { last = i }
        }
        guard last >= 0 else { return nil }
        let saddle = links[order[last]].weight
        // The two pieces as they stood just before the top split, and in them the POIs joined by
        // edges denser than the saddle (those come first in the order).
        var before = UnionFind(count: positions.count)
        var above = UnionFind(count: positions.count)
        var joined = [Bool](repeating: false, count: positions.count)
        for e in order[..<last] {
            before.union(links[e].a, links[e].b)
            guard links[e].weight > saddle else { continue }
            above.union(links[e].a, links[e].b)
            joined[Int(links[e].a)] = true
            joined[Int(links[e].b)] = true
        }
        let roots = (before.find(links[order[last]].a), before.find(links[order[last]].b))
        var sides: [[Int32]] = []
        for root in [roots.0, roots.1] {
            // The piece's POIs joined above the saddle. Two sets of `minimum` among them mean the
            // piece is two places at this same saddle: more than two places, which are not a split
            // into two (a core).
            var count: [Int32: Int] = [:]
            for i in 0..<positions.count where joined[i] && before.find(Int32(i)) == root {
                count[above.find(Int32(i)), default: 0] += 1
            }
            let large = count.filter { $0.value >= minimum }
            guard large.count == 1, let core = large.first else { return nil }
            let side = (0..<positions.count).filter { joined[$0] && above.find(Int32($0)) == core.key }
            // No density at all (the propagation off, or nothing of the keyword around) says nothing.
            let median = Selection.median(side.map { value[$0] })
            guard median > 0, median >= persistence * saddle else { return nil }
            sides.append(side.map { positions[$0] }.sorted())
        }
        return (sides.sorted { $0[0] < $1[0] }, saddle)
    }

    /// Whether `points` lie along a line: the larger principal axis of their spread at least
    /// `aspect` times the smaller (for POIs spread evenly over a band, its length over its width).
    /// POIs all at one place are no line.
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
        return major > 0 && major >= aspect * aspect * minor
    }

    /// `sets` with each set that is two places (the type's rules; `candidate` says whether a set
    /// can be a region) replaced by its two sides, in its place (the sides in order of their
    /// smallest position). `edges` are the keyword graph's accepted edges (each set's own are
    /// taken out once); `point` gives a position's coordinates; `streetHalfWidth` is the least
    /// half-width a side's spine is given (``StreetSpine``).
    static func places(
        _ sets: [[Int32]], edges: [(a: Int32, b: Int32)], density: [Double], minimum: Int, persistence: Double,
        aspect: Double, streetHalfWidth: Double, point: (Int32) -> (x: Double, y: Double),
        candidate: ([Int32]) -> Bool
    ) -> [[Int32]] {
        guard persistence > 1 else { return sets }
        // Each set's own edges, found in one pass over the keyword graph's.
        var setOf = [Int32](repeating: -1, count: density.count)
        for (i, set) in sets.enumerated() where set.count >= 2 * minimum {
            for p in set { setOf[Int(p)] = Int32(i) }
        }
        var edgesOf: [Int32: [(a: Int32, b: Int32)]] = [:]
        for (a, b) in edges where setOf[Int(a)] >= 0 && setOf[Int(a)] == setOf[Int(b)] {
            edgesOf[setOf[Int(a)], default: []].append((a, b))
        }
        func twoPlaces(_ set: [Int32], _ own: [(a: Int32, b: Int32)]) -> [[Int32]]? {
            guard
                let split = split(
                    set, edges: own, density: { density[Int($0)] }, minimum: minimum, persistence: persistence),
                split.sides.allSatisfy(candidate),
                !split.sides.contains(where: { side in
                    isLine(side.map(point), aspect: aspect)
                        || StreetSpine(positions: side, edges: own, minimumHalfWidth: streetHalfWidth, point: point)?
                            .isOpenStreet(aspect: aspect) ?? false
                })
            else { return nil }
            return split.sides
        }
        var out: [[Int32]] = []
        for (i, set) in sets.enumerated() {
            let own = edgesOf[Int32(i)] ?? []
            guard candidate(set), let sides = twoPlaces(set, own) else {
                out.append(set)
                continue
            }
            let splitsAgain = sides.contains { side in
                let members = Set(side)
                return twoPlaces(side, own.filter { members.contains($0.a) && members.contains($0.b) }) != nil
            }
            if splitsAgain { out.append(set) } else { out += sides }
        }
        return out
    }
}
