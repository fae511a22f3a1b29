import Foundation
import XCTest

@testable import RegionSearchCore
@testable import RegionSearchEvaluation
@testable import RegionSearchOutput
@testable import RegionSearchProjection
@testable import RegionSearchTestSupport

/// Region checks (spacing, empty share, area, density), member recall and must-not shares against
/// hand-computed answers and brute force (shapes drawn in UTM metres, measured in that CRS).
final class RegionCheckTests: XCTestCase {
    typealias F = EvaluateFixtures

    private func score(
        regions: [RegionFeature], truth: [RegionFeature] = [],
        pois: [(id: String, category: String, x: Double, y: Double)],
        members: PlantedMembers? = nil, mustNot: [RegionFeature]? = nil, options: CheckOptions = CheckOptions()
    ) throws -> TruthScore {
        var e = F.evaluator
        e.checks = options
        return try e.scoreTruth(
            regions: F.file("regions", regions), truth: F.file("truth", truth), pois: F.pois(pois), members: members,
            mustNot: mustNot.map { F.file("must-not", $0) })
    }

    // MARK: - Spacing

    /// The grid search equals a brute-force scan of distinct locations, for every k and point.
    func testKthNearestOtherLocationMatchesBruteForce() {
        var rng = SeededRandom(seed: 5)
        for trial in 0..<30 {
            let n = 1 + rng.below(300)
            // Integer coordinates on a small grid, so coincident points are common; sometimes a thin strip.
            let width = Double(5 + rng.below(200))
            let height = trial % 3 == 0 ? 2.0 : Double(5 + rng.below(200))
            let xs = (0..<n).map { _ in Double(rng.below(Int(width))) }
            let ys = (0..<n).map { _ in Double(rng.below(Int(height))) }
            let index = LocationIndex(x: xs, y: ys)
            var distinct: [(Double, Double)] = []
            for i in 0..<n where !distinct.contains(where: { $0 == (xs[i], ys[i]) }) { distinct.append((xs[i], ys[i])) }
            XCTAssertEqual(index.count, distinct.count)
            for k in [1, 2, 5, 9] {
                for i in 0..<min(n, 40) {
                    let d = distinct.filter { $0 != (xs[i], ys[i]) }.map { hypot($0.0 - xs[i], $0.1 - ys[i]) }.sorted()
                    let expected: Double? = d.count >= k ? d[k - 1] : nil
                    XCTAssertEqual(index.kthNearestOther(x: xs[i], y: ys[i], k: k), expected, "trial \(trial) k \(k)")
                }
            }
        }
    }

    // MARK: - Empty share

    /// A 1 km square with five 2 m holes; three coincident keyword POIs at the centre, five more
    /// in the holes 50 m away (outside the polygon). Spacing = 50 m (the five other locations),
    /// so one disc of 100 m covers π·100² of the polygon less the holes it contains.
    func testSquareWithOneDiscHasAKnownEmptyShare() throws {
        let angles = (0..<5).map { Double($0) * 2 * .pi / 5 }
        let centres = angles.map { (500 + 50 * cos($0), 500 + 50 * sin($0)) }
        let holes = centres.map { F.rectangle($0.0 - 1, $0.1 - 1, $0.0 + 1, $0.1 + 1) }
        var points: [(id: String, category: String, x: Double, y: Double)] = [
            ("c1", "cafe", 500, 500), ("c2", "cafe", 500, 500), ("c3", "cafe", 500, 500), ("b", "bank", 600, 600),
        ]
        points += centres.enumerated().map { ("h\($0.offset)", "cafe", $0.element.0, $0.element.1) }
        let region = RegionFeature(
            id: .number(0), keyword: "cafe", polygons: [([F.square(0, 0)] + holes).map(F.lonLat)], index: 0)
        let s = try score(regions: [region], pois: points)
        let c = try XCTUnwrap(s.regionChecks.first)
        XCTAssertEqual(c.keywordPOIs, 3)
        XCTAssertEqual(c.keywordLocations, 1)
        XCTAssertEqual(try XCTUnwrap(c.spacing), 50, accuracy: 1e-6)
        XCTAssertEqual(c.area, 1e6 - 20, accuracy: 1e-4)
        XCTAssertEqual(try XCTUnwrap(c.emptyShare), (1e6 - .pi * 1e4) / (1e6 - 20), accuracy: 1e-7)
        XCTAssertEqual(try XCTUnwrap(c.density), 3 / ((1e6 - 20) / 1e6), accuracy: 1e-9)
        // Discs of one spacing (50 m): the holes sit on the disc's rim, so about half of each (10 m²
        // in all) lies inside it; the closed form without them holds to 20 m².
        var options = CheckOptions()
        options.discFactor = 1
        let one = try XCTUnwrap(try score(regions: [region], pois: points, options: options).regionChecks.first)
        XCTAssertEqual(try XCTUnwrap(one.emptyShare), 1 - .pi * 2500 / (1e6 - 20), accuracy: 20 / 1e6)
    }

    /// Keyword POIs on a 50 m lattice over a 200 m square: the discs (≥ 141 m) cover it.
    func testLatticeCoversTheSquareAndFewLocationsLeaveItUndefined() throws {
        var points: [(id: String, category: String, x: Double, y: Double)] = []
        for i in 0...4 {
            for j in 0...4 { points.append(("\(i)-\(j)", "bank", Double(i) * 50, Double(j) * 50)) }
        }
        let square = F.rectangle(-10, -10, 210, 210)
        let s = try score(regions: [F.feature(0, "bank", square)], pois: points)
        let c = try XCTUnwrap(s.regionChecks.first)
        XCTAssertEqual(c.keywordPOIs, 25)
        // Interior lattice points: 4 at 50 m, then 70.7 m; edge and corner points farther: median 70.7 m.
        XCTAssertEqual(try XCTUnwrap(c.spacing), 50 * 2.0.squareRoot(), accuracy: 1e-6)
        XCTAssertEqual(try XCTUnwrap(c.emptyShare), 0, accuracy: 1e-9)

        // Five bank locations in all: no 5th other location, so spacing and empty share are undefined.
        let few = try score(
            regions: [F.feature(0, "bank", square)], pois: Array(points.prefix(5)))
        XCTAssertNil(few.regionChecks[0].spacing)
        XCTAssertNil(few.regionChecks[0].emptyShare)
        XCTAssertEqual(few.overall.regionChecks?.undefined, 1)
        XCTAssertTrue(few.notes.contains { $0.contains("spacing is undefined") }, "\(few.notes)")

        // No keyword POI inside: all of the polygon is empty; a wildcard region is not checked.
        let none = try score(
            regions: [F.feature(0, "bank", F.square(2000, 0)), F.feature(1, nil, F.square(0, 0))], pois: points)
        XCTAssertEqual(none.regionChecks.count, 1)
        XCTAssertEqual(none.regionChecks[0].emptyShare, 1)
        XCTAssertNil(none.regionChecks[0].spacing)
        XCTAssertEqual(none.overall.regionChecks?.overEmptyLimit, 1)
        XCTAssertEqual(none.overall.regionChecks?.maxEmptyShare, 1)
    }

    /// A worldwide file (regions in Alaska and Australia: the CRS chosen for the extent is an
    /// equal-area world projection, whose shear 60° from its centre is strong) is checked region by
    /// region in a frame centred on the region: a 2 km lattice at 62° N has its true spacing
    /// (√2 · 2 km, the 5th-nearest lattice neighbour) and discs of 0.75 of it cover its square.
    func testWorldwideRegionsAreMeasuredInTheirOwnFrame() throws {
        let proj = PROJContext()
        func lonLat(_ x: [Double], _ y: [Double], centre: (Double, Double)) throws -> ([Double], [Double]) {
            let t = try proj.transformation(
                from: "EPSG:4326",
                to: "+proj=laea +lat_0=\(centre.1) +lon_0=\(centre.0) +datum=WGS84 +units=m +type=crs")
            var (x, y) = (x, y)
            _ = try t.transform(x: &x, y: &y, inverse: true)
            return (x, y)
        }
        var pois = EvaluationPOIs(path: "pois")
        var features: [RegionFeature] = []
        for (n, centre) in [(-150.0, 62.0), (135.0, -25.0)].enumerated() {
            var xs: [Double] = []
            var ys: [Double] = []
            for i in 0...4 {
                for j in 0...4 {
                    xs.append(Double(i) * 2_000)
                    ys.append(Double(j) * 2_000)
                }
            }
            let (lon, lat) = try lonLat(xs, ys, centre: centre)
            for k in 0..<lon.count {
                pois.append(id: "\(n)-\(k)", keywordText: "seaplane_base", lon: lon[k], lat: lat[k])
            }
            let ring = try lonLat([-500, 8_500, 8_500, -500, -500], [-500, -500, 8_500, 8_500, -500], centre: centre)
            features.append(
                RegionFeature(
                    id: .number(Double(n)), keyword: "seaplane_base",
                    polygons: [[GeoJSONWriter.Ring(lon: ring.0, lat: ring.1)]], index: n))
        }
        var options = CheckOptions()
        options.discFactor = 0.75
        var e = Evaluator()
        e.checks = options
        let checks = try e.checkRegions(RegionFeatureFile(path: "regions", features: features), pois: pois)
        XCTAssertEqual(checks.count, 2)
        for check in checks {
            let c = try XCTUnwrap(check)
            XCTAssertEqual(c.keywordPOIs, 25)
            XCTAssertEqual(try XCTUnwrap(c.spacing), 2_000 * 2.0.squareRoot(), accuracy: 1)
            XCTAssertEqual(c.area, 9_000 * 9_000, accuracy: 9_000 * 9_000 * 1e-6)
            XCTAssertEqual(try XCTUnwrap(c.emptyShare), 0, accuracy: 1e-9)
        }
    }

    /// A polygon's edge is straight in longitude and latitude (RFC 7946), also when it is long: a POI
    /// 10 m inside the middle of a 200 km edge counts, one 10 m outside does not (projected from its
    /// ends alone, the edge would be straight in the metric CRS and lie hundreds of metres away).
    func testALongEdgeIsStraightInLongitudeAndLatitude() throws {
        var pois = EvaluationPOIs(path: "pois")
        let (mx, my, d) = (-112.25, 36.75, 7e-5)
        // The edge runs from (−113, 36) to (−111.5, 37.5); the polygon lies to its north-west.
        pois.append(id: "inside", keywordText: "small_airport", lon: mx - d, lat: my + d)
        pois.append(id: "outside", keywordText: "small_airport", lon: mx + d, lat: my - d)
        let ring = GeoJSONWriter.Ring(lon: [-113, -111.5, -113, -113], lat: [36, 37.5, 37.5, 36])
        let features = [
            RegionFeature(id: .number(1), keyword: "small_airport", polygons: [[ring]], index: 0)
        ]
        let checks = try Evaluator().checkRegions(RegionFeatureFile(path: "regions", features: features), pois: pois)
        XCTAssertEqual(try XCTUnwrap(checks.first ?? nil).keywordPOIs, 1)
        // The ring as projected: each edge in pieces of at most 0.05°.
        let dense = EvaluationLayer.densified(ring)
        XCTAssertEqual(dense.lon.first, -113)
        XCTAssertEqual(dense.lon.count, 30 + 30 + 30 + 1)
        for i in 1..<dense.lon.count {
            XCTAssertLessThanOrEqual(abs(dense.lon[i] - dense.lon[i - 1]), 0.05 + 1e-12)
            XCTAssertLessThanOrEqual(abs(dense.lat[i] - dense.lat[i - 1]), 0.05 + 1e-12)
        }
    }

    /// Random polygons and POIs: spacing by brute force, empty share by sampling a 300 × 300 raster.
    func testEmptyShareMatchesARasterCount() throws {
        var rng = SeededRandom(seed: 11)
        var partly = 0
        for trial in 0..<6 {
            let w = rng.uniform(300, 900)
            let h = rng.uniform(300, 900)
            var points: [(id: String, category: String, x: Double, y: Double)] = []
            // Most POIs in a 150 m clump (a small spacing), the rest scattered, some outside the region;
            // rounded to 5 m so some coincide.
            let cx = rng.uniform(100, w - 100)
            let cy = rng.uniform(100, h - 100)
            for i in 0..<(30 + rng.below(40)) {
                let clumped = rng.uniform() < 0.7
                let x = clumped ? cx + rng.uniform(-75, 75) : rng.uniform(-100, w + 100)
                let y = clumped ? cy + rng.uniform(-75, 75) : rng.uniform(-100, h + 100)
                points.append(("\(i)", i % 4 == 0 ? "bank" : "cafe", (x / 5).rounded() * 5, (y / 5).rounded() * 5))
            }
            let s = try score(regions: [F.feature(0, "cafe", F.rectangle(-4, -4, w, h))], pois: points)
            let c = try XCTUnwrap(s.regionChecks.first)
            let cafes = points.filter { $0.category == "cafe" }
            var locations: [(Double, Double)] = []
            for p in cafes where !locations.contains(where: { $0 == (p.x, p.y) }) { locations.append((p.x, p.y)) }
            let inside = cafes.filter { $0.x >= -4 && $0.x <= w && $0.y >= -4 && $0.y <= h }
            XCTAssertEqual(c.keywordPOIs, inside.count, "trial \(trial)")
            let spacings = inside.map { p in
                locations.filter { $0 != (p.x, p.y) }.map { hypot($0.0 - p.x, $0.1 - p.y) }.sorted()[4]
            }.sorted()
            let m = spacings.count / 2
            let median = spacings.count % 2 == 1 ? spacings[m] : (spacings[m - 1] + spacings[m]) / 2
            XCTAssertEqual(try XCTUnwrap(c.spacing), median, accuracy: 1e-6, "trial \(trial)")
            let r = 2 * median
            var far = 0
            let side = 300
            for i in 0..<side {
                for j in 0..<side {
                    let x = -4 + (Double(i) + 0.5) * (w + 4) / Double(side)
                    let y = -4 + (Double(j) + 0.5) * (h + 4) / Double(side)
                    if !inside.contains(where: { hypot($0.x - x, $0.y - y) <= r }) { far += 1 }
                }
            }
            XCTAssertEqual(
                try XCTUnwrap(c.emptyShare), Double(far) / Double(side * side), accuracy: 0.004, "trial \(trial)")
            if far > side * side / 20 && far < side * side * 19 / 20 { partly += 1 }
        }
        XCTAssertGreaterThanOrEqual(partly, 3, "most trials leave part of the region empty and part covered")
    }

    func testLargeRegionsAreCountedWithTheirDensity() throws {
        let points = (0..<12).map { (id: "\($0)", category: "bank", x: 250 + Double($0) * 200, y: 1000.0) }
        let s = try score(
            regions: [F.feature(0, "bank", F.rectangle(0, 0, 3000, 2000)), F.feature(1, "bank", F.square(5000, 0))],
            pois: points)
        XCTAssertEqual(s.regionChecks[0].area, 6e6, accuracy: 1e-3)
        XCTAssertEqual(try XCTUnwrap(s.regionChecks[0].density), 2, accuracy: 1e-9)
        XCTAssertEqual(s.overall.regionChecks?.overArea, 1)
        XCTAssertEqual(s.overall.regionChecks?.regions, 2)
        XCTAssertTrue(s.table.contains("regions > 5 km²"), s.table)
        let json = s.json
        XCTAssertEqual(json["n_regions_over_max_area"], .number(1))
        XCTAssertEqual(json["regions"]?.arrayValue?[0]["density_per_km2"], .number(2))
        XCTAssertEqual(json["checks"]?["spacing_k"], .number(5))
    }

    // MARK: - Member recall

    private func members(_ rows: [(String, String)]) -> PlantedMembers {
        PlantedMembers(path: "members.csv", ids: rows.map(\.0), clusterIDs: rows.map(\.1))
    }

    /// A 20-member strip along y = 50: POIs every 50 m from x = 0 to 950.
    private func strip(_ prefix: String, y: Double = 50) -> [(id: String, category: String, x: Double, y: Double)] {
        (0..<20).map { (id: "\(prefix)\($0)", category: "restaurant", x: Double($0) * 50, y: y) }
    }

    private func stripTruth(_ id: String, y: Double = 50, kind: String = "strip") -> RegionFeature {
        RegionFeature(
            id: .string(id), keyword: "restaurant", polygons: [[F.lonLat(F.rectangle(-20, y - 20, 970, y + 20))]],
            index: 0, kind: kind)
    }

    func testAStripSplitInTwoRegionsHasFragmentationTwo() throws {
        let pois = strip("s")
        let rows = pois.map { ($0.id, "S") }
        let halves = [
            F.feature(0, "restaurant", F.rectangle(-10, 0, 475, 100)),
            F.feature(1, "restaurant", F.rectangle(480, 0, 960, 100)),
        ]
        let s = try score(regions: halves, truth: [stripTruth("S")], pois: pois, members: members(rows))
        let o = try XCTUnwrap(s.truths[0].members)
        XCTAssertEqual(o.members, 20)
        XCTAssertEqual(o.inside, 20)
        XCTAssertTrue(o.found)
        XCTAssertEqual(o.fragments, 2)
        XCTAssertEqual(o.regionCounts, [.init(region: 0, count: 10), .init(region: 1, count: 10)])
        XCTAssertEqual(s.overall.members?.recall, 1)
        XCTAssertEqual(s.overall.members?.meanFragmentation, 2)
        XCTAssertEqual(s.memberGroups.map(\.label), ["restaurant/strip"])
        let json = s.json
        XCTAssertEqual(json["mean_fragmentation"], .number(2))
        XCTAssertEqual(json["truths"]?.arrayValue?[0]["member_regions"]?.arrayValue?.count, 2)
    }

    func testFoundAtHalfAndFragmentsNeedTwoAndTenPercent() throws {
        // Strip A: 12 members in one region, 1 in another (fewer than 2): found, one fragment.
        // Strip B: exactly 10 of 20 inside: found (≥ 0.5). Strip C: 4 of 20: not found.
        // Strip D (30 members): 3 in a second region is 10 % (a fragment), 2 would not be.
        var pois = strip("a", y: 0) + strip("b", y: 1000) + strip("c", y: 2000)
        pois += (0..<30).map { (id: "d\($0)", category: "restaurant", x: Double($0) * 30, y: 3000) }
        let regions = [
            F.feature(0, "restaurant", F.rectangle(-10, -10, 560, 10)),  // a0…a11
            F.feature(1, "restaurant", F.rectangle(590, -10, 610, 10)),  // a12
            F.feature(2, "restaurant", F.rectangle(-10, 990, 460, 1010)),  // b0…b9
            F.feature(3, "restaurant", F.rectangle(-10, 1990, 160, 2010)),  // c0…c3
            F.feature(4, "restaurant", F.rectangle(-10, 2990, 610, 3010)),  // d0…d20
            F.feature(5, "restaurant", F.rectangle(620, 2990, 700, 3010)),  // d21…d23
            F.feature(6, "cafe", F.rectangle(-10, 1990, 1000, 2010)),  // another keyword: never counts
        ]
        var truth = [stripTruth("A", y: 0), stripTruth("B", y: 1000), stripTruth("C", y: 2000, kind: "district")]
        truth.append(
            RegionFeature(
                id: .string("D"), keyword: "restaurant", polygons: [[F.lonLat(F.rectangle(-20, 2980, 900, 3020))]],
                index: 3, kind: "strip"))
        let rows = pois.map { ($0.id, String($0.id.prefix(1)).uppercased()) } + [("ghost", "A"), ("x1", "Z")]
        let s = try score(regions: regions, truth: truth, pois: pois, members: members(rows))
        let o = s.truths.map { $0.members! }
        XCTAssertEqual(o.map(\.inside), [13, 10, 4, 24])
        XCTAssertEqual(o.map(\.found), [true, true, false, true])
        XCTAssertEqual(o[0].fragments, 1)
        XCTAssertEqual(o[1].fragments, 1)
        XCTAssertEqual(o[3].fragments, 2)
        XCTAssertEqual(s.overall.members, MemberRecall(items: 4, found: 3, fragmentSum: 4))
        XCTAssertEqual(try XCTUnwrap(s.overall.members?.meanFragmentation), 4.0 / 3, accuracy: 1e-12)
        XCTAssertEqual(s.memberGroups.map(\.label), ["restaurant/district", "restaurant/strip"])
        XCTAssertEqual(s.memberGroups[0].recall.recall, 0)
        XCTAssertEqual(s.memberGroups[1].recall, MemberRecall(items: 3, found: 3, fragmentSum: 4))
        // The unknown id is a missing member; cluster Z names no truth.
        XCTAssertTrue(s.notes.contains { $0.contains("name no truth feature (Z)") }, "\(s.notes)")
        XCTAssertFalse(s.notes.contains { $0.contains("more than one truth feature") }, "\(s.notes)")
        // Two truths of one id (two truth files numbered alike) share its member rows: said in a note.
        var twice = truth
        twice[2].id = .string("A")
        let d = try score(regions: regions, truth: twice, pois: pois, members: members(rows))
        XCTAssertTrue(
            d.notes.contains { $0.hasPrefix("1 truth id(s) name more than one truth feature (A): ") }, "\(d.notes)")
        XCTAssertEqual(s.inputs.first { $0.role == "members" }?.skipped, 2)

        // Two more D POIs in region 5 (5 of 30 members) would still be one more fragment; with one
        // fewer (2 of 30 < 3) region 5 is not a fragment.
        var fewer = pois
        fewer.removeAll { $0.id == "d23" }
        let t = try score(regions: regions, truth: truth, pois: fewer, members: members(rows))
        XCTAssertEqual(t.truths[3].members?.members, 29)
        XCTAssertEqual(t.truths[3].members?.fragments, 1, "2 < max(2, 2.9)")
    }

    // MARK: - Must-not

    func testMustNotSharesPerKeyword() throws {
        let region = [
            F.feature(0, "bank", F.square(0, 0)), F.feature(1, "bank", F.rectangle(0, 0, 1000, 500)),
            F.feature(2, "cafe", F.square(3000, 0)),
        ]
        func area(_ id: Int, _ kind: String, _ keyword: String?, _ ring: F.Ring) -> RegionFeature {
            RegionFeature(
                id: .number(Double(id)), keyword: keyword, polygons: [[F.lonLat(ring)]], index: id, kind: kind)
        }
        let mustNot = [
            area(0, "void", nil, F.rectangle(-100, -100, 500, 1100)),  // left half of the bank square
            area(1, "sparse", "bank", F.rectangle(0, 750, 1000, 1000)),  // top quarter
            area(2, "sparse", "cafe", F.rectangle(-5000, -5000, 5000, 5000)),  // all of it, for cafés only
        ]
        let s = try score(regions: region, pois: [], mustNot: mustNot)
        let bank = try XCTUnwrap(s.byKeyword.first { $0.keyword == "bank" }?.metrics.mustNot)
        XCTAssertEqual(bank.regionArea, 1e6, accuracy: 1e-3, "the union of the bank regions")
        XCTAssertEqual(bank.voidShare, 0.5, accuracy: 1e-9)
        XCTAssertEqual(bank.sparseShare, 0.25, accuracy: 1e-9)
        let cafe = try XCTUnwrap(s.byKeyword.first { $0.keyword == "cafe" }?.metrics.mustNot)
        XCTAssertEqual(cafe.voidShare, 0)
        XCTAssertEqual(cafe.sparseShare, 1, accuracy: 1e-9)
        let all = try XCTUnwrap(s.overall.mustNot)
        XCTAssertEqual(all.voidShare, 0.25, accuracy: 1e-9)
        XCTAssertEqual(all.sparseShare, (0.25 + 1) / 2, accuracy: 1e-9)
        XCTAssertEqual(s.json["void_share"], .number(0.25))

        let bad = [area(0, "lake", nil, F.square(0, 0))]
        XCTAssertThrowsError(try score(regions: region, pois: [], mustNot: bad)) { e in
            XCTAssertEqual(
                "\(e)",
                "must-not: not usable GeoJSON: feature 0: a must-not area needs the property \"kind\": \"void\", "
                    + "\"sparse\", \"river\" or \"downtown\", found \"lake\"")
        }
    }

    func testWithoutChecksTheReportIsUnchanged() throws {
        let e = F.evaluator
        let s = try e.scoreTruth(
            regions: F.file("r", [F.feature(0, "bank", F.square(0, 0))]),
            truth: F.file("t", [F.feature(0, "bank", F.square(0, 0))]),
            pois: F.pois([("1", "bank", 10, 10)]), members: members([("1", "0")]))
        XCTAssertNil(s.checkOptions)
        XCTAssertNil(s.overall.members)
        XCTAssertNil(s.json["checks"])
        XCTAssertNil(s.json["member_recall"])
        XCTAssertNil(s.json["truths"]?.arrayValue?[0]["kind"])
    }
}
