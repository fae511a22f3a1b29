import XCTest

@testable import RegionSearchCore
@testable import RegionSearchGraph
@testable import RegionSearchModel
@testable import RegionSearchRegions

/// Level 0's outlying members (``DensityRegionFinder``, `regions.outlier_spacing`) on cities built
/// point by point: a café street with one café off to its side, and two café clusters with one
/// café between them. Both lone cafés are dense by their k-th neighbour (the street, the clusters),
/// so without the rule the street grows an arm out to the first and the clusters are one region
/// through the second. And ``DensityRegionFinder/trimmed(_:kg:edges:factor:candidate:)`` alone, on
/// sets given by hand.
final class DensityRegionFinderTests: XCTestCase {
    typealias City = DensityHierarchyTests.City

    /// 16,000 POIs over 8 km (cafés 2 %), a street of 40 cafés 10 m apart from (0, 0) to (390, 0),
    /// a café 60 m north of its middle, two clusters of 30 cafés within 40 m of (2000, 0) and
    /// (2200, 0), and a café halfway between them.
    static func streetAndClusters() -> City {
        var rng = SeededRandom(seed: 5)
        var city = City()
        city.square(16_000, side: 8_000, keyword: "cafe", share: 0.02, &rng)
        for i in 0..<40 { city.add(Double(i) * 10 + rng.uniform(-2, 2), rng.uniform(-2, 2), "cafe") }
        city.add(195, 60, "cafe")
        city.disc(30, r: 40, cx: 2_000, cy: 0, category: "cafe", &rng)
        city.disc(30, r: 40, cx: 2_200, cy: 0, category: "cafe", &rng)
        city.add(2_100, 0, "cafe")
        return city
    }

    /// Level-0 regions of `outcome` with a member within 50 m of (x, y).
    static func regions(near x: Double, _ y: Double, _ o: DensityHierarchyTests.Outcome) -> [RegionTable.Region] {
        o.table.regions.filter { r in
            r.level == 0
                && r.members.contains { hypot(o.localX[Int($0)] - x, o.localY[Int($0)] - y) <= 50 }
        }
    }

    static func holds(_ r: RegionTable.Region, _ x: Double, _ y: Double, _ o: DensityHierarchyTests.Outcome) -> Bool {
        r.members.contains { hypot(o.localX[Int($0)] - x, o.localY[Int($0)] - y) < 1 }
    }

    func testALoneMemberBesideAStreetOrBetweenClustersIsLeftOut() throws {
        let city = Self.streetAndClusters()
        // The outlier rule alone (the café beside the street is off it as well: see below).
        let offStreet = (RegionOptions.offStreetSpec.key, JSONValue.number(0))
        let trimmed = try DensityHierarchyTests.run(city, keyword: "cafe", overrides: [offStreet])
        // The control keeps the two clusters one set; the saddle split, which would part them too
        // (each stands more than twice as dense as the café between them), is off for it.
        let kept = try DensityHierarchyTests.run(
            city, keyword: "cafe",
            overrides: [
                (RegionOptions.outlierSpacingSpec.key, .number(0)), offStreet,
                (RegionOptions.splitPersistenceSpec.key, .number(0)),
            ])

        // The street: one region, all but at most two of its cafés, not the café beside it.
        let street = Self.regions(near: 195, 0, trimmed)
        XCTAssertEqual(street.count, 1)
        let streetMembers = street.first?.members.filter { abs(trimmed.localY[Int($0)]) < 5 }.count ?? 0
        XCTAssertGreaterThanOrEqual(streetMembers, 38)
        XCTAssertFalse(street.contains { Self.holds($0, 195, 60, trimmed) }, "no arm out to the café beside it")
        // The clusters: two regions, neither holding the café between them.
        let left = Self.regions(near: 2_000, 0, trimmed)
        let right = Self.regions(near: 2_200, 0, trimmed)
        XCTAssertEqual(left.count, 1)
        XCTAssertEqual(right.count, 1)
        XCTAssertNotEqual(left.first?.members, right.first?.members, "two regions, no corridor")
        XCTAssertFalse((left + right).contains { Self.holds($0, 2_100, 0, trimmed) })

        // The control: with every member kept, the street holds the café beside it and the
        // clusters are one region through the café between them — what the rule removes.
        XCTAssertTrue(Self.regions(near: 195, 0, kept).contains { Self.holds($0, 195, 60, kept) })
        let joined = Self.regions(near: 2_000, 0, kept)
        XCTAssertEqual(joined.count, 1)
        XCTAssertTrue(joined.allSatisfy { Self.holds($0, 2_100, 0, kept) })
        XCTAssertEqual(joined.first?.members, Self.regions(near: 2_200, 0, kept).first?.members)
    }

    /// The keyword graph of points (x, y) in metres, every one a keyword POI, and all its
    /// triangulation's edges as the accepted ones.
    static func keywordGraph(_ points: [(Double, Double)]) -> (KeywordGraph, [(a: Int32, b: Int32)]) {
        let kg = KeywordGraph(
            keywordPoints: (0..<points.count).map { UInt32($0) }, x: Column(points.map(\.0)),
            y: Column(points.map(\.1)), rules: KeywordGraph.Rules())
        return (kg, kg.geometry.edges)
    }

    /// The POI graph of points (px, py) in metres, their columns, and the keyword graph of the
    /// first `keywordCount` of them (the keyword POIs first, the other POIs after).
    static func cityGraphs(
        _ px: [Double], _ py: [Double], keywordCount: Int, rules: KeywordGraph.Rules = KeywordGraph.Rules()
    ) throws -> (graph: AdjacencyGraph, x: Column<Double>, y: Column<Double>, kg: KeywordGraph) {
        let (graph, _) = try px.withUnsafeBufferPointer { bx in
            try py.withUnsafeBufferPointer { by in try GraphBuilder.build(x: bx, y: by, options: GraphOptions()) }
        }
        let (x, y) = (Column(px), Column(py))
        let kg = KeywordGraph(keywordPoints: (0..<UInt32(keywordCount)).map { $0 }, x: x, y: y, rules: rules)
        return (graph, x, y, kg)
    }

    /// The ring test's count inside a candidate's hull (``DensityRegionFinder/contrast``): the set
    /// is a 100 m square's four corners and its centre, with one more keyword POI inside that is
    /// not in the set, two stacked at one corner, and POIs of other kinds on a 25 m grid around
    /// them. The hull holds 7 keyword POIs at 4 corner locations, and the ground of 7 keyword POIs
    /// and the 16 grid POIs inside the square (one m² per POI). By angle the four corners count a
    /// quarter each (one together), the second POI at a corner, the centre and the other POI one
    /// each: 4.
    func testTheRingTestCountsAHullCornerForTheShareOfItsAngle() throws {
        var px: [Double] = [0, 100, 100, 0, 50, 30, 0]
        var py: [Double] = [0, 0, 100, 100, 50, 70, 0]
        let keywordPOIs = px.count
        for i in -4..<8 {
            for j in -4..<8 {
                px.append(Double(i) * 25 + 12.5)
                py.append(Double(j) * 25 + 12.5)
            }
        }
        let (graph, x, y, kg) = try Self.cityGraphs(px, py, keywordCount: keywordPOIs)
        let finder = DensityRegionFinder(x: x, y: y, graph: graph, occupiedArea: 1e6)
        var isKeyword = [UInt64](repeating: 0, count: (px.count + 63) / 64)
        for v in 0..<keywordPOIs { isKeyword[v >> 6] |= 1 << UInt64(v & 63) }
        var visited = isKeyword.map { _ in UInt64(0) }
        let set = (0..<Int32(kg.count)).filter { [0, 1, 2, 3, 4, 6].contains(kg.geometry.subset[Int($0)]) }
        let c = finder.contrast(
            set, kg: kg, isKeyword: isKeyword, ground: [Double](repeating: 1, count: px.count), ringFactor: 1,
            spacing: 10, visited: &visited)
        XCTAssertEqual(c.hullKeyword, 7)
        XCTAssertEqual(c.corners, 4)
        XCTAssertEqual(c.hullArea, 23)
        XCTAssertEqual(DensityRegionFinder.angleCount(inHull: c.hullKeyword, corners: c.corners), 4)
        XCTAssertEqual(visited, isKeyword.map { _ in 0 }, "returned cleared")
    }

    /// ``DensityRegionFinder/angleCount(inHull:corners:)`` against a second computation: the
    /// interior angle at each vertex of the convex hull of random points, by `acos`, as a share of
    /// a full turn, added to the POIs that are not corners, rounded down — on 300 random sets of
    /// 3–40 points (some stacked on a corner), and on the degenerate hulls (a segment, one place).
    func testAngleCountIsTheCornersShareOfATurnSummed() {
        var rng = SeededRandom(seed: 12)
        for trial in 0..<300 {
            let n = 3 + rng.below(38)
            var x = (0..<n).map { _ in rng.uniform(0, 200) }
            var y = (0..<n).map { _ in rng.uniform(0, trial % 2 == 0 ? 200 : 30) }
            let hull = ConvexHull2D(x: x, y: y)
            let stacked = rng.below(3)
            for _ in 0..<stacked {
                x.append(hull.x[0])
                y.append(hull.y[0])
            }
            var sum = Double(x.count - hull.count)
            for i in 0..<hull.count {
                let (b, a) = ((i + hull.count - 1) % hull.count, (i + 1) % hull.count)
                let (ux, uy) = (hull.x[b] - hull.x[i], hull.y[b] - hull.y[i])
                let (vx, vy) = (hull.x[a] - hull.x[i], hull.y[a] - hull.y[i])
                sum += acos((ux * vx + uy * vy) / (hypot(ux, uy) * hypot(vx, vy))) / (2 * .pi)
            }
            XCTAssertEqual(
                DensityRegionFinder.angleCount(inHull: x.count, corners: hull.count), Int((sum + 1e-6).rounded(.down)),
                "trial \(trial): \(x.count) POIs, \(hull.count) corners")
        }
        // A segment's two ends (angle 0) and a single place count nothing; what is stacked beyond
        // one POI per corner counts whole.
        XCTAssertEqual(DensityRegionFinder.angleCount(inHull: 5, corners: 2), 3)
        XCTAssertEqual(DensityRegionFinder.angleCount(inHull: 20, corners: 1), 19)
        XCTAssertEqual(DensityRegionFinder.angleCount(inHull: 3, corners: 3), 0, "a triangle holds nothing inside")
        XCTAssertEqual(DensityRegionFinder.angleCount(inHull: 12, corners: 7), 7, "5 inside + 2.5, rounded down")
    }

    func testStackedPOIsCountOnceForTheSpacingAndAreEachOthersNearest() throws {
        // Forty shops at one food court, a street of 30 cafés 10 m apart beside it, and one café
        // 80 m off the street. Counted per POI, the stack's spacing (the 5 m floor) would be the
        // set's median and the street would be trimmed away; counted once, the street's is.
        var points = [(Double, Double)](repeating: (0, 0), count: 40)
        points += (0..<30).map { (20 + Double($0) * 10, 0) }
        points.append((150, 80))
        let (kg, edges) = Self.keywordGraph(points)
        let all = [(0..<Int32(points.count)).map { $0 }]
        let pieces = DensityRegionFinder.trimmed(all, kg: kg, edges: edges, factor: 1.5) { _ in true }
        XCTAssertEqual(pieces, [(0..<70).map { Int32($0) }], "the stack and the street, not the lone café")
    }

    func testSetsTheRuleDoesNotTakeComeBackAsTheyAre() throws {
        // The same lone café, in a set the candidate test refuses and in one of two members.
        var points = (0..<30).map { (Double($0) * 10, 0.0) }
        points.append((150, 80))
        points += [(1_000, 0), (1_300, 0)]
        let (kg, edges) = Self.keywordGraph(points)
        let street = (0..<31).map { Int32($0) }
        let pair: [Int32] = [31, 32]
        XCTAssertEqual(
            DensityRegionFinder.trimmed([street, pair], kg: kg, edges: edges, factor: 1.5) { _ in false },
            [street, pair])
        XCTAssertEqual(
            DensityRegionFinder.trimmed([street, pair], kg: kg, edges: edges, factor: 1.5) { _ in true },
            [Array(street.dropLast()), pair], "the street loses its lone café; two members are never trimmed")
    }

    /// 16,000 POIs over 8 km (cafés 2 %), a street of 40 cafés 10 m apart (±2 m) from (0, 0) to
    /// (390, 0), a café 35 m north of its middle, and a district: 60 cafés in a disc of 60 m
    /// around (2000, 0).
    static func streetAndDistrict() -> City {
        var rng = SeededRandom(seed: 6)
        var city = City()
        city.square(16_000, side: 8_000, keyword: "cafe", share: 0.02, &rng)
        for i in 0..<40 { city.add(Double(i) * 10 + rng.uniform(-2, 2), rng.uniform(-2, 2), "cafe") }
        city.add(195, 35, "cafe")
        city.disc(60, r: 60, cx: 2_000, cy: 0, category: "cafe", &rng)
        return city
    }

    func testAMemberOffTheStreetIsLeftOutAndADistrictKeepsEveryMember() throws {
        let city = Self.streetAndDistrict()
        let found = try DensityHierarchyTests.run(city, keyword: "cafe")
        let kept = try DensityHierarchyTests.run(
            city, keyword: "cafe", overrides: [(RegionOptions.offStreetSpec.key, .number(0))])

        // The street: one region, without the café 35 m off it (nearer to the street than the
        // outlier rule's 1.5 median spacings, which keeps it: the control).
        let street = Self.regions(near: 195, 0, found)
        XCTAssertEqual(street.count, 1)
        XCTAssertGreaterThanOrEqual(street.first?.members.filter { abs(found.localY[Int($0)]) < 5 }.count ?? 0, 38)
        XCTAssertFalse(street.contains { Self.holds($0, 195, 35, found) }, "no arm out to the café off the street")
        XCTAssertTrue(Self.regions(near: 195, 0, kept).contains { Self.holds($0, 195, 35, kept) })
        // The district: the same region with and without the rule (no member stands off a street).
        let district = Self.regions(near: 2_000, 0, found)
        XCTAssertEqual(district.count, 1)
        XCTAssertEqual(district.map(\.members), Self.regions(near: 2_000, 0, kept).map(\.members))
        XCTAssertGreaterThanOrEqual(district.first?.members.count ?? 0, 55)
    }

    func testOffStreetLeavesOutOnlyMembersBesideAStreet() throws {
        // A street of 30 cafés 10 m apart (±1 m) with a café 40 m off its middle, and a district:
        // 60 cafés on a 10 m grid, 6 rows of 10.
        var points = (0..<30).map { (Double($0) * 10, Double($0 % 3) - 1) }
        points.append((150, 40))
        for i in 0..<6 { for j in 0..<10 { points.append((1_000 + Double(j) * 10, Double(i) * 10)) } }
        let (kg, edges) = Self.keywordGraph(points)
        let street = (0..<31).map { Int32($0) }
        let district = (31..<91).map { Int32($0) }
        let out = DensityRegionFinder.offStreet(
            [street, district], kg: kg, edges: edges, factor: 3, aspect: 4, candidate: { _ in true })
        XCTAssertEqual(out, [Array(street.dropLast()), district], "the street without the café off it")
        // Sets the candidate test refuses come back as they are.
        XCTAssertEqual(
            DensityRegionFinder.offStreet(
                [street, district], kg: kg, edges: edges, factor: 3, aspect: 4, candidate: { _ in false }),
            [street, district])
    }

    /// A street of 30 cafés 10 m apart (±1 m) on the x axis, and a cluster of 12 cafés within 8 m
    /// of (150, 60), joined to it (every edge of their triangulation): one set, 71 % of it on the
    /// street. The street is parted from the cluster (two sets, in order of their smallest
    /// position) when it is a candidate and significant on its own; not when it is not
    /// significant, nor when the candidate test refuses the set, nor when the cluster is a
    /// candidate that is not significant on its own, nor when it is less than 70 % of the set
    /// (68 %, with 14 cafés in the cluster).
    func testAStreetIsPartedFromAClusterBesideItWhereItStandsOutOnItsOwn() {
        func city(cluster: Int) -> [(Double, Double)] {
            var points = (0..<30).map { (Double($0) * 10, Double($0 % 3) - 1) }
            var rng = SeededRandom(seed: 5)
            for i in 0..<cluster {
                let t = Double(i) * 2 * Double.pi / Double(cluster)
                let r = i % 2 == 0 ? 7.0 : 3.5
                points.append((150 + r * cos(t) + rng.uniform(-0.5, 0.5), 60 + r * sin(t) + rng.uniform(-0.5, 0.5)))
            }
            return points
        }
        let street = (0..<30).map { Int32($0) }
        let (kg, edges) = Self.keywordGraph(city(cluster: 12))
        let all = (0..<42).map { Int32($0) }
        let parted = DensityRegionFinder.streetParts(
            [all], kg: kg, edges: edges, factor: 3, aspect: 4, candidate: { $0.count >= 8 }, significant: { _ in true })
        XCTAssertEqual(parted, [street, (30..<42).map { Int32($0) }])
        XCTAssertEqual(
            DensityRegionFinder.streetParts(
                [all], kg: kg, edges: edges, factor: 3, aspect: 4, candidate: { $0.count >= 8 },
                significant: { _ in false }), [all], "a street that does not stand out alone stays whole")
        XCTAssertEqual(
            DensityRegionFinder.streetParts(
                [all], kg: kg, edges: edges, factor: 3, aspect: 4, candidate: { _ in false },
                significant: { _ in true }), [all])
        // The cluster is a candidate that does not stand out without the street (the street would
        // be in its contrast ring): parted, its 12 members would be lost with it.
        XCTAssertEqual(
            DensityRegionFinder.streetParts(
                [all], kg: kg, edges: edges, factor: 3, aspect: 4, candidate: { $0.count >= 8 },
                significant: { $0.count >= 30 }), [all], "a cluster that does not stand out alone keeps the set whole")
        // A piece too small to be a candidate does not hold the parting back.
        XCTAssertEqual(
            DensityRegionFinder.streetParts(
                [all], kg: kg, edges: edges, factor: 3, aspect: 4, candidate: { $0.count >= 13 },
                significant: { $0.count >= 30 }), [street, (30..<42).map { Int32($0) }])
        let (larger, largerEdges) = Self.keywordGraph(city(cluster: 14))
        let both = (0..<44).map { Int32($0) }
        XCTAssertEqual(
            DensityRegionFinder.streetParts(
                [both], kg: larger, edges: largerEdges, factor: 3, aspect: 4, candidate: { $0.count >= 8 },
                significant: { _ in true }), [both], "the street is two thirds of the set: not mostly a street")
    }

    func testAMemberBesideAStreetDenseOnlyByItIsLeftOutAndAClusterBesideItStays() throws {
        // A street of 30 cafés 10 m apart (±1 m) on the x axis; three cafés 45–62 m north of its
        // middle (A), whose fellow members are each other and the street, in no band; a cluster
        // of 8 cafés within 8 m of (250, 60) (B); a café on the street's line 30 m past its end.
        var points = (0..<30).map { (Double($0) * 10, Double($0 % 3) - 1) }
        let a = [(140.0, 45.0), (160.0, 50.0), (150.0, 62.0)]
        points += a
        var rng = SeededRandom(seed: 11)
        let b = (0..<8).map { i -> (Double, Double) in
            let t = Double(i) * Double.pi / 4
            return (250 + 6 * cos(t) + rng.uniform(-1, 1), 60 + 6 * sin(t) + rng.uniform(-1, 1))
        }
        points += b
        points.append((320, 0))
        let (kg, edges) = Self.keywordGraph(points)
        let street = (0..<30).map { Int32($0) }
        let besideA = (30..<33).map { Int32($0) }
        let clusterB = (33..<41).map { Int32($0) }
        let pastTheEnd = Int32(41)
        let all = (0..<42).map { Int32($0) }
        // Dense: the k-th nearest keyword POI off the street within 20 m; each distance asked about
        // is kept, to be checked against the points.
        var asked: [Int: Double] = [:]
        let dense: (Int, Double) -> Bool = { p, d in
            asked[p] = d
            return d <= 20
        }
        let out = DensityRegionFinder.offStreet(
            [all], kg: kg, edges: edges, factor: 3, aspect: 4, dense: dense, candidate: { _ in true })
        // A: fewer than 5 keyword POIs off the street among its 10 nearest locations (the other two
        // of A), so the distance is that of the farthest listed one; B: the 5th nearest other
        // café of B, by brute force. The street and the café past its end are on the street.
        for p in besideA.map(Int.init) {
            let farthest = kg.geometry.listedLocations(of: p, nearest: kg.nearest).last?.distance
            XCTAssertEqual(asked[p], farthest, "café \(p) of A")
        }
        // (A café of B whose 10 nearest locations hold no street member is not beside the street
        // and is not asked about.)
        let askedB = clusterB.map(Int.init).filter { asked[$0] != nil }
        XCTAssertGreaterThanOrEqual(askedB.count, 4, "\(asked.keys.sorted())")
        for p in askedB {
            let distances = clusterB.map(Int.init).filter { $0 != p }
                .map { hypot(points[$0].0 - points[p].0, points[$0].1 - points[p].1) }.sorted()
            XCTAssertEqual(asked[p] ?? -1, distances[4], accuracy: 1e-9, "café \(p) of B")
        }
        XCTAssertTrue(Set(asked.keys).isSubset(of: Set((besideA + clusterB).map(Int.init))), "\(asked.keys.sorted())")
        let kept = Set(out.joined())
        XCTAssertTrue(kept.isSuperset(of: street), "the street stays whole")
        XCTAssertTrue(kept.isDisjoint(with: besideA), "the cafés dense only by the street are left out")
        XCTAssertTrue(kept.isSuperset(of: clusterB), "the cluster beside the street is dense on its own")
        XCTAssertTrue(kept.contains(pastTheEnd), "a café on the street's line past its end is on the street")
        XCTAssertEqual(out.count, 1, "the street and the cluster stay one set: \(out)")
        // The control: without the density test the off-street rule alone keeps A (its own fellow
        // members form no street), so the rule above is what leaves it out.
        let control = DensityRegionFinder.offStreet(
            [all], kg: kg, edges: edges, factor: 3, aspect: 4, candidate: { _ in true })
        XCTAssertEqual(control, [all])
    }

    func testStreetEndsContinueAStreetAndNotADistrict() throws {
        // A street of 40 cafés 10 m apart on the x axis: the middle ten (x = 150…240) dense, the
        // fifteen east of them at ratio 3 (above the street's floor, 2, below extend_ratio), the
        // fifteen west at ratio 1.5 (below it); a café at ratio 3, 25 m off the street beside
        // x = 270 (inside a street café's 5th-neighbour distance, 30 m, but five half-widths off
        // its axis); and a district of 60 cafés on a 10 m grid (6 rows of 10) whose inner 32 are
        // dense and whose outer ring is at ratio 3.
        var points = (0..<40).map { (Double($0) * 10, 0.0) }
        points.append((270, 25))
        for i in 0..<6 { for j in 0..<10 { points.append((1_000 + Double(j) * 10, Double(i) * 10)) } }
        let (kg, _) = Self.keywordGraph(points)
        var ratio = (0..<40).map { $0 < 15 ? 1.5 : ($0 < 25 ? 10.0 : 3.0) }
        ratio.append(3)
        for i in 0..<6 { for j in 0..<10 { ratio.append((1..<5).contains(i) && (1..<9).contains(j) ? 10 : 3) } }
        let dense = ratio.map { $0 >= 4 }
        let ends = DensityRegionFinder.streetEnds(kg, dense: dense, ratio: ratio, minimumRatio: 2, across: 3, aspect: 4)
        // The street runs on east to its end, wave by wave (a wave reaches two or three cafés
        // further: a café's 5th neighbour is 30 m away, 25 m beside the café off the street).
        // West, the cafés are below the floor.
        XCTAssertEqual((0..<40).filter { ends[$0] }, Array(15..<40), "the street east to its end")
        XCTAssertFalse(ends[40], "not the café off the street")
        // The district's ring stays out: its dense members' neighbours lie all around them.
        XCTAssertEqual((41..<101).filter { ends[$0] }, (41..<101).filter { dense[$0] })
        // Where no band is long enough to be a street, nothing is added.
        XCTAssertEqual(
            DensityRegionFinder.streetEnds(kg, dense: dense, ratio: ratio, minimumRatio: 2, across: 3, aspect: 100),
            dense)
        // With the floor lowered to 1, the west runs on to its end as well.
        let low = DensityRegionFinder.streetEnds(kg, dense: dense, ratio: ratio, minimumRatio: 1, across: 3, aspect: 4)
        XCTAssertEqual((0..<40).filter { low[$0] }, Array(0..<40))
    }

    func testAStreetKeepsItsLastCafes() throws {
        // 16,000 POIs over 8 km (cafés 2 %) and a street of 30 cafés 65 m apart: in its middle a
        // café's 5th nearest café is 3 gaps away, and the street is a dense core (its densest café
        // reads about 17 times the city); at its ends the 5th is 5 gaps away, on one side, and a
        // café reads about a third as dense as in the middle: below extend_ratio (4), above
        // street_extend_ratio (2).
        var rng = SeededRandom(seed: 3)
        var city = DensityHierarchyTests.City()
        city.square(16_000, side: 8_000, keyword: "cafe", share: 0.02, &rng)
        for i in 0..<30 { city.add(-950 + Double(i) * 65, 1_000 + rng.uniform(-3, 3), "cafe") }
        let found = try DensityHierarchyTests.run(city, keyword: "cafe")
        let cut = try DensityHierarchyTests.run(
            city, keyword: "cafe", overrides: [(RegionOptions.streetEndsSpec.key, .number(0))])
        func onStreet(_ o: DensityHierarchyTests.Outcome) -> [Double] {
            let street = Self.regions(near: 0, 1_000, o)
            XCTAssertEqual(street.count, 1, "one region on the street")
            return (street.first?.members ?? []).filter { abs(o.localY[Int($0)] - 1_000) < 5 }.map {
                o.localX[Int($0)]
            }.sorted()
        }
        let kept = onStreet(found)
        let short = onStreet(cut)
        // With the rule the region holds every café of the street, to its first and last; without
        // it the first is left out (the last stays: one of the city's cafés stands 170 m from it).
        XCTAssertEqual(kept.count, 30)
        XCTAssertEqual(kept.first ?? .nan, -950, accuracy: 5)
        XCTAssertEqual(kept.last ?? .nan, -950 + 29 * 65, accuracy: 5)
        XCTAssertGreaterThan(short.first ?? .infinity, -950 + 5)
    }
}
