import Foundation
import RegionSearchCore
import RegionSearchGraph

extension DensityRegionFinder {
    /// The share of a set's members on its street at which the street is parted from the others
    /// (``streetParts(_:kg:edges:factor:aspect:candidate:significant:)``): most of the set.
    static let streetPartShare = 0.7

    /// `sets` with each set that is mostly a street parted from its other members: the street is
    /// one set, and the others are the pieces the keyword graph leaves of them (each a candidate
    /// when it qualifies on its own). Only sets `candidate` accepts (and of more than four members)
    /// are looked at; every set's pieces take its place, in order of their smallest position.
    ///
    /// A member is on the street when its fellow members form a street band and it lies within
    /// `factor` of that band's half-widths (as for ``offStreet(_:kg:edges:factor:aspect:dense:candidate:)``),
    /// or when it lies that close to the band of its nearest fellow member on a street (where a
    /// street bends or ends, a member's own fellows form no band, but it is on the line). A set is
    /// parted when at least ``streetPartShare`` of it, but not all, is on the street, and the
    /// street part is one piece over the keyword graph, a candidate, a street by its spine
    /// (``StreetSpine``, `aspect` times as long as wide, not turning back as round a block) and
    /// `significant` on its own, and every other piece that is a candidate is `significant` on its
    /// own too.
    ///
    /// Why: a dining street with a few of the city's restaurants grouped beside it, dense without
    /// it (`besideStreet` keeps them), was one region drawn round both, an area with arms where a
    /// person draws the street as a street-wide band. The significance condition keeps a short
    /// row of restaurants whole when the few beside it are what it stands out with: parted, they
    /// would be in its contrast ring. The same holds the other way round: a group beside the
    /// street that stands out only with it (the street in its ring) would be dropped with its
    /// members, which the whole set had found: Chicago's Halsted Street bars beside Clark
    /// Street's, 8 of them, were lost that way on a graph that kept Clark Street in one piece
    /// (regions stage version 28 and before).
    static func streetParts(
        _ sets: [[Int32]], kg: KeywordGraph, edges: [(a: Int32, b: Int32)], factor: Double, aspect: Double,
        candidate: ([Int32]) -> Bool, significant: ([Int32]) -> Bool
    ) -> [[Int32]] {
        guard
            let (setOf, bands, onStreet) = streetMembers(
                sets, kg: kg, factor: factor, aspect: aspect, candidate: candidate)
        else { return sets }
        let m = kg.count
        // On the street: on a band of its own, or near the band of its nearest fellow street member.
        var part = onStreet
        for p in 0..<m where setOf[p] >= 0 && !onStreet[p] {
            if let b = bands[p], b.aspect >= aspect { continue }
            part[p] =
                onNearestStreet(
                    p, listed: kg.geometry.listedLocations(of: p, nearest: kg.nearest), kg: kg, bands: bands,
                    onStreet: onStreet, fellow: { setOf[$0] == setOf[p] }, factor: factor) ?? false
        }
        var edgesOf: [Int32: [(a: Int32, b: Int32)]] = [:]
        for edge in edges where setOf[Int(edge.a)] >= 0 && setOf[Int(edge.a)] == setOf[Int(edge.b)] {
            edgesOf[setOf[Int(edge.a)], default: []].append(edge)
        }
        var local = [Int32](repeating: -1, count: m)
        var out: [[Int32]] = []
        for (i, set) in sets.enumerated() {
            let onIt = set.filter { part[Int($0)] }.count
            guard set.first.map({ setOf[Int($0)] == Int32(i) }) ?? false, onIt < set.count,
                Double(onIt) >= streetPartShare * Double(set.count)
            else {
                out.append(set)
                continue
            }
            // The set's pieces over its edges within the street part and within the rest.
            for (j, p) in set.enumerated() { local[Int(p)] = Int32(j) }
            let localEdges = (edgesOf[Int32(i)] ?? []).compactMap { e -> (a: Int32, b: Int32)? in
                part[Int(e.a)] == part[Int(e.b)] ? (local[Int(e.a)], local[Int(e.b)]) : nil
            }
            for p in set { local[Int(p)] = -1 }
            let pieces = KeywordGraph.components(
                count: set.count, eligible: [Bool](repeating: true, count: set.count), edges: localEdges
            ).map { $0.map { set[Int($0)] } }
            let streets = pieces.filter { part[Int($0[0])] }
            guard streets.count == 1, candidate(streets[0]),
                isStreet(streets[0], kg: kg, edges: edgesOf[Int32(i)] ?? [], aspect: aspect), significant(streets[0]),
                pieces.allSatisfy({ part[Int($0[0])] || !candidate($0) || significant($0) })
            else {
                out.append(set)
                continue
            }
            out += pieces
        }
        return out
    }

    /// Whether the keyword-graph positions `piece` (sorted) form a street by their spine over
    /// `edges`: at least `aspect` times as long as twice its half-width, and not turning back (a
    /// spine round three sides of a block lines its frontages: a block, drawn whole).
    private static func isStreet(
        _ piece: [Int32], kg: KeywordGraph, edges: [(a: Int32, b: Int32)], aspect: Double
    ) -> Bool {
        StreetSpine(
            positions: piece, edges: edges, minimumHalfWidth: kg.rules.minSpacing, point: { kg.geometry.point(Int($0)) }
        )?.isOpenStreet(aspect: aspect) ?? false
    }
}
