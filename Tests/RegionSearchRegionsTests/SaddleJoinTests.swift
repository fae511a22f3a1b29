import XCTest

@testable import RegionSearchCore
@testable import RegionSearchGraph
@testable import RegionSearchModel
@testable import RegionSearchRegions

/// Level-0 candidates that are one place (``DensityRegionFinder/joinedAtSaddles(_:kg:ratio:eligible:floor:persistence:edges:support:candidate:)``,
/// `regions.persistence`), on a layout built point by point with the density ratios given: two
/// 5 × 5 grids of keyword POIs 10 m apart, (0…40, 0…40) and (100…140, 0…40), and a bridge of five
/// keyword POIs between them, (50…90, 20). With the grids at ratio 6 and the bridge at 3.5, the
/// saddle is 3.5, and neither grid stands twice as high (7): one place.
final class SaddleJoinTests: XCTestCase {
    struct Layout {
        var kg: KeywordGraph
        var support: PathSupport
        var left: [Int32]
        var right: [Int32]
        var bridge: [Int32]
        var edges: [(a: Int32, b: Int32)]
    }

    static func layout() throws -> Layout {
        var px: [Double] = []
        var py: [Double] = []
        for ox in [0.0, 100] {
            for i in 0..<5 {
                for j in 0..<5 {
                    px.append(ox + Double(i) * 10)
                    py.append(Double(j) * 10)
                }
            }
        }
        for i in 0..<5 {
            px.append(50 + Double(i) * 10)
            py.append(20)
        }
        let (graph, _) = try px.withUnsafeBufferPointer { bx in
            try py.withUnsafeBufferPointer { by in try GraphBuilder.build(x: bx, y: by, options: GraphOptions()) }
        }
        let (x, y) = (Column(px), Column(py))
        let kg = KeywordGraph(
            keywordPoints: (0..<px.count).map { UInt32($0) }, x: x, y: y, rules: KeywordGraph.Rules())
        // Positions of the keyword graph are the point indices (every POI is a keyword POI).
        XCTAssertEqual(kg.geometry.subset, (0..<UInt32(px.count)).map { $0 })
        var support = PathSupport(graph: graph, x: x, y: y)
        let eligible = (0..<px.count).map { $0 < 50 }
        let edges = kg.acceptedEdges(eligible: eligible, support: &support)
        return Layout(
            kg: kg, support: support, left: Array(0..<25), right: Array(25..<50), bridge: Array(50..<55),
            edges: edges)
    }

    /// The sets `joinedAtSaddles` returns for the grids at `grids` (left, right) and the bridge's
    /// POIs at `bridge`, with `extend_ratio` 4 and `persistence`; and whether the edges it returns
    /// join every set into one piece.
    /// `leftOut`: bridge POIs (their positions) that are dense but in no set, as the outlier and
    /// off-street rules leave a member out.
    static func join(
        grids: (Double, Double), bridge: [Double], persistence: Double = 2, leftOut: Set<Int> = []
    ) throws -> (sets: [[Int32]], connected: Bool) {
        var l = try layout()
        let ratio = l.left.map { _ in grids.0 } + l.right.map { _ in grids.1 } + bridge
        let eligible = ratio.indices.map { $0 < 50 || leftOut.contains($0) }
        var edges = l.edges
        let sets = DensityRegionFinder.joinedAtSaddles(
            [l.left, l.right], kg: l.kg, ratio: ratio, eligible: eligible, floor: 4, persistence: persistence,
            edges: &edges, support: &l.support, candidate: { $0.count >= 8 })
        let connected = sets.allSatisfy { set in
            let inSet = Set(set)
            let local = Dictionary(uniqueKeysWithValues: set.enumerated().map { ($1, Int32($0)) })
            let pieces = KeywordGraph.components(
                count: set.count, eligible: [Bool](repeating: true, count: set.count),
                edges: edges.filter { inSet.contains($0.a) && inSet.contains($0.b) }.map {
                    (local[$0.a]!, local[$0.b]!)
                })
            return pieces.count == 1
        }
        return (sets, connected)
    }

    /// Whether `sets` is one set of both grids and at least one bridge POI (the path of fewest
    /// hops may skip some: the keyword graph joins the grids' corners to the bridge's middle POI
    /// by edges short for its spacing, 30 m to its 5th neighbour).
    static func isJoined(_ sets: [[Int32]]) -> Bool {
        guard sets.count == 1, let set = sets.first, set == set.sorted() else { return false }
        let bridge = set.filter { $0 >= 50 }
        return Array(set.prefix(50)) == Array(0..<50) && !bridge.isEmpty && bridge.allSatisfy { $0 < 55 }
    }

    func testTwoPiecesBarelyAboveTheirSaddleAreOneRegionWithTheBridge() throws {
        let joined = try Self.join(grids: (6, 6), bridge: [3.5, 3.5, 3.5, 3.5, 3.5])
        XCTAssertTrue(Self.isJoined(joined.sets), "both grids and POIs between them, in one set: \(joined.sets)")
        XCTAssertTrue(joined.connected, "the bridge's edges join the set")
    }

    func testAPieceTwiceAsDenseAsTheSaddleStaysApart() throws {
        let l = try Self.layout()
        // The left grid at 7 = 2 × 3.5: a place of its own (the rule asks for less than twice).
        XCTAssertEqual(try Self.join(grids: (7, 6), bridge: [3.5, 3.5, 3.5, 3.5, 3.5]).sets, [l.left, l.right])
        XCTAssertTrue(Self.isJoined(try Self.join(grids: (6.99, 6), bridge: [3.5, 3.5, 3.5, 3.5, 3.5]).sets))
    }

    func testTheSaddleIsThePathsLeastDensePOI() throws {
        let l = try Self.layout()
        // One POI at 2.5: the saddle is 2.5, and grids at 6 stand 2.4 times above it.
        XCTAssertEqual(try Self.join(grids: (6, 6), bridge: [3.5, 3.5, 2.5, 3.5, 3.5]).sets, [l.left, l.right])
        let low = try Self.join(grids: (4.9, 4.9), bridge: [3.5, 3.5, 2.5, 3.5, 3.5])
        XCTAssertTrue(Self.isJoined(low.sets))
        XCTAssertTrue(low.connected)
        // Below extend_ratio / persistence (2) the saddle is not looked for.
        XCTAssertEqual(try Self.join(grids: (4, 4), bridge: [3.5, 3.5, 1.9, 3.5, 3.5]).sets, [l.left, l.right])
    }

    /// A member the outlier or off-street rule left out was left out for where it stands: no path
    /// runs through it, however dense it is. With every bridge POI left out there is none.
    func testNoPathRunsThroughAMemberLeftOut() throws {
        let l = try Self.layout()
        let bridge = [6.0, 6, 6, 6, 6]
        XCTAssertEqual(try Self.join(grids: (6, 6), bridge: bridge, leftOut: Set(50..<55)).sets, [l.left, l.right])
        // The control: the same POIs below extend_ratio, in no set, bridge the grids.
        XCTAssertTrue(Self.isJoined(try Self.join(grids: (6, 6), bridge: [3.5, 3.5, 3.5, 3.5, 3.5]).sets))
    }

    func testPersistenceOneOrZeroJoinsNothing() throws {
        let l = try Self.layout()
        for persistence in [0.0, 1] {
            XCTAssertEqual(
                try Self.join(grids: (6, 6), bridge: [3.5, 3.5, 3.5, 3.5, 3.5], persistence: persistence).sets,
                [l.left, l.right])
        }
    }
}
