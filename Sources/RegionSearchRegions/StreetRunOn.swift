import Foundation
import RegionSearchCore
import RegionSearchGraph
import RegionSearchModel

/// A dining street that runs on past its dense stretch, along its street, through keyword POIs
/// too sparse to be dense by themselves.
///
/// A dining street's restaurants are not spread evenly along it: by chance or by the street's
/// own life, one stretch holds most of them and the next, bent 30° further on, one every 150 m.
/// The density ratio reads that stretch as the background (its k-th neighbour is 400 m away), yet
/// a person sees the street run on, lined with shops and with restaurants along it, and draws the
/// dining street to its last restaurant. The street itself is what carries the signal: the POIs
/// of every kind stand in a narrow band there, far denser than around.
///
/// A set is a street when its spine — the longest path of the Euclidean minimum spanning tree of
/// its locations, smoothed over five nodes — is at least `aspect` times as long as twice its
/// half-width (twice the members' median distance from the spine); an end of the spine counts when
/// the members near it are a band too (``streetEnds(_:edges:kg:back:aspect:)``). From each such end
/// a step looks `reach` typical spacings ahead, in the spine's direction turned by up to `maxTurn`:
/// in the band (the street's half-width to either side) that holds the most POIs of any kind, their
/// count must be significant (`alpha`, Poisson, the directions tried counted as windows) against
/// the density of all POIs within that reach around the end (all of them: a street whose POIs thin
/// out for a stretch is in pieces in the POI graph, which prunes an edge long for the street at
/// both of its ends, yet the street goes on). Then the keyword POIs in that band, in order along
/// it, join the set while each is at most `gap` times the set's spacing (and at most one typical
/// spacing) from the previous one, or up to `streetGap` times that within the band when POIs of any
/// kind stand all along the way, no stretch of it emptier than one typical spacing of all POIs
/// around (``emptyStretch`` of them up to ``streetEmpty`` metres), or, where the street turns a
/// corner between the two, a path of the POI graph through such steps not much longer than the hop
/// (``continuous(from:to:kg:near:halfWidth:spacing:linked:support:)``, ``bendDetour``: the street
/// goes on where its restaurants thin out, open ground does not); the step ends at the first POI
/// farther than that, at a member of another set, or at the band's end, and the next step starts
/// from the last POI taken, in the band's direction. A keyword POI the POI graph does not reach
/// from the end without leaving the reach (across a river, or past a gap in a street) is taken only
/// through POIs of any kind all along the way, never by the gap alone, and is otherwise passed
/// over. Where a step's band holds too few POIs to be significant, the street's whole leg ahead
/// is judged as one window instead (``leg(_:set:kg:setGap:claimed:support:stamp:round:)``): its
/// keyword POIs, each hop through POIs of any kind all along the way, significantly denser than
/// the keyword around; a street's restaurants that thin out for good along its last leg stand out
/// together, not one step at a time. A run of fewer than `minimumRun` POIs is given back.
///
/// A run that reaches a member of another set the same way, the hop within that set's own gap as
/// well (a sparse street that ends at a far denser place has not found more of itself: a chain of
/// 11 heliports 20 km apart ended at Osaka's 372), has found more of its street when the two sets
/// and the run between them are a street together (along the other set's own centre line when it is
/// a street the run reached near its end, turning by at most `maxTurn`: round a corner,
/// ``onwards(_:from:heading:)``), no wider than the street the run came from
/// (``continues(_:chain:other:street:run:kg:aspect:widest:otherCentre:)``, at most `joinWidth` of
/// its half-widths): the sets become one (``joined(_:_:)``), whatever the run's length. By chance a
/// dining street's restaurants can thin out along one stretch, and the density ratio then finds two
/// sets on it, the smaller one often too small to be significant alone. A set the run reaches that
/// is no street with it, or a wider one (a district or a square the street ends in), is left as it
/// is, and the run ends before it.
///
/// Typical spacing is 1 / √(reference density at the end): the keyword's spacing if it were
/// spread evenly.
///
/// Two streets that face each other across a stretch too sparse for a run to cross (a run's step
/// needs POIs of any kind to stand significantly dense ahead) are one street when they continue
/// each other (``joinFacing(_:kg:reference:setOf:setEdges:claimed:support:out:)``).
///
/// Only from a street's end, and only along a line of all POIs: a district has no spine that
/// long for its width, so it never grows this way; a street running out into open ground, or into
/// a district where every direction is as dense, stops.
struct StreetRunOn {
    /// The largest gap between consecutive keyword POIs a street runs on through where POIs of
    /// other kinds do not stand all along it, in the set's spacings
    /// (``DensityRegionFinder/spacing(_:_:)``), at most one typical spacing; 0: the street does
    /// not run on.
    var gap: Double
    /// A set is a street when its spine is this many times longer than wide.
    var aspect: Double

    /// How far ahead one step looks, in typical spacings.
    static let reach = 1.5
    /// The most a step turns from the street's direction (a street bends by 20–60° at a corner).
    static let maxTurn = 60.0 * Double.pi / 180
    /// The turns tried, in steps of this.
    static let turnStep = 5.0 * Double.pi / 180
    /// The significance the band of POIs ahead must reach.
    static let alpha = 1e-3
    /// A run from one end takes at least this many keyword POIs, or none.
    static let minimumRun = 2
    /// At most this many steps from one end.
    static let maxSteps = 64
    /// Along a street of POIs of any kind, consecutive keyword POIs a run takes may stand this
    /// many times its gap apart. Bounded, because a step's band is 1.5 typical spacings long, and
    /// where the keyword is sparse over a large area (world-wide heliports, a typical spacing of
    /// 100 km) a chain of other POIs 10 km apart counts as a street: Osaka's heliports ran on to
    /// Kyoto through hops of 6 gaps (6.5 km), where the dining strips that needed it (strips s42)
    /// hop 1.1–1.4 gaps.
    static let streetGap = 2.0
    /// Along a street, a stretch of the straight band between two keyword POIs may hold no POI of
    /// any kind for up to this many typical spacings of all POIs around (1 / √ of their density
    /// within the reach): the POIs of a street are not evenly spaced. A band wider than about 2.5
    /// spacings empty for the POIs on both sides separates (issue 22's rule for rivers and parks);
    /// once the run saw the POIs the POI graph leaves beyond such a stretch, 1 (the rule before)
    /// broke dining streets at their first 80 m without a shop.
    static let emptyStretch = 1.5
    /// A stretch this many metres long may always be empty: a side street the street crosses,
    /// with its pavements and the corners' setbacks. Where the frontages of a grid of blocks stand
    /// a few metres apart, the typical spacing of all POIs around is 17 m, and a 20 m side street
    /// leaves 28–36 m of the frontage empty (the blocks cases, EXPERIMENTS.md): 1.5 spacings
    /// stopped a run at every side street (regions stage versions 18–24). A river through a
    /// downtown (150 m) or a park is wider, and so is the open ground round a street's corner
    /// that ``StreetRunOnTests`` keeps apart.
    static let sideStreet = 50.0
    /// The allowance of ``emptyStretch`` is for a street at the scale of a town: an empty
    /// stretch longer than one typical spacing counts as along the street only up to this many
    /// metres, and towards a keyword POI the POI graph does not reach from the street's end no
    /// stretch longer than this may be empty at all. A river 150 m wide through a downtown
    /// separates (issue 22); at the scale of a continent, where the typical spacing of all POIs is
    /// kilometres, a corridor of airports is no street: without this bound, runs of heliports
    /// joined Calgary's to Edmonton's, 300 km apart.
    static let streetEmpty = 150.0
    /// Where a street bends between two of its keyword POIs, the straight band between them
    /// leaves its corner out, and the POIs of other kinds along it stand outside that band: the
    /// hop is along a street all the same when the POI graph joins the two through POIs no farther
    /// apart than the straight test allows, on a path at most this many times the hop (a 60° turn
    /// midway makes the path 1.15 times the hop; a street's POIs zigzag across its width).
    static let bendDetour = 1.5
    /// Two sets a run joins are a band at most this many of the running street's half-widths
    /// wide (a street's half-width is twice its members' median offset, so a street of one width
    /// is a band about one of them wide by nine in ten members).
    static let joinWidth = 2.0

    let x: Column<Double>
    let y: Column<Double>
    let graph: AdjacencyGraph

    /// What one set gains: keyword-graph positions (in the order taken) and the edges that join
    /// them to the set, a chain from each street end.
    struct RunOn: Sendable {
        var added: [Int32] = []
        var edges: [(a: Int32, b: Int32)] = []
        /// The sets (indices into `extend`'s sets) a run from this set reached and joins.
        var joins: [Int32] = []
    }

    /// For each set of `sets` (sorted positions of `kg`) that `eligible` accepts, what it runs on
    /// through (``RunOn``); empty for the others. `reference(position)` is the reference density
    /// there, per m². Sets are served in order: a POI one set took is no longer free for the next,
    /// and no set takes a member of another. `support` finds the POIs around a street's end.
    func extend(
        _ sets: [[Int32]], kg: KeywordGraph, reference: (Int) -> Double, eligible: ([Int32]) -> Bool,
        support: inout PathSupport
    ) -> [RunOn] {
        var out = [RunOn](repeating: RunOn(), count: sets.count)
        guard gap > 0 else { return out }
        let m = kg.count
        let geometry = kg.geometry
        var claimed = [Int32](repeating: -1, count: m)
        var setOf = [Int32](repeating: -1, count: m)
        var any = false
        // Only the sets that can be regions hold their members; a set too small or not dense
        // enough to be one leaves them free for a street to run on through.
        for (i, set) in sets.enumerated() where eligible(set) {
            for p in set {
                claimed[Int(p)] = Int32(i)
                setOf[Int(p)] = Int32(i)
            }
            any = true
        }
        guard any else { return out }
        // Each set's Delaunay edges between distinct locations, for its spine.
        var setEdges: [Int32: [Int]] = [:]
        for (e, (a, b)) in geometry.edges.enumerated()
        where setOf[Int(a)] >= 0 && setOf[Int(a)] == setOf[Int(b)] && geometry.lengths[e] > 0 {
            setEdges[setOf[Int(a)], default: []].append(e)
        }
        // Each set's own gap: a run joins a set only through a hop within both sets' gaps.
        var setGap = [Double](repeating: 0, count: sets.count)
        for (i, set) in sets.enumerated() where setOf[Int(set[0])] == Int32(i) {
            setGap[i] = gap * DensityRegionFinder.spacing(set, kg)
        }
        var stamp = [UInt32](repeating: 0, count: graph.nodeCount)
        var round: UInt32 = 0
        for (i, set) in sets.enumerated() where setOf[Int(set[0])] == Int32(i) {
            let spacing = DensityRegionFinder.spacing(set, kg)
            let back = 2 * spacing
            for end in Self.streetEnds(set, edges: setEdges[Int32(i)] ?? [], kg: kg, back: back, aspect: aspect) {
                let typical = 1 / reference(end.position).squareRoot()
                guard typical.isFinite, typical > 0 else { continue }
                var run = Walk(
                    from: end.position, heading: end.heading, halfWidth: end.halfWidth, reach: Self.reach * typical,
                    gap: min(gap * spacing, typical))
                walk(
                    &run, set: Int32(i), kg: kg, setGap: setGap, claimed: &claimed, support: &support, stamp: &stamp,
                    round: &round)
                if run.reached >= 0 {
                    let other = sets[Int(run.reached)]
                    if Self.continues(
                        end, chain: [Int32(end.position)] + run.added + [run.edges.last!.b], other: other,
                        street: set, run: run.added, kg: kg, aspect: aspect,
                        widest: Self.joinWidth * end.halfWidth,
                        otherCentre: Self.spine(other, edges: setEdges[run.reached] ?? [], kg: kg)
                            .flatMap { $0.isStreet(aspect: aspect) ? $0.centre : nil })
                    {
                        out[i].joins.append(run.reached)
                        out[i].added += run.added
                        out[i].edges += run.edges
                        continue
                    }
                    run.edges.removeLast()  // the edge into the other set
                }
                // Fewer than `minimumRun` POIs are an arm out to a POI or two, not the street
                // running on: they are given back.
                guard run.added.count >= Self.minimumRun else {
                    for q in run.added { claimed[Int(q)] = -1 }
                    continue
                }
                out[i].added += run.added
                out[i].edges += run.edges
            }
        }
        joinFacing(
            sets, kg: kg, reference: reference, setOf: setOf, setEdges: setEdges, claimed: &claimed, support: &support,
            out: &out)
        return out
    }

    /// Whether the set `other` a run reached continues the street it ran from: along the line
    /// that runs through the street's centre line (`end.line`), the run's POIs `chain` (from the
    /// street's end to the member of `other` reached, in order) and on from there along `other`'s
    /// own centre line (`otherCentre`, when `other` is a street the run goes on along,
    /// ``onwards(_:from:heading:)``: the street may turn a corner between the two) or else in the
    /// last hop's direction as far as `other` reaches, nine in ten of the POIs of the street near
    /// the junction, the run's POIs `run` and `other`'s lie within a band at least the street's
    /// half-width and at most `widest` wide on either side, and the line is `aspect` times as
    /// long as that band is wide (the polygon builder's test for drawing a street as a band).
    /// Measured against the street's own line rather than a spine of them all: a spine through
    /// the two sets ends at whichever POI lies farthest, and one background POI off the line's end
    /// turns it aside. The street's members count within as far of its end as `other` reaches
    /// from it (`street` is all of them): whether the two are one street is seen where they meet,
    /// and a few members off the street at its far end (beside it, or round a corner) would
    /// otherwise part a street from its own continuation.
    static func continues(
        _ end: StreetEnd, chain: [Int32], other: [Int32], street: [Int32], run: [Int32], kg: KeywordGraph,
        aspect: Double, widest: Double, otherCentre: [(x: Double, y: Double)]? = nil
    ) -> Bool {
        let geometry = kg.geometry
        guard chain.count >= 2 else { return false }
        var line = end.line
        for p in chain { line.append(geometry.point(Int(p))) }
        let (qx, qy) = geometry.point(Int(chain[chain.count - 1]))
        let (lx, ly) = geometry.point(Int(chain[chain.count - 2]))
        let hop = hypot(qx - lx, qy - ly)
        if let centre = otherCentre.flatMap({ Self.onwards($0, from: (qx, qy), heading: (qx - lx, qy - ly)) }) {
            line += centre
        } else if hop > 0 {
            let (ux, uy) = ((qx - lx) / hop, (qy - ly) / hop)
            let beyond =
                other.map { p -> Double in
                    let (px, py) = geometry.point(Int(p))
                    return (px - qx) * ux + (py - qy) * uy
                }.max() ?? 0
            if beyond > 0 { line.append((qx + beyond * ux, qy + beyond * uy)) }
        }
        let length = StreetSpine.length(of: line)
        let (ex, ey) = geometry.point(end.position)
        var span = 0.0
        for p in other {
            let (px, py) = geometry.point(Int(p))
            span = max(span, hypot(px - ex, py - ey))
        }
        let near = street.filter { p in
            let (px, py) = geometry.point(Int(p))
            return hypot(px - ex, py - ey) <= span
        }
        let distances = (near + run + other).map { p -> Double in
            let (px, py) = geometry.point(Int(p))
            var d = Double.infinity
            for k in 1..<line.count { d = min(d, StreetSpine.distance(px, py, toSegment: line[k - 1], line[k])) }
            return d
        }.sorted()
        guard !distances.isEmpty else { return false }
        let most = max(distances[Int((0.9 * Double(distances.count - 1)).rounded(.up))], end.halfWidth)
        return most <= widest && length >= aspect * 2 * most
    }

    /// The sets with the sets their runs joined (``RunOn/joins``) made one: each group of sets
    /// joined by runs becomes one set, its members sorted, at the place of its first set, with the
    /// runs of all its sets. Without joins, `sets` and `runs` unchanged.
    static func joined(_ sets: [[Int32]], _ runs: [RunOn]) -> (sets: [[Int32]], runs: [RunOn]) {
        guard runs.contains(where: { !$0.joins.isEmpty }) else { return (sets, runs) }
        var groups = UnionFind(count: sets.count)
        for (i, run) in runs.enumerated() {
            for j in run.joins { groups.union(Int32(i), j) }
        }
        var slot = [Int](repeating: -1, count: sets.count)
        var joinedSets: [[Int32]] = []
        var joinedRuns: [RunOn] = []
        for i in sets.indices {
            let root = Int(groups.find(Int32(i)))
            if slot[root] < 0 {
                slot[root] = joinedSets.count
                joinedSets.append([])
                joinedRuns.append(RunOn())
            }
            let k = slot[root]
            joinedSets[k] += sets[i]
            joinedRuns[k].added += runs[i].added
            joinedRuns[k].edges += runs[i].edges
        }
        for k in joinedSets.indices { joinedSets[k].sort() }
        return (joinedSets, joinedRuns)
    }

    /// The ends of a set's street: the two ends of its spine (the longest path of the Euclidean
    /// minimum spanning tree of its locations, over `edges`, indices into the keyword graph's
    /// Delaunay edges), smoothed over five nodes, when the set is a street: the smoothed spine at
    /// least `aspect` times as long as twice the half-width (twice the members' median distance
    /// from it, at least the keyword graph's spacing floor). An end counts when the members within
    /// `back` metres of it reach at least `aspect` of their own half-widths (measured the same way)
    /// from it: where a street ends in a square or a district, the spine's end is a corner of that.
    /// Each end heads along the smoothed spine's last `back` metres, out of the set, with the
    /// set's half-width. Members stacked at a location other than their set's have no edge and no
    /// part in it. With `endsInBand` false both ends of a street's spine count (for a set whose
    /// members lie along a line as a whole, ``joinFacing(_:kg:reference:setOf:setEdges:claimed:support:out:)``).
    static func streetEnds(
        _ set: [Int32], edges: [Int], kg: KeywordGraph, back: Double, aspect: Double, endsInBand: Bool = true
    ) -> [StreetEnd] {
        let geometry = kg.geometry
        guard back > 0, let spine = spine(set, edges: edges, kg: kg), spine.isStreet(aspect: aspect) else { return [] }
        let (path, centre, halfWidth) = (spine.path, spine.centre, spine.halfWidth)
        // Each end heads along the centre line's last `back` metres, out of the set.
        var ends: [StreetEnd] = []
        for (tip, line) in [(path.first!, Array(centre.reversed())), (path.last!, centre)] {
            if endsInBand {
                // The street reaches this end: the members within `back` of it are a band as well
                // (a district's corner is not, though the district lies along a long spine).
                let (tx, ty) = geometry.point(Int(set[tip]))
                var nearOffsets: [Double] = []
                var reachAlong = 0.0
                for (j, p) in set.enumerated() {
                    guard let offset = spine.offsets[j] else { continue }
                    let (px, py) = geometry.point(Int(p))
                    guard hypot(px - tx, py - ty) <= back else { continue }
                    nearOffsets.append(offset)
                    reachAlong = max(reachAlong, hypot(px - tx, py - ty))
                }
                guard nearOffsets.count >= 3 else { continue }
                let localHalfWidth = max(2 * Selection.median(nearOffsets), kg.rules.minSpacing)
                guard reachAlong >= aspect * localHalfWidth else { continue }
            }
            let last = line[line.count - 1]
            var k = line.count - 1
            while k > 0 && hypot(line[k].x - last.x, line[k].y - last.y) < back { k -= 1 }
            let (dx, dy) = (last.x - line[k].x, last.y - line[k].y)
            guard dx != 0 || dy != 0 else { continue }
            ends.append(StreetEnd(position: Int(set[tip]), heading: atan2(dy, dx), halfWidth: halfWidth, line: line))
        }
        return ends
    }

    /// A street's centre line `centre` in the direction a run reaching it at (qx, qy) along
    /// `heading` goes on along it, when the run reached it near one of its ends (within a quarter
    /// of its length) and turns onto it by at most ``maxTurn``: a street turning a corner. Nil
    /// otherwise (a run meeting a street at its middle, or square across it, has not found more
    /// of its own street).
    static func onwards(
        _ centre: [(x: Double, y: Double)], from q: (x: Double, y: Double), heading: (x: Double, y: Double)
    ) -> [(x: Double, y: Double)]? {
        guard centre.count >= 2 else { return nil }
        let length = StreetSpine.length(of: centre)
        let first = hypot(centre[0].x - q.x, centre[0].y - q.y)
        let last = hypot(centre[centre.count - 1].x - q.x, centre[centre.count - 1].y - q.y)
        let line = first <= last ? centre : centre.reversed()
        guard min(first, last) <= length / 4 else { return nil }
        // The street's direction from its near end: to the point a quarter of its length on.
        var k = 1
        while k < line.count - 1 && hypot(line[k].x - line[0].x, line[k].y - line[0].y) < length / 4 { k += 1 }
        let (dx, dy) = (line[k].x - line[0].x, line[k].y - line[0].y)
        let norms = hypot(dx, dy) * hypot(heading.x, heading.y)
        guard norms > 0 else { return nil }
        let cosine = (dx * heading.x + dy * heading.y) / norms
        return cosine >= cos(maxTurn) ? line : nil
    }

    /// The spine (``StreetSpine``) of a set over `edges`, indices into the keyword graph's
    /// Delaunay edges between its members; nil for fewer than three members or no edge.
    static func spine(_ set: [Int32], edges: [Int], kg: KeywordGraph) -> StreetSpine? {
        let geometry = kg.geometry
        guard set.count >= 3, !edges.isEmpty else { return nil }
        var local = [Int32: Int]()
        for (j, p) in set.enumerated() { local[p] = j }
        // The set's edges in the keyword triangulation's order (Kruskal's ties).
        let spineEdges = edges.sorted().compactMap { e -> (a: Int, b: Int, length: Double)? in
            let (a, b) = geometry.edges[e]
            guard let la = local[a], let lb = local[b] else { return nil }
            return (la, lb, geometry.lengths[e])
        }
        let points = set.map { geometry.point(Int($0)) }
        return StreetSpine(
            x: points.map(\.x), y: points.map(\.y), edges: spineEdges, minimumHalfWidth: kg.rules.minSpacing)
    }

    /// A street's end: its keyword-graph position, the heading out of the set, the street's
    /// half-width, and its smoothed centre line, ending at this end.
    struct StreetEnd {
        let position: Int
        let heading: Double
        let halfWidth: Double
        let line: [(x: Double, y: Double)]
    }

    /// One street end's run: where it stands, where it heads, and what it took.
    struct Walk {
        var from: Int
        var heading: Double
        let halfWidth: Double
        let reach: Double
        let gap: Double
        var added: [Int32] = []
        var edges: [(a: Int32, b: Int32)] = []
        /// The set whose member the run reached (the last edge leads to it), or −1.
        var reached: Int32 = -1
    }

    private func walk(
        _ run: inout Walk, set: Int32, kg: KeywordGraph, setGap: [Double], claimed: inout [Int32],
        support: inout PathSupport, stamp: inout [UInt32], round: inout UInt32
    ) {
        let geometry = kg.geometry
        // A band of no width (a perfectly straight street where `min_spacing_m` is 0) holds
        // nothing, and would count as infinitely many directions.
        guard run.halfWidth > 0 else { return }
        let turns = Int((Self.maxTurn / Self.turnStep).rounded())
        // Bands of this width seen from half the reach are this many radians wide: the number of
        // directions that do not overlap, counted as windows of the test.
        let directions = max(1, Int((2 * Self.maxTurn / (2 * atan(2 * run.halfWidth / run.reach))).rounded(.up)))
        // Whether the POI at offset (dx, dy) from the end lies in the band heading (ux, uy).
        func inBand(_ dx: Double, _ dy: Double, _ ux: Double, _ uy: Double) -> Bool {
            let along = dx * ux + dy * uy
            return along > 0 && along <= run.reach && abs(dy * ux - dx * uy) <= run.halfWidth
        }
        for _ in 0..<Self.maxSteps {
            let (ex, ey) = geometry.point(run.from)
            // The POIs the POI graph reaches from the end without leaving the reach: `stamp` marks
            // them (a river the graph does not cross keeps the far bank out). And every POI within
            // the reach: a street whose POIs thin out for a stretch is in pieces in the POI graph
            // (an edge long for the dense street at both of its ends is pruned), yet its band is
            // there, and a hop through POIs all along it is along the street.
            markLinked(
                around: Int(geometry.subset[run.from]), ex, ey, radius: run.reach, stamp: &stamp, round: &round)
            let near = support.within(run.reach, of: ex, ey)
            var best = (count: -1, turn: 0)
            for t in -turns...turns {
                let heading = run.heading + Double(t) * Self.turnStep
                let (ux, uy) = (cos(heading), sin(heading))
                var count = 0
                for v in near where inBand(x[Int(v)] - ex, y[Int(v)] - ey, ux, uy) { count += 1 }
                // The most POIs; on a tie, the smaller turn, then the clockwise one (tried first).
                if count > best.count || (count == best.count && abs(t) < abs(best.turn)) {
                    best = (count, t)
                }
            }
            let background = Double(near.count) / (Double.pi * run.reach * run.reach)
            let expected = background * run.reach * 2 * run.halfWidth
            let p = Significance.densityPValue(k: best.count, expected: expected, windows: directions)
            guard best.count > 0, p <= Self.alpha else {
                // Too few POIs ahead for one step: the street's whole leg may still stand out.
                guard
                    let leg = leg(
                        run, set: set, kg: kg, setGap: setGap, claimed: claimed, support: &support, stamp: &stamp,
                        round: &round)
                else { return }
                for q in leg.taken {
                    claimed[Int(q)] = set
                    run.added.append(q)
                    run.edges.append((Int32(run.from), q))
                    run.from = Int(q)
                }
                run.heading = leg.heading
                continue
            }
            let heading = run.heading + Double(best.turn) * Self.turnStep
            let (ux, uy) = (cos(heading), sin(heading))
            // The keyword POIs in the band, in order along it (position breaks ties).
            var ahead: [(along: Double, position: Int32)] = []
            for v in near {
                let (dx, dy) = (x[Int(v)] - ex, y[Int(v)] - ey)
                guard inBand(dx, dy, ux, uy), let q = geometry.position(of: v) else { continue }
                ahead.append((dx * ux + dy * uy, Int32(q)))
            }
            ahead.sort { ($0.along, $0.position) < ($1.along, $1.position) }
            var last = Int32(run.from)
            var took = 0
            for (_, q) in ahead {
                if claimed[Int(q)] == set { continue }
                let (lx, ly) = geometry.point(Int(last))
                let (qx, qy) = geometry.point(Int(q))
                let hop = ((qx - lx) * (qx - lx) + (qy - ly) * (qy - ly)).squareRoot()
                // Within the gap, or within `streetGap` gaps (and the step's band) through POIs of any
                // kind all along (a street the sparse stretch of keyword POIs lies on, not open
                // ground). Into another set, within its gap as well: a sparse street that ends at a
                // far denser place has not found more of itself.
                // A POI the POI graph does not reach within the reach is taken only through POIs of
                // any kind all along the way (no gap a river or a park leaves), and otherwise passed
                // over, as if not there.
                let limit = claimed[Int(q)] >= 0 ? min(run.gap, setGap[Int(claimed[Int(q)])]) : run.gap
                let linked = stamp[Int(geometry.subset[Int(q)])] == round
                let alongStreet =
                    (hop <= limit && linked)
                    || (hop <= min(run.reach, Self.streetGap * limit)
                        && continuous(
                            from: last, to: q, kg: kg, near: near, halfWidth: run.halfWidth,
                            spacing: 1 / background.squareRoot(), linked: linked, support: &support))
                if !alongStreet && !linked { continue }
                guard alongStreet else { break }
                if claimed[Int(q)] >= 0 {
                    run.reached = claimed[Int(q)]
                    run.edges.append((last, q))
                    return
                }
                claimed[Int(q)] = set
                run.added.append(q)
                run.edges.append((last, q))
                last = q
                took += 1
            }
            guard took > 0 else { return }
            run.from = Int(last)
            run.heading = heading
        }
    }

    /// Whether the POIs of any kind among `near` in the band of `halfWidth` along the segment from
    /// keyword position `a` to `b` leave no stretch of it longer than `spacing`, or ``emptyStretch``
    /// × `spacing` up to ``streetEmpty`` metres, or ``sideStreet`` metres, empty (towards a POI the
    /// POI graph does not reach, `linked` false: ``emptyStretch`` × `spacing` and ``streetEmpty``
    /// metres at most, or ``sideStreet`` metres), or else
    /// (a street bending between them) whether the POI graph joins the two by steps of at most
    /// `spacing`, on a path at most ``bendDetour`` times the segment (``PathSupport``'s search, in
    /// the ellipse such a path can reach). The path's steps get no such allowance: steps of 1.5
    /// spacings join POIs spread evenly over the ground anywhere (each then has about seven others
    /// within a step), steps of one about three, too few to lead far but along a street.
    func continuous(
        from a: Int32, to b: Int32, kg: KeywordGraph, near: [UInt32], halfWidth: Double, spacing: Double,
        linked: Bool, support: inout PathSupport
    ) -> Bool {
        let (ax, ay) = kg.geometry.point(Int(a))
        let (bx, by) = kg.geometry.point(Int(b))
        let length = hypot(bx - ax, by - ay)
        guard length > 0 else { return true }
        let (ux, uy) = ((bx - ax) / length, (by - ay) / length)
        var along: [Double] = [0, length]
        for v in near {
            let (dx, dy) = (x[Int(v)] - ax, y[Int(v)] - ay)
            let t = dx * ux + dy * uy
            guard t > 0, t < length, abs(dy * ux - dx * uy) <= halfWidth else { continue }
            along.append(t)
        }
        along.sort()
        // Up to emptyStretch spacings, but beyond one spacing only up to streetEmpty metres;
        // towards a POI the graph does not reach, never beyond streetEmpty metres; a side street
        // always.
        let town = max(min(Self.emptyStretch * spacing, Self.streetEmpty), Self.sideStreet)
        let empty = linked ? max(spacing, town) : town
        for k in 1..<along.count where along[k] - along[k - 1] > empty {
            return support.connected(
                Int(kg.geometry.subset[Int(a)]), Int(kg.geometry.subset[Int(b)]), within: Self.bendDetour * length,
                step: spacing)
        }
        return true
    }

    /// Marks with a new `round` in `stamp` the POIs within `radius` of (cx, cy) that the POI
    /// graph reaches from `start` without leaving that disc (a river the graph does not cross
    /// keeps the far bank out).
    func markLinked(
        around start: Int, _ cx: Double, _ cy: Double, radius: Double, stamp: inout [UInt32], round: inout UInt32
    ) {
        round &+= 1
        if round == 0 {
            for i in stamp.indices { stamp[i] = 0 }
            round = 1
        }
        let r2 = radius * radius
        var out: [UInt32] = [UInt32(start)]
        stamp[start] = round
        var head = 0
        while head < out.count {
            let v = Int(out[head])
            head += 1
            for e in graph.range(v) {
                let w = Int(graph.neighbors[e])
                guard stamp[w] != round else { continue }
                let dx = x[w] - cx
                let dy = y[w] - cy
                guard dx * dx + dy * dy <= r2 else { continue }
                stamp[w] = round
                out.append(UInt32(w))
            }
        }
    }
}
