import XCTest

@testable import RegionSearchCore
@testable import RegionSearchModel
@testable import RegionSearchRegions

/// The one-level density measure's outlying members (``DensityRegionFinder``,
/// `regions.outlier_spacing`) on a city built point by point: a café street with one café off to
/// its side, and two café clusters with one café between them. Both lone cafés are dense by their
/// k-th neighbour (the street, the clusters), so without the rule the street grows an arm out to
/// the first and the clusters are one region through the second.
final class DensityRegionFinderTests: XCTestCase {
    typealias City = DensityHierarchyTests.City

    /// 16,000 POIs over 8 km (cafés 2 %), a street of 40 cafés 10 m apart from (0, 0) to (390, 0),
    /// a café 60 m north of its middle, two clusters of 30 cafés within 40 m of (2000, 0) and
    /// (2200, 0), and a café halfway between them.
    static func streetAndClusters() -> City {
        var rng = SeededRandom(seed: 5)
        var city = City()
        city.square(16_000, side: 8_000, keyword: "cafe", share: 0.02, &rng)
        for i in 0..<40 { city.add(Double(i) * 10 + rng.uniform(-2, 2), rng.uniform(-2, 2), "cafe") }
        city.add(195, 60, "cafe")
        city.disc(30, r: 40, cx: 2_000, cy: 0, category: "cafe", &rng)
        city.disc(30, r: 40, cx: 2_200, cy: 0, category: "cafe", &rng)
        city.add(2_100, 0, "cafe")
        return city
    }

    /// Level-0 regions of `outcome` with a member within 50 m of (x, y).
    static func regions(near x: Double, _ y: Double, _ o: DensityHierarchyTests.Outcome) -> [RegionTable.Region] {
        o.table.regions.filter { r in
            r.level == 0
                && r.members.contains { hypot(o.localX[Int($0)] - x, o.localY[Int($0)] - y) <= 50 }
        }
    }

    static func holds(_ r: RegionTable.Region, _ x: Double, _ y: Double, _ o: DensityHierarchyTests.Outcome) -> Bool {
        r.members.contains { hypot(o.localX[Int($0)] - x, o.localY[Int($0)] - y) < 1 }
    }

    func testALoneMemberBesideAStreetOrBetweenClustersIsLeftOut() throws {
        let city = Self.streetAndClusters()
        let trimmed = try DensityHierarchyTests.run(city, keyword: "cafe")
        let kept = try DensityHierarchyTests.run(
            city, keyword: "cafe", overrides: [(RegionOptions.outlierSpacingSpec.key, .number(0))])

        // The street: one region, all but at most two of its cafés, not the café beside it.
        let street = Self.regions(near: 195, 0, trimmed)
        XCTAssertEqual(street.count, 1)
        let streetMembers = street.first?.members.filter { abs(trimmed.localY[Int($0)]) < 5 }.count ?? 0
        XCTAssertGreaterThanOrEqual(streetMembers, 38)
        XCTAssertFalse(street.contains { Self.holds($0, 195, 60, trimmed) }, "no arm out to the café beside it")
        // The clusters: two regions, neither holding the café between them.
        let left = Self.regions(near: 2_000, 0, trimmed)
        let right = Self.regions(near: 2_200, 0, trimmed)
        XCTAssertEqual(left.count, 1)
        XCTAssertEqual(right.count, 1)
        XCTAssertNotEqual(left.first?.members, right.first?.members, "two regions, no corridor")
        XCTAssertFalse((left + right).contains { Self.holds($0, 2_100, 0, trimmed) })

        // The control: with every member kept, the street holds the café beside it and the
        // clusters are one region through the café between them — what the rule removes.
        XCTAssertTrue(Self.regions(near: 195, 0, kept).contains { Self.holds($0, 195, 60, kept) })
        let joined = Self.regions(near: 2_000, 0, kept)
        XCTAssertEqual(joined.count, 1)
        XCTAssertTrue(joined.allSatisfy { Self.holds($0, 2_100, 0, kept) })
        XCTAssertEqual(joined.first?.members, Self.regions(near: 2_200, 0, kept).first?.members)
    }
}
