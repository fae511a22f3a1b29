import RegionSearchCore

extension DensityRegionFinder {
    /// `sets` (sorted positions of `kg`) with the candidates that are one place joined: two
    /// candidates that `candidate` accepts are one when the keyword graph joins them through POIs
    /// whose density ratio is at least their saddle s, and neither stands `persistence` times above
    /// it (the median density ratio of its members is below `persistence` × s). The joined set is
    /// their members and the POIs of one path between them (fewest hops, over POIs at least s
    /// dense), in the place of the first of them; `edges` gains the accepted edges of the path. The
    /// saddle is looked for down to `floor` / `persistence`; `eligible` is the positions already in
    /// the sets (at `floor`, or joined along a street). Sets nothing is joined to are returned as
    /// they are, in order.
    ///
    /// Why: where a keyword is barely dense enough over a wide area (a downtown whose peak just
    /// clears `floor`), the noise of the k-th-neighbour density breaks the set above `floor` into
    /// pieces along its dips, and each piece is significant by its size: a person sees one dense
    /// place. A piece that rises well above the saddle between it and its neighbour is a place of
    /// its own (a district beside a downtown, its POIs twice as dense as the ground between them),
    /// and is kept apart. This is the persistence of a cluster in a density tree (HDBSCAN's
    /// condensed tree keeps a cluster that lives over a range of density levels), measured as a
    /// ratio, on the median rather than the peak: a single POI at a chance high density is no
    /// plateau.
    static func joinedAtSaddles(
        _ sets: [[Int32]], kg: KeywordGraph, ratio: [Double], eligible: [Bool], floor: Double, persistence: Double,
        edges: inout [(a: Int32, b: Int32)], support: inout PathSupport, candidate: ([Int32]) -> Bool
    ) -> [[Int32]] {
        let m = kg.count
        let candidates = sets.indices.filter { candidate(sets[$0]) }
        guard persistence > 1, candidates.count >= 2 else { return sets }
        let low = floor / persistence
        // Label each position with the candidate set holding it.
        var label = [Int32](repeating: -1, count: m)
        for (c, s) in candidates.enumerated() {
            for p in sets[s] { label[Int(p)] = Int32(c) }
        }
        // The ground a saddle may lie on: below `floor` down to `low`, and the sets too small or
        // too thin to be candidates. Not a member the outlier or off-street rules left out of a
        // set: it was left out for where it stands, and a path through it would put it back.
        var inSet = [Bool](repeating: false, count: m)
        for set in sets {
            for p in set { inSet[Int(p)] = true }
        }
        var reach = (0..<m).map { eligible[$0] ? inSet[$0] : ratio[$0] >= low }
        // Only ground where two candidates meet over short edges is searched for paths (the
        // support searches are what costs).
        let short = kg.geometry.edges.indices.compactMap { e -> (a: Int32, b: Int32)? in
            let (a, b) = kg.geometry.edges[e]
            return reach[Int(a)] && reach[Int(b)] && kg.isShort(e) ? (a, b) : nil
        }
        let pieces = KeywordGraph.components(count: m, eligible: reach, edges: short)
        reach = [Bool](repeating: false, count: m)
        var anyShared = false
        for piece in pieces {
            var seen: Int32 = -1
            var shared = false
            for p in piece where label[Int(p)] >= 0 {
                if seen < 0 {
                    seen = label[Int(p)]
                } else if label[Int(p)] != seen {
                    shared = true
                    break
                }
            }
            if shared {
                anyShared = true
                for p in piece { reach[Int(p)] = true }
            }
        }
        guard anyShared else { return sets }
        let lowEdges = kg.acceptedEdges(eligible: reach, support: &support)
        var adjacency = [[Int32]](repeating: [], count: m)
        for (a, b) in lowEdges {
            adjacency[Int(a)].append(b)
            adjacency[Int(b)].append(a)
        }
        // Each candidate's plateau: the median density ratio of its members.
        let plateau = candidates.map { s in Selection.median(sets[s].map { ratio[Int($0)] }) }
        // The density tree: members first (each candidate is connected), then the other reachable
        // positions from the densest down; ties by position, so the result is deterministic.
        var tree = UnionFind(count: m)
        var labels = [[Int32]](repeating: [], count: m)
        var active = [Bool](repeating: false, count: m)
        for p in 0..<m where label[p] >= 0 {
            active[p] = true
        }
        for p in 0..<m where label[p] >= 0 {
            for q in adjacency[p] where label[Int(q)] == label[p] { tree.union(Int32(p), q) }
        }
        for (c, s) in candidates.enumerated() { labels[Int(tree.find(sets[s][0]))].append(Int32(c)) }
        // The candidates joined so far: each group's root is its first candidate.
        var group = UnionFind(count: candidates.count)
        var bridges: [Int32: [Int32]] = [:]
        var scratch = PathScratch(count: m)
        let order = (0..<m).filter { reach[$0] && label[$0] < 0 }.sorted {
            ratio[$0] != ratio[$1] ? ratio[$0] > ratio[$1] : $0 < $1
        }
        for p in order {
            active[p] = true
            let saddle = ratio[p]
            for q in adjacency[p] where active[Int(q)] {
                let (rp, rq) = (tree.find(Int32(p)), tree.find(q))
                guard rp != rq else { continue }
                let (lp, lq) = (labels[Int(rp)], labels[Int(rq)])
                for a in lp where plateau[Int(a)] < persistence * saddle {
                    for b in lq where plateau[Int(b)] < persistence * saddle {
                        let (ga, gb) = (group.find(a), group.find(b))
                        guard ga != gb else { continue }
                        // Through POIs at the saddle or denser that no candidate holds.
                        let path = Self.path(
                            from: sets[candidates[Int(a)]], source: a, target: b, label: label, over: adjacency,
                            through: { active[$0] && label[$0] < 0 }, scratch: &scratch)
                        guard !path.isEmpty else { continue }
                        let (root, other) = (min(ga, gb), max(ga, gb))
                        group.union(ga, gb)
                        bridges[root, default: []] += (bridges[other] ?? []) + path
                        bridges[other] = nil
                    }
                }
                let (root, other) = (min(rp, rq), max(rp, rq))
                tree.union(rp, rq)
                labels[Int(root)] += labels[Int(other)]
                labels[Int(other)] = []
            }
        }
        // The joined sets, each in the place of its first candidate.
        var joined: [Int32: [Int32]] = [:]
        for c in candidates.indices {
            joined[group.find(Int32(c)), default: []] += sets[candidates[c]]
        }
        var out: [[Int32]] = []
        for p in 0..<m { inSet[p] = false }
        for set in sets {
            guard let first = set.first, label[Int(first)] >= 0 else {
                out.append(set)
                continue
            }
            let c = label[Int(first)]
            // A candidate joined to an earlier one is in that one's place.
            guard group.find(c) == c else { continue }
            guard let bridge = bridges[c], !bridge.isEmpty else {
                out.append(set)
                continue
            }
            let members = Array(Set(joined[c]! + bridge)).sorted()
            for p in members { inSet[Int(p)] = true }
            for (a, b) in lowEdges where inSet[Int(a)] && inSet[Int(b)] && (!eligible[Int(a)] || !eligible[Int(b)]) {
                edges.append((a, b))
            }
            for p in members { inSet[Int(p)] = false }
            out.append(members)
        }
        return out
    }

    /// The positions of one path with the fewest hops from a member of `from` (the positions
    /// `label` gives `source`) to a position `label` gives `target`, over `adjacency`, through
    /// positions `through` accepts, without its two ends' sets: the POIs that bridge them.
    /// Breadth-first from all of `from` at once, neighbours in order: deterministic. Membership
    /// is read from `label` and the predecessors kept in `scratch`, so a call costs what its
    /// search visits, not the size of the two sets (a downtown's candidate holds tens of
    /// thousands of POIs, and a set of them per call was most of the regions stage's time).
    static func path(
        from: [Int32], source: Int32, target: Int32, label: [Int32], over adjacency: [[Int32]],
        through: (Int) -> Bool, scratch: inout PathScratch
    ) -> [Int32] {
        scratch.clear()
        var queue = from
        var head = 0
        for p in from { scratch.visit(p, from: -1) }
        while head < queue.count {
            let v = queue[head]
            head += 1
            for w in adjacency[Int(v)] where !scratch.visited(w) {
                let reachesTarget = label[Int(w)] == target
                guard reachesTarget || through(Int(w)) else { continue }
                // A path that bridges nothing (the two sets touch) is not looked for.
                if reachesTarget && label[Int(v)] == source { continue }
                scratch.visit(w, from: v)
                if reachesTarget {
                    var out: [Int32] = []
                    var u = v
                    while u >= 0 && label[Int(u)] != source {
                        out.append(u)
                        u = scratch.previous(of: u)
                    }
                    return out
                }
                queue.append(w)
            }
        }
        return []
    }

    /// One breadth-first search's predecessors over the keyword graph's positions, cleared in
    /// O(1) by a generation count instead of a pass over all positions.
    struct PathScratch {
        private var predecessor: [Int32]
        private var stamp: [UInt32]
        private var generation: UInt32 = 0

        init(count: Int) {
            predecessor = [Int32](repeating: -1, count: count)
            stamp = [UInt32](repeating: 0, count: count)
        }

        /// Forgets every position visited.
        mutating func clear() {
            generation &+= 1
            if generation == 0 {
                for i in stamp.indices { stamp[i] = 0 }
                generation = 1
            }
        }

        func visited(_ p: Int32) -> Bool { stamp[Int(p)] == generation }

        mutating func visit(_ p: Int32, from previous: Int32) {
            stamp[Int(p)] = generation
            predecessor[Int(p)] = previous
        }

        func previous(of p: Int32) -> Int32 { predecessor[Int(p)] }
    }
}
