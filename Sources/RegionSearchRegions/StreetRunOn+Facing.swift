import Foundation
import RegionSearchCore
import RegionSearchGraph

extension StreetRunOn {
    /// Two streets' facing ends join across at most this many typical spacings of the keyword
    /// (1 / √ of its reference density at the first end).
    ///
    /// By chance a dining street's restaurants thin out for a stretch, and where the POIs of
    /// other kinds along it are no denser than around, no run's step is significant there: the
    /// density ratio finds the street as two sets, each drawn along half of it. On the strips
    /// cases such stretches are 300–500 m, 1.3–1.9 typical spacings; one and a half spacings is
    /// a run's own step (at 1.5, strips s102 kept a strip in two pieces).
    static let facingReach = 2.0
    /// The two sets' spacings (``DensityRegionFinder/spacing(_:_:)``) differ by at most this
    /// factor: a sparse street that ends at a far denser place has not found more of itself (as a
    /// run, which hops into another set only within that set's gap as well).
    static let facingSpacingRatio = 2.0

    /// Joins two sets that are one street with a stretch between them when
    /// - each set's members lie along a line (their principal axes `aspect` times as long as wide,
    ///   ``SaddleSplit/isLine(_:aspect:)``: a district's spine can be long for its width, but its
    ///   members spread both ways);
    /// - an end of one's spine (``streetEnds(_:edges:kg:back:aspect:endsInBand:)``, whether or not
    ///   its last members are a band: a street's sparse end is where it thins out) faces an end of
    ///   the other's within ``facingReach`` typical spacings, each heading towards the other within
    ///   ``maxTurn`` (as a run's step turns: the street may bend at a corner between the two);
    /// - their spacings are within ``facingSpacingRatio`` of each other;
    /// - the two with the segment between them are one street no wider than either
    ///   (``continues(_:chain:other:street:run:kg:aspect:widest:otherCentre:)``, from either end);
    /// - the segment crosses no empty stretch, as towards a POI the POI graph does not reach
    ///   (``continuous(from:to:kg:near:halfWidth:spacing:linked:support:)``): never a river or a park.
    ///
    /// The keyword POIs no set holds in the band between the two ends join with them, in order
    /// along it; the first set records the join (``RunOn/joins``) and the chain of edges.
    /// `setOf` gives each position's eligible set (−1: none), `setEdges` each set's Delaunay edges,
    /// `claimed` the set each position went to (runs included); each pair of ends is looked at
    /// once, in the order of the sets.
    func joinFacing(
        _ sets: [[Int32]], kg: KeywordGraph, reference: (Int) -> Double, setOf: [Int32], setEdges: [Int32: [Int]],
        claimed: inout [Int32], support: inout PathSupport, out: inout [RunOn]
    ) {
        let geometry = kg.geometry
        var ends: [(set: Int, end: StreetEnd)] = []
        var centres: [Int: [(x: Double, y: Double)]] = [:]
        var spacings = [Double](repeating: 0, count: sets.count)
        for (i, set) in sets.enumerated() where setOf[Int(set[0])] == Int32(i) {
            guard SaddleSplit.isLine(set.map { geometry.point(Int($0)) }, aspect: aspect) else { continue }
            let spacing = DensityRegionFinder.spacing(set, kg)
            spacings[i] = spacing
            let back = 2 * spacing
            for end in Self.streetEnds(
                set, edges: setEdges[Int32(i)] ?? [], kg: kg, back: back, aspect: aspect, endsInBand: false)
            {
                ends.append((i, end))
                centres[i] = end.line
            }
        }
        guard ends.count >= 2 else { return }
        // Each end's typical spacing, and the ends in order of x: an end looks only at those within the
        // largest reach in x (a city's thousands of streets are not compared pair by pair).
        let typicals = ends.map { 1 / reference($0.end.position).squareRoot() }
        let widest = Self.facingReach * (typicals.filter(\.isFinite).max() ?? 0)
        let endX = ends.map { geometry.point($0.end.position).x }
        let byX = ends.indices.sorted { (endX[$0], $0) < (endX[$1], $1) }
        let facing = cos(Self.maxTurn)
        for (k, a) in ends.enumerated() where typicals[k].isFinite {
            // The pairs (k, j), j > k, in the order of j, as a scan over all of them meets them.
            var lo = 0
            var hi = byX.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if endX[byX[mid]] < endX[k] - widest { lo = mid + 1 } else { hi = mid }
            }
            var window: [Int] = []
            for j in byX[lo...] {
                if endX[j] > endX[k] + widest { break }
                if j > k { window.append(j) }
            }
            window.sort()
            for b in window.map({ ends[$0] }) where b.set != a.set {
                let (sa, sb) = (spacings[a.set], spacings[b.set])
                guard max(sa, sb) <= Self.facingSpacingRatio * min(sa, sb) else { continue }
                let (ax, ay) = geometry.point(a.end.position)
                let (bx, by) = geometry.point(b.end.position)
                let d = hypot(bx - ax, by - ay)
                let typical = typicals[k]
                guard d > 0, d <= Self.facingReach * typical else { continue }
                let (ux, uy) = ((bx - ax) / d, (by - ay) / d)
                guard cos(a.end.heading) * ux + sin(a.end.heading) * uy >= facing,
                    -(cos(b.end.heading) * ux + sin(b.end.heading) * uy) >= facing
                else { continue }
                let (pa, pb) = (Int32(a.end.position), Int32(b.end.position))
                guard
                    Self.continues(
                        a.end, chain: [pa, pb], other: sets[b.set], street: sets[a.set], run: [], kg: kg,
                        aspect: aspect, widest: Self.joinWidth * a.end.halfWidth, otherCentre: centres[b.set])
                        || Self.continues(
                            b.end, chain: [pb, pa], other: sets[a.set], street: sets[b.set], run: [], kg: kg,
                            aspect: aspect, widest: Self.joinWidth * b.end.halfWidth, otherCentre: centres[a.set])
                else { continue }
                // The POIs of any kind around, as a run's step sees them: within its reach, and
                // at least as far as the other end.
                let radius = max(d, Self.reach * typical)
                let near = support.within(radius, of: ax, ay)
                let background = Double(near.count) / (Double.pi * radius * radius)
                let halfWidth = max(a.end.halfWidth, b.end.halfWidth)
                guard background > 0,
                    continuous(
                        from: pa, to: pb, kg: kg, near: near, halfWidth: halfWidth,
                        spacing: 1 / background.squareRoot(), linked: false, support: &support)
                else { continue }
                var between: [(along: Double, position: Int32)] = []
                for v in near {
                    guard let q = geometry.position(of: v), claimed[q] < 0 else { continue }
                    let (dx, dy) = (x[Int(v)] - ax, y[Int(v)] - ay)
                    let along = dx * ux + dy * uy
                    guard along > 0, along < d, abs(dy * ux - dx * uy) <= halfWidth else { continue }
                    between.append((along, Int32(q)))
                }
                between.sort { ($0.along, $0.position) < ($1.along, $1.position) }
                var last = pa
                for (_, q) in between {
                    claimed[Int(q)] = Int32(a.set)
                    out[a.set].added.append(q)
                    out[a.set].edges.append((last, q))
                    last = q
                }
                out[a.set].joins.append(Int32(b.set))
                out[a.set].edges.append((last, pb))
            }
        }
    }
}
