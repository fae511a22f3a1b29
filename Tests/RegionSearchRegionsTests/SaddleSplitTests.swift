import XCTest

@testable import RegionSearchCore
@testable import RegionSearchRegions

/// ``SaddleSplit`` on sets whose density tree is known by construction: chains of POIs with given
/// densities, a band and a disc, and places built from squares of POIs.
final class SaddleSplitTests: XCTestCase {
    /// A chain of positions 0, 1, …, n − 1 (edges between neighbours).
    static func chain(_ n: Int) -> [(a: Int32, b: Int32)] {
        (0..<(n - 1)).map { (Int32($0), Int32($0 + 1)) }
    }

    /// Two runs of ten POIs at density 10 with one POI at 3 between them: the top split is at the
    /// bridge (saddle 3, the lower end of both edges through it), and the bridge, joined only at
    /// the saddle, belongs to neither side.
    func testTwoPlacesJoinedByAThinBridgeSplitAtTheBridge() throws {
        var density = [Double](repeating: 10, count: 21)
        density[10] = 3
        let positions = (0..<21).map { Int32($0) }
        let split = try XCTUnwrap(
            SaddleSplit.split(
                positions, edges: Self.chain(21), density: { density[Int($0)] }, minimum: 8, persistence: 2))
        XCTAssertEqual(split.saddle, 3)
        XCTAssertEqual(split.sides, [Array(0...9).map { Int32($0) }, Array(11...20).map { Int32($0) }])
        // Each side's median (10) must reach persistence × 3.
        XCTAssertNotNil(
            SaddleSplit.split(
                positions, edges: Self.chain(21), density: { density[Int($0)] }, minimum: 8, persistence: 3.3))
        XCTAssertNil(
            SaddleSplit.split(
                positions, edges: Self.chain(21), density: { density[Int($0)] }, minimum: 8, persistence: 3.4))
        // Sides smaller than `minimum` are not places.
        XCTAssertNil(
            SaddleSplit.split(
                positions, edges: Self.chain(21), density: { density[Int($0)] }, minimum: 11, persistence: 2))
    }

    /// A dip to 0.6 of the density around it is noise, not ground between two places; the same
    /// dip far from the ends (sides of 3 and 17) leaves no two sides of `minimum`.
    func testAShallowDipOrASmallPieceIsNotASplit() {
        var density = [Double](repeating: 10, count: 21)
        density[10] = 6
        let positions = (0..<21).map { Int32($0) }
        XCTAssertNil(
            SaddleSplit.split(
                positions, edges: Self.chain(21), density: { density[Int($0)] }, minimum: 8, persistence: 2))
        var edge = [Double](repeating: 10, count: 21)
        edge[3] = 1
        XCTAssertNil(
            SaddleSplit.split(positions, edges: Self.chain(21), density: { edge[Int($0)] }, minimum: 8, persistence: 2))
    }

    /// Edges with an end outside the set are not part of its tree: the set's two halves, joined
    /// only through a POI outside it, are not joined at all, and the top split has no saddle edge.
    func testEdgesLeavingTheSetAreSkipped() {
        let density = [Double](repeating: 10, count: 21)
        let positions = (0..<21).filter { $0 != 10 }.map { Int32($0) }
        XCTAssertNil(
            SaddleSplit.split(
                positions, edges: Self.chain(21), density: { density[Int($0)] }, minimum: 8, persistence: 2))
    }

    /// A band 100 × 10 spread evenly is a line at aspect 4 (its principal axes 10.2:1 for this grid of
    /// 50 × 5 points), a disc is not, and the band stops being one at an aspect above its own.
    func testALineIsAsLongAsItsAspectAlongItsPrincipalAxes() {
        var band: [(x: Double, y: Double)] = []
        for i in 0..<50 { for j in 0..<5 { band.append((Double(i) * 2 + 1, Double(j) * 2 + 1)) } }
        // Rotated by 0.52 rad (about 30°): the test does not depend on the axes.
        let rotated = band.map { p in (x: p.x * cos(0.52) - p.y * sin(0.52), y: p.x * sin(0.52) + p.y * cos(0.52)) }
        XCTAssertTrue(SaddleSplit.isLine(rotated, aspect: 4))
        XCTAssertTrue(SaddleSplit.isLine(rotated, aspect: 9.9))
        XCTAssertFalse(SaddleSplit.isLine(rotated, aspect: 10.5))
        var rng = SeededRandom(seed: 5)
        let disc = (0..<200).map { _ -> (x: Double, y: Double) in
            let a = rng.uniform(0, 2 * .pi)
            let r = 100 * rng.uniform().squareRoot()
            return (r * cos(a), r * sin(a))
        }
        XCTAssertFalse(SaddleSplit.isLine(disc, aspect: 2))
    }

    /// Places from squares of 40 POIs (each POI joined to every other of its square within 50 m, squares
    /// joined by one edge at a low density): two squares are two places; two squares joined to two
    /// more at a lower saddle (a core holding districts: each side would split again) stay one;
    /// a side that is no candidate is not split off; two pieces of a line
    /// with a dip between them stay one street; without `persistence` nothing is split.
    func testPlacesAreSplitUnlessTheyAreAStreetOrACore() {
        struct Layout {
            var points: [(x: Double, y: Double)] = []
            var density: [Double] = []
            var edges: [(a: Int32, b: Int32)] = []
            var groups: [[Int32]] = []

            /// 40 POIs round `centre`: in a square 120 m wide, along a line 400 m long and 10 m wide,
            /// or (`corner`) along a street 10 m wide that runs 200 m west to `centre` and turns
            /// north there for 200 m.
            mutating func blob(
                _ centre: (x: Double, y: Double), line: Bool, corner: Bool = false, _ rng: inout SeededRandom
            ) {
                let first = points.count
                for i in 0..<40 {
                    let p =
                        corner
                        ? (i < 20
                            ? (x: centre.x + rng.uniform(-200, 0), y: centre.y + rng.uniform(-5, 5))
                            : (x: centre.x + rng.uniform(-5, 5), y: centre.y + rng.uniform(0, 200)))
                        : line
                            ? (x: centre.x + rng.uniform(-200, 200), y: centre.y + rng.uniform(-5, 5))
                            : (x: centre.x + rng.uniform(-60, 60), y: centre.y + rng.uniform(-60, 60))
                    points.append(p)
                    density.append(10)
                }
                for a in first..<points.count {
                    for b in (a + 1)..<points.count
                    where hypot(points[a].x - points[b].x, points[a].y - points[b].y) <= 50 {
                        edges.append((Int32(a), Int32(b)))
                    }
                }
                groups.append((first..<points.count).map { Int32($0) })
            }

            /// Joins two squares by an edge between their `index`-th POIs, both lowered to `density`.
            mutating func bridge(_ g: Int, _ h: Int, density value: Double, index: Int = 0) {
                let (a, b) = (groups[g][index], groups[h][index])
                density[Int(a)] = value
                density[Int(b)] = value
                edges.append((a, b))
            }

            func places(
                persistence: Double = 2, streetHalfWidth: Double = 5, candidate: ([Int32]) -> Bool = { $0.count >= 8 }
            ) -> [[Int32]] {
                SaddleSplit.places(
                    [(0..<points.count).map { Int32($0) }], edges: edges, density: density, minimum: 8,
                    persistence: persistence, aspect: 4, streetHalfWidth: streetHalfWidth, point: { points[Int($0)] },
                    candidate: candidate)
            }
        }
        var rng = SeededRandom(seed: 8)
        var pair = Layout()
        pair.blob((0, 0), line: false, &rng)
        pair.blob((300, 0), line: false, &rng)
        pair.bridge(0, 1, density: 2)
        // Each side without its bridge POI, which joins it only at the saddle.
        XCTAssertEqual(pair.places().map(Set.init), pair.groups.map { Set($0.dropFirst()) }, "two squares: two places")
        XCTAssertEqual(
            pair.places(candidate: { $0.count >= 8 && !$0.contains(pair.groups[1][5]) }).count, 1,
            "a side that is no candidate is not split off")
        XCTAssertEqual(pair.places(persistence: 0).count, 1)
        XCTAssertEqual(pair.places(persistence: 6).count, 1, "each side stands 5 × its saddle, not 6 ×")

        var core = pair
        core.blob((0, 300), line: false, &rng)
        core.blob((300, 300), line: false, &rng)
        core.bridge(2, 3, density: 2)
        // The two pairs, each joined at 2, meet at 1 (through the second POIs of squares 0 and 2).
        core.bridge(0, 2, density: 1, index: 1)
        XCTAssertEqual(core.places().count, 1, "a core whose sides are two places each stays one")

        var street = Layout()
        street.blob((0, 0), line: true, &rng)
        street.blob((420, 0), line: true, &rng)
        street.bridge(0, 1, density: 2)
        XCTAssertEqual(street.places().count, 1, "two stretches of one street stay one")

        // Two stretches of a street, each round a corner, joined where the street thins out: each
        // is no straight line by its principal axes (its arms are as long as each other), but its
        // spine runs 400 m along a band 10 m wide.
        var bends = Layout()
        bends.blob((0, 0), line: false, corner: true, &rng)
        bends.blob((400, 200), line: false, corner: true, &rng)
        bends.bridge(0, 1, density: 2)
        XCTAssertFalse(bends.groups.contains { g in SaddleSplit.isLine(g.map { bends.points[Int($0)] }, aspect: 4) })
        XCTAssertEqual(bends.places().count, 1, "two stretches of a street round its corners stay one")
        // With a half-width floor as wide as the stretch's arms are long, no stretch is a street: two places.
        XCTAssertEqual(bends.places(streetHalfWidth: 200).count, 2)
        // Squares are no streets at any floor.
        XCTAssertEqual(pair.places(streetHalfWidth: 1).count, 2)
    }
}
