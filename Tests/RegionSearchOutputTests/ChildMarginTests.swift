import CGEOS
import XCTest

@testable import RegionSearchCore
@testable import RegionSearchModel
@testable import RegionSearchOutput
@testable import RegionSearchProjection

/// Rule 3 for a finer level (`child_margin_floor`): a child region borders its parent's ground,
/// so it is drawn out to half the spacing of its band floor, 1/√floor, beyond its members —
/// midway to the parent's POIs at that density — where level 0 is drawn by the support margin.
final class ChildMarginTests: XCTestCase {
    /// A 3 × 3 grid of POIs 20 m apart, (200…240, 200…240), joined along the grid and its
    /// diagonals, as a level-1 region cut at `floor` keyword POIs per km², inside a level-0 region
    /// of the 23 × 23 grid (0…440) holding it, with the given spacing (the rules' unit). Returns
    /// the child's polygon (metres in the planar frame), its area and the margin it was drawn with.
    private func drawnChild(floor: Double, spacing: Double = 20, childMarginFloor: Double?) throws -> (
        polygon: GEOSGeometry, area: Double, margin: Double
    ) {
        let grid = PlanarTestFrame.grid(side: 23, step: 20)
        let frame = try PlanarTestFrame(x: grid.x, y: grid.y)
        let outer = PlanarTestFrame.mesh(side: 23, over: 0...22)
        let parent = frame.region(rows: outer.rows, edges: outer.edges, spacing: 20, rank: 1)
        let inner = PlanarTestFrame.mesh(side: 23, over: 10...12)
        var child = frame.region(rows: inner.rows, edges: inner.edges, spacing: spacing, rank: 1)
        child.level = 1
        child.parent = 0
        child.bandFloor = floor
        // No closing: on a convex square it adds nothing, and its grown-and-shrunk corners would
        // blur the closed form of the area below.
        var options = RegionPolygonBuilder.Options(closeSpacing: 0, minExtent: 20)
        if let childMarginFloor { options.childMarginFloor = childMarginFloor }
        let (polygons, dropped) = try frame.build(
            RegionTable(regions: [parent, child]), with: RegionPolygonBuilder(options: options))
        XCTAssertEqual(dropped, 0)
        let drawn = try XCTUnwrap(polygons.first { $0.region == 1 }, "the child is drawn")
        let planar = try frame.planar(drawn, geos: GEOSContext())
        XCTAssertEqual(planar.typeID, Int32(GEOS_POLYGON.rawValue))
        return (planar, drawn.areaM2, drawn.marginM)
    }

    /// The 40 m square grown by `margin` with four segments per quarter circle: the square of side
    /// 40 + 2·margin less, at each corner, the square of the margin minus its quarter polygon
    /// (four chords: 2 r² sin 22.5°).
    private func grownSquareArea(margin r: Double) -> Double {
        (40 + 2 * r) * (40 + 2 * r) - 4 * (r * r - 2 * r * r * sin(Double.pi / 8))
    }

    func testAFinerRegionReachesHalfItsFloorSpacingBeyondItsMembers() throws {
        // Floor 400 per km²: POIs 50 m apart at that density, so the edge lies 25 m out (a
        // spacing of 40 m: the margin is under the one-spacing cap, and 0.3 spacings is 12 m).
        let child = try drawnChild(floor: 400, spacing: 40, childMarginFloor: nil)
        XCTAssertEqual(child.margin, 25, accuracy: 1e-9)
        let polygon = try child.polygon.prepared()
        XCTAssertTrue(try polygon.covers(x: 220, y: 262), "22 m beyond the top row")
        XCTAssertFalse(try polygon.covers(x: 220, y: 268), "28 m beyond the top row")
        XCTAssertTrue(try polygon.covers(x: 177, y: 220), "23 m west of the west column")
        XCTAssertEqual(child.area, grownSquareArea(margin: 25), accuracy: 0.01 * grownSquareArea(margin: 25))
        // A denser floor, a tighter edge: 1,600 per km² → 25 m apart → 12.5 m.
        let denser = try drawnChild(floor: 1_600, spacing: 40, childMarginFloor: nil)
        XCTAssertEqual(denser.margin, 12.5, accuracy: 1e-9)
        // A sparser floor, 100 per km² (half spacing 50 m), is capped at one spacing: 40 m.
        let capped = try drawnChild(floor: 100, spacing: 40, childMarginFloor: nil)
        XCTAssertEqual(capped.margin, 40, accuracy: 1e-9)
        XCTAssertFalse(try capped.polygon.prepared().covers(x: 220, y: 285), "45 m beyond the top row")
    }

    func testWithoutTheRuleAFinerRegionIsDrawnAsLevelZero() throws {
        // child_margin_floor 0: the support margin of nine POIs on a 40 m square with four hull
        // corners, n / (n − V) = 9 / 5 of the hull's 1,600 m², so 1,280 m² laid around its 160 m
        // perimeter: g = (−160 + √(160² + 4π · 1,280)) / 2π ≈ 7.03 m (above 0.3 × 20 m).
        let expected = (-160 + (160.0 * 160 + 4 * Double.pi * 1_280).squareRoot()) / (2 * Double.pi)
        let child = try drawnChild(floor: 400, childMarginFloor: 0)
        XCTAssertEqual(child.margin, expected, accuracy: 1e-9)
        XCTAssertFalse(try child.polygon.prepared().covers(x: 220, y: 250), "10 m beyond the top row")
        XCTAssertEqual(
            child.area, grownSquareArea(margin: expected), accuracy: 0.01 * grownSquareArea(margin: expected))
        // A floor so sparse that its half spacing is under the support margin changes nothing.
        let sparse = try drawnChild(floor: 1e6, childMarginFloor: nil)
        XCTAssertEqual(sparse.margin, expected, accuracy: 1e-9)
    }
}
