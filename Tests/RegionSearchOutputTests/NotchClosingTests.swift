import CGEOS
import XCTest

@testable import RegionSearchCore
@testable import RegionSearchModel
@testable import RegionSearchOutput
@testable import RegionSearchProjection

/// The closing of rule 3 (`close_spacing`): the open inside of a block whose restaurants line
/// three of its sides is ground between members and is drawn; two rows farther apart than the
/// closing reaches stay two parts; nothing is added outside the skeleton's convex hull.
final class NotchClosingTests: XCTestCase {
    /// A region of the points at `x`, `y` (metres east and north of 77° W, 39° N, in UTM 18N)
    /// with the given skeleton edges and spacing, drawn with a fixed margin and the given closing
    /// (nil: the default); the polygon in UTM.
    private func drawn(
        x: [Double], y: [Double], edges: [(Int, Int)], spacing: Double, closeSpacing: Double?
    ) throws -> (polygon: GEOSGeometry, geos: GEOSContext, area: Double) {
        let (polygons, geos) = try drawn([(x, y, edges, spacing)], closeSpacing: closeSpacing)
        return (polygons[0].polygon, geos, polygons[0].area)
    }

    /// Several regions of one keyword and level, in rank order, each drawn as above; their
    /// polygons (nil for a region dropped) in UTM.
    private func drawn(
        _ groups: [(x: [Double], y: [Double], edges: [(Int, Int)], spacing: Double)], closeSpacing: Double?
    ) throws -> (polygons: [(polygon: GEOSGeometry, area: Double)], geos: GEOSContext) {
        let frame = try PlanarTestFrame(x: groups.flatMap(\.x), y: groups.flatMap(\.y))
        var regions: [RegionTable.Region] = []
        var first = 0
        for (rank, group) in groups.enumerated() {
            regions.append(
                frame.region(
                    rows: Array(first..<first + group.x.count),
                    edges: group.edges.map { (first + $0.0, first + $0.1) }, spacing: group.spacing, rank: rank + 1))
            first += group.x.count
        }
        var options = RegionPolygonBuilder.Options(margin: 6, minExtent: 0)
        if let closeSpacing { options.closeSpacing = closeSpacing }
        let (polygons, dropped) = try frame.build(
            RegionTable(regions: regions), with: RegionPolygonBuilder(options: options))
        XCTAssertEqual(dropped, 0, "no region is dropped")
        let geos = GEOSContext()
        let out = try polygons.map { (polygon: try frame.planar($0, geos: geos), area: $0.areaM2) }
        return (out, geos)
    }

    /// A row of points `step` apart from (x0, y) to (x1, y), and the edges joining neighbours.
    private func row(
        from x0: Double, to x1: Double, y: Double, step: Double, into x: inout [Double], _ yy: inout [Double],
        _ edges: inout [(Int, Int)]
    ) {
        var k = 0
        while x0 + Double(k) * step <= x1 + 1e-9 {
            if k > 0 { edges.append((x.count - 1, x.count)) }
            x.append(x0 + Double(k) * step)
            yy.append(y)
            k += 1
        }
    }

    func testTheOpenInsideOfABlockLinedOnThreeSidesIsDrawn() throws {
        // North and south frontages 60 m apart, 160 m long, POIs every 20 m, joined along the
        // east end only: the skeleton is a U open to the west. Spacing 20 m, margin 6 m: the
        // notch between the grown frontages is 48 m wide, under twice the closing's 30 m.
        let (x, y, edges) = block()
        let open = try drawn(x: x, y: y, edges: edges, spacing: 20, closeSpacing: 0)
        // The default closes by 1.5 spacings.
        let closed = try drawn(x: x, y: y, edges: edges, spacing: 20, closeSpacing: nil)
        let (openOnes, closedOnes) = (try open.polygon.prepared(), try closed.polygon.prepared())
        for (px, py) in [(40.0, 30.0), (100, 30), (140, 30)] {
            XCTAssertFalse(try openOnes.covers(x: px, y: py), "(\(px), \(py)) open without the closing")
            XCTAssertTrue(try closedOnes.covers(x: px, y: py), "(\(px), \(py)) inside the block, closed")
        }
        // Open, the U covers about 172 × 12 × 2 + 12 × 36 ≈ 4,600 m². Closed, the block and its
        // margin, 172 × 72 m, less its rounded corners and the west mouth, where a disc of the
        // closing's 30 m radius rolling past the two tips 48 m apart dips 12 m in (≈ 400 m²).
        XCTAssertLessThan(open.area, 6_000)
        XCTAssertGreaterThan(closed.area, 0.9 * 172 * 72)
        XCTAssertLessThan(closed.area, 1.01 * 172 * 72)
        // Nothing outside the skeleton's grown convex hull (the block with its 6 m margin).
        let hull = try closed.geos.polygon(
            rings: [(x: [-6.0, 166, 166, -6, -6], y: [-6.0, -6, 66, 66, -6])])
        XCTAssertLessThan(try closed.polygon.difference(hull).area, 1)
    }

    func testTwoRowsFartherApartThanTheClosingReachesStayApart() throws {
        // Two rows 100 m apart (5 spacings), no edge between them: one region of two parts
        // whether closed or not, and the ground between them is not drawn.
        var x: [Double] = []
        var y: [Double] = []
        var edges: [(Int, Int)] = []
        row(from: 0, to: 160, y: 0, step: 20, into: &x, &y, &edges)
        row(from: 0, to: 160, y: 100, step: 20, into: &x, &y, &edges)
        let closed = try drawn(x: x, y: y, edges: edges, spacing: 20, closeSpacing: 1.5)
        let open = try drawn(x: x, y: y, edges: edges, spacing: 20, closeSpacing: 0)
        XCTAssertEqual(closed.polygon.typeID, Int32(GEOS_MULTIPOLYGON.rawValue))
        XCTAssertFalse(try closed.polygon.prepared().covers(x: 80, y: 50))
        XCTAssertEqual(closed.area, open.area, accuracy: open.area * 0.01)
    }

    /// The U of the first test: frontages at y 0 and 60 from x 0 to 160, joined at the east end.
    private func block() -> (x: [Double], y: [Double], edges: [(Int, Int)]) {
        var x: [Double] = []
        var y: [Double] = []
        var edges: [(Int, Int)] = []
        row(from: 0, to: 160, y: 0, step: 20, into: &x, &y, &edges)
        let southEast = x.count - 1
        row(from: 0, to: 160, y: 60, step: 20, into: &x, &y, &edges)
        let northEast = x.count - 1
        x += [160, 160]
        y += [20, 40]
        edges += [(southEast, x.count - 2), (x.count - 2, x.count - 1), (x.count - 1, northEast)]
        return (x, y, edges)
    }

    func testTheClosingDoesNotCoverAnotherRegionInTheNotch() throws {
        // A worse-ranked region of the same keyword and level — a tight cluster of four POIs
        // 4 m apart around (40, 30) — lies in the block's notch, 24 m from either frontage's
        // grown ground. The block's closing fills the notch but not the cluster's own ground,
        // and the cluster is drawn, not dropped as covered.
        let u = block()
        let cluster = (x: [38.0, 42, 42, 38], y: [28.0, 28, 32, 32], edges: [(0, 1), (1, 2), (2, 3), (3, 0), (0, 2)])
        let (both, _) = try drawn(
            [(u.x, u.y, u.edges, 20), (cluster.x, cluster.y, cluster.edges, 4)], closeSpacing: nil)
        guard both.count == 2 else { return XCTFail("the cluster was dropped: \(both.count) polygons") }
        let (alone, _) = try drawn([(cluster.x, cluster.y, cluster.edges, 4)], closeSpacing: nil)
        XCTAssertEqual(both[1].area, alone[0].area, accuracy: alone[0].area * 0.01, "the cluster keeps its ground")
        let blockAlone = try drawn(x: u.x, y: u.y, edges: u.edges, spacing: 20, closeSpacing: nil)
        XCTAssertEqual(both[0].area, blockAlone.area - alone[0].area, accuracy: 0.02 * blockAlone.area)
        let blockPolygon = try both[0].polygon.prepared()
        XCTAssertFalse(try blockPolygon.covers(x: 40, y: 30), "the cluster's centre is not the block's")
        XCTAssertTrue(try blockPolygon.covers(x: 100, y: 30), "the rest of the notch is filled")
    }
}
