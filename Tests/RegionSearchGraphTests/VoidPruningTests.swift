import XCTest

@testable import RegionSearchCore
@testable import RegionSearchGraph
@testable import RegionSearchModel
@testable import RegionSearchTestSupport

/// Edges across empty bands: a meandering river through evenly spread POIs must not be crossed
/// by any edge of the default graph, for either method, whether the POIs are a jittered grid or
/// a Poisson pattern, for bands 2.5, 3 and 4 local spacings wide (σ, the distance to the 5th
/// nearest other POI, as the graph measures it) and for a 150 m river between POIs 50 m apart —
/// while the graph inside the POI field keeps nearly all of its edges.
final class VoidPruningTests: XCTestCase {
    static let spacing = 50.0
    static let side = 70  // spacings per side: 4,900 POIs

    /// The band's centre line: a meander of amplitude 4 spacings and wavelength ~31 spacings.
    static func centre(_ x: Double) -> Double {
        Double(side) * spacing / 2 + 4 * spacing * sin(x / (5 * spacing))
    }

    /// POIs at `spacing` (jittered grid, or uniform at the same density) with a band `width`
    /// spacings wide removed around the meander.
    static func field(grid: Bool, width: Double, seed: UInt64) -> PointSet {
        var r = GraphTestRandom(seed: seed)
        var p = PointSet()
        let n = side * side
        for k in 0..<n {
            let x: Double
            let y: Double
            if grid {
                x = (Double(k % side) + 0.5 + (r.uniform() - 0.5) * 0.6) * spacing
                y = (Double(k / side) + 0.5 + (r.uniform() - 0.5) * 0.6) * spacing
            } else {
                x = r.uniform() * Double(side) * spacing
                y = r.uniform() * Double(side) * spacing
            }
            if abs(y - centre(x)) <= width * spacing / 2 { continue }
            p.x.append(PointSet.originX + x)
            p.y.append(PointSet.originY + y)
        }
        return p.hilbertSorted()
    }

    /// Edges whose ends lie on opposite sides of the band, and the share of the other edges that
    /// the default pruning dropped.
    func measure(_ p: PointSet, _ method: GraphMethod) throws -> (crossing: Int, unprunedCrossing: Int, lost: Double) {
        func side(_ i: Int) -> Bool { p.y[i] - PointSet.originY > Self.centre(p.x[i] - PointSet.originX) }
        func split(_ g: AdjacencyGraph) -> (crossing: Int, other: Int) {
            var crossing = 0
            var other = 0
            for (a, b) in g.edgeList {
                if side(Int(a)) != side(Int(b)) { crossing += 1 } else { other += 1 }
            }
            return (crossing, other)
        }
        let unpruned = try GraphBuilderTests.build(
            p, GraphOptions(method: method, pruneFactor: 0, voidRadius: 0, farFactor: 0)
        ).graph
        let pruned = try GraphBuilderTests.build(p, GraphOptions(method: method)).graph
        let before = split(unpruned)
        let after = split(pruned)
        return (after.crossing, before.crossing, 1 - Double(after.other) / Double(before.other))
    }

    /// The median local spacing σ of a field without a band, in grid spacings.
    func localSpacing(grid: Bool) throws -> Double {
        let p = Self.field(grid: grid, width: 0, seed: grid ? 5 : 6)
        let g = try GraphBuilderTests.build(p, GraphOptions(pruneFactor: 0, voidRadius: 0, farFactor: 0))
        return Selection.median(Array(g.graph.scale).map { Double($0) }) / Self.spacing
    }

    func testNoEdgeCrossesAMeanderingBand() throws {
        for grid in [true, false] {
            let sigma = try localSpacing(grid: grid)
            // 2.5, 3 and 4 local spacings, and the 150 m river between POIs 50 m apart.
            for width in [2.5 * sigma, 3 * sigma, 4 * sigma, 3] {
                let p = Self.field(grid: grid, width: width, seed: UInt64(width * 10) + (grid ? 1 : 2))
                for method in GraphMethod.allCases {
                    let m = try measure(p, method)
                    let what = "\(grid ? "grid" : "poisson"), band \(width) grid spacings, \(method)"
                    if method == .delaunay {
                        XCTAssertGreaterThan(m.unprunedCrossing, 50, "\(what): the band is bridged")
                    }
                    XCTAssertEqual(m.crossing, 0, "\(what): edges still cross the band")
                    // Inside the field: a jittered grid loses almost nothing, a Poisson pattern (whose
                    // chance gaps cluster) a little.
                    XCTAssertLessThan(
                        m.lost, (grid ? 0.05 : 0.15) * (method == .knn ? 2 : 1),
                        "\(what): too many edges lost inside the field")
                }
            }
        }
    }

    func testAFieldWithoutABandKeepsItsEdges() throws {
        for grid in [true, false] {
            let p = Self.field(grid: grid, width: 0, seed: grid ? 3 : 4)
            let m = try measure(p, .delaunay)
            XCTAssertLessThan(m.lost, grid ? 0.05 : 0.15)
        }
    }

    /// A street of POIs across a park: a line through a wide void, its POIs 30–50 m apart with two
    /// clumps on it (eight restaurants 40 m across), the way OpenStreetMap often has a dining
    /// street through empty ground. Every triangle beside the line is empty, so the line's edges
    /// are edges of void triangles on both sides, and the clumps' smaller spacings pull σ̄ of the
    /// two POIs between them below their 50 m gap. That gap is the shortest side of the triangles
    /// on both of its sides (their third corners are across the park), within 1.5 σ̄ and both
    /// ends' own σ, and the street goes on past both its ends: it runs along the void, not across
    /// it, so the street must stay one piece while the park is still not crossed. (Graph stage version 3 cut it at that gap; D.C.'s 14th Street at P Street was
    /// cut this way.)
    func testAStreetThroughAParkStaysInOnePiece() throws {
        var r = GraphTestRandom(seed: 41)
        var p = PointSet()
        // A jittered 25 m grid over 2 km (a dense old town) with a park 1,000 m wide and 1,400 m
        // tall left empty.
        for k in 0..<(80 * 80) {
            let x = (Double(k % 80) + 0.5 + (r.uniform() - 0.5) * 0.6) * 25
            let y = (Double(k / 80) + 0.5 + (r.uniform() - 0.5) * 0.6) * 25
            if x > 500 && x < 1500 && y > 300 && y < 1700 { continue }
            p.x.append(PointSet.originX + x)
            p.y.append(PointSet.originY + y)
        }
        // The street at x ≈ 1,000 m from one side of the park to the other: POIs 40 m apart, and
        // in the middle two clumps of eight restaurants (40 m across) 170 m apart, with two POIs
        // and a 50 m gap between them.
        var street: [(x: Double, y: Double)] = []
        var y = 300.0
        while y <= 880 {
            street.append((1000, y))
            y += 40
        }
        for (cy, sign) in [(920.0, 1.0), (1090.0, -1.0)] {
            for k in 0..<8 {
                let angle = Double(k) * Double.pi / 4
                street.append((1000 + 20 * cos(angle), cy + 20 * sin(angle) * sign))
            }
        }
        street += [(1000, 950), (1000, 980), (1000, 1030), (1000, 1060)]
        y = 1130
        while y <= 1700 {
            street.append((1000, y))
            y += 40
        }
        let first = p.count
        for (i, s) in street.enumerated() {
            p.x.append(PointSet.originX + s.x + (i % 2 == 0 ? 2 : -2) + (r.uniform() - 0.5) * 2)
            p.y.append(PointSet.originY + s.y)
        }
        // Edges across the park: from the street to the field beside it (the park is 500 m wide
        // on each side of the street, the street's own gaps at most 50 m).
        func acrossThePark(_ g: AdjacencyGraph) -> Int {
            g.edgeList.filter { (a, b) in
                (Int(a) >= first) != (Int(b) >= first) && abs(p.x[Int(a)] - p.x[Int(b)]) > 200
            }.count
        }
        for method in GraphMethod.allCases {
            let g = try GraphBuilderTests.build(p, GraphOptions(method: method)).graph
            // The street's POIs joined by edges among themselves: one component.
            var sets = UnionFind(count: p.count)
            for (a, b) in g.edgeList where Int(a) >= first && Int(b) >= first { sets.union(Int32(a), Int32(b)) }
            let pieces = Set((first..<p.count).map { sets.find(Int32($0)) }).count
            XCTAssertEqual(pieces, 1, "\(method): the street through the park is cut into \(pieces) pieces")
            XCTAssertEqual(acrossThePark(g), 0, "\(method): edges cross the park")
        }
        let unpruned = try GraphBuilderTests.build(p, GraphOptions(pruneFactor: 0, voidRadius: 0, farFactor: 0)).graph
        XCTAssertGreaterThan(acrossThePark(unpruned), 20, "the triangulation does not cross the park")
    }

    /// ``VoidEdges/runsAlong(_:_:_:_:x:y:smoothed:own:offsets:neighbors:)`` on hand-placed points:
    /// a 50 m gap in a line of POIs with empty ground on both sides runs along the void; the same
    /// gap without the line going on past one end, or longer than an end's own σ, does not; a
    /// sliver (the third corner on the line beyond an end) does not count against it; an edge
    /// across a 150 m river, whose triangles have a side along a bank, never runs along it.
    func testAGapInALineRunsAlongAVoidAndARiverCrossingDoesNot() {
        // 0–1 the edge (50 m along x), 2 and 3 the line going on beyond each end, 4 and 5 the far
        // corners of the triangles on both sides, 8 a POI 20 m beside the edge. Across a river: 7
        // on the far bank 150 m from 0, 6 beside 0 on its bank, 9 and 10 on the line beyond 0 and
        // 7, 11 and 12 corners 300 m off that line.
        let x: [Double] = [0, 50, -40, 90, 25, 25, -50, 0, 25, 0, 0, 300, -300]
        let y: [Double] = [0, 0, 1, -1, 300, -300, 0, 150, 20, -60, 210, 75, 75]
        let n = x.count
        func along(
            _ u: Int, _ v: Int, _ w1: Int, _ w2: Int?, rows: [[UInt32]], smoothed: Float = 40,
            own: [Float] = Array(repeating: 60, count: 13)  // one per point
        ) -> Bool {
            var offsets: [UInt64] = [0]
            for row in rows { offsets.append(offsets.last! + UInt64(row.count)) }
            let neighbors = rows.flatMap { $0 }
            let scale = [Float](repeating: smoothed, count: n)
            return x.withUnsafeBufferPointer { x in
                y.withUnsafeBufferPointer { y in
                    scale.withUnsafeBufferPointer { scale in
                        own.withUnsafeBufferPointer { own in
                            offsets.withUnsafeBufferPointer { offsets in
                                neighbors.withUnsafeBufferPointer { nb in
                                    VoidEdges.runsAlong(
                                        u, v, w1, w2, x: x, y: y, smoothed: scale, own: own, offsets: offsets,
                                        neighbors: nb)
                                }
                            }
                        }
                    }
                }
            }
        }
        let line: [[UInt32]] =
            [[1, 2, 4, 5], [0, 3, 4, 5], [0], [1], [0, 1], [0, 1]] + Array(repeating: [], count: 7)
        XCTAssertTrue(along(0, 1, 4, 5, rows: line))
        XCTAssertTrue(along(0, 1, 4, nil, rows: line), "a hull edge has one triangle")
        XCTAssertTrue(along(0, 1, 2, 5, rows: line), "a sliver whose third corner is on the line beyond an end")
        var ending = line
        ending[0] = [1, 4, 5]
        XCTAssertFalse(along(0, 1, 4, 5, rows: ending), "the line does not go on beyond 0")
        var own = [Float](repeating: 60, count: n)
        own[1] = 45
        XCTAssertFalse(along(0, 1, 4, 5, rows: line, own: own), "longer than 1's own σ")
        XCTAssertFalse(along(0, 1, 4, 5, rows: line, smoothed: 30), "longer than 1.5 σ̄")
        XCTAssertFalse(along(0, 1, 8, 5, rows: line), "a corner beside the edge, closer than its length")
        // Across the river, with σ̄ and σ as long as the crossing and the line going on at both
        // ends, only the triangles tell: with corners far off it would run along, but the triangle
        // beside it has corner 6 on 0's bank, 50 m from 0, off the edge's line.
        var river = [[UInt32]](repeating: [], count: n)
        river[0] = [6, 7, 9]
        river[7] = [0, 10]
        let wide = [Float](repeating: 200, count: n)
        XCTAssertTrue(along(0, 7, 11, 12, rows: river, smoothed: 120, own: wide))
        XCTAssertFalse(along(0, 7, 6, 12, rows: river, smoothed: 120, own: wide))
    }
}
