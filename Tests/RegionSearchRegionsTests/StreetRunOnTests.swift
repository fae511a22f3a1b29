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

    /// Three dining streets whose cafés thin out along one stretch, each a dense stretch of 30
    /// cafés 15 m apart (x = 0…435) with two cafés 120 m apart beyond it (x = 555, 675) and, past a
    /// stretch with no café, a second place from x = 900 (16,000 POIs over 8 km, cafés 2 %):
    /// - A, y = 1,500: the second place is 10 cafés 15 m apart on the line, and a street of shops,
    ///   one every 10 m within 4 m of the line, runs from x = −300 to 2,200 under all of them;
    /// - B, y = −1,500: the same, but the street of shops stops at x = 700 and starts again at
    ///   x = 880: open ground between the two places;
    /// - C, y = 0: the second place is a district of 60 cafés on a 15 m grid (5 rows of 12,
    ///   x = 900…1,065, y = −30…30, its middle row on the street's line), and the street of shops
    ///   runs on into it as at A.
    ///
    /// Three more streets, D at y = 3,000, E at y = −3,000 and F at y = 2,250, have the dense
    /// stretch and then single cafés at x = 555 and 800 (245 m on, past the run's gap of about
    /// 135 m but within twice it; at F 900, 345 m on, past twice the gap), the street of shops
    /// under them all along at D and F and missing from x = 600 to 760 at E.
    static func brokenStreets() -> City {
        var rng = SeededRandom(seed: 12)
        var city = City()
        city.square(16_000, side: 8_000, keyword: "cafe", share: 0.02, &rng)
        for y in [1_500.0, -1_500, 0] {
            for i in 0..<30 { city.add(Double(i) * 15, y + rng.uniform(-3, 3), "cafe") }
            for x in [555.0, 675] { city.add(x, y + rng.uniform(-2, 2), "cafe") }
            for x in stride(from: -300.0, through: 2_200, by: 10) where y != -1_500 || x < 700 || x >= 880 {
                city.add(x, y + rng.uniform(-4, 4), "shop")
            }
        }
        for y in [1_500.0, -1_500] {
            for i in 0..<10 { city.add(900 + Double(i) * 15, y + rng.uniform(-3, 3), "cafe") }
        }
        for i in 0..<5 { for j in 0..<12 { city.add(900 + Double(j) * 15, -30 + Double(i) * 15, "cafe") } }
        for y in [3_000.0, -3_000, 2_250] {
            for i in 0..<30 { city.add(Double(i) * 15, y + rng.uniform(-3, 3), "cafe") }
            for x in [555.0, y == 2_250 ? 900 : 800] { city.add(x, y + rng.uniform(-2, 2), "cafe") }
            for x in stride(from: -300.0, through: 2_200, by: 10) where y > 0 || x < 600 || x >= 760 {
                city.add(x, y + rng.uniform(-4, 4), "shop")
            }
        }
        return city
    }

    func testARunGoesOnAlongItsStreetAndJoinsItsRestButNotADistrictNorAcrossOpenGround() throws {
        let city = Self.brokenStreets()
        let found = try DensityHierarchyTests.run(city, keyword: "cafe")
        let off = try DensityHierarchyTests.run(
            city, keyword: "cafe", overrides: [(RegionOptions.streetRunOnSpec.key, .number(0))])
        func farthest(_ o: Outcome, _ y: Double) -> Double {
            let regions = DensityRegionFinderTests.regions(near: 200, y, o)
            XCTAssertEqual(regions.count, 1, "one region at (200, \(y))")
            return regions.first.map { r in r.members.map { o.localX[Int($0)] }.max() ?? 0 } ?? 0
        }
        // A: one region from the dense stretch through the two sparse cafés to the last café of
        // the second place (x = 1,035); without the run, the dense stretch ends at x = 435.
        XCTAssertEqual(farthest(found, 1_500), 1_035, accuracy: 5)
        XCTAssertLessThan(farthest(off, 1_500), 500)
        // The region's edges join the second place to the first: a chain through the run.
        if let a = DensityRegionFinderTests.regions(near: 200, 1_500, found).first {
            var groups = UnionFind(count: found.localX.count)
            for (p, q) in a.edges { groups.union(Int32(p), Int32(q)) }
            let roots = Set(a.members.map { groups.find(Int32($0)) })
            XCTAssertEqual(roots.count, 1, "the region's edges join its members")
        }
        // B: open ground between the places; the run takes the sparse cafés and stops.
        XCTAssertEqual(farthest(found, -1_500), 675, accuracy: 5)
        // C: the street ends before the district (its band turns to the district, whose nearest café
        // is farther than the run may hop), and
        // the district is a region of its own.
        XCTAssertLessThan(farthest(found, 0), 890)
        let district = DensityRegionFinderTests.regions(near: 960, 0, found)
        XCTAssertEqual(district.count, 1)
        XCTAssertEqual(district.first.map { r in r.members.filter { found.localX[Int($0)] >= 890 }.count }, 60)
        // D: the café 245 m on is taken along the street of shops. E: not across the empty
        // stretch, and the one café before it is given back (a run takes two or none). F: not
        // 345 m on, more than twice the gap, though along the shops.
        XCTAssertEqual(farthest(found, 3_000), 800, accuracy: 5)
        XCTAssertEqual(farthest(found, -3_000), 435, accuracy: 5)
        XCTAssertEqual(farthest(found, 2_250), 435, accuracy: 5)
    }

    /// Dining streets whose cafés stop for 300 m, as two stretches of 30 cafés 15 m apart
    /// (x = 0…435 and x = 735…1,170, up to 8 m off the line) on a street of shops (one every
    /// 10 m within 4 m of the line, x = −300…1,500), in 16,000 POIs over 8 km (cafés 2 %: a
    /// typical spacing of about 450 m):
    /// - A, y = 1,500: nothing else; the street goes on, and a person draws one dining street;
    /// - B, y = −1,500: a river 210 m wide (x = 480…690) runs across the street, and no POI of
    ///   any kind stands on it;
    /// - C, y = 0: two districts of 300 cafés each in discs of 300 m radius at x = 0 and 900, on
    ///   the same street of shops, 300 m apart: no street, and two places.
    /// - D, y = 3,000: the street turns a right-angled corner at x = 585: the first stretch as at A,
    ///   the second 150 m past the corner going north (x = 585, y = 3,150…3,585), the shops along
    ///   both legs; each end heads 45° away from the other.
    /// The two stretches' ends face each other 300 m apart (at D 212 m), too far for a run's hop
    /// (three of the stretches' spacings), and no café stands between them to run on through.
    func testTwoStretchesOfOneStreetJoinAcrossAStretchWithoutCafesButNotAcrossARiver() throws {
        var rng = SeededRandom(seed: 14)
        var city = City()
        city.square(16_000, side: 8_000, keyword: "cafe", share: 0.02, &rng)
        for y in [1_500.0, -1_500, 0] {
            for x in stride(from: -300.0, through: 1_500, by: 10) { city.add(x, y + rng.uniform(-4, 4), "shop") }
        }
        for y in [1_500.0, -1_500] {
            for start in [0.0, 735] {
                for i in 0..<30 { city.add(start + Double(i) * 15, y + rng.uniform(-8, 8), "cafe") }
            }
        }
        for cx in [0.0, 900] { city.disc(300, r: 300, cx: cx, cy: 0, category: "cafe", &rng) }
        for x in stride(from: -300.0, through: 585, by: 10) { city.add(x, 3_000 + rng.uniform(-4, 4), "shop") }
        for y in stride(from: 3_010.0, through: 3_900, by: 10) { city.add(585 + rng.uniform(-4, 4), y, "shop") }
        for i in 0..<30 { city.add(Double(i) * 15, 3_000 + rng.uniform(-8, 8), "cafe") }
        for i in 0..<30 { city.add(585 + rng.uniform(-8, 8), 3_150 + Double(i) * 15, "cafe") }
        // The river: no POI of any kind on it.
        let river = city.x.indices.filter { !(city.x[$0] > 480 && city.x[$0] < 690 && abs(city.y[$0] + 1_500) < 600) }
        city = City(x: river.map { city.x[$0] }, y: river.map { city.y[$0] }, category: river.map { city.category[$0] })

        let found = try DensityHierarchyTests.run(city, keyword: "cafe")
        let off = try DensityHierarchyTests.run(
            city, keyword: "cafe", overrides: [(RegionOptions.streetRunOnSpec.key, .number(0))])
        func cafes(_ o: Outcome, near x: Double, _ y: Double) -> [Double] {
            let regions = DensityRegionFinderTests.regions(near: x, y, o)
            XCTAssertEqual(regions.count, 1, "one region at (\(x), \(y))")
            return (regions.first?.members ?? []).filter { abs(o.localY[Int($0)] - y) < 10 }.map { o.localX[Int($0)] }
        }
        // A: one region holds both stretches, its edges joining them; without the rule, two.
        let a = cafes(found, near: 200, 1_500)
        XCTAssertEqual(a.filter { $0 < 450 }.count, 30)
        XCTAssertEqual(a.filter { $0 > 720 }.count, 30)
        if let region = DensityRegionFinderTests.regions(near: 200, 1_500, found).first {
            var groups = UnionFind(count: found.localX.count)
            for (p, q) in region.edges { groups.union(Int32(p), Int32(q)) }
            XCTAssertEqual(Set(region.members.map { groups.find(Int32($0)) }).count, 1, "the edges join its members")
        }
        XCTAssertLessThan(cafes(off, near: 200, 1_500).max() ?? 0, 450)
        // B: the river parts the two stretches.
        XCTAssertLessThan(cafes(found, near: 200, -1_500).max() ?? 0, 450)
        XCTAssertGreaterThan(cafes(found, near: 950, -1_500).min() ?? 0, 720)
        // C: two districts stay two regions.
        XCTAssertLessThan(cafes(found, near: 0, 0).max() ?? 0, 310)
        XCTAssertGreaterThan(cafes(found, near: 900, 0).min() ?? 0, 590)
        // D: one region round the corner.
        let d = DensityRegionFinderTests.regions(near: 200, 3_000, found)
        XCTAssertEqual(d.count, 1)
        XCTAssertEqual(d.first.map { r in r.members.filter { found.localY[Int($0)] > 3_100 }.count }, 30)
    }

    /// A sparse street that ends at a far denser place has not found more of itself: 30 cafés
    /// 40 m apart (x = −1,160…0) on a street of shops (one every 10 m from x = −1,500 to 1,500),
    /// and 400 m beyond its end a row of 30 cafés 10 m apart on the same line (x = 400…690). The
    /// hop is within the sparse street's gap but more than twice the row's, so the two stay apart
    /// and the row is a region of its own (bounded by the street's gap alone, they were one region
    /// of 61).
    func testASparseStreetDoesNotJoinAFarDenserPlace() throws {
        var rng = SeededRandom(seed: 13)
        var city = City()
        city.square(16_000, side: 8_000, keyword: "cafe", share: 0.02, &rng)
        for i in 0..<30 { city.add(-1_160 + Double(i) * 40, rng.uniform(-3, 3), "cafe") }
        for i in 0..<30 { city.add(400 + Double(i) * 10, rng.uniform(-3, 3), "cafe") }
        for x in stride(from: -1_500.0, through: 1_500, by: 10) { city.add(x, rng.uniform(-4, 4), "shop") }
        let found = try DensityHierarchyTests.run(city, keyword: "cafe")
        let street = DensityRegionFinderTests.regions(near: -600, 0, found)
        XCTAssertEqual(street.count, 1)
        XCTAssertLessThan(street.first.map { r in r.members.map { found.localX[Int($0)] }.max() ?? 0 } ?? 0, 200)
        let row = DensityRegionFinderTests.regions(near: 550, 0, found)
        XCTAssertEqual(row.count, 1)
        XCTAssertEqual(row.first.map { r in r.members.filter { found.localX[Int($0)] >= 390 }.count }, 30)
    }

    /// A street in open country, 20 km from a city of 16,000 POIs (cafés 2 %): 30 cafés 15 m
    /// apart (x = 20,000…20,435) and 5 more 120 m apart beyond (x = 20,555…21,035), on a street
    /// of shops one every 10 m from x = 19,700 to 21,600 but for x = 20,470…20,550 (80 m),
    /// nothing else around. The POI graph prunes its edges across the stretch without shops (long
    /// for the street at both ends) and has no way round it: it is in two pieces, and a walk of it
    /// from the street's end never meets the cafés beyond. The run looks at every POI within its
    /// reach and takes them along the street (regions stage version 17 and before: it stopped at
    /// x = 20,435). Where the graph does join the cafés beyond, the run takes them as before
    /// (``testAStreetRunsOnThroughItsSparseCafesOnlyAlongAStreetOfShops``).
    func testARunGoesOnPastAStretchWithoutShopsWhereThePOIGraphIsInPieces() throws {
        var rng = SeededRandom(seed: 15)
        var city = City()
        city.square(16_000, side: 8_000, keyword: "cafe", share: 0.02, &rng)
        for i in 0..<30 { city.add(20_000 + Double(i) * 15, 1_500 + rng.uniform(-3, 3), "cafe") }
        for i in 0..<5 { city.add(20_555 + Double(i) * 120, 1_500 + rng.uniform(-2, 2), "cafe") }
        for x in stride(from: 19_700.0, through: 21_600, by: 10) where !(20_470.0...20_550).contains(x) {
            city.add(x, 1_500 + rng.uniform(-4, 4), "shop")
        }
        let found = try DensityHierarchyTests.run(city, keyword: "cafe")
        let line = Self.line(found, x: 20_200, y: 1_500)
        XCTAssertEqual(line.max() ?? 0, 21_035, accuracy: 5, "beyond the stretch: \(line.filter { $0 > 20_450 })")
    }

    /// A dining street that turns a corner where its cafés thin out (16,000 POIs over 8 km, cafés
    /// 2 %): 30 cafés 15 m apart along y = Y (x = 0…435, ±20 m across the street), the street
    /// turning 60° left at (600, Y), and 20 cafés 15 m apart on from 60 m past the corner (±20 m).
    /// Shops stand every 10 m along both legs, at ±20 m, but on the corner's inner side a park
    /// leaves the last 100 m before the corner and the first 100 m after it empty: the straight
    /// line from the last café of the first leg to the first of the second cuts across the park.
    /// - A, Y = 1,500: the street as told; the run from the first leg follows the street round
    ///   the corner, along the shops on its outer side, and the two legs are one region.
    /// - B, Y = −1,500: the same cafés, no shops on the second leg and none past x = 450 on the
    ///   first: open ground round the corner, two regions.
    static func corner(_ y0: Double, shops: Bool, _ city: inout City, _ rng: inout SeededRandom) {
        let turn = 60.0 * Double.pi / 180
        let (ux, uy) = (cos(turn), sin(turn))
        // (along, across) on leg 2 (from the corner, across positive to its left) to x, y.
        func leg2(_ t: Double, _ s: Double) -> (Double, Double) { (600 + t * ux - s * uy, y0 + t * uy + s * ux) }
        for i in 0..<30 { city.add(Double(i) * 15, y0 + rng.uniform(-20, 20), "cafe") }
        for i in 0..<20 {
            let (x, y) = leg2(60 + Double(i) * 15, rng.uniform(-20, 20))
            city.add(x, y, "cafe")
        }
        for x in stride(from: -300.0, through: shops ? 600 : 450, by: 10) {
            city.add(x, y0 - 20 + rng.uniform(-2, 2), "shop")  // the outer side
            if x < 500 { city.add(x, y0 + 20 + rng.uniform(-2, 2), "shop") }  // the inner side, up to the park
        }
        guard shops else { return }
        for t in stride(from: 0.0, through: 900, by: 10) {
            let (ox, oy) = leg2(t, -20 + rng.uniform(-2, 2))
            city.add(ox, oy, "shop")
            if t > 100 {
                let (ix, iy) = leg2(t, 20 + rng.uniform(-2, 2))
                city.add(ix, iy, "shop")
            }
        }
    }

    func testAStreetRunsOnRoundACornerAlongItsShops() throws {
        var rng = SeededRandom(seed: 14)
        var city = City()
        city.square(16_000, side: 8_000, keyword: "cafe", share: 0.02, &rng)
        Self.corner(1_500, shops: true, &city, &rng)
        Self.corner(-1_500, shops: false, &city, &rng)
        let found = try DensityHierarchyTests.run(city, keyword: "cafe")
        // The second leg's cafés: 60…345 m past the corner, at 60°.
        func secondLeg(_ y0: Double) -> [(Double, Double)] {
            (0..<20).map { i in
                let t = 60 + Double(i) * 15
                return (600 + t * cos(Double.pi / 3), y0 + t * sin(Double.pi / 3))
            }
        }
        for (y0, joined) in [(1_500.0, true), (-1_500.0, false)] {
            let first = DensityRegionFinderTests.regions(near: 200, y0, found)
            XCTAssertEqual(first.count, 1, "one region on the first leg at y \(y0)")
            let onSecond = secondLeg(y0).filter { p in
                first.first.map { r in
                    r.members.contains { hypot(found.localX[Int($0)] - p.0, found.localY[Int($0)] - p.1) < 25 }
                } ?? false
            }
            if joined {
                XCTAssertEqual(onSecond.count, 20, "the first leg's region holds the second leg at y \(y0)")
            } else {
                XCTAssertTrue(onSecond.isEmpty, "no second-leg café joins across open ground at y \(y0)")
                let second = DensityRegionFinderTests.regions(near: secondLeg(y0)[10].0, secondLeg(y0)[10].1, found)
                XCTAssertEqual(second.count, 1, "the second leg is a region of its own at y \(y0)")
            }
        }
    }

    /// ``StreetRunOn/continues(_:chain:other:street:run:kg:aspect:widest:otherCentre:)``: a street of 30
    /// cafés along the x axis (x = 0…435, ±3 m, its centre line from x = 30 to 405, half-width
    /// 5 m) whose run took cafés at x = 555 and 675 and reached x = 1,000. A row of 10 cafés there
    /// (x = 1,000…1,135) continues it: the line runs on to x = 1,135 and every café is within 3 m
    /// of it. A district of 60 cafés on a 15 m grid (5 rows of 12, y = −30…30) is a band 30 m wide
    /// on either side by nine in ten of the 92 cafés: wider than 10 m, so no; with no limit on
    /// the width, the 1,165 m line is more than 4 × 60 m long, so yes; at aspect 200 neither is a
    /// street (the row's line, 1,105 m, is shorter than 200 × 10 m).
    func testASetContinuesAStreetOnlyAtTheStreetsWidth() {
        var rng = SeededRandom(seed: 5)
        var street: [(Double, Double)] = (0..<30).map { (Double($0) * 15, rng.uniform(-3, 3)) }
        street += [(555, 1), (675, -1)]
        let row: [(Double, Double)] = (0..<10).map { (1_000 + Double($0) * 15, rng.uniform(-3, 3)) }
        var district: [(Double, Double)] = []
        for i in 0..<5 { for j in 0..<12 { district.append((1_000 + Double(j) * 15, -30 + Double(i) * 15)) } }
        let end = StreetRunOn.StreetEnd(position: 29, heading: 0, halfWidth: 5, line: [(30, 0), (405, 0)])
        func continues(_ other: [(Double, Double)], aspect: Double = 4, widest: Double = 10) -> Bool {
            let (kg, _) = DensityRegionFinderTests.keywordGraph(street + other)
            let otherPositions = (32..<Int32(32 + other.count)).map { $0 }
            return StreetRunOn.continues(
                end, chain: [29, 30, 31, 32], other: otherPositions, street: (0..<30).map { $0 }, run: [30, 31], kg: kg,
                aspect: aspect, widest: widest)
        }
        XCTAssertTrue(continues(row))
        XCTAssertFalse(continues(row, aspect: 200))
        XCTAssertFalse(continues(district))
        XCTAssertTrue(continues(district, widest: .infinity))
        XCTAssertFalse(continues(district, aspect: 200, widest: .infinity))
    }

    /// ``StreetRunOn/onwards(_:from:heading:)``: a street's centre line from (0, 0) to (400, 0)
    /// reached heading east at (−20, 0) goes on as it is; reached at (420, 0) heading west, it goes
    /// on reversed; reached at its end heading north-east (45°) it still does, but not heading
    /// north (90°: square across it), nor at its middle (200, 10) heading east.
    func testARunGoesOnAlongAStreetOnlyFromNearItsEndAndAtMost60DegreesAcross() throws {
        let centre: [(x: Double, y: Double)] = [(0, 0), (100, 0), (200, 0), (300, 0), (400, 0)]
        func xs(_ line: [(x: Double, y: Double)]?) -> [Double]? { line?.map(\.x) }
        XCTAssertEqual(xs(StreetRunOn.onwards(centre, from: (-20, 0), heading: (1, 0))), [0, 100, 200, 300, 400])
        XCTAssertEqual(xs(StreetRunOn.onwards(centre, from: (420, 0), heading: (-1, 0))), [400, 300, 200, 100, 0])
        XCTAssertNotNil(StreetRunOn.onwards(centre, from: (-20, -20), heading: (1, 1)))
        XCTAssertNil(StreetRunOn.onwards(centre, from: (0, -20), heading: (0, 1)))
        XCTAssertNil(StreetRunOn.onwards(centre, from: (200, 10), heading: (1, 0)))
    }

    /// ``StreetRunOn/continues(_:chain:other:street:run:kg:aspect:widest:otherCentre:)`` judges
    /// the street where it meets the other set: a street of 30 cafés along the x axis (x = 0…435,
    /// ±3 m, half-width 5 m) with 6 more 90 m off it (a lobe of 36), and a row of 10 cafés going
    /// on from x = 560 (to 695). With the lobe at the street's far end (x = 0…75) the row
    /// continues the street: within the row's reach from the street's end (260 m) the street's
    /// members are all on its line. With the lobe beside the junction (x = 360…435) they are
    /// not (a sixth of the 46 cafés, 90 m off a band 10 m wide).
    func testWhetherASetContinuesAStreetIsJudgedWhereTheyMeet() {
        var rng = SeededRandom(seed: 6)
        let street: [(Double, Double)] = (0..<30).map { (Double($0) * 15, rng.uniform(-3, 3)) }
        let row: [(Double, Double)] = (0..<10).map { (560 + Double($0) * 15, rng.uniform(-3, 3)) }
        let end = StreetRunOn.StreetEnd(position: 29, heading: 0, halfWidth: 5, line: [(30, 0), (405, 0)])
        func continues(lobeFrom x0: Double) -> Bool {
            let lobe: [(Double, Double)] = (0..<6).map { (x0 + Double($0) * 15, 90) }
            let (kg, _) = DensityRegionFinderTests.keywordGraph(street + lobe + row)
            return StreetRunOn.continues(
                end, chain: [29, 36], other: (36..<46).map { $0 }, street: (0..<36).map { $0 }, run: [], kg: kg,
                aspect: 4, widest: 10)
        }
        XCTAssertTrue(continues(lobeFrom: 0))
        XCTAssertFalse(continues(lobeFrom: 360))
    }

    /// ``StreetRunOn/joined(_:_:)``: sets joined by runs, transitively, become one set at the place
    /// of the first, with the runs of all of them; sets no run joined stay as they are.
    func testJoinedMakesOneSetOfEachGroupOfJoinedSets() {
        let sets: [[Int32]] = [[0, 5], [1, 2], [3], [4, 9]]
        var runs = [StreetRunOn.RunOn](repeating: .init(), count: 4)
        runs[3].joins = [1]
        runs[3].added = [7]
        runs[3].edges = [(4, 7), (7, 2)]
        runs[1].joins = [2]
        runs[0].added = [6, 8]
        let (joinedSets, joinedRuns) = StreetRunOn.joined(sets, runs)
        XCTAssertEqual(joinedSets, [[0, 5], [1, 2, 3, 4, 9]])
        XCTAssertEqual(joinedRuns.map(\.added), [[6, 8], [7]])
        XCTAssertEqual(joinedRuns[1].edges.map { [$0.a, $0.b] }, [[4, 7], [7, 2]])
        let (same, _) = StreetRunOn.joined(sets, [StreetRunOn.RunOn](repeating: .init(), count: 4))
        XCTAssertEqual(same, sets)
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
        func ends(_ points: [(Double, Double)], aspect: Double = 4) -> [StreetRunOn.StreetEnd] {
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

    /// A perfectly straight café street (30 cafés 15 m apart, exactly on y = 0) with no spacing
    /// floor (`min_spacing_m` 0): its half-width is 0, and a band of no width counted as
    /// infinitely many directions, which trapped converting that to an integer. Its run now runs
    /// on nowhere: no step or leg takes the cafés further along the line.
    func testAStreetOfNoWidthRunsOnNowhere() throws {
        var px: [Double] = (0..<30).map { Double($0) * 15 } + [480, 540, 600]
        var py = [Double](repeating: 0, count: 33)
        for i in 0..<40 {
            for j in 0..<40 where j != 20 {
                px.append(Double(i) * 25 - 400)
                py.append(Double(j - 20) * 25)
            }
        }
        let (graph, x, y, kg) = try DensityRegionFinderTests.cityGraphs(
            px, py, keywordCount: 33, rules: KeywordGraph.Rules(minSpacing: 0))
        let street = (0..<Int32(30)).map { Int32(kg.geometry.position(of: UInt32($0))!) }.sorted()
        XCTAssertEqual(
            StreetRunOn.spine(street, edges: kg.geometry.edges.indices.filter { kg.geometry.lengths[$0] > 0 }, kg: kg)?
                .halfWidth, 0)
        var support = PathSupport(graph: graph, x: x, y: y)
        let runs = StreetRunOn(gap: 3, aspect: 4, x: x, y: y, graph: graph).extend(
            [street], kg: kg, reference: { _ in 1e-5 }, eligible: { _ in true }, support: &support)
        XCTAssertEqual(runs.count, 1)
        XCTAssertEqual(runs.first?.added ?? [-1], [])
    }
}
