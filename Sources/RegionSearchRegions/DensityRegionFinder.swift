import Foundation
import RegionSearchCore
import RegionSearchGraph
import RegionSearchModel

/// Regions of the `density` measure: where a keyword's POIs are close together.
///
/// 1. **Typical density.** The keyword's N POIs over the area the city's POIs occupy: λ = N / A.
///    A is measured from the POI graph, not a bounding box: each connected location contributes
///    π σ² / k (σ the distance to its k-th nearest other location, the area one POI has to itself
///    there), so rivers, parks, the sea and empty suburbs beyond the last POI count for nothing,
///    and a lone POI far away (isolated in the graph) counts for nothing either.
///    Where POIs of any kind stand sparser than over the whole data (a town, a thin borough), λ
///    there is scaled down by as much (``groundShare``, ``GroundDensity``; never up): a town's
///    dining street is judged against its town, a downtown against the city.
/// 2. **Local density.** Around each keyword POI, k' keyword POIs within the distance s to its
///    k'-th nearest other keyword POI: ρ = k' / (π s²); the *density ratio* r = ρ / λ says how many
///    times more closely packed than typical the keyword is there. It does not look at the other
///    POIs at all: a downtown with hundreds of restaurants among thousands of shops is dense.
/// 3. **Dense subgraphs.** Keyword POIs with r ≥ `extendRatio`, joined by the ``KeywordGraph``'s
///    accepted edges, form connected sets; a set holding a POI with r ≥ `coreRatio` and at least
///    `minKeywordPOIs` keyword POIs is a candidate. Hysteresis keeps a dining street whole down to
///    its quieter ends without letting a single dense corner grow into the suburbs. A street runs
///    on further, through POIs at `streetExtendRatio` along its band
///    (``streetEnds(_:dense:ratio:minimumRatio:across:aspect:)``): its last POIs and those beside
///    a gap have their neighbours on one side only and read about a third of its density. A member
///    whose nearest other member is more than `outlierSpacing` times the set's median spacing
///    away is left out of it (``trimmed(_:kg:edges:factor:candidate:)``): a POI beside a dense
///    street is dense by its k-th neighbour, which is the street, but a person drawing the street
///    would not draw an arm out to it, nor a corridor through a lone POI between two clusters.
///    Nor does a person draw an arm out to a POI around the corner from a dining street, which the
///    spacing rule keeps when the street's POIs are close: where a member's fellow members form a
///    band `streetAspect` times as long as wide, a member more than `offStreet` of its half-widths
///    off its axis is left out too
///    (``offStreet(_:kg:edges:factor:aspect:dense:candidate:)``), and the set splits likewise.
///    So is a member whose own fellow members form no street but which stands that far off the
///    street of its nearest member on a street, unless it is dense without that street
///    (`besideStreet`): a few of the city's restaurants just off a dining street. A candidate that
///    is a street runs on from its ends along a significant street of POIs of any kind, through
///    the keyword POIs along it (``StreetRunOn``, `streetRunOn`); it is tested as found, and
///    with the candidate it runs on into when the two are one street together. Two
///    candidates the keyword graph joins through POIs at least s dense (their saddle), neither of
///    whose members' median ratio reaches `persistence` × s, are one place: a downtown barely dense
///    enough for the keyword, broken along the dips of its density's noise
///    (``joinedAtSaddles(_:kg:ratio:eligible:floor:persistence:edges:support:candidate:)``).
///    Before that join, where the keyword's propagated density is given, a set it shows to be two
///    places — two sides each `splitPersistence` times as dense as the saddle between them, both
///    candidates, neither along a line nor splitting again — is its two sides (``SaddleSplit``): two café
///    districts joined by a thinner line of cafés, which by their own spacing is as dense as they.
/// 4. **Significance.** Under the null hypothesis that the keyword's POIs are spread over the
///    occupied area at density λ (scaled as above), the count in the candidate's area a
///    (Σ π s² / k' over its POIs, each at its own λ) is Poisson(λ a); its p-value is
///    `N · P(X ≥ m)` for its m POIs (a scan bound over the N places a region could be centred
///    on). In a city without clusters, points with r ≥ 10 are rare (the density is smoothed over
///    the keyword graph first), candidates are small, and the test removes them; a cluster of 70
///    cafés at 8 × the density around it is kept. With `contrastRing` > 0 the candidate must
///    also stand out against its surroundings where they are denser than its reference: the
///    keyword POIs inside the convex hull of its POIs against the keyword's density in the ring
///    around the hull (``contrast(_:kg:isKeyword:ground:ringFactor:spacing:visited:)``),
///    one POI at each corner of the hull counting for the share of a full turn the hull's angle
///    there takes in (`hullCorners`); the larger p-value counts. The noise of the k'-th-neighbour
///    density puts pieces of an evenly dense downtown above `coreRatio`, and against λ alone they
///    would be significant.
public struct DensityRegionFinder: Sendable {
    /// How the ring test counts the keyword POIs at the corners of a candidate's hull.
    public enum HullCorners: String, Sendable, CaseIterable {
        /// One POI at each corner counts for the share of a full turn the hull's interior angle
        /// there takes in (``DensityRegionFinder/angleCount(inHull:corners:)``): the hull was drawn
        /// through them, so they lie inside it by construction. The ring test is made only where
        /// the ring is denser than the candidate's reference.
        case angle
        /// Each as one, as any POI inside, and the ring test made everywhere (regions stage
        /// version 10 and before).
        case whole
    }

    public struct Options: Sendable, Equatable {
        var coreRatio: Double
        var extendRatio: Double
        var minKeywordPOIs: Int
        /// α of the density's propagation over the keyword graph (``DensitySmoothing``); 0 = none.
        var smoothing: Double
        /// A member farther than this many times its set's median spacing from every other member
        /// is left out (``DensityRegionFinder/trimmed(_:kg:edges:factor:candidate:)``); 0 keeps all.
        var outlierSpacing: Double
        /// > 0: a candidate is also tested against the keyword's density in the ring around it, this
        /// many of its hull's radii wide (rule 4); 0: not.
        var contrastRing: Double = 2
        /// How the ring test counts the keyword POIs at the hull's corners.
        var hullCorners: HullCorners = .angle
        /// > 0: a member standing farther than this many half-widths off the street its fellow
        /// members form around it is left out (``offStreet(_:kg:edges:factor:aspect:dense:candidate:)``);
        /// 0: not.
        var offStreet: Double = 3
        /// The fellow members' band counts as a street when it is this many times longer than wide.
        var streetAspect: Double = 4
        /// > 0: a member whose own fellow members form no street, but which stands more than
        /// `offStreet` half-widths off the street of its nearest street member, is left out unless
        /// its density ratio without the street's members reaches this many times `extendRatio`
        /// (``offStreet(_:kg:edges:factor:aspect:dense:candidate:)``); 0: not.
        var besideStreet: Double = 1
        /// > 0: a keyword POI on the street of a dense member, within its k-th neighbour distance
        /// and this many half-widths of the street's axis, is dense as well when its ratio is at
        /// least `streetExtendRatio` (``streetEnds(_:dense:ratio:minimumRatio:across:aspect:)``);
        /// 0: not.
        var streetEnds: Double = 3
        /// The density ratio a POI needs to continue a street (`streetEnds`).
        var streetExtendRatio: Double = 2
        /// > 0: a candidate that is a street runs on from its ends along a significant line of POIs
        /// of any kind, through keyword POIs at most this many times its spacing (and one typical
        /// spacing) apart (``StreetRunOn``); 0: not.
        var streetRunOn: Double = 3
        /// > 1: two candidates the keyword graph joins through POIs at least s times as dense as
        /// typical, neither of which stands this many times above s, are one
        /// (``DensityRegionFinder/joinedAtSaddles(_:kg:ratio:eligible:floor:persistence:edges:support:candidate:)``);
        /// 0: not.
        var persistence: Double = 2
        /// > 1: a set the keyword's propagated density shows to be two places, each standing this
        /// many times above the saddle between them, neither along a line nor holding places of its
        /// own, and both candidates, is its two sides (``SaddleSplit``; only where the propagated
        /// density is given); ≤ 1: not.
        var splitPersistence: Double = 2
        /// The false discovery rate the regions are kept at: a street is parted from the rest of
        /// its set only when significant on its own at this level, Bonferroni over the keyword's
        /// candidate sets (``streetParts(_:kg:edges:factor:aspect:candidate:significant:)``).
        var fdr: Double = 0.05

        public init(
            coreRatio: Double = 10, extendRatio: Double = 4, minKeywordPOIs: Int = 8, smoothing: Double = 0.5,
            outlierSpacing: Double = 1.5, contrastRing: Double = 2, offStreet: Double = 3, streetAspect: Double = 4,
            streetEnds: Double = 3, streetExtendRatio: Double = 2, hullCorners: HullCorners = .angle,
            besideStreet: Double = 1, streetRunOn: Double = 3, persistence: Double = 2, splitPersistence: Double = 2,
            fdr: Double = 0.05
        ) {
            self.fdr = fdr
            self.persistence = persistence
            self.splitPersistence = splitPersistence
            self.besideStreet = besideStreet
            self.streetRunOn = streetRunOn
            self.hullCorners = hullCorners
            self.streetEnds = streetEnds
            self.streetExtendRatio = streetExtendRatio
            self.offStreet = offStreet
            self.streetAspect = streetAspect
            self.contrastRing = contrastRing
            self.coreRatio = coreRatio
            self.extendRatio = extendRatio
            self.minKeywordPOIs = minKeywordPOIs
            self.smoothing = smoothing
            self.outlierSpacing = outlierSpacing
        }
    }

    /// What happened for one keyword (recorded in the artifact metadata).
    struct KeywordSummary: Sendable {
        var keywordPOIs = 0
        /// Keyword POIs per km² over the occupied area.
        var typicalDensityPerKm2 = 0.0
        /// √(A / N): how far apart the keyword's POIs would be if spread evenly, metres.
        var typicalSpacing = 0.0
        /// The k'-th neighbour distances at which the density ratio reaches core / extend, metres.
        var coreSpacing = 0.0
        var extendSpacing = 0.0
        var densePOIs = 0
        var components = 0
        var droppedSmall = 0
        var supportSearches = 0
    }

    let x: Column<Double>
    let y: Column<Double>
    let graph: AdjacencyGraph
    /// The occupied area A, m².
    let occupiedArea: Double
    /// Per POI, the share of the data's POI density its ground has (``GroundDensity``): the
    /// reference there is λ times it. Nil: λ everywhere.
    var groundShare: [Double]? = nil
    /// The ground each POI occupies (``ownedGround(graph:scaleK:)``), for the ring test; nil: no
    /// ring test, whatever `contrastRing` says (``RegionExtraction`` and ``DensityHierarchy`` set it).
    var ownedGround: [Double]? = nil

    /// Candidate regions of keyword `keyword` (with p-values, before the false discovery rate).
    /// `density`: the keyword's propagated density at every POI (``ScoreTable/density``), or nil;
    /// with it a set that is two places is split (``Options/splitPersistence``).
    func candidates(
        keyword: Int, match: Column<UInt8>, options: Options, rules: KeywordGraph.Rules, support: inout PathSupport,
        density: Column<Float>? = nil
    ) -> (regions: [RegionTable.Region], summary: KeywordSummary) {
        let points = (0..<match.count).filter { match[$0] != 0 }.map { UInt32($0) }
        guard points.count >= max(2, options.minKeywordPOIs), occupiedArea > 0 else {
            var summary = KeywordSummary()
            summary.keywordPOIs = points.count
            return ([], summary)
        }
        let kg = KeywordGraph(keywordPoints: points, x: x, y: y, rules: rules)
        let propagated = density.map { density in points.map { Double(density[Int($0)]) } }
        let sets = candidateSets(keyword: keyword, kg: kg, options: options, support: &support, propagated: propagated)
        return (sets.regions.map(\.region), sets.summary)
    }

    /// Rules 2–4 on the keyword graph `kg` of the keyword's POIs: each candidate region with its
    /// positions in `kg`, the density ratio of every keyword POI and the accepted edges among the
    /// dense ones (positions in `kg`).
    /// `propagated`: the keyword's propagated density at each of its POIs (positions in `kg`), for
    /// splitting a set that is two places (``SaddleSplit``); nil: no set is split.
    func candidateSets(
        keyword: Int, kg: KeywordGraph, options: Options, support: inout PathSupport, propagated: [Double]? = nil
    ) -> (
        regions: [(region: RegionTable.Region, positions: [Int32])], ratio: [Double], edges: [(a: Int32, b: Int32)],
        summary: KeywordSummary
    ) {
        let searchesBefore = support.searches
        var summary = KeywordSummary()
        summary.keywordPOIs = kg.count
        let k = Double(kg.rules.neighbours)
        let lambda = Double(kg.count) / occupiedArea
        summary.typicalDensityPerKm2 = lambda * 1e6
        summary.typicalSpacing = (occupiedArea / Double(kg.count)).squareRoot()
        summary.coreSpacing = (k / (Double.pi * options.coreRatio * lambda)).squareRoot()
        summary.extendSpacing = (k / (Double.pi * options.extendRatio * lambda)).squareRoot()
        // The reference at each keyword POI: λ, or less where the city thins out (GroundDensity).
        let reference = groundShare.map { share in kg.geometry.subset.map { lambda * share[Int($0)] } }
        let ratio = Self.densityRatio(kg, lambda: lambda, reference: reference, smoothing: options.smoothing)
        var eligible = ratio.map { $0 >= options.extendRatio }
        if options.streetEnds > 0 {
            eligible = Self.streetEnds(
                kg, dense: eligible, ratio: ratio, minimumRatio: options.streetExtendRatio, across: options.streetEnds,
                aspect: options.streetAspect)
        }
        summary.densePOIs = eligible.reduce(0) { $0 + ($1 ? 1 : 0) }
        var edges = kg.acceptedEdges(eligible: eligible, support: &support)
        var regions: [(region: RegionTable.Region, positions: [Int32])] = []
        var sets = KeywordGraph.components(count: kg.count, eligible: eligible, edges: edges)
        // A set that can be a candidate: a POI at core_ratio and min_keyword_pois POIs (the rules
        // below look only at those).
        let isCandidate: ([Int32]) -> Bool = {
            $0.count >= options.minKeywordPOIs && $0.contains { ratio[Int($0)] >= options.coreRatio }
        }
        if options.outlierSpacing > 0 {
            sets = Self.trimmed(
                sets, kg: kg, edges: edges, factor: options.outlierSpacing, candidate: isCandidate)
        }
        let ringGround = options.contrastRing > 0 ? ownedGround : nil
        var isKeyword: [UInt64] = []
        var visited: [UInt64] = []
        if ringGround != nil {
            isKeyword = [UInt64](repeating: 0, count: (graph.nodeCount + 63) / 64)
            visited = isKeyword
            for v in kg.geometry.subset { isKeyword[Int(v) >> 6] |= 1 << (UInt64(v) & 63) }
        }
        // A set's significance (rule 4): its POIs against the reference over the ground they stand
        // for, and, where its ring is denser than the reference, its hull's POIs against the ring.
        // The ground a set's POIs stand for (π d² / k each, d its k-th neighbour distance), m², and
        // the keyword POIs the reference expects on it.
        func ground(of component: [Int32]) -> (area: Double, expected: Double) {
            var area = 0.0
            var expected = 0.0
            for p in component {
                let d = max(kg.spacing[Int(p)], 1)
                area += Double.pi * d * d / k
                expected += Double.pi * d * d / k * (reference?[Int(p)] ?? lambda)
            }
            return (area, expected)
        }
        func pValue(of component: [Int32]) -> Double {
            let (area, expected) = ground(of: component)
            var pValue = Significance.densityPValue(k: component.count, expected: expected, windows: kg.count)
            if let ringGround {
                let c = contrast(
                    component, kg: kg, isKeyword: isKeyword, ground: ringGround, ringFactor: options.contrastRing,
                    spacing: Self.spacing(component, kg), visited: &visited)
                let ringDensity = c.ringArea > 0 ? Double(c.ringKeyword) / c.ringArea : 0
                let reference = area > 0 ? expected / area : lambda
                // A hull whose POIs own no ground (one address with no other POI near it) expects
                // nothing, and the ring test passes: such a set is judged by the test above alone.
                // With corners counted by angle, only where the ring is denser than the reference:
                // a clump standing alone is judged by the test above, over the ground its members
                // stand for (with corners counted whole, the ring test against the reference
                // decided no region on any case of the quality suite; with them counted by angle it
                // would drop small clusters that stand alone, such as a row of 8 restaurants in a
                // suburb with no other POI near).
                let test: (k: Int, null: Double)? =
                    switch options.hullCorners {
                    case .angle:
                        ringDensity > reference
                            ? (Self.angleCount(inHull: c.hullKeyword, corners: c.corners), ringDensity) : nil
                    case .whole: (c.hullKeyword, max(reference, ringDensity))
                    }
                if let test {
                    let p = Significance.densityPValue(k: test.k, expected: test.null * c.hullArea, windows: kg.count)
                    pValue = max(pValue, p)
                }
            }
            return pValue
        }
        if options.offStreet > 0 {
            // Beside a street, a member's density without the street's members (`besideStreet`).
            let floor = options.besideStreet * options.extendRatio
            let dense: ((Int, Double) -> Bool)? =
                options.besideStreet > 0
                ? { p, d in k / (Double.pi * d * d * (reference?[p] ?? lambda)) >= floor } : nil
            sets = Self.offStreet(
                sets, kg: kg, edges: edges, factor: options.offStreet, aspect: options.streetAspect, dense: dense,
                candidate: isCandidate)
            // A set that is mostly a street: the street parted from the rest, where it stands out on
            // its own (significant by Bonferroni over the candidate sets, so at any false discovery
            // rate of the others).
            let bound = options.fdr / Double(max(1, sets.filter(isCandidate).count))
            sets = Self.streetParts(
                sets, kg: kg, edges: edges, factor: options.offStreet, aspect: options.streetAspect,
                candidate: isCandidate, significant: { pValue(of: $0) <= bound })
        }
        if let propagated, options.splitPersistence > 1 {
            // Before the saddle join and the street's run, which may join the two sides again
            // where their own rules say the two are one place or one street.
            sets = SaddleSplit.places(
                sets, edges: edges, density: propagated, minimum: options.minKeywordPOIs,
                persistence: options.splitPersistence, aspect: options.streetAspect,
                streetHalfWidth: kg.rules.minSpacing, point: { kg.geometry.point(Int($0)) }, candidate: isCandidate)
        }
        if options.persistence > 1 {
            sets = Self.joinedAtSaddles(
                sets, kg: kg, ratio: ratio, eligible: eligible, floor: options.extendRatio,
                persistence: options.persistence, edges: &edges, support: &support, candidate: isCandidate)
        }
        let runs = StreetRunOn(gap: options.streetRunOn, aspect: options.streetAspect, x: x, y: y, graph: graph)
            .extend(
                sets, kg: kg, reference: { reference?[$0] ?? lambda }, eligible: isCandidate, support: &support)
        // Two sets one street ran on into from the other are one, tested together.
        let runOn: [StreetRunOn.RunOn]
        (sets, runOn) = StreetRunOn.joined(sets, runs)
        for (index, component) in sets.enumerated() {
            guard component.contains(where: { ratio[Int($0)] >= options.coreRatio }) else { continue }
            summary.components += 1
            guard component.count >= options.minKeywordPOIs else {
                summary.droppedSmall += 1
                continue
            }
            // The set as found is what is tested; the street it runs on through is drawn with it.
            let run = runOn[index]
            let positions = run.added.isEmpty ? component : (component + run.added).sorted()
            var region = Self.region(
                keyword: keyword, positions: positions, geometry: kg.geometry,
                edges: run.edges.isEmpty ? edges : edges + run.edges)
            var sum = 0.0
            var maximum = 0.0
            for p in component {
                let r = ratio[Int(p)]
                sum += r
                maximum = max(maximum, r)
            }
            let area = ground(of: component).area
            region.scoreSum = sum
            region.scoreMean = sum / Double(component.count)
            region.scoreMax = maximum
            region.spacing = Self.spacing(component, kg)
            region.areaM2 = area
            region.density = area > 0 ? Double(component.count) / (area / 1e6) : 0
            region.nFootprint = positions.count
            region.nFootprintKeyword = positions.count
            region.share = 1
            region.lift = 1
            region.pValue = pValue(of: component)
            regions.append((region, positions))
        }
        summary.supportSearches = support.searches - searchesBefore
        return (regions, ratio, edges, summary)
    }

    /// The keyword POIs inside a hull, `inHull` of them, with one POI at each of its `corners`
    /// corner locations counted for the share of a full turn the hull's interior angle there takes
    /// in, rounded down. A convex polygon's interior angles sum to `corners` − 2 half turns, so the
    /// corners count (`corners` − 2) / 2 together whatever their angles (a segment's two ends and a
    /// single location nothing); POIs stacked at a corner beyond the first count whole. Exact in
    /// integers: a floating-point sum of angles can land just below a whole count and lose a POI.
    ///
    /// Why: the hull is drawn through the set's outermost POIs, so they are inside it whatever
    /// chance put them where they are. Counted whole, a clump of 12 POIs, 7 of them at corners,
    /// reads as 12 where its inside holds 5, and chance clumps of 10–44 POIs passed the ring test
    /// (given its corners, the POIs inside a hull are what chance put there). Leaving the corners
    /// out altogether is that exact conditional count, but a street's hull has a third to a half
    /// of its POIs at corners, and Chicago's dining street of 17 restaurants and a town's cluster
    /// of 13 then failed; a corner does stand for ground inside the hull, the share its angle
    /// takes in.
    static func angleCount(inHull: Int, corners: Int) -> Int {
        max(0, 2 * (inHull - corners) + max(0, corners - 2)) / 2
    }

    /// The keyword POIs and the ground (m²) inside the convex hull of the set's POIs, and in the
    /// ring around it up to `ringFactor` times the hull's radius (√(area / π), at least the set's
    /// spacing) beyond it: every POI a walk over the POI graph from the set reaches without going
    /// farther from the hull (so not across a river the graph does not cross). `visited` is a
    /// cleared bit set over the POIs, returned cleared. `corners`: how many corner locations the
    /// hull has (its vertices, each a POI of the set, so a keyword POI counted in `hullKeyword`).
    func contrast(
        _ set: [Int32], kg: KeywordGraph, isKeyword: [UInt64], ground: [Double], ringFactor: Double, spacing: Double,
        visited: inout [UInt64]
    ) -> (hullKeyword: Int, corners: Int, hullArea: Double, ringKeyword: Int, ringArea: Double) {
        let seeds = set.map { kg.geometry.subset[Int($0)] }
        let hull = ConvexHull2D(x: seeds.map { x[Int($0)] }, y: seeds.map { y[Int($0)] })
        let width = ringFactor * max((max(hull.area, 0) / Double.pi).squareRoot(), spacing)
        let (minX, minY, maxX, maxY) = hull.bounds
        var touched: [UInt32] = []
        func seen(_ v: UInt32) -> Bool { visited[Int(v) >> 6] & (1 << (UInt64(v) & 63)) != 0 }
        func visit(_ v: UInt32) {
            visited[Int(v) >> 6] |= 1 << (UInt64(v) & 63)
            touched.append(v)
        }
        let screen = HullScreen(hull)
        // Within `width` of the hull: its box grown by `width` first, then the discs round the
        // hull (``HullScreen``), the exact distance where they cannot tell.
        func near(_ v: UInt32) -> Bool {
            let (px, py) = (x[Int(v)], y[Int(v)])
            if px < minX - width || px > maxX + width || py < minY - width || py > maxY + width { return false }
            return screen.within(width, px, py) ?? (hull.distance(px, py) <= width)
        }
        var stack: [UInt32] = []
        for v in seeds where !seen(v) {
            visit(v)
            stack.append(v)
        }
        var out = (hullKeyword: 0, corners: hull.count, hullArea: 0.0, ringKeyword: 0, ringArea: 0.0)
        while let v = stack.popLast() {
            let keyword = isKeyword[Int(v) >> 6] & (1 << (UInt64(v) & 63)) != 0 ? 1 : 0
            let (px, py) = (x[Int(v)], y[Int(v)])
            if screen.inside(px, py, tolerance: 1e-6) ?? hull.contains(px, py, tolerance: 1e-6) {
                out.hullKeyword += keyword
                out.hullArea += ground[Int(v)]
            } else {
                out.ringKeyword += keyword
                out.ringArea += ground[Int(v)]
            }
            for e in graph.range(Int(v)) {
                let w = graph.neighbors[e]
                if !seen(w) && near(w) {
                    visit(w)
                    stack.append(w)
                }
            }
        }
        for v in touched { visited[Int(v) >> 6] = 0 }
        return out
    }

    /// `dense` (positions of `kg`) with the keyword POIs that continue a street of its members.
    ///
    /// A POI continues a street when it lies within a member's k-th neighbour distance
    /// (``KeywordGraph/spacing``), where that member's fellow members among its 2k nearest keyword
    /// locations (at least four) form a band `aspect` times as long as wide, no more than `across`
    /// of the band's half-widths from its axis (``SubsetGeometry/Band``), and its own density
    /// ratio is at least `minimumRatio`. It then counts as a member, and the bands of the members
    /// near it are measured again, wave by wave, until a wave adds no POI.
    ///
    /// Along a line of POIs one gap apart, the k-th neighbour of a POI in the middle is ⌈k / 2⌉
    /// gaps away (3 for k = 5), at the line's end k gaps (5), on one side: the disc is 5/3 as wide
    /// and the density reads about a third of the street's (0.36); beside a gap it reads less
    /// than in the middle as well. A dining street's last restaurants, those beside a gap and a
    /// stretch where it thins for a while fall below `extendRatio`, although a person draws them
    /// with the street. Only along a street: at a district's edge the density falls by half at
    /// most (the neighbours fill a half disc), and growing a district by its members' discs would
    /// draw it out over its quieter surroundings. The growth stops where the POIs along the band
    /// fall below `minimumRatio` or the band ends.
    static func streetEnds(
        _ kg: KeywordGraph, dense: [Bool], ratio: [Double], minimumRatio: Double, across: Double, aspect: Double
    ) -> [Bool] {
        let geometry = kg.geometry
        var member = dense
        // Each wave measures the band of every member whose neighbourhood changed (all of them at
        // first): a band turns to follow the street as POIs join it (round a bend, over a gap). A
        // member whose nearest locations did not change has the band and the ball it had, and
        // reaches nothing new.
        var centres = dense
        while centres.contains(true) {
            let current = member
            let wave = centres
            let bands = kg.fellowBands(only: { wave[$0] }, fellow: { current[$0] && current[$1] })
            let reached = geometry.inBalls(of: wave, radius: kg.spacing, nearest: kg.nearest) { centre, other in
                guard let band = bands[centre], band.aspect >= aspect else { return false }
                let (x, y) = geometry.point(other)
                return band.distanceFromAxis(x, y) <= across * band.halfWidth
            }
            // POIs stacked at one address share a location but not their ratio: each is checked.
            let added = reached.indices.map { reached[$0] && !current[$0] && ratio[$0] >= minimumRatio }
            for p in member.indices where added[p] { member[p] = true }
            centres = zip(geometry.near(added, nearest: kg.nearest), member).map { $0 && $1 }
        }
        return member
    }

    /// The sets `sets` (sorted positions of `kg`) without their outlying members, split where that
    /// leaves them in pieces over `edges`; only the sets `candidate` accepts are trimmed, the others
    /// are returned as they are, and every set's pieces take its place, in order.
    ///
    /// A member is outlying when its nearest other member of the set is more than `factor` times
    /// the set's median spacing (``KeywordGraph/spacing``, the k-th nearest keyword POI; one value
    /// per location, so POIs stacked at one address count once) away. The members of a street or
    /// a district have neighbours much closer than their k-th; a POI off to the side is joined to
    /// them only because its own k-th neighbour is the street (its density is the street's), and
    /// one POI between two clusters joins them as a corridor.
    static func trimmed(
        _ sets: [[Int32]], kg: KeywordGraph, edges: [(a: Int32, b: Int32)], factor: Double,
        candidate: ([Int32]) -> Bool
    ) -> [[Int32]] {
        let m = kg.count
        var setOf = [Int32](repeating: -1, count: m)
        for (i, set) in sets.enumerated() where candidate(set) && set.count > 2 {
            for p in set { setOf[Int(p)] = Int32(i) }
        }
        // The nearest other location within the set, per location (its first position): the
        // first of its 2k nearest keyword locations that is in the set, or else its nearest
        // Delaunay neighbour in the set (the nearest member is not always a Delaunay neighbour
        // when a POI outside the set lies between). Members stacked at one location (a mall's
        // shops at its entrance) are each other's nearest, at distance 0.
        let geometry = kg.geometry
        var setAt = [Int32](repeating: -1, count: m)
        var membersAt = [Int32](repeating: 0, count: m)
        for p in 0..<m where setOf[p] >= 0 {
            let location = Int(geometry.representative[p])
            setAt[location] = setOf[p]
            membersAt[location] += 1
        }
        var nearest = [Double](repeating: .infinity, count: m)
        for (e, (a, b)) in geometry.edges.enumerated() where setAt[Int(a)] >= 0 && setAt[Int(a)] == setAt[Int(b)] {
            let l = geometry.lengths[e]
            guard l > 0 else { continue }
            nearest[Int(a)] = min(nearest[Int(a)], l)
            nearest[Int(b)] = min(nearest[Int(b)], l)
        }
        let listed = geometry.nearestListedDistance(nearest: kg.nearest) { setAt[$0] >= 0 && setAt[$0] == setAt[$1] }
        for p in 0..<m where setOf[p] >= 0 {
            let location = Int(geometry.representative[p])
            nearest[p] = membersAt[location] > 1 ? 0 : min(nearest[location], listed[location])
        }
        return split(sets, setOf: setOf, edges: edges) { set in
            // One spacing per location: a food court's forty stacked POIs are one place, and
            // would otherwise pull the median down to the spacing floor.
            var seen = Set<Int32>()
            let spacings = set.compactMap { p -> Double? in
                seen.insert(geometry.representative[Int(p)]).inserted ? kg.spacing[Int(p)] : nil
            }
            let limit = factor * Selection.median(spacings)
            return set.filter { nearest[Int($0)] <= limit }
        }
    }

    /// The sets `sets` (sorted positions of `kg`) without their members that stand off the street
    /// their set forms around them, split where that leaves them in pieces over `edges`; only the
    /// sets `candidate` accepts (and of more than four members) are looked at, the others are
    /// returned as they are, and every set's pieces take its place, in order.
    ///
    /// Around each member, its fellow members among its 2k nearest keyword locations (at least
    /// four of them) span a band (``SubsetGeometry/Band``: their principal axis, their reach along
    /// it, twice their median distance from it as the half-width). When that band is at least
    /// `aspect` times as long as wide, it is a street, and a member farther than `factor`
    /// half-widths from its centre line stands off it: a restaurant around the corner from a
    /// dining street has the street for its k nearest neighbours, so it is as dense as the street
    /// and joined to it, but a person draws the street as a street-wide band without an arm out to
    /// it. In a district the fellow members lie all around a member, the band is about as wide as
    /// long, and nothing is left out.
    ///
    /// A member whose own fellow members form no street can still stand beside one: a few
    /// restaurants of the city's background just off a dining street, whose fellow members are
    /// those few and the street, in no band. With `dense` given, such a member is left out too when
    /// the street of its nearest *street member* (a member on a street band, within `factor` of its
    /// half-widths) passes more than `factor` of that band's half-widths from it, unless it is
    /// dense without the street: `dense(position, d)` with d the distance to its k-th nearest
    /// keyword POI among its listed nearest locations that are not street members (the farthest
    /// listed one when fewer are left, so the density is at most what it says). Where a street
    /// bends, or runs on past a member, the member lies on the street's line and stays; a
    /// cluster beside a street is dense on its own and stays.
    static func offStreet(
        _ sets: [[Int32]], kg: KeywordGraph, edges: [(a: Int32, b: Int32)], factor: Double, aspect: Double,
        dense: ((Int, Double) -> Bool)? = nil, candidate: ([Int32]) -> Bool
    ) -> [[Int32]] {
        guard
            let (setOf, bands, onStreet) = streetMembers(
                sets, kg: kg, factor: factor, aspect: aspect, candidate: candidate)
        else { return sets }
        return split(sets, setOf: setOf, edges: edges) { set in
            set.filter { p in
                // A member with a street band of its own is judged by it alone.
                if let b = bands[Int(p)], b.aspect >= aspect { return onStreet[Int(p)] }
                guard let dense else { return true }
                return !Self.besideStreet(
                    Int(p), kg: kg, bands: bands, onStreet: onStreet, fellow: { setOf[$0] == setOf[Int(p)] },
                    factor: factor, dense: dense)
            }
        }
    }

    /// The street members of the sets `candidate` accepts (and of more than four members), for
    /// ``offStreet(_:kg:edges:factor:aspect:dense:candidate:)`` and
    /// ``streetParts(_:kg:edges:factor:aspect:candidate:significant:)``: each keyword-graph
    /// position's set (−1 outside those), the band its fellow members span, and whether it is on
    /// a street band (`aspect` times as long as wide) within `factor` of its half-widths; nil when
    /// no set is looked at.
    static func streetMembers(
        _ sets: [[Int32]], kg: KeywordGraph, factor: Double, aspect: Double, candidate: ([Int32]) -> Bool
    ) -> (setOf: [Int32], bands: [SubsetGeometry.Band?], onStreet: [Bool])? {
        let m = kg.count
        var setOf = [Int32](repeating: -1, count: m)
        var marked = false
        for (i, set) in sets.enumerated() where candidate(set) && set.count > 4 {
            for p in set { setOf[Int(p)] = Int32(i) }
            marked = true
        }
        guard marked else { return nil }
        let bands = kg.fellowBands(only: { setOf[$0] >= 0 }, fellow: { setOf[$0] == setOf[$1] })
        var onStreet = [Bool](repeating: false, count: m)
        for p in 0..<m where setOf[p] >= 0 {
            if let b = bands[p], b.aspect >= aspect, b.offset <= factor * b.halfWidth { onStreet[p] = true }
        }
        return (setOf, bands, onStreet)
    }

    /// Whether member `p`, whose own fellow members form no street, stands beside the street of its
    /// nearest fellow street member and is dense only with the street
    /// (``offStreet(_:kg:edges:factor:aspect:dense:candidate:)``).
    static func besideStreet(
        _ p: Int, kg: KeywordGraph, bands: [SubsetGeometry.Band?], onStreet: [Bool], fellow: (Int) -> Bool,
        factor: Double, dense: (Int, Double) -> Bool
    ) -> Bool {
        let listed = kg.geometry.listedLocations(of: p, nearest: kg.nearest)
        guard
            let onIt = onNearestStreet(
                p, listed: listed, kg: kg, bands: bands, onStreet: onStreet, fellow: fellow, factor: factor),
            !onIt
        else { return false }
        // The k-th nearest keyword POI off the street (stacked POIs count each, as for the
        // density ratio); the farthest listed location when fewer are listed.
        var d = listed.last?.distance ?? .infinity
        var count = kg.geometry.stacked(at: p) - 1
        if count >= kg.rules.neighbours { d = 0 }
        for e in listed where count < kg.rules.neighbours && !onStreet[e.position] {
            count += e.count
            if count >= kg.rules.neighbours {
                d = e.distance
                break
            }
        }
        return !dense(p, max(d, kg.rules.minSpacing))
    }

    /// Whether member `p` lies within `factor` half-widths of the street band of its nearest fellow
    /// street member among its `listed` nearest locations (``SubsetGeometry/listedLocations(of:nearest:)``);
    /// nil when none of them is one. Where a street bends or ends, a member's own fellows form no
    /// band, but it lies on the line of its neighbours' street.
    static func onNearestStreet(
        _ p: Int, listed: [(position: Int, count: Int, distance: Double)], kg: KeywordGraph,
        bands: [SubsetGeometry.Band?], onStreet: [Bool], fellow: (Int) -> Bool, factor: Double
    ) -> Bool? {
        guard let q = listed.first(where: { fellow($0.position) && onStreet[$0.position] }),
            let street = bands[q.position]
        else { return nil }
        let (px, py) = kg.geometry.point(p)
        return street.distanceFromAxis(px, py) <= factor * street.halfWidth
    }

    /// `sets` with each set that `setOf` marks (its members map to its index; −1 elsewhere)
    /// replaced by the members `keep` returns of it (in order), split into its pieces over `edges`:
    /// the pieces come in order of their smallest position, each sorted, in the set's place. The
    /// other sets, and a set that keeps every member, are returned as they are.
    static func split(
        _ sets: [[Int32]], setOf: [Int32], edges: [(a: Int32, b: Int32)], keep: ([Int32]) -> [Int32]
    ) -> [[Int32]] {
        var edgesOf: [Int32: [(a: Int32, b: Int32)]] = [:]
        for edge in edges where setOf[Int(edge.a)] >= 0 && setOf[Int(edge.a)] == setOf[Int(edge.b)] {
            edgesOf[setOf[Int(edge.a)], default: []].append(edge)
        }
        var local = [Int32](repeating: -1, count: setOf.count)
        var out: [[Int32]] = []
        for (i, set) in sets.enumerated() {
            guard set.first.map({ setOf[Int($0)] == Int32(i) }) ?? false else {
                out.append(set)
                continue
            }
            let kept = keep(set)
            guard kept.count < set.count else {
                out.append(set)
                continue
            }
            // The kept members' pieces over the set's edges, on local indices (`kept` is sorted).
            for (j, p) in kept.enumerated() { local[Int(p)] = Int32(j) }
            let localEdges = (edgesOf[Int32(i)] ?? []).compactMap { e -> (a: Int32, b: Int32)? in
                let (la, lb) = (local[Int(e.a)], local[Int(e.b)])
                return la >= 0 && lb >= 0 ? (la, lb) : nil
            }
            out += KeywordGraph.components(
                count: kept.count, eligible: [Bool](repeating: true, count: kept.count), edges: localEdges
            ).map { $0.map { kept[Int($0)] } }
            for p in kept { local[Int(p)] = -1 }
        }
        return out
    }

    /// Each keyword POI's density ratio: k / (π s²) over the typical density `lambda` (or the
    /// reference at each keyword-graph position, `reference`), propagated
    /// over the keyword graph's short edges (no support search: the smoothing is local). POIs
    /// stacked at one address are as dense as `minSpacing` (the keyword graph floors spacing) allows.
    static func densityRatio(
        _ kg: KeywordGraph, lambda: Double, reference: [Double]? = nil, smoothing: Double
    ) -> [Double] {
        let k = Double(kg.rules.neighbours)
        let raw = kg.spacing.indices.map { p -> Double in
            let d = max(kg.spacing[p], 1)
            return d.isFinite ? k / (Double.pi * d * d * (reference?[p] ?? lambda)) : 0
        }
        let short = kg.geometry.edges.indices.filter { kg.isShort($0) }
        let smoothed = DensitySmoothing.smooth(
            logRatio: raw.map { Foundation.log(max($0, 1e-6)) }, edges: short.map { kg.geometry.edges[$0] },
            lengths: short.map { kg.geometry.lengths[$0] }, spacing: kg.spacing, alpha: smoothing)
        return smoothed.map { Foundation.exp($0) }
    }

    /// A region's spacing: the median over its POIs of the distance to the k-th nearest other
    /// keyword location (finite ones; 0 when all are stacked at fewer than k + 1 locations).
    static func spacing(_ positions: [Int32], _ kg: KeywordGraph) -> Double {
        let values = positions.map { kg.locationSpacing[Int($0)] }.filter { $0.isFinite }
        return values.isEmpty ? 0 : Selection.median(values)
    }

    /// A region of the keyword POIs at `positions` (sorted) and the accepted edges among them.
    static func region(
        keyword: Int, positions: [Int32], geometry: SubsetGeometry, edges: [(a: Int32, b: Int32)]
    ) -> RegionTable.Region {
        let inside = Set(positions)
        let members = positions.map { geometry.subset[Int($0)] }
        var region = RegionTable.Region(
            keyword: keyword, members: members,
            memberMatch: [UInt8](
                repeating: RegionTable.Region.matchesFlag | RegionTable.Region.shapeFlag, count: members.count))
        region.edges = edges.filter { inside.contains($0.a) && inside.contains($0.b) }.map {
            (geometry.subset[Int($0.a)], geometry.subset[Int($0.b)])
        }
        return region
    }

    /// The occupied area of the POI graph: Σ π σ² / k over its distinct, connected locations
    /// (`owned`, ``ownedGround(graph:scaleK:)``), summed in index order: deterministic.
    static func occupiedArea(_ owned: [Double]) -> Double {
        var sum = 0.0
        for a in owned { sum += a }
        return sum
    }

    /// The ground each POI occupies, m²: π σ² / k at a distinct, connected location (σ the distance
    /// to its k-th nearest other location, the area one POI has to itself there). A duplicate
    /// (linked by a zero-length edge to a lower index, its location's representative) and an
    /// isolated location occupy nothing.
    static func ownedGround(graph: AdjacencyGraph, scaleK: Int) -> [Double] {
        let k = Double(max(1, scaleK))
        var out = [Double](repeating: 0, count: graph.nodeCount)
        for i in 0..<graph.nodeCount {
            let range = graph.range(i)
            if range.isEmpty { continue }
            var duplicate = false
            var connected = false
            for e in range {
                if graph.length[e] == 0 {
                    if Int(graph.neighbors[e]) < i { duplicate = true }
                } else {
                    connected = true
                }
            }
            if duplicate || !connected { continue }
            let s = Double(graph.scale[i])
            out[i] = Double.pi * s * s / k
        }
        return out
    }
}
