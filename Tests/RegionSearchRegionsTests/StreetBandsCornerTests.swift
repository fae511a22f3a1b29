import XCTest

@testable import RegionSearchCore
@testable import RegionSearchRegions

/// ``StreetBands/joinedRoundCorners(_:x:y:)`` on streets laid out by hand, whose joins are known by
/// construction, and on a bent street through a district found by the band search itself.
final class StreetBandsCornerTests: XCTestCase {
    /// Gap 50 m and half-width 35 m: each end at most 85 m from the corner where two streets meet.
    let search = StreetBands(halfWidth: 35, gap: 50, aspect: 4)

    /// POIs every `step` metres from `start`, `count` of them, heading `degrees` from the x axis.
    func leg(from start: (Double, Double), degrees: Double, count: Int, step: Double = 20) -> [(Double, Double)] {
        let (c, s) = (cos(degrees * .pi / 180), sin(degrees * .pi / 180))
        return (0..<count).map { (start.0 + Double($0) * step * c, start.1 + Double($0) * step * s) }
    }

    /// The points of `legs` in one list, and each leg as a street over its indices (in order along
    /// it), with the given p-values.
    func streets(_ legs: [[(Double, Double)]], pValues: [Double]) -> (
        x: [Double], y: [Double], streets: [StreetBands.Street]
    ) {
        var (x, y, out) = ([Double](), [Double](), [StreetBands.Street]())
        for (leg, p) in zip(legs, pValues) {
            let first = x.count
            x += leg.map(\.0)
            y += leg.map(\.1)
            out.append(
                StreetBands.Street(members: Array(first..<x.count), pValue: p, length: 20 * Double(leg.count - 1)))
        }
        return (x, y, out)
    }

    /// A street that bends by 40° with a 60 m hop at the corner (longer than the 50 m gap; each end
    /// 32 m from where the legs' lines meet, within a gap and a half-width) is one street: both
    /// legs' POIs, the larger p-value, the legs' lengths and the way round the corner added up —
    /// in whichever order and direction the legs come.
    func testTwoLegsRoundACornerAreOneStreet() {
        let a = leg(from: (0, 0), degrees: 0, count: 15)
        let corner = (280.0 + 60 * cos(20 * Double.pi / 180), 60 * sin(20 * Double.pi / 180))
        let b = leg(from: corner, degrees: 40, count: 15)
        for (legs, reversed) in [
            ([a, b], false), ([b, a], false), ([a.reversed(), b], true), ([b.reversed(), a], true),
        ] {
            let (x, y, s) = streets(legs, pValues: [1e-4, 1e-3])
            let joined = search.joinedRoundCorners(s, x: x, y: y)
            XCTAssertEqual(joined.count, 1, "reversed \(reversed)")
            XCTAssertEqual(joined.first?.members.sorted(), Array(0..<30))
            XCTAssertEqual(joined.first?.pValue, 1e-3)
            // Each end is 30 / cos 20° from the corner where the legs' lines meet.
            XCTAssertEqual(joined.first?.length ?? 0, 280 + 280 + 2 * 30 / cos(20 * Double.pi / 180), accuracy: 1e-9)
        }
    }

    /// The same hop of 60 m between two legs in line is longer than the gap (a line has no corner
    /// to allow for): two streets. At a right angle, or between parallel streets a block
    /// apart whose ends are 40 m apart, nothing is joined either.
    func testAStraightGapARightAngleAndParallelStreetsAreNotJoined() {
        let a = leg(from: (0, 0), degrees: 0, count: 15)
        let inLine = leg(from: (340, 0), degrees: 0, count: 15)
        let rightAngle = leg(from: (300, 20), degrees: 90, count: 15)
        let parallel = leg(from: (290, 40), degrees: 0, count: 15)
        for (name, other) in [("in line", inLine), ("right angle", rightAngle), ("parallel", parallel)] {
            let (x, y, s) = streets([a, other], pValues: [1e-4, 1e-4])
            XCTAssertEqual(search.joinedRoundCorners(s, x: x, y: y).count, 2, name)
        }
        // In line with a hop within the gap, they are one (the band search broke them elsewhere).
        let near = leg(from: (320, 0), degrees: 0, count: 15)
        let (x, y, s) = streets([a, near], pValues: [1e-4, 1e-4])
        XCTAssertEqual(search.joinedRoundCorners(s, x: x, y: y).count, 1)
    }

    /// A street that bends twice is three legs joined into one, and a fourth leg that meets the
    /// chain's middle (not an end) stays apart; a leg the corner could join to either of two others
    /// joins the nearer.
    func testAChainOfThreeLegsAndTheNearerOfTwo() {
        let a = leg(from: (0, 0), degrees: 0, count: 15)
        let b = leg(from: (310, 10), degrees: 35, count: 15)
        let bEnd = (310 + 280 * cos(35 * Double.pi / 180), 10 + 280 * sin(35 * Double.pi / 180))
        let c = leg(from: (bEnd.0 + 25, bEnd.1 + 30), degrees: 70, count: 15)
        let crossing = leg(from: (140, -300), degrees: 90, count: 14)
        let (x, y, s) = streets([crossing, c, a, b], pValues: [1e-5, 1e-4, 1e-4, 1e-4])
        let joined = search.joinedRoundCorners(s, x: x, y: y)
        XCTAssertEqual(joined.map { $0.members.count }.sorted(), [14, 45])
        // Two legs could continue `a`: one 30 m from its end, one 70 m; the nearer is taken.
        let near = leg(from: (305, 15), degrees: 30, count: 15)
        let far = leg(from: (345, 30), degrees: 25, count: 15)
        let (x2, y2, s2) = streets([far, a, near], pValues: [1e-4, 1e-4, 1e-4])
        let two = search.joinedRoundCorners(s2, x: x2, y: y2)
        XCTAssertEqual(two.count, 2)
        XCTAssertTrue(two.contains { Set($0.members) == Set(15..<45) })
    }

    /// Through a district of POIs on a 50 m grid (400 per km²), a dining street of 60 POIs 15 m
    /// apart on a line that bends by 40° halfway, each leg 435 m long: the band search finds each
    /// leg as a straight run (neither band holds the other leg), and the join makes them one
    /// street holding all 60.
    func testABentStreetThroughADistrictIsOneStreet() {
        var (x, y) = ([Double](), [Double]())
        for i in 0..<24 {
            for j in 0..<24 {
                x.append(25 + 50 * Double(i))
                y.append(25 + 50 * Double(j))
            }
        }
        let district = x.count
        for p in leg(from: (150, 310), degrees: 0, count: 30, step: 15)
            + leg(
                from: (150 + 450 + 15 * cos(20 * Double.pi / 180), 310 + 15 * sin(20 * Double.pi / 180)), degrees: 40,
                count: 30, step: 15)
        {
            x.append(p.0)
            y.append(p.1)
        }
        let member = [Bool](repeating: true, count: x.count)
        let bands = StreetBands(halfWidth: 35, gap: 100, aspect: 4)
        let found = bands.streets(x: x, y: y, member: member)
        let joined = bands.joinedRoundCorners(found, x: x, y: y)
        func held(_ s: StreetBands.Street) -> Int { s.members.filter { $0 >= district }.count }
        XCTAssertLessThan(found.map(held).max() ?? 0, 60, "a straight run holds one leg")
        XCTAssertEqual(joined.map(held).max(), 60)
        XCTAssertEqual(joined.filter { held($0) > 0 }.count, 1)
    }
}
