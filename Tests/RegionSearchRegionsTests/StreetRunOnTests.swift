import XCTest

@testable import RegionSearchCore
@testable import RegionSearchModel
@testable import RegionSearchRegions

/// A dining street running on past its dense stretch (``StreetRunOn``, `regions.street_run_on`),
/// on a city built point by point whose answer is known: the same sparse line of cafés beyond a
/// dense stretch is taken where a street of shops runs on under it, and not where it stands in
/// the open, nor beyond a district.
final class StreetRunOnTests: XCTestCase {
    typealias City = DensityHierarchyTests.City
    typealias Outcome = DensityHierarchyTests.Outcome

    /// 16,000 POIs over 8 km (cafés 2 %: a typical spacing of about 450 m) and three places, each
    /// a dense core of cafés with 7 cafés 120 m apart beyond it, on a line going east:
    /// - A, y = 1,500: a street of 30 cafés 15 m apart (x = 0…435), and a street of shops, one
    ///   every 10 m within 4 m of y = 1,500 from x = −300 to 1,600, under the cafés and on past them;
    /// - B, y = −1,500: the same café street and line, no shops;
    /// - C, y = 0: a district of 60 cafés on a 15 m grid (6 rows of 10, x = 0…135, y = −37.5…37.5),
    ///   and the same street of shops leading east from its east side, with the line of cafés on it.
    /// The sparse cafés stand at x = 555 + 120 i (i = 0…6); at C at x = 255 + 120 i.
    static func city() -> City {
        var rng = SeededRandom(seed: 11)
        var city = City()
        city.square(16_000, side: 8_000, keyword: "cafe", share: 0.02, &rng)
        for y in [1_500.0, -1_500] {
            for i in 0..<30 { city.add(Double(i) * 15, y + rng.uniform(-3, 3), "cafe") }
            for i in 0..<7 { city.add(555 + Double(i) * 120, y + rng.uniform(-2, 2), "cafe") }
        }
        for x in stride(from: -300.0, through: 1_600, by: 10) { city.add(x, 1_500 + rng.uniform(-4, 4), "shop") }
        for i in 0..<6 { for j in 0..<10 { city.add(Double(j) * 15, -37.5 + Double(i) * 15, "cafe") } }
        for x in stride(from: 145.0, through: 1_600, by: 10) { city.add(x, rng.uniform(-4, 4), "shop") }
        for i in 0..<7 { city.add(255 + Double(i) * 120, rng.uniform(-2, 2), "cafe") }
        return city
    }

    /// The level-0 region holding the café nearest (x, y), and the x of its members within 5 m of
    /// the line y.
    static func line(_ o: Outcome, x: Double, y: Double) -> [Double] {
        let regions = DensityRegionFinderTests.regions(near: x, y, o)
        XCTAssertEqual(regions.count, 1, "one region at (\(x), \(y))")
        return (regions.first?.members ?? []).filter { abs(o.localY[Int($0)] - y) < 5 }.map { o.localX[Int($0)] }
            .sorted()
    }

    func testAStreetRunsOnThroughItsSparseCafesOnlyAlongAStreetOfShops() throws {
        let city = Self.city()
        let found = try DensityHierarchyTests.run(city, keyword: "cafe")
        let off = try DensityHierarchyTests.run(
            city, keyword: "cafe", overrides: [(RegionOptions.streetRunOnSpec.key, .number(0))])
        let sparse = (0..<7).map { 555 + Double($0) * 120 }
        func holds(_ xs: [Double], _ x: Double) -> Bool { xs.contains { abs($0 - x) < 3 } }

        // A: the region runs on to the last café of the line, each one taken.
        let a = Self.line(found, x: 200, y: 1_500)
        XCTAssertTrue(sparse.allSatisfy { holds(a, $0) }, "A holds the line: \(a.filter { $0 > 450 })")
        // Without the rule it ends with its dense stretch (its last café at 435).
        let aOff = Self.line(off, x: 200, y: 1_500)
        XCTAssertFalse(sparse.contains { holds(aOff, $0) }, "without the rule: \(aOff.filter { $0 > 450 })")
        // The run is joined to the street by edges: a chain from the street's end to the last café.
        let region = DensityRegionFinderTests.regions(near: 200, 1_500, found)[0]
        let joined = Set(region.edges.flatMap { [$0.0, $0.1] })
        XCTAssertTrue(
            region.members.filter { found.localX[Int($0)] > 500 && abs(found.localY[Int($0)] - 1_500) < 5 }.allSatisfy {
                joined.contains($0)
            })

        // B: the same line with no street under it stands in the open and is not taken.
        let b = Self.line(found, x: 200, y: -1_500)
        XCTAssertFalse(sparse.contains { holds(b, $0) }, "B took \(b.filter { $0 > 450 })")

        // C: a district is no street, and the street of shops leading away from it takes nothing.
        let c = Self.line(found, x: 60, y: 0)
        XCTAssertFalse((0..<7).contains { holds(c, 255 + Double($0) * 120) }, "C took \(c.filter { $0 > 200 })")
    }

    /// The street's ends (``StreetRunOn/streetEnds(_:edges:kg:back:aspect:)``): a line of 30 cafés
    /// 15 m apart on the x axis (±3 m) has two, its first and its last café, each heading out of
    /// it along the axis, with a half-width of a few metres; a district of 60 cafés on a 15 m grid
    /// (6 rows of 10) has none, though its spine is 135 m long; nor has a line when the band must be
    /// 100 times as long as wide; a street ending in a square has one, at its other end.
    func testAStreetHasTwoEndsHeadingOutAndADistrictNone() throws {
        var rng = SeededRandom(seed: 4)
        var street: [(Double, Double)] = []
        for i in 0..<30 { street.append((Double(i) * 15, rng.uniform(-3, 3))) }
        var district: [(Double, Double)] = []
        for row in 0..<6 { for column in 0..<10 { district.append((Double(column) * 15, Double(row) * 15)) } }
        func ends(_ points: [(Double, Double)], aspect: Double = 4) -> [(
            position: Int, heading: Double, halfWidth: Double
        )] {
            let (kg, _) = DensityRegionFinderTests.keywordGraph(points)
            let set = (0..<Int32(points.count)).map { $0 }
            let edges = kg.geometry.edges.indices.filter { kg.geometry.lengths[$0] > 0 }
            return StreetRunOn.streetEnds(
                set, edges: edges, kg: kg, back: 2 * DensityRegionFinder.spacing(set, kg), aspect: aspect)
        }
        let found = ends(street).sorted { $0.position < $1.position }
        XCTAssertEqual(found.map(\.position), [0, 29])
        if found.count == 2 {
            // West from the first café, east from the last (within 15 degrees).
            XCTAssertEqual(abs(found[0].heading), .pi, accuracy: 15 * .pi / 180)
            XCTAssertEqual(found[1].heading, 0, accuracy: 15 * .pi / 180)
            XCTAssertTrue(found.allSatisfy { $0.halfWidth > 0 && $0.halfWidth <= 6 }, "\(found.map(\.halfWidth))")
        }
        XCTAssertTrue(ends(district).isEmpty, "a district: \(ends(district).map(\.position))")
        XCTAssertTrue(ends(street, aspect: 100).isEmpty)
        // The street with a square of 25 cafés (5 × 5, 15 m apart) at its east end: the street's
        // west end is an end; the square's corner, where the spine ends in the east, is not.
        var withSquare = street
        for row in 0..<5 {
            for column in 0..<5 { withSquare.append((450 + Double(column) * 15, Double(row - 2) * 15)) }
        }
        XCTAssertEqual(ends(withSquare).map(\.position), [0])
    }
}
