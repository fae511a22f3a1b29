import XCTest

@testable import RegionSearchCore
@testable import RegionSearchModel
@testable import RegionSearchOutput
@testable import RegionSearchProjection

/// Rule 6's drop: a region whose polygon, after the better-ranked regions of its keyword and
/// level are cut away, holds none of its members is covered, as an empty one is — not written as
/// the sliver of its margin left beside them.
final class CoveredRegionTests: XCTestCase {
    func testARegionLeftWithNoneOfItsMembersIsDropped() throws {
        // A (rank 1): a 3 × 3 grid 20 m apart over (0…40, 0…40), joined along the grid and one
        // diagonal per cell (its triangles fill it), spacing 20 → margin 6 m, so its polygon is
        // the square grown to (−6…46). B (rank 2): four POIs at (10…30, 10…30) inside
        // it, spacing 100 → margin 30 m, grown to (−20…60): what A leaves of it is a ring 14 m
        // wide with none of B's POIs in it.
        let grid = PlanarTestFrame.grid(side: 3, step: 20)
        var (x, y) = (grid.x, grid.y)
        x += [10, 30, 10, 30]
        y += [10, 10, 30, 30]
        let frame = try PlanarTestFrame(x: x, y: y)
        let square = PlanarTestFrame.mesh(side: 3, over: 0...2)
        let a = frame.region(rows: square.rows, edges: square.edges, spacing: 20, rank: 1)
        let b = frame.region(
            rows: [9, 10, 11, 12], edges: [(9, 10), (10, 12), (12, 11), (11, 9)], spacing: 100, rank: 2)
        var options = RegionPolygonBuilder.Options(closeSpacing: 0, minExtent: 0)
        options.marginRule = .spacing
        let builder = RegionPolygonBuilder(options: options)
        let (polygons, dropped) = try frame.build(RegionTable(regions: [a, b]), with: builder)
        XCTAssertEqual(polygons.map(\.region), [0], "only A is written")
        XCTAssertEqual(dropped, 1, "B is counted as covered")
        XCTAssertEqual(polygons[0].marginM, 6, accuracy: 1e-9)

        // Alone, B is drawn whole (its margin 30 m: the 20 m square grown to 80 m across).
        let alone = try frame.build(RegionTable(regions: [b]), with: builder)
        XCTAssertEqual(alone.dropped, 0)
        XCTAssertEqual(alone.polygons.first?.marginM ?? 0, 30, accuracy: 1e-9)
        XCTAssertEqual(alone.polygons.first?.shape.membersInside, 1)
    }
}
