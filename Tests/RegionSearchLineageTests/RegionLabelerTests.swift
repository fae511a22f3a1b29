import XCTest

@testable import RegionSearchLineage

/// Each labelling rule on data made to fire it, and the data that must leave a region unlabelled.
final class RegionLabelerTests: XCTestCase {
    typealias F = LineageFixtures
    let square = F.square(east: 0, north: 0, side: 400)

    func place(_ name: String, east: Double, north: Double, kind: String = "neighbourhood") -> RegionLabeler.Place {
        RegionLabeler.Place(
            name: name, kind: kind, lon: F.originLon + east / F.metresPerDegreeLon,
            lat: F.originLat + north / F.metresPerDegreeLat)
    }

    func testAPlaceInsideWinsOverTheStreet() {
        let labeler = RegionLabeler(places: [place("Far", east: 150, north: 150), place("Near", east: 20, north: 0)])
        let members = RegionLabeler.Members(names: ["a", "b", "c"], streets: ["Clark St", "Clark St", "Clark St"])
        XCTAssertEqual(labeler.label(keyword: "restaurant", polygons: square, members: members)?.label, "Near")
        XCTAssertEqual(labeler.label(keyword: "restaurant", polygons: square, members: members)?.rule, "place")
    }

    func testTheStreetMostPOIsShare() {
        let labeler = RegionLabeler(places: [])
        // 4 of the 6 that name a street, 4 of 9 POIs: a street label.
        let streets = ["N Clark St", "N Clark St", "N Clark St", "N Clark St", "W Belmont Ave", "Broadway", "", "", ""]
        let members = RegionLabeler.Members(names: Array(repeating: "", count: 9), streets: streets)
        let l = labeler.label(keyword: "restaurant", polygons: square, members: members)
        XCTAssertEqual(l?.label, "N Clark St")
        XCTAssertEqual(l?.rule, "street")
        // 3 of 7 naming a street is no majority.
        let split = ["A St", "A St", "A St", "B St", "B St", "C St", "D St"]
        XCTAssertNil(labeler.label(keyword: "restaurant", polygons: square, members: .init(names: [], streets: split)))
        // A majority of a quarter of the POIs is too few (2 of 12 name a street).
        XCTAssertNil(
            labeler.label(
                keyword: "restaurant", polygons: square,
                members: .init(names: [], streets: ["A St", "A St"] + Array(repeating: "", count: 10))))
    }

    func testTheNearestPlaceWithinReachAndNotBeyond() {
        // The square is 400 m wide: reach = max(500 m, 2 × √(160,000/π) ≈ 451 m) = 500 m.
        let near = RegionLabeler(places: [place("Lakeview", east: 450, north: 0)])
        XCTAssertEqual(
            near.label(keyword: "cafe", polygons: square, members: .init(names: [], streets: []))?.rule, "nearest_place"
        )
        let far = RegionLabeler(places: [place("Lakeview", east: 900, north: 0)])
        XCTAssertNil(far.label(keyword: "cafe", polygons: square, members: .init(names: [], streets: [])))
        // A city (not a neighbourhood, suburb or quarter) never names a region.
        let city = RegionLabeler(places: [place("Chicago", east: 0, north: 0, kind: "city")])
        XCTAssertNil(city.label(keyword: "cafe", polygons: square, members: .init(names: [], streets: [])))
    }

    func testADistinctiveWordButNotACommonOne() {
        var labeler = RegionLabeler(places: [])
        // Across the keyword: 100 named restaurants, 2 say "Chinatown", 30 say "Grill".
        let all =
            Array(repeating: "Chinatown Noodle", count: 2) + Array(repeating: "Grill House", count: 30)
            + (0..<68).map { "Place \($0)" }
        labeler.addKeywordNames("restaurant", names: all)
        let here = ["Chinatown Noodle", "Chinatown Dumpling", "Golden Chinatown", "Grill House", "Other"]
        let l = labeler.label(keyword: "restaurant", polygons: square, members: .init(names: here, streets: []))
        XCTAssertEqual(l?.label, "Chinatown")
        XCTAssertEqual(l?.rule, "name_token")
        // "Grill" in 3 of 5 here (60 %) but 30 % everywhere: not 5 times as common.
        let grills = ["Grill House", "Grill Two", "Grill Three", "Alpha", "Beta"]
        XCTAssertNil(labeler.label(keyword: "restaurant", polygons: square, members: .init(names: grills, streets: [])))
    }

    func testTheKeywordOrAKindOfPlaceIsNeverAName() {
        var labeler = RegionLabeler(places: [])
        // D.C. 2017: "Restaurant" in 5 of 9 names of one small region, in 8 % of all restaurants.
        let all = Array(repeating: "Some Restaurant", count: 8) + (0..<92).map { "Place \($0)" }
        labeler.addKeywordNames("restaurant", names: all)
        let here = [
            "Queen Makeda", "Shashemene Ethiopian Restaurant", "Ambassador Restaurant", "Axum Restaurant",
            "Salina Restaurant", "Yegna", "Expo Restaurant & Nightclub", "El Sol de America", "Portico",
        ]
        XCTAssertNil(labeler.label(keyword: "restaurant", polygons: square, members: .init(names: here, streets: [])))
        // Not the keyword, but as common: "Grill" on 8 % of all names is a kind of place too.
        labeler.addKeywordNames(
            "fast_food", names: all.map { $0.replacingOccurrences(of: "Restaurant", with: "Grill") })
        let grills = here.map { $0.replacingOccurrences(of: "Restaurant", with: "Grill") }
        XCTAssertNil(labeler.label(keyword: "fast_food", polygons: square, members: .init(names: grills, streets: [])))
    }

    func testNamesAndCategoriesOnlyLeaveARegionUnlabelled() {
        // D.C.'s yearly dumps: names, no streets, no place nodes, no shared word.
        var labeler = RegionLabeler(places: [])
        labeler.addKeywordNames(
            "restaurant", names: ["Bistro Du Coin", "Lauriol Plaza", "Cafe Saint Ex", "Ben's Chili Bowl"])
        let members = RegionLabeler.Members(
            names: ["Bistro Du Coin", "Lauriol Plaza", "Cafe Saint Ex"], streets: ["", "", ""])
        XCTAssertNil(labeler.label(keyword: "restaurant", polygons: square, members: members))
    }
}
