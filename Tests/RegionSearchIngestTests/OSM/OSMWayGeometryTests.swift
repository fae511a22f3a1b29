import XCTest

@testable import RegionSearchIngest

/// The representative-point rule on shapes with closed-form answers (Helsinki ways are checked
/// against GEOS in OSMPBFReaderTests).
final class OSMWayGeometryTests: XCTestCase {
    private func point(_ lonLats: [(Double, Double)], closed: Bool) -> (lon: Double, lat: Double) {
        OSMWayGeometry.representativePoint(lons: lonLats.map { $0.0 }, lats: lonLats.map { $0.1 }, closed: closed)
    }

    func testTriangleCentroid() {
        let p = point([(0, 0), (3, 0), (0, 3), (0, 0)], closed: true)
        XCTAssertEqual(p.lon, 1, accuracy: 1e-12)
        XCTAssertEqual(p.lat, 1, accuracy: 1e-12)
        // Orientation does not matter.
        let q = point([(0, 0), (0, 3), (3, 0), (0, 0)], closed: true)
        XCTAssertEqual(q.lon, 1, accuracy: 1e-12)
        XCTAssertEqual(q.lat, 1, accuracy: 1e-12)
    }

    /// An L: unit squares at (0,0), (1,0), (0,1). Centroid (5/6, 5/6) is inside.
    func testLShapeCentroidInside() {
        let p = point([(10, 50), (12, 50), (12, 51), (11, 51), (11, 52), (10, 52), (10, 50)], closed: true)
        XCTAssertEqual(p.lon, 10 + 5.0 / 6, accuracy: 1e-12)
        XCTAssertEqual(p.lat, 50 + 5.0 / 6, accuracy: 1e-12)
    }

    /// A thin C whose centroid falls in the opening: the point must be inside the ring.
    func testCShapePointOnSurface() {
        // Outer 0..10 × 0..10, opening x 1..10, y 1..9 (walls 1 thick).
        let ring: [(Double, Double)] = [(0, 0), (10, 0), (10, 1), (1, 1), (1, 9), (10, 9), (10, 10), (0, 10), (0, 0)]
        let p = point(ring, closed: true)
        // Scan line: vertex heights around the middle (5) are 1 and 9 → y = 5; the only inside
        // stretch there is the wall x 0..1.
        XCTAssertEqual(p.lon, 0.5, accuracy: 1e-12)
        XCTAssertEqual(p.lat, 5, accuracy: 1e-12)
    }

    func testOpenWayMidpoint() {
        // At the equator lengths are plain degrees: 0→2 east then 2 north; halfway is the corner.
        let p = point([(0, 0), (2, 0), (2, 2)], closed: false)
        XCTAssertEqual(p.lon, 2, accuracy: 1e-12)
        XCTAssertEqual(p.lat, 0, accuracy: 1e-12)
        // At 60° a degree of longitude is half as long: 2° east = 1 unit, then 1° north = 1 unit.
        let q = point([(0, 60), (2, 60), (2, 61)], closed: false)
        XCTAssertEqual(q.lon, 2, accuracy: 1e-9)
        XCTAssertEqual(q.lat, 60, accuracy: 1e-9)
    }

    func testDegenerateCases() {
        let single = point([(5, 6)], closed: false)
        XCTAssertEqual(single.lon, 5)
        XCTAssertEqual(single.lat, 6)
        let same = point([(5, 6), (5, 6), (5, 6)], closed: false)
        XCTAssertEqual(same.lon, 5)
        XCTAssertEqual(same.lat, 6)
        // A closed way with no area is measured as a line: 0→1→2→0 along x, length 4, halfway at x=2.
        let flat = point([(0, 0), (1, 0), (2, 0), (0, 0)], closed: true)
        XCTAssertEqual(flat.lon, 2, accuracy: 1e-12)
        XCTAssertEqual(flat.lat, 0, accuracy: 1e-12)
    }

    /// A square straddling the antimeridian has its centre on it, not at longitude 0.
    func testAntimeridian() {
        let p = point([(179.5, -1), (-179.5, -1), (-179.5, 1), (179.5, 1), (179.5, -1)], closed: true)
        XCTAssertEqual(abs(p.lon), 180, accuracy: 1e-9)
        XCTAssertEqual(p.lat, 0, accuracy: 1e-12)
        let q = point([(179.0, 0), (-179.0, 0)], closed: false)
        XCTAssertEqual(abs(q.lon), 180, accuracy: 1e-9)
        let r = point([(179.0, 0), (-178.0, 0)], closed: false)
        XCTAssertEqual(r.lon, -179.5, accuracy: 1e-9)
    }
}
