import RegionSearchCore
import RegionSearchOutput

/// Member recall of truth items (strips, districts, clusters): which share of each item's member
/// POIs lies in regions of its keyword, whether it is found, and into how many regions it falls.
///
/// A truth item's members are the rows of the members file whose `cluster_id` is the item's id
/// (its `cluster_id`, `truth_id` or `id` property); a member row's `id` names a POI by its id
/// (the first POI with that id; ids not among the POIs are counted and left out).
public struct MemberRecall: Sendable, Equatable {
    /// Items with at least one located member.
    public var items = 0
    /// Items found: at least ``CheckOptions/foundShare`` of their members inside.
    public var found = 0
    /// Sum over found items of their fragment counts.
    var fragmentSum = 0

    /// found / items (0 without items).
    public var recall: Double { items > 0 ? Double(found) / Double(items) : 0 }
    /// Mean over found items of the number of regions holding a fragment of them; nil when none is found.
    public var meanFragmentation: Double? { found > 0 ? Double(fragmentSum) / Double(found) : nil }

    mutating func add(_ o: Outcome) {
        guard o.members > 0 else { return }
        items += 1
        if o.found {
            found += 1
            fragmentSum += o.fragments
        }
    }

    /// What happened to one truth item's members.
    public struct Outcome: Sendable, Equatable {
        /// Member POIs found among the POIs (distinct POIs).
        public var members = 0
        /// Members inside at least one region of the item's keyword.
        public var inside = 0
        /// Regions of the item's keyword holding members: (index among the regions, members held),
        /// most first, then by region order.
        public var regionCounts: [RegionCount] = []
        public var found = false
        /// Regions holding at least max(minimum, share × members) of the members.
        public var fragments = 0

        public var share: Double { members > 0 ? Double(inside) / Double(members) : 0 }
    }

    public struct RegionCount: Sendable, Equatable {
        public var region: Int
        public var count: Int
    }

    /// The outcome of every truth item (nil for items without member rows), the number of member
    /// ids not found among the POIs, and the cluster ids that name no truth item.
    static func outcomes(
        truths: [EvaluationLayer.Item], regions: [EvaluationLayer.Item], pois: LocatedPOIs, members: PlantedMembers,
        options: CheckOptions
    ) throws -> (outcomes: [Outcome?], missingIDs: Int, unknownClusters: [String]) {
        // The first valid POI of each distinct member id.
        let set = IdentifierSet(members.ids)
        var firstPOI = [Int](repeating: -1, count: set.count)
        for p in 0..<pois.count where pois.valid[p] {
            if let k = pois.pois.ids.withUTF8(p, { set.find($0) }), firstPOI[k] < 0 { firstPOI[k] = p }
        }
        let missing = firstPOI.filter { $0 < 0 }.count
        // Member POIs per cluster id text.
        var byCluster: [String: [Int]] = [:]
        var seen: [String: Set<Int>] = [:]
        var clusterOrder: [String] = []
        for (row, id) in members.ids.enumerated() {
            let cluster = members.clusterIDs[row]
            if byCluster[cluster] == nil {
                clusterOrder.append(cluster)
                byCluster[cluster] = []
            }
            var copy = id
            guard let k = copy.withUTF8({ set.find($0) }), firstPOI[k] >= 0 else { continue }
            if seen[cluster, default: []].insert(firstPOI[k]).inserted { byCluster[cluster]!.append(firstPOI[k]) }
        }
        let truthIDs = truths.map { TruthScore.idText($0.id) }
        let unknown = clusterOrder.filter { !truthIDs.contains($0) }

        var prepared = [GEOSPreparedGeometry?](repeating: nil, count: regions.count)
        var out = [Outcome?](repeating: nil, count: truths.count)
        for (i, t) in truths.enumerated() {
            guard let list = byCluster[truthIDs[i]] else { continue }
            var o = Outcome()
            o.members = list.count
            var counts = [Int](repeating: 0, count: regions.count)
            for p in list {
                var inside = false
                for (j, r) in regions.enumerated() where Evaluator.compatible(t.keyword, r.keyword) && r.area > 0 {
                    guard let e = r.envelope, e.contains(x: pois.x[p], y: pois.y[p]) else { continue }
                    if prepared[j] == nil { prepared[j] = try r.geometry.prepared() }
                    if try prepared[j]!.covers(x: pois.x[p], y: pois.y[p]) {
                        counts[j] += 1
                        inside = true
                    }
                }
                if inside { o.inside += 1 }
            }
            o.regionCounts = counts.enumerated().filter { $0.element > 0 }.map {
                RegionCount(region: $0.offset, count: $0.element)
            }
            o.regionCounts.sort { $0.count != $1.count ? $0.count > $1.count : $0.region < $1.region }
            o.found = o.members > 0 && o.share >= options.foundShare
            let need = max(Double(options.fragmentMinimum), options.fragmentShare * Double(o.members))
            o.fragments = o.regionCounts.filter { Double($0.count) >= need }.count
            out[i] = o
        }
        return (out, missing, unknown)
    }
}
