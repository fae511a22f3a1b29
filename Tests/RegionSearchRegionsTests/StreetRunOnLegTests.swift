import XCTest

@testable import RegionSearchCore
@testable import RegionSearchModel
@testable import RegionSearchRegions

/// A street's whole leg judged as one window (``StreetRunOn/leg(_:set:kg:setGap:claimed:support:stamp:round:)``),
/// where a step's band holds too few POIs to be significant: a line of six cafés 80 m apart,
/// turning 30° from a café street's end, is taken whole; not where the cafés around are as dense
/// as the line, nor from a street wider than a street, nor across a river.
final class StreetRunOnLegTests: XCTestCase {
    /// The leg's cafés: (along, across) of leg café `i` (1…6) from the street's end at the origin,
    /// heading 30°.
    static let heading = 30.0 * Double.pi / 180

    static func onLeg(_ along: Double, _ across: Double = 0) -> (Double, Double) {
        (along * cos(heading) - across * sin(heading), along * sin(heading) + across * cos(heading))
    }

    struct Leg {
        /// The leg the run took (keyword positions), or nil.
        var taken: [Int32]?
        var heading: Double?
        /// The keyword positions of the six leg cafés.
        var legCafes: [Int32]
    }

    /// A café street of 30 cafés 15 m apart ending at the origin (x = −435…0), heading east, with
    /// six cafés 80 m apart (80…480 m) on a leg turning 30° north, on a street with a shop every
    /// 20 m; shops of other kinds on a 25 m grid over a 4 km square. With `river`, no POI stands in a band 150 m wide across the
    /// leg (20…170 m along it), and the leg's first two cafés stand at 180 and 200 m. `ground`:
    /// more cafés spread evenly within 1.8 km. The run stands at the street's last café, heading east, with the street's
    /// half-width `halfWidth`, a reach of 600 m (a typical spacing of 400 m) and a gap of 120 m.
    func leg(ground: Int = 0, halfWidth: Double = 5, river: Bool = false, otherSetHolds: Int? = nil) throws -> Leg {
        var rng = SeededRandom(seed: 21)
        var cafes: [(Double, Double)] = (0..<30).map { (Double($0 - 29) * 15, rng.uniform(-2, 2)) }
        let along = river ? [180.0, 200, 240, 320, 400, 480] : [80.0, 160, 240, 320, 400, 480]
        let legStart = cafes.count
        for a in along { cafes.append(Self.onLeg(a, rng.uniform(-2, 2))) }
        for _ in 0..<ground {
            let r = 1_800 * rng.uniform(0, 1).squareRoot()
            let t = rng.uniform(0, 2 * .pi)
            cafes.append((r * cos(t), r * sin(t)))
        }
        var px = cafes.map(\.0)
        var py = cafes.map(\.1)
        // The leg's street: a shop every 20 m within 3 m of its line.
        for a in stride(from: 10.0, through: 500, by: 20) where !river || a <= 20 || a >= 170 {
            let (sx, sy) = Self.onLeg(a, rng.uniform(-3, 3))
            px.append(sx)
            py.append(sy)
        }
        for i in 0..<160 {
            for j in 0..<160 {
                let (sx, sy) = (Double(i) * 25 - 2_000 + 12.5, Double(j) * 25 - 2_000 + 12.5)
                // The river: a band across the leg, 20…170 m along it, holds no POI.
                let a = sx * cos(Self.heading) + sy * sin(Self.heading)
                if river && a > 20 && a < 170 { continue }
                px.append(sx)
                py.append(sy)
            }
        }
        let (graph, x, y, kg) = try DensityRegionFinderTests.cityGraphs(px, py, keywordCount: cafes.count)
        let position = { (poi: Int) -> Int32 in Int32(kg.geometry.position(of: UInt32(poi))!) }
        var claimed = [Int32](repeating: -1, count: kg.count)
        for i in 0..<30 { claimed[Int(position(i))] = 0 }
        if let i = otherSetHolds { claimed[Int(position(legStart + i))] = 1 }
        let runOn = StreetRunOn(gap: 3, aspect: 4, x: x, y: y, graph: graph)
        var support = PathSupport(graph: graph, x: x, y: y)
        var stamp = [UInt32](repeating: 0, count: px.count)
        var round: UInt32 = 0
        let walk = StreetRunOn.Walk(from: Int(position(29)), heading: 0, halfWidth: halfWidth, reach: 600, gap: 120)
        let found = runOn.leg(
            walk, set: 0, kg: kg, setGap: [120, 120], claimed: claimed, support: &support, stamp: &stamp, round: &round)
        return Leg(taken: found?.taken, heading: found?.heading, legCafes: (legStart..<legStart + 6).map(position))
    }

    func testALineOfCafesOnFromAStreetIsTakenWholeInItsDirection() throws {
        let leg = try leg()
        XCTAssertEqual(leg.taken, leg.legCafes, "the six cafés in order along the leg")
        // Its direction runs through its cafés (each within 2 m of the line at 30°).
        XCTAssertEqual(leg.heading ?? 0, Self.heading, accuracy: 1 * Double.pi / 180)
        // A street wider than a street takes no leg.
        XCTAssertNil(try self.leg(halfWidth: 60).taken)
    }

    /// The leg's fourth café a member of another set: the leg ends before it, with the three
    /// before it (the run's next step may reach the other set and join it).
    func testALegEndsBeforeAMemberOfAnotherSet() throws {
        let leg = try leg(otherSetHolds: 3)
        XCTAssertEqual(leg.taken, Array(leg.legCafes.prefix(3)))
    }

    /// With 2,000 cafés spread evenly within 1.8 km (196 per km², 30 times the reference) the six
    /// are about what a band of that length holds by chance there; judged against the reference
    /// alone they would be taken.
    func testALineNoDenserThanTheCafesAroundIsNoLeg() throws {
        XCTAssertNil(try leg(ground: 2_000).taken)
    }

    /// The leg's first café 180 m along it, past a river 150 m wide without POIs: no hop crosses.
    func testALegDoesNotCrossARiver() throws {
        XCTAssertNil(try leg(river: true).taken)
    }

    /// Through the regions stage's own search (``DensityHierarchy``): 16,000 POIs over 8 km
    /// (cafés 2 %, a typical spacing of about 450 m), a café street of 30 cafés 15 m apart
    /// (x = 0…435, y = 1,500) and the six cafés 80 m apart on a leg turning 30° from its east
    /// end, with no street of shops under them: one step's band ahead is no denser in POIs of
    /// any kind than around, so only the leg as a whole takes them. The level-0 region holds them
    /// all; a district of 60 cafés at y = −1,500 with the same six cafés off its east side (a
    /// district has no street end) takes none.
    func testAStreetsRegionHoldsItsSparseLastLeg() throws {
        var rng = SeededRandom(seed: 22)
        var city = DensityHierarchyTests.City()
        city.square(16_000, side: 8_000, keyword: "cafe", share: 0.02, &rng)
        for i in 0..<30 { city.add(Double(i) * 15, 1_500 + rng.uniform(-3, 3), "cafe") }
        for row in 0..<6 { for column in 0..<10 { city.add(Double(column) * 15, -1_537.5 + Double(row) * 15, "cafe") } }
        var leg: [(Double, Double)] = []
        for (x0, y0) in [(435.0, 1_500.0), (135, -1_500)] {
            for i in 1...6 {
                let (dx, dy) = Self.onLeg(Double(i) * 80, rng.uniform(-2, 2))
                city.add(x0 + dx, y0 + dy, "cafe")
                leg.append((x0 + dx, y0 + dy))
            }
        }
        let found = try DensityHierarchyTests.run(city, keyword: "cafe")
        func taken(nearX x: Double, _ y: Double, of cafes: ArraySlice<(Double, Double)>) -> Int {
            let regions = DensityRegionFinderTests.regions(near: x, y, found)
            XCTAssertEqual(regions.count, 1, "one region at (\(x), \(y))")
            guard let region = regions.first else { return 0 }
            return cafes.filter { c in
                region.members.contains { hypot(found.localX[Int($0)] - c.0, found.localY[Int($0)] - c.1) < 1 }
            }.count
        }
        XCTAssertEqual(taken(nearX: 200, 1_500, of: leg[0..<6]), 6, "the street's region holds its leg")
        XCTAssertEqual(taken(nearX: 60, -1_500, of: leg[6..<12]), 0, "the district takes none")
    }
}
