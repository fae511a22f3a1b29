import RegionSearchCore
import RegionSearchGraph
import RegionSearchModel

/// The graph a keyword's regions are made of: the keyword's own POIs, joined where they are
/// close for their own spacing and where the city's POI graph says the ground between them is
/// not empty.
///
/// A region is a connected set of the keyword's POIs. Joining them over the full POI graph (as a
/// share-based cut alone does) lets a region run through every POI between two keyword POIs —
/// across a suburb where the keyword happens to be over-represented, for kilometres. Here an edge
/// {i, j} of the keyword POIs' Delaunay triangulation joins them only when
/// 1. it is short for the keyword there: L ≤ `edgeFactor` × max(sᵢ, sⱼ), s the distance to the
///    k-th nearest other keyword POI but at least `minSpacing` (a street of restaurants 40 m apart
///    is joined across a gap of a few doorways, not across a kilometre of houses; thirty offices
///    stacked in one building are one place, whatever metre separates their entrances);
/// 2. the ground between them is populated: i and j are connected in the pruned POI graph (which
///    has no edges across rivers, parks or other voids, see the graph stage) by a path at most
///    `detour` × L + the local spacing long; or the edge is short even for the keyword's wider
///    neighbourhood (L ≤ the distance from each end to its 2k-th nearest other keyword POI: a gap
///    the keyword's own cluster spans) and the POI graph goes round the gap within `wideDetour` × L.
///    The graph stage also cuts small enclosed voids — a block's empty interior between its two
///    frontages, a plaza — which a cluster spanning them should span too, and the way round such
///    a void is short. A river or any other empty band runs on beyond
///    the cluster, so the way round it is long, however wide the keyword's spacing on its banks:
///    the two banks stay apart (before regions stage version 16 a gap the keyword spans was
///    bridged whatever the POI graph, which joined facing clusters across rivers). Two POIs at
///    most `minSpacing` apart are always joined: no ground lies between the units of one building.
public struct KeywordGraph: Sendable {
    /// How the keyword POIs are joined.
    public struct Rules: Sendable, Equatable {
        public var neighbours: Int
        public var edgeFactor: Double
        public var detour: Double
        /// Rule 2 for a gap the keyword spans: the way round it through the POI graph is at most
        /// this many times the gap (0: any gap the keyword spans is bridged, as before regions
        /// stage version 16).
        public var wideDetour: Double
        /// Metres below which a spacing counts as this much: POIs a metre apart are the units of
        /// one building or geocoding noise, not a scale that should split or sharpen regions.
        public var minSpacing: Double

        public init(
            neighbours: Int = 5, edgeFactor: Double = 1.6, detour: Double = 2, wideDetour: Double = 4,
            minSpacing: Double = 5
        ) {
            self.neighbours = neighbours
            self.edgeFactor = edgeFactor
            self.detour = detour
            self.wideDetour = wideDetour
            self.minSpacing = minSpacing
        }
    }

    /// The keyword's POIs (projected point indices, ascending) and their triangulation.
    public let geometry: SubsetGeometry
    /// Distance from each keyword POI to its k-th nearest other keyword POI (duplicates count),
    /// at least ``Rules/minSpacing``.
    public let spacing: [Double]
    /// Distance from each keyword POI to its 2k-th nearest other keyword POI (rule 2), at least
    /// ``Rules/minSpacing``.
    let wideSpacing: [Double]
    /// Distance from each keyword POI to its k-th nearest other keyword *location* (coincident POIs
    /// count once): the keyword's local spacing, in the sense of the graph's σ.
    public let locationSpacing: [Double]
    /// The 2k nearest other locations of every location (``SubsetGeometry/nearestLocations(_:)``).
    let nearest: SubsetGeometry.NearestLocations
    let rules: Rules

    public init(keywordPoints: [UInt32], x: Column<Double>, y: Column<Double>, rules: Rules) {
        geometry = x.withUnsafeBufferPointer { bx in
            y.withUnsafeBufferPointer { SubsetGeometry(x: bx, y: $0, subset: keywordPoints) }
        }
        // One k-d tree query for all three (the shorter lists are prefixes of the longer).
        nearest = geometry.nearestLocations(2 * rules.neighbours)
        let floor = rules.minSpacing
        spacing = geometry.kthNeighbourDistance(rules.neighbours, nearest: nearest).map { max($0, floor) }
        locationSpacing = geometry.kthLocationDistance(rules.neighbours, nearest: nearest)
        wideSpacing = geometry.kthNeighbourDistance(2 * rules.neighbours, nearest: nearest).map { max($0, floor) }
        self.rules = rules
    }

    public var count: Int { geometry.count }

    /// Whether edge `e` of ``SubsetGeometry/edges`` is short enough by rule 1.
    func isShort(_ e: Int) -> Bool {
        let (a, b) = geometry.edges[e]
        let l = geometry.lengths[e]
        if l == 0 { return true }
        let s = max(spacing[Int(a)], spacing[Int(b)])
        return s.isFinite && l <= rules.edgeFactor * s
    }

    /// The accepted edges among the positions where `eligible` holds (rules 1 and 2), as position
    /// pairs; `support` answers rule 2.
    func acceptedEdges(eligible: [Bool], support: inout PathSupport) -> [(a: Int32, b: Int32)] {
        var out: [(a: Int32, b: Int32)] = []
        for e in 0..<geometry.edges.count {
            let (a, b) = geometry.edges[e]
            guard eligible[Int(a)], eligible[Int(b)], isShort(e) else { continue }
            let l = geometry.lengths[e]
            // Below the spacing floor there is no ground between them to be empty: the entrances
            // of one building (the POI graph, pruned at their own sub-metre scale, may not join them).
            if l <= rules.minSpacing {
                out.append((a, b))
                continue
            }
            let spanned = l <= min(wideSpacing[Int(a)], wideSpacing[Int(b)])
            if spanned && rules.wideDetour == 0 {
                out.append((a, b))
                continue
            }
            // One search: the longer bound when the keyword spans the gap (a path within the
            // shorter bound is within the longer one).
            let bound = spanned ? max(rules.wideDetour, rules.detour) : rules.detour
            if support.connected(Int(geometry.subset[Int(a)]), Int(geometry.subset[Int(b)]), within: bound * l) {
                out.append((a, b))
            }
        }
        return out
    }

    /// The band (``SubsetGeometry/Band``) each position's fellows form: the locations among its 2k
    /// nearest keyword locations that `fellow(from, to)` takes (at least four of them), with a
    /// half-width of at least ``Rules/minSpacing``; nil where `only` rejects the position or too few
    /// are fellows. The one street test of level 0: the off-street rule and the street ends measure
    /// the same band.
    func fellowBands(only: (Int) -> Bool, fellow: (Int, Int) -> Bool) -> [SubsetGeometry.Band?] {
        geometry.bands(
            k: 2 * rules.neighbours, nearest: nearest, minimum: 4, only: only, accept: fellow,
            floor: { _ in rules.minSpacing })
    }

    /// Connected components over `edges` of the positions where `eligible` holds, each sorted,
    /// in order of their smallest position.
    static func components(count m: Int, eligible: [Bool], edges: [(a: Int32, b: Int32)]) -> [[Int32]] {
        var sets = UnionFind(count: m)
        for (a, b) in edges { sets.union(a, b) }
        var groups: [Int32: Int] = [:]
        var out: [[Int32]] = []
        for p in 0..<m where eligible[p] {
            let r = sets.find(Int32(p))
            if let g = groups[r] {
                out[g].append(Int32(p))
            } else {
                groups[r] = out.count
                out.append([Int32(p)])
            }
        }
        return out
    }
}
