import CGEOS
import XCTest

@testable import RegionSearchOutput

/// ``RegionPolygonBuilder/closing(_:by:geos:)`` on geometries with many rings, where it shrinks
/// the grown geometry by its boundary's band instead of by GEOS's negative buffer: against the
/// closed form and against the two buffers.
final class ClosingTests: XCTestCase {
    /// A 1,000 m square with 100 square holes on a 100 m grid: 10 of 30 m (no disc of 20 m fits,
    /// so a closing by 20 m fills them) and 90 of 80 m, whose closing leaves each hole's opening
    /// — the square with its corners rounded by 20 m, 80² − (4 − π) 20² m² — open. Grown by 20 m
    /// it has 91 rings: the band's way.
    func testManyHolesCloseToTheClosedForm() throws {
        let geos = GEOSContext()
        var rings: [(x: [Double], y: [Double])] = [([0, 1_000, 1_000, 0], [0, 0, 1_000, 1_000])]
        var large = 0
        for i in 0..<10 {
            for j in 0..<10 {
                let side = (i + j) % 10 == 0 ? 30.0 : 80.0
                if side == 80 { large += 1 }
                let (cx, cy) = (50 + Double(i) * 100, 50 + Double(j) * 100)
                let h = side / 2
                // Holes run clockwise (the exterior counterclockwise).
                rings.append(([cx - h, cx - h, cx + h, cx + h], [cy - h, cy + h, cy + h, cy - h]))
            }
        }
        XCTAssertEqual(large, 90)
        let g = try geos.polygon(rings: rings)
        XCTAssertTrue(g.isValid)
        let r = 20.0
        XCTAssertGreaterThanOrEqual(
            try g.buffer(r, quadrantSegments: 4).polygons().map { 1 + $0.interiorRingCount }.reduce(0, +),
            RegionPolygonBuilder.closingRingThreshold)
        let closed = try RegionPolygonBuilder.closing(g, by: r, geos: geos)
        let opening = 80.0 * 80 - (4 - Double.pi) * r * r
        // Four chords per quarter circle: each rounded corner's chords differ from its arc by
        // 4 · r²/2 (θ − sin θ), θ = π/8, four corners a hole.
        let cornerSlack = 4 * 4 * r * r / 2 * (Double.pi / 8 - sin(Double.pi / 8))
        XCTAssertEqual(closed.area, 1_000_000 - Double(large) * opening, accuracy: Double(large) * cornerSlack + 1)
        XCTAssertEqual(try closed.polygons().count, 1)
        XCTAssertEqual(try closed.polygons()[0].interiorRingCount, large, "the small holes are filled")
        // The two buffers give the same set, to the chords' slack along the large holes.
        let buffers = try g.buffer(r, quadrantSegments: 4).buffer(-r, quadrantSegments: 4)
        let apart = try closed.difference(buffers).area + buffers.difference(closed).area
        XCTAssertLessThan(apart, Double(large) * 4 * 0.08 * r * 80, "closing by band vs by buffers: \(apart) m²")
    }

    /// Shrinking by the band agrees with GEOS's negative buffer on a winding outline with holes
    /// (a grown zigzag of discs, many concave and convex turns, with pits in it).
    func testShrinkingByTheBandMatchesTheNegativeBuffer() throws {
        let geos = GEOSContext()
        var x: [Double] = []
        var y: [Double] = []
        for k in 0..<400 {
            let t = Double(k)
            x.append(t * 7 + 30 * sin(t / 5))
            y.append(40 * sin(t / 3) + 25 * cos(t / 11))
        }
        let pits = stride(from: 0, to: 400, by: 40)
        let d = try geos.multiPoint(x: x, y: y).buffer(18, quadrantSegments: 4)
            .difference(geos.multiPoint(x: pits.map { x[$0] }, y: pits.map { y[$0] }).buffer(6, quadrantSegments: 4))
        XCTAssertGreaterThanOrEqual(try d.polygons().map(\.interiorRingCount).reduce(0, +), 5)
        for r in [3.0, 8.0] {
            let band = try RegionPolygonBuilder.shrunkByBand(d, by: r, geos: geos)
            let buffer = try d.buffer(-r, quadrantSegments: 4)
            let apart = try band.difference(buffer).area + buffer.difference(band).area
            XCTAssertLessThan(apart, 0.01 * buffer.area, "r = \(r): \(apart) of \(buffer.area) m²")
        }
    }
}
