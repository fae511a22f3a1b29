import XCTest

@testable import RegionSearchCore
@testable import RegionSearchGraph
@testable import RegionSearchModel
@testable import RegionSearchRegions

/// ``StreetRunOn/continuous(from:to:kg:near:halfWidth:spacing:linked:support:)`` across a side
/// street (``StreetRunOn/sideStreet``): a hop between two keyword POIs 200 m apart along a line of
/// shops one every 5 m, where the typical spacing of all POIs around is 17 m (a grid of blocks
/// whose frontages stand a few metres apart, the blocks cases) and the POI graph does not join the
/// two (no path round: the answer is the band's alone).
final class StreetRunOnSideStreetTests: XCTestCase {
    /// Whether the hop is along the street when the shops leave `empty` metres of it empty (from
    /// x = 80, the longest stretch without a shop), at typical spacing `spacing`.
    func continuous(empty: Double, spacing: Double = 17) -> Bool {
        var x: [Double] = [0, 200]
        var y: [Double] = [0, 0]
        // Shops at 5, 10, …, 80, then at 80 + empty and every 5 m on to the far end.
        for s in Array(stride(from: 5.0, through: 80, by: 5)) + Array(stride(from: 80 + empty, to: 200, by: 5)) {
            x.append(s)
            y.append(1)
        }
        let (columnX, columnY) = (Column(x), Column(y))
        // No edges: the POI graph leaves the two apart, as at a side street the void pass cut.
        let graph = x.withUnsafeBufferPointer { bx in
            y.withUnsafeBufferPointer { by in CSRBuilder.build(nodeCount: x.count, a: [], b: [], x: bx, y: by) }
        }
        let (kg, _) = DensityRegionFinderTests.keywordGraph([(0, 0), (200, 0)])
        let run = StreetRunOn(gap: 3, aspect: 4, x: columnX, y: columnY, graph: graph)
        var support = PathSupport(graph: graph, x: columnX, y: columnY)
        return run.continuous(
            from: 0, to: 1, kg: kg, near: (2..<UInt32(x.count)).map { $0 }, halfWidth: 10, spacing: spacing,
            linked: false, support: &support)
    }

    /// A side street leaves 28–36 m of a frontage empty (20 m of street and the setbacks either
    /// side, 1.7–2.2 typical spacings): the run crosses it, up to 50 m. A square or a river 90 m
    /// wide it does not, nor 55 m. Where the POIs around are sparse (a typical spacing of 60 m) a
    /// stretch within 1.5 of them, 85 m, is crossed as before.
    func testARunCrossesASideStreetButNotASquare() {
        XCTAssertTrue(continuous(empty: 20), "a stretch within 1.5 spacings")
        XCTAssertTrue(continuous(empty: 36), "a side street")
        XCTAssertTrue(continuous(empty: 49), "a wide side street")
        XCTAssertFalse(continuous(empty: 55), "wider than a side street")
        XCTAssertFalse(continuous(empty: 90), "a square")
        XCTAssertTrue(continuous(empty: 85, spacing: 60), "1.5 typical spacings where the POIs are sparse")
    }
}
