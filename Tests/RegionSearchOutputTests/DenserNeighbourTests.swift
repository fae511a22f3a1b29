import XCTest

@testable import RegionSearchCore
@testable import RegionSearchModel
@testable import RegionSearchOutput
@testable import RegionSearchProjection

/// Rule 5a: a better-ranked sparse region whose polygon reaches over the members of a denser,
/// worse-ranked region of its keyword and level leaves the ground around them to it, so that the
/// denser region keeps its POIs; the two still do not overlap.
final class DenserNeighbourTests: XCTestCase {
    /// A (rank 1): a 3 × 3 grid 400 m apart over (0…800)², its triangles filled, spacing 400 →
    /// margin 120 m. B (rank 2): a 3 × 3 grid 10 m apart over (190…210)², inside A's triangles and
    /// 268 m or more from A's members, spacing 10 → margin 3 m, so B alone is its square grown by
    /// 3 m.
    private func frame() throws -> (PlanarTestFrame, a: RegionTable.Region, b: RegionTable.Region) {
        let sparse = PlanarTestFrame.grid(side: 3, step: 400)
        let dense = PlanarTestFrame.grid(side: 3, step: 10)
        let frame = try PlanarTestFrame(x: sparse.x + dense.x.map { $0 + 190 }, y: sparse.y + dense.y.map { $0 + 190 })
        let square = PlanarTestFrame.mesh(side: 3, over: 0...2)
        let a = frame.region(rows: square.rows, edges: square.edges, spacing: 400, rank: 1)
        let b = frame.region(
            rows: square.rows.map { $0 + 9 }, edges: square.edges.map { ($0.0 + 9, $0.1 + 9) }, spacing: 10, rank: 2)
        return (frame, a, b)
    }

    private var builder: RegionPolygonBuilder {
        var options = RegionPolygonBuilder.Options(closeSpacing: 0, minExtent: 0)
        options.marginRule = .spacing
        return RegionPolygonBuilder(options: options)
    }

    func testASparseRegionLeavesTheGroundAroundADenserOnesMembers() throws {
        let (frame, a, b) = try frame()
        let geos = GEOSContext()
        let (polygons, dropped) = try frame.build(RegionTable(regions: [a, b]), with: builder)
        XCTAssertEqual(dropped, 0, "B is not covered by A")
        XCTAssertEqual(polygons.map(\.region), [0, 1])
        guard polygons.count == 2 else { return }
        XCTAssertEqual(polygons[0].shape.membersInside, 1)
        XCTAssertEqual(polygons[1].shape.membersInside, 1)
        let drawnA = try frame.planar(polygons[0], geos: geos)
        let drawnB = try frame.planar(polygons[1], geos: geos)
        // B is drawn whole: its 20 m square grown by 3 m with 4 segments per quarter circle.
        let cornerDisc = 8 * 9 * sin(Double.pi / 8)
        XCTAssertEqual(drawnB.area, 400 + 4 * 20 * 3 + cornerDisc, accuracy: 2)
        XCTAssertLessThan(try drawnA.intersection(drawnB).area, 0.5, "A and B do not overlap")
        // A's hole: within 120 m of B's members (half their distance to A's nearest member is
        // more, so the discs are the margin's), B's square grown by 120 m.
        let alone = try frame.build(RegionTable(regions: [a]), with: builder)
        let whole = try frame.planar(try XCTUnwrap(alone.polygons.first), geos: geos)
        let hole = 400 + 4 * 20 * 120 + 8 * 14_400 * sin(Double.pi / 8)
        XCTAssertEqual(whole.area - drawnA.area, hole, accuracy: hole * 0.01)
        let prepared = try drawnA.prepared()
        for (dx, dy) in [(190.0, 190.0), (200, 200), (210, 210)] {
            XCTAssertFalse(try prepared.covers(x: dx, y: dy), "A does not cover B's member at (\(dx), \(dy))")
        }
        for (ax, ay) in [(0.0, 0.0), (400, 400), (800, 800)] {
            XCTAssertTrue(try prepared.covers(x: ax, y: ay), "A covers its member at (\(ax), \(ay))")
        }
    }

    /// The same two regions with the ranks turned round: the denser region is drawn first, and the
    /// sparse one is cut around it by rule 6 alone (no hole is made twice).
    func testADenserBetterRankedRegionIsCutAwayAsBefore() throws {
        var (frame, a, b) = try frame()
        a.rank = 2
        b.rank = 1
        let geos = GEOSContext()
        let (polygons, dropped) = try frame.build(RegionTable(regions: [b, a]), with: builder)
        XCTAssertEqual(dropped, 0)
        XCTAssertEqual(polygons.count, 2)
        guard polygons.count == 2 else { return }
        let drawnB = try frame.planar(polygons[0], geos: geos)
        let drawnA = try frame.planar(polygons[1], geos: geos)
        let alone = try frame.build(RegionTable(regions: [a]), with: builder)
        let whole = try frame.planar(try XCTUnwrap(alone.polygons.first), geos: geos)
        XCTAssertEqual(whole.area - drawnA.area, drawnB.area, accuracy: 2, "A loses exactly B's polygon")
        XCTAssertEqual(polygons[0].shape.membersInside, 1)
        XCTAssertEqual(polygons[1].shape.membersInside, 1)
    }
}
