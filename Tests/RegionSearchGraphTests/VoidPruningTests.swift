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
}
