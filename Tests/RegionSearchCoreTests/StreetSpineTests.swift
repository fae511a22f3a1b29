import XCTest

@testable import RegionSearchCore

/// ``StreetSpine``: the longest path of the minimum spanning tree, smoothed over five nodes, and
/// the half-width from the points' distances to it, against hand-worked layouts.
final class StreetSpineTests: XCTestCase {
    /// Every pair of points at most `reach` apart, with its length.
    private func edges(_ x: [Double], _ y: [Double], reach: Double) -> [(a: Int, b: Int, length: Double)] {
        var out: [(a: Int, b: Int, length: Double)] = []
        for a in x.indices {
            for b in (a + 1)..<x.count where hypot(x[a] - x[b], y[a] - y[b]) <= reach {
                out.append((a, b, hypot(x[a] - x[b], y[a] - y[b])))
            }
        }
        return out
    }

    func testAStraightRowIsItsOwnSpineShortenedByTheSmoothingAtEachEnd() throws {
        // 30 points 20 m apart on y = 0. The tree is the row; the path runs from one end to the
        // other; the smoothed end vertex is the mean of the last three points, 20 m in, so the
        // centre line is 580 − 2 × 20 = 540 m long. Every offset is 0 but the two end points'
        // (20 m past the line's ends): the median is 0, the half-width the floor.
        let x = (0..<30).map { Double($0) * 20 }
        let y = [Double](repeating: 0, count: 30)
        let spine = try XCTUnwrap(StreetSpine(x: x, y: y, edges: edges(x, y, reach: 45), minimumHalfWidth: 7))
        XCTAssertEqual(Set([spine.path.first!, spine.path.last!]), [0, 29])
        XCTAssertEqual(spine.path.count, 30)
        XCTAssertEqual(spine.length, 540, accuracy: 1e-9)
        XCTAssertEqual(min(spine.centre.first!.x, spine.centre.last!.x), 20, accuracy: 1e-9)
        XCTAssertEqual(spine.halfWidth, 7)
        XCTAssertTrue(spine.isStreet(aspect: 4))
        XCTAssertEqual(spine.offsets[0]!, 20, accuracy: 1e-9)
        XCTAssertEqual(spine.offsets[29]!, 20, accuracy: 1e-9)
        XCTAssertEqual(spine.offsets[1...28].map { $0! }.max()!, 0, accuracy: 1e-9)
    }

    func testPointsBesideTheRowSetTheHalfWidthAtTwiceTheirMedianDistance() throws {
        // The row of 30, and 40 points 18 m to either side of row points 5…24. Each hangs on its
        // row point (18 m, nearer than the row's 20 m steps; 20 m ties go to the row, given
        // first), and the path stays the row (its ends lie 580 m apart along it, a side point at
        // most 498 m from either end). Offsets: 28 row points on the line (0), the two end points
        // 20 m beyond the smoothed ends, 40 side points at 18: the median is 18, the half-width 36.
        var x = (0..<30).map { Double($0) * 20 }
        var y = [Double](repeating: 0, count: 30)
        for k in 5...24 {
            for side in [-18.0, 18] {
                x.append(Double(k) * 20)
                y.append(side)
            }
        }
        let spine = try XCTUnwrap(StreetSpine(x: x, y: y, edges: edges(x, y, reach: 21), minimumHalfWidth: 1))
        XCTAssertTrue(spine.path.allSatisfy { y[$0] == 0 }, "the path runs along the row")
        XCTAssertEqual(spine.path.count, 30)
        XCTAssertEqual(spine.halfWidth, 36, accuracy: 1e-9)
        XCTAssertEqual(spine.offsets.compactMap { $0 }.count, x.count, "every point hangs on the spine")
        // 540 m long, 72 m wide: a street for aspect 4 (540 ≥ 4 × 72), not for 8.
        XCTAssertTrue(spine.isStreet(aspect: 4))
        XCTAssertFalse(spine.isStreet(aspect: 8))
    }

    func testAGridIsNoStreet() throws {
        // A 10 × 10 grid, 20 m apart: the spine winds through it, and the points lie all around
        // it; twice their median distance makes a band far too wide for its length.
        var x: [Double] = []
        var y: [Double] = []
        for j in 0..<10 {
            for i in 0..<10 {
                x.append(Double(i) * 20)
                y.append(Double(j) * 20)
            }
        }
        let spine = try XCTUnwrap(StreetSpine(x: x, y: y, edges: edges(x, y, reach: 21), minimumHalfWidth: 1))
        XCTAssertFalse(spine.isStreet(aspect: 4))
    }

    /// A line turns back when two of its vertices more than `beyond` apart along it are less than
    /// half that apart: a U round a 40 m block (100 m along, 40 m across the U's ends) does; a
    /// right angle (0.71 of the way along) and a straight line do not, nor does a line of two
    /// vertices or none.
    func testALineTurnsBackAtAUButNotAtARightAngle() {
        let u: [(x: Double, y: Double)] = [(0, 0), (30, 0), (30, 40), (0, 40)]
        XCTAssertTrue(StreetSpine.turnsBack(u, beyond: 20))
        XCTAssertFalse(StreetSpine.turnsBack(u, beyond: 100), "nothing more than 100 m apart along it")
        let corner: [(x: Double, y: Double)] = [(0, 0), (50, 0), (50, 50)]
        XCTAssertFalse(StreetSpine.turnsBack(corner, beyond: 20))
        XCTAssertFalse(StreetSpine.turnsBack([(0, 0), (50, 0), (100, 0)], beyond: 20))
        XCTAssertFalse(StreetSpine.turnsBack([(0, 0), (50, 0)], beyond: 20))
        XCTAssertFalse(StreetSpine.turnsBack([], beyond: 20))
    }

    func testAStreetRoundACornerRunsOnButOneRoundAUTurnsBack() throws {
        // Points 10 m apart: an L (200 m north–south, then 200 m east) and a U (200 m up, 60 m
        // across, 200 m down). Both spines are more than 4 × twice the 7 m floor long; the U's
        // arms' tops are 60 m apart in the plane and over 400 m apart along it.
        func walk(_ corners: [(Double, Double)]) -> (x: [Double], y: [Double]) {
            var x: [Double] = []
            var y: [Double] = []
            for k in 1..<corners.count {
                let (a, b) = (corners[k - 1], corners[k])
                let steps = Int((hypot(b.0 - a.0, b.1 - a.1) / 10).rounded())
                for i in (k == 1 ? 0 : 1)...steps {
                    let t = Double(i) / Double(steps)
                    x.append(a.0 + t * (b.0 - a.0))
                    y.append(a.1 + t * (b.1 - a.1))
                }
            }
            return (x, y)
        }
        let l = walk([(0, 200), (0, 0), (200, 0)])
        let corner = try XCTUnwrap(StreetSpine(x: l.x, y: l.y, edges: edges(l.x, l.y, reach: 15), minimumHalfWidth: 7))
        XCTAssertTrue(corner.isStreet(aspect: 4))
        XCTAssertTrue(corner.isOpenStreet(aspect: 4))
        let u = walk([(0, 200), (0, 0), (60, 0), (60, 200)])
        let back = try XCTUnwrap(StreetSpine(x: u.x, y: u.y, edges: edges(u.x, u.y, reach: 15), minimumHalfWidth: 7))
        XCTAssertTrue(back.isStreet(aspect: 4))
        XCTAssertFalse(back.isOpenStreet(aspect: 4))
        XCTAssertFalse(corner.isOpenStreet(aspect: 40), "no street at all: 40 × 14 m is longer than the L")
    }

    func testFewerThanThreePointsOrNoEdgeHaveNoSpine() {
        XCTAssertNil(StreetSpine(x: [0, 10], y: [0, 0], edges: [(0, 1, 10)], minimumHalfWidth: 1))
        XCTAssertNil(StreetSpine(x: [0, 10, 20], y: [0, 0, 0], edges: [], minimumHalfWidth: 1))
    }
}
