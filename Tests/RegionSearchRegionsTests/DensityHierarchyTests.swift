import XCTest

@testable import RegionSearchCore
@testable import RegionSearchGraph
@testable import RegionSearchModel
@testable import RegionSearchOutput
@testable import RegionSearchProjection
@testable import RegionSearchPropagation
@testable import RegionSearchRegions
@testable import RegionSearchStages

/// The density measure's hierarchy (``DensityHierarchy``) on cities built point by point, whose
/// answer is known: nested discs, a town across open country, a uniform null city.
final class DensityHierarchyTests: XCTestCase {
    /// A city in metres around (116.4°E, 39.9°N): its POIs and their categories.
    struct City {
        var x: [Double] = []
        var y: [Double] = []
        var category: [String] = []

        mutating func add(_ px: Double, _ py: Double, _ c: String) {
            x.append(px)
            y.append(py)
            category.append(c)
        }

        /// `n` POIs uniform in the square of side `side` centred at (cx, cy), `share` of them `keyword`.
        mutating func square(
            _ n: Int, side: Double, cx: Double = 0, cy: Double = 0, keyword: String, share: Double,
            _ rng: inout SeededRandom
        ) {
            for _ in 0..<n {
                add(
                    cx + rng.uniform(-side / 2, side / 2), cy + rng.uniform(-side / 2, side / 2),
                    rng.uniform() < share ? keyword : "shop")
            }
        }

        /// `n` POIs uniform in the disc of radius `r` at (cx, cy), all `category`.
        mutating func disc(_ n: Int, r: Double, cx: Double, cy: Double, category: String, _ rng: inout SeededRandom) {
            for _ in 0..<n {
                let a = rng.uniform(0, 2 * .pi)
                let d = r * rng.uniform().squareRoot()
                add(cx + d * cos(a), cy + d * sin(a), category)
            }
        }
    }

    struct Outcome {
        var table: RegionTable
        var points: ProjectedPoints
        var scores: ScoreTable
        var graph: AdjacencyGraph
        /// Local metres of each projected point (its input order), for the checks.
        var localX: [Double]
        var localY: [Double]
    }

    /// project → graph → propagate → regions (density measure), in process, with `overrides` of the
    /// regions stage's parameters; `density` replaces the propagate stage's densities when given.
    static func run(
        _ city: City, keyword: String, overrides: [(String, JSONValue)] = [],
        density: ((ScoreTable, ProjectedPoints) -> [Float])? = nil
    ) throws -> Outcome {
        try run(city, keywords: [keyword], overrides: overrides, density: density.map { d in { [d($0, $1)] } })
    }

    /// The same for several keywords; `density` gives one column per keyword.
    static func run(
        _ city: City, keywords: [String], overrides: [(String, JSONValue)] = [],
        density: ((ScoreTable, ProjectedPoints) -> [[Float]])? = nil
    ) throws -> Outcome {
        let lat0 = 39.9
        let lon = city.x.map { 116.4 + $0 / (111_320 * cos(lat0 * .pi / 180)) }
        let lat = city.y.map { lat0 + $0 / 110_540 }
        let projected = try lon.withUnsafeBufferPointer { a in
            try lat.withUnsafeBufferPointer { b in try Projector.project(lon: a, lat: b, crs: "auto") }
        }
        let p = projected.points
        let (graph, _) = try p.x.withUnsafeBufferPointer { bx in
            try p.y.withUnsafeBufferPointer { by in try GraphBuilder.build(x: bx, y: by, options: GraphOptions()) }
        }
        let labels = keywords.map { keyword in
            let y = p.row.map { UInt8(city.category[Int($0)] == keyword ? 1 : 0) }
            return KeywordPropagation.Labels(
                query: keyword, normalized: keyword, match: y, count: y.reduce(0) { $0 + Int($1) })
        }
        var scores = KeywordPropagation.run(
            labels: labels, graph: graph, options: PropagationOptions(keywords: keywords, densities: true).solvers,
            scaleK: 5
        ).table
        if let density { scores.density = density(scores, p).map { Column($0) } }
        var params = try Parameters.resolve(nil, specs: RegionsStage.definition.parameters, context: "regions")
        params.set(RegionOptions.nestedSpec.key, .bool(true))
        for (k, v) in overrides { params.set(k, v) }
        let result = RegionExtraction.run(
            points: p, graph: graph, table: scores, options: try RegionOptions(params), scaleK: 5)
        return Outcome(
            table: result.table, points: p, scores: scores, graph: graph,
            localX: p.row.map { city.x[Int($0)] }, localY: p.row.map { city.y[Int($0)] })
    }

    /// Members of `r` within `radius` of (cx, cy), as a share.
    static func shareWithin(_ r: RegionTable.Region, _ o: Outcome, cx: Double, cy: Double, radius: Double) -> Double {
        let inside = r.members.filter {
            let dx = o.localX[Int($0)] - cx
            let dy = o.localY[Int($0)] - cy
            return dx * dx + dy * dy <= radius * radius
        }
        return Double(inside.count) / Double(max(1, r.members.count))
    }

    /// A city where cafés are 2 % of 16,000 POIs with a district (300 cafés and 300 shops over
    /// 700 m around (1000, −500)) and inside it a core (100 cafés over 120 m around (1150, −450)).
    static func districtWithACore() -> City {
        var rng = SeededRandom(seed: 11)
        var city = City()
        city.square(16_000, side: 8_000, keyword: "cafe", share: 0.02, &rng)
        city.disc(300, r: 700, cx: 1_000, cy: -500, category: "cafe", &rng)
        city.disc(300, r: 700, cx: 1_000, cy: -500, category: "shop", &rng)
        city.disc(100, r: 120, cx: 1_150, cy: -450, category: "cafe", &rng)
        return city
    }

    /// A district (300 cafés over 700 m) in a city where cafés are 2 % of 16,000 POIs, and inside it a
    /// core (100 cafés over 120 m): a level-0 region holding the district and a level-1 region, its
    /// child, holding the core — and the child's members are its parent's.
    func testADenseCoreInsideADistrictIsTheNextLevel() throws {
        let city = Self.districtWithACore()
        let o = try Self.run(city, keyword: "cafe")
        let regions = o.table.regions
        let district = try XCTUnwrap(
            regions.first { $0.level == 0 && Self.shareWithin($0, o, cx: 1_000, cy: -500, radius: 800) > 0.9 },
            "a level-0 region at the district")
        XCTAssertGreaterThan(district.members.count, 250)
        let districtRow = regions.firstIndex { $0.members == district.members }!
        let core = try XCTUnwrap(
            regions.first { $0.level == 1 && Self.shareWithin($0, o, cx: 1_150, cy: -450, radius: 200) > 0.8 },
            "a level-1 region at the core")
        XCTAssertEqual(core.parent, districtRow)
        XCTAssertTrue(Set(core.members).isSubset(of: Set(district.members)))
        XCTAssertGreaterThan(core.bandFloor, district.bandFloor, "a finer level is a denser band")
        // Nothing of level 0 elsewhere: the rest of the city is 2 % cafés, evenly spread.
        XCTAssertEqual(regions.filter { $0.level == 0 }.count, 1)
        // Every child's parent precedes it and is one level up.
        for (i, r) in regions.enumerated() where r.parent >= 0 {
            XCTAssertLessThan(r.parent, i)
            XCTAssertEqual(regions[r.parent].level, r.level - 1)
        }
    }

    /// The district of ``districtWithACore()`` with a dining street through it, 280 m from the
    /// core: 60 more cafés within 12 m of a 1 km line across the district. The street is a region
    /// of its own, below the core (the district's finest level), whose parent is the district's
    /// level-0 region: it holds at least 54 of its 60 cafés and, besides them, only the district's
    /// cafés in its band (none more than 90 m off its line: the band's 50 m, a band set every
    /// 25 m across and every 2° round). Without streets (`street_half_width_m` 0) no region is
    /// along the line.
    func testADiningStreetThroughADistrictIsItsFinestLevel() throws {
        var city = Self.districtWithACore()
        var rng = SeededRandom(seed: 12)
        let start = city.x.count
        let (ax, ay, angle) = (450.0, -850.0, 10 * Double.pi / 180)
        for _ in 0..<60 {
            let t = rng.uniform(0, 1_000)
            let o = rng.uniform(-12, 12)
            city.add(ax + t * cos(angle) - o * sin(angle), ay + t * sin(angle) + o * cos(angle), "cafe")
        }
        func offLine(_ p: Int, _ o: Outcome) -> Double {
            abs((o.localY[p] - ay) * cos(angle) - (o.localX[p] - ax) * sin(angle))
        }
        func isStreet(_ r: RegionTable.Region, _ o: Outcome) -> Bool {
            r.members.allSatisfy { offLine(Int($0), o) <= 90 }
        }
        let o = try Self.run(city, keyword: "cafe")
        let regions = o.table.regions
        let district = try XCTUnwrap(
            regions.firstIndex { $0.level == 0 && Self.shareWithin($0, o, cx: 1_000, cy: -500, radius: 800) > 0.9 })
        let street = try XCTUnwrap(regions.first { $0.level > 0 && isStreet($0, o) }, "a region along the street")
        XCTAssertEqual(street.parent, district)
        let deepest = regions.filter { $0.parent == district && !isStreet($0, o) }.map(\.level).max() ?? 0
        XCTAssertEqual(street.level, deepest + 1, "one level below the district's finest")
        let planted = Set((start..<city.x.count).map { p in o.points.row.firstIndex(of: UInt32(p))! })
        XCTAssertGreaterThanOrEqual(Set(street.members.map { Int($0) }).intersection(planted).count, 54)
        let without = try Self.run(city, keyword: "cafe", overrides: [("street_half_width_m", .number(0))])
        XCTAssertFalse(without.table.regions.contains { $0.level > 0 && isStreet($0, without) })
    }

    /// A dining street in a city where cafés are 2 % of 16,000 POIs (60 cafés within 12 m of a
    /// 1.2 km line) and a group of 12 cafés within 30 m of a point 110 m off its middle, dense by
    /// itself and joined to the street by the keyword graph. By default the street is drawn by
    /// level-0 regions without the group (``DensityRegionFinder/streetParts``). Without the
    /// off-street rules (`off_street` 0) one level-0 region holds both, and it is not drawn as the
    /// street (the group is a sixth of it, more than the tenth a street band may leave out): its
    /// street is a finer region inside it, holding at least 54 of the 60 cafés and nothing off the
    /// line. The street alone, without the group, is the level-0 region itself and has no street
    /// inside it. (Before, a street holding more than `same_region_share` (0.7) of its region was
    /// never a finer region, and the street beside the group was not drawn.)
    func testAStreetIsAFinerRegionUnlessItIsNineInTenOfItsRegion() throws {
        XCTAssertEqual(
            DensityHierarchy.streetRegionShare, RegionPolygonBuilder.streetBandShare,
            "a region is its street exactly when the hulls stage draws it as its street band")
        var rng = SeededRandom(seed: 31)
        var street = City()
        street.square(16_000, side: 8_000, keyword: "cafe", share: 0.02, &rng)
        let start = street.x.count
        let (ax, ay, angle) = (-600.0, 200.0, 20 * Double.pi / 180)
        for _ in 0..<60 {
            let t = rng.uniform(0, 1_200)
            let o = rng.uniform(-12, 12)
            street.add(ax + t * cos(angle) - o * sin(angle), ay + t * sin(angle) + o * cos(angle), "cafe")
        }
        let end = street.x.count
        var withGroup = street
        let (gx, gy) = (ax + 600 * cos(angle) + 110 * sin(angle), ay + 600 * sin(angle) - 110 * cos(angle))
        withGroup.disc(12, r: 30, cx: gx, cy: gy, category: "cafe", &rng)
        func offLine(_ p: Int, _ o: Outcome) -> Double {
            abs((o.localY[p] - ay) * cos(angle) - (o.localX[p] - ax) * sin(angle))
        }
        func planted(_ o: Outcome, _ range: Range<Int>) -> Set<Int> {
            Set(range.map { p in o.points.row.firstIndex(of: UInt32(p))! })
        }

        let parted = try Self.run(withGroup, keyword: "cafe")
        let partedStreet = planted(parted, start..<end)
        let partedGroup = planted(parted, end..<withGroup.x.count)
        // (This street's cafés thin out near one end: the keyword graph has it in two pieces.)
        let onStreet = parted.table.regions.filter { r in
            r.level == 0 && Set(r.members.map(Int.init)).intersection(partedStreet).count >= 5
        }
        let members = Set(onStreet.flatMap { $0.members.map(Int.init) })
        XCTAssertGreaterThanOrEqual(members.intersection(partedStreet).count, 57, "the street's level-0 regions")
        XCTAssertLessThanOrEqual(members.intersection(partedGroup).count, 1, "by default without the group")

        let o = try Self.run(withGroup, keyword: "cafe", overrides: [(RegionOptions.offStreetSpec.key, .number(0))])
        let streetCafes = planted(o, start..<end)
        let groupCafes = planted(o, end..<withGroup.x.count)
        let regions = o.table.regions
        let both = try XCTUnwrap(
            regions.firstIndex { r in
                let members = Set(r.members.map(Int.init))
                return r.level == 0 && members.intersection(streetCafes).count >= 57
                    && members.intersection(groupCafes).count >= 10
            }, "one level-0 region holding the street and the group")
        // Whether a finer region inside `parent` lies along the street, holding `cafes` but for six.
        func hasStreet(in parent: Int, _ o: Outcome, _ cafes: Set<Int>) -> Bool {
            o.table.regions.contains { r in
                r.parent == parent && r.members.allSatisfy { offLine(Int($0), o) <= 60 }
                    && Set(r.members.map(Int.init)).intersection(cafes).count >= cafes.count - 6
            }
        }
        XCTAssertTrue(hasStreet(in: both, o, streetCafes), "the street, a finer region inside the level-0 region")

        let alone = try Self.run(street, keyword: "cafe", overrides: [(RegionOptions.offStreetSpec.key, .number(0))])
        let aloneCafes = planted(alone, start..<end)
        let region = try XCTUnwrap(
            alone.table.regions.firstIndex {
                $0.level == 0 && Set($0.members.map(Int.init)).intersection(aloneCafes).count >= 57
            }, "the street alone is a level-0 region")
        XCTAssertFalse(hasStreet(in: region, alone, aloneCafes), "and it is its street: no finer region holds it")
    }

    /// A downtown (500 cafés over 900 m) holding a district whose cafés stand 1.3 × as dense as
    /// the downtown's (a shoulder from 70 to 250 m around (400, 0)) around a core 10 × as dense
    /// (within 70 m), the propagated densities set to exactly that: the district's finer region
    /// is the core and its shoulder — everything at least as dense as the region holding it
    /// (`child_extend_ratio` 1, the default) — not the core alone, which is what a floor of 1.5 ×
    /// the downtown's density cuts.
    func testAFinerRegionExtendsThroughEverythingAsDenseAsItsParent() throws {
        var rng = SeededRandom(seed: 23)
        var city = City()
        city.square(16_000, side: 8_000, keyword: "cafe", share: 0.02, &rng)
        city.disc(500, r: 900, cx: 0, cy: 0, category: "cafe", &rng)
        city.disc(500, r: 900, cx: 0, cy: 0, category: "shop", &rng)
        city.disc(30, r: 250, cx: 400, cy: 0, category: "cafe", &rng)
        city.disc(30, r: 70, cx: 400, cy: 0, category: "cafe", &rng)
        // Metres from the district's centre, of a point in the city's local plane.
        func fromDistrict(_ x: Double, _ y: Double) -> Double { ((x - 400) * (x - 400) + y * y).squareRoot() }
        let field: (ScoreTable, ProjectedPoints) -> [Float] = { s, p in
            (0..<s.count).map { i in
                let (x, y) = (city.x[Int(p.row[i])], city.y[Int(p.row[i])])
                let d = fromDistrict(x, y)
                if d < 70 { return 2_000 }
                if d < 250 { return 260 }
                return x * x + y * y < 950 * 950 ? 200 : s.density[0][i]
            }
        }
        func shoulderShare(_ overrides: [(String, JSONValue)]) throws -> Double {
            let o = try Self.run(city, keyword: "cafe", overrides: overrides, density: field)
            XCTAssertEqual(
                o.table.regions.filter { $0.level == 0 && Self.shareWithin($0, o, cx: 0, cy: 0, radius: 1_000) > 0.9 }
                    .count, 1, "the downtown is one level-0 region")
            let district = try XCTUnwrap(
                o.table.regions.first { $0.level == 1 && Self.shareWithin($0, o, cx: 400, cy: 0, radius: 260) > 0.9 },
                "a level-1 region at the district")
            let shoulder = (0..<o.localX.count).filter {
                city.category[Int(o.points.row[$0])] == "cafe"
                    && (80...240).contains(fromDistrict(o.localX[$0], o.localY[$0]))
            }
            let members = Set(district.members.map(Int.init))
            return Double(shoulder.filter { members.contains($0) }.count) / Double(shoulder.count)
        }
        XCTAssertGreaterThan(try shoulderShare([]), 0.6, "the district is drawn with its shoulder")
        XCTAssertLessThan(
            try shoulderShare([("child_extend_ratio", .number(1.5))]), 0.2,
            "at 1.5 × the downtown's density the district is its core alone (so the check above can fail)")
    }

    /// The default (`level0: own`): level 0 is exactly the one-level measure's regions (members,
    /// p-values and q-values), and the finer levels below them are cut from the propagate stage's
    /// densities — the core's densities taken away, its level-1 region is gone and level 0 is as
    /// it was; none at all, no finer level.
    func testLevelZeroIsTheOneLevelMeasureAndTheFinerLevelsAreCutFromThePropagatedDensity() throws {
        let city = Self.districtWithACore()
        let nested = try Self.run(city, keyword: "cafe")
        let flat = try Self.run(city, keyword: "cafe", overrides: [("nested", .bool(false))])
        let zero = nested.table.regions.filter { $0.level == 0 }
        XCTAssertEqual(zero.map(\.members), flat.table.regions.map(\.members))
        XCTAssertEqual(zero.map(\.pValue), flat.table.regions.map(\.pValue))
        XCTAssertEqual(zero.map(\.qValue), flat.table.regions.map(\.qValue))
        XCTAssertTrue(
            nested.table.regions.contains {
                $0.level == 1 && Self.shareWithin($0, nested, cx: 1_150, cy: -450, radius: 200) > 0.8
            }, "the core is the next level")

        let lowered = try Self.run(city, keyword: "cafe") { s, p in
            let localX = p.row.map { city.x[Int($0)] }
            let localY = p.row.map { city.y[Int($0)] }
            return (0..<s.count).map { i in
                let dx = localX[i] - 1_150
                let dy = localY[i] + 450
                return dx * dx + dy * dy < 250 * 250 ? s.density[0][i] / 10 : s.density[0][i]
            }
        }
        XCTAssertEqual(lowered.table.regions.filter { $0.level == 0 }.map(\.members), zero.map(\.members))
        XCTAssertFalse(
            lowered.table.regions.contains {
                $0.level == 1 && Self.shareWithin($0, lowered, cx: 1_150, cy: -450, radius: 200) > 0.5
            }, "the core's densities taken away, its finer region is gone")
        let none = try Self.run(city, keyword: "cafe") { s, _ in [Float](repeating: 0, count: s.count) }
        XCTAssertEqual(none.table.regions.map(\.members), zero.map(\.members), "no density, no finer level")
    }

    /// Two café districts 900 m apart (80 cafés within 150 m each) joined by a line of 25 cafés
    /// 25 m apart: dense enough by their own spacing to be one set at level 0. With the propagate
    /// stage's densities set to 1,000 per km² in the districts and 200 along the line, the set is
    /// two places and level 0 is two regions, one at each district (and the one-level measure the
    /// same); with the line as dense as the districts, or `split_persistence` 0, it is one.
    func testTwoDistrictsJoinedByAThinnerLineAreTwoRegionsByThePropagatedDensity() throws {
        var rng = SeededRandom(seed: 12)
        var city = City()
        city.square(16_000, side: 8_000, keyword: "cafe", share: 0.02, &rng)
        city.disc(80, r: 150, cx: -450, cy: 0, category: "cafe", &rng)
        city.disc(80, r: 150, cx: 450, cy: 0, category: "cafe", &rng)
        let lineStart = city.x.count
        for i in 0..<25 { city.add(-300 + Double(i) * 25, 0, "cafe") }
        let lineEnd = city.x.count
        func densities(line: Float) -> (ScoreTable, ProjectedPoints) -> [Float] {
            { s, p in
                (0..<s.count).map { i in
                    let row = Int(p.row[i])
                    let (x, y) = (city.x[row], city.y[row])
                    if city.category[row] == "cafe" && (hypot(x + 450, y) <= 150 || hypot(x - 450, y) <= 150) {
                        return 1_000
                    }
                    return (lineStart..<lineEnd).contains(row) ? line : s.density[0][i]
                }
            }
        }
        func near(_ r: RegionTable.Region, _ o: Outcome, cx: Double) -> Int {
            r.members.filter { hypot(o.localX[Int($0)] - cx, o.localY[Int($0)]) <= 160 }.count
        }
        func holdsBoth(_ o: Outcome) -> Bool {
            o.table.regions.contains { $0.level == 0 && near($0, o, cx: -450) >= 60 && near($0, o, cx: 450) >= 60 }
        }
        let split = try Self.run(city, keyword: "cafe", density: densities(line: 200))
        XCTAssertFalse(holdsBoth(split), "the two districts are two regions")
        for cx in [-450.0, 450] {
            XCTAssertEqual(
                split.table.regions.filter { $0.level == 0 && near($0, split, cx: cx) >= 60 }.count, 1,
                "one level-0 region at the district at x = \(cx)")
        }
        let flat = try Self.run(
            city, keyword: "cafe", overrides: [("nested", .bool(false))], density: densities(line: 200))
        XCTAssertEqual(
            flat.table.regions.map(\.members), split.table.regions.filter { $0.level == 0 }.map(\.members),
            "the one-level measure splits the same set where the propagated density is there")
        XCTAssertTrue(holdsBoth(try Self.run(city, keyword: "cafe", density: densities(line: 1_000))))
        XCTAssertTrue(
            holdsBoth(
                try Self.run(
                    city, keyword: "cafe", overrides: [("split_persistence", .number(0))],
                    density: densities(line: 200))))
    }

    /// A town 60 km from a metro, which the graph does not join to it, with a dining cluster that
    /// is dense for the town but not for the metro: found when the town is its own reference,
    /// missed when everything is measured against the whole data.
    func testATownIsMeasuredAgainstItself() throws {
        let city = Self.metroAndTown(cluster: 22, radius: 220)
        // The town's reference is a rule of the propagated level 0 (own densities are absolute).
        let propagated: [(String, JSONValue)] = [("level0", .string("propagated"))]
        let own = try Self.run(city, keyword: "restaurant", overrides: propagated)
        XCTAssertTrue(
            Self.townClusterFound(own, radius: 350, share: 0.8, minimum: 12),
            "the town's cluster is a region against the town")
        let global = try Self.run(
            city, keyword: "restaurant", overrides: propagated + [("own_reference_pois", .number(1_000_000_000))])
        XCTAssertFalse(
            Self.townClusterFound(global, radius: 350, share: 0.5, minimum: 1),
            "against the metro the town's cluster is not dense (so the test above shows the reference at work)")
    }

    /// A town like the one above with level 0 from own densities (the default): its dining cluster is found
    /// because the keyword's typical density is scaled down to the town's sparser ground
    /// (`reference_window`), and missed when the whole data is the reference everywhere.
    func testATownsDiningClusterIsJudgedAgainstItsOwnGroundAtLevelZero() throws {
        // 18 restaurants over 0.32 km²: about 3 × the metro's restaurant density (below extend_ratio),
        // nearly 20 × the town's.
        let city = Self.metroAndTown(cluster: 18, radius: 320)
        let scaled = try Self.run(city, keyword: "restaurant")
        XCTAssertTrue(
            Self.townClusterFound(scaled, radius: 450, share: 0.8, minimum: 10, levelZero: true),
            "the town's cluster is a level-0 region against the town's ground")
        let global = try Self.run(city, keyword: "restaurant", overrides: [("reference_window", .number(0))])
        XCTAssertFalse(
            Self.townClusterFound(global, radius: 450, share: 0.5, minimum: 1),
            "against the metro the town's cluster is not dense (so the test above shows the scaling at work)")
    }

    /// A metro (30,000 POIs over 10 km × 10 km, restaurants 6 %) and, 60 km east, a town at a
    /// twentieth of its density (450 POIs over 3 km × 3 km, the same share) with a dining cluster:
    /// `cluster` restaurants in the disc of radius `radius` around (60,200, 100).
    static func metroAndTown(cluster: Int, radius: Double) -> City {
        var rng = SeededRandom(seed: 5)
        var city = City()
        city.square(30_000, side: 10_000, keyword: "restaurant", share: 0.06, &rng)
        city.square(450, side: 3_000, cx: 60_000, cy: 0, keyword: "restaurant", share: 0.06, &rng)
        city.disc(cluster, r: radius, cx: 60_200, cy: 100, category: "restaurant", &rng)
        return city
    }

    /// Whether a region (of level 0 when `levelZero`) of at least `minimum` POIs has more than
    /// `share` of them within `radius` of the town's cluster (``metroAndTown(cluster:radius:)``).
    static func townClusterFound(_ o: Outcome, radius: Double, share: Double, minimum: Int, levelZero: Bool = false)
        -> Bool
    {
        o.table.regions.contains {
            (!levelZero || $0.level == 0) && $0.members.count >= minimum
                && Self.shareWithin($0, o, cx: 60_200, cy: 100, radius: radius) > share
        }
    }

    /// Two evenly spread pieces of city, one a sixth as dense as the other, with cafés at 3 % in
    /// both: judged against its own ground the sparse piece is as uniform as the dense one, and
    /// neither has a region (the scaled reference makes no false region where the city thins).
    func testEvenlySpreadPiecesOfDifferentDensityHaveNoRegion() throws {
        var rng = SeededRandom(seed: 8)
        var city = City()
        city.square(24_000, side: 8_000, keyword: "cafe", share: 0.03, &rng)
        city.square(6_000, side: 10_000, cx: 9_500, cy: 0, keyword: "cafe", share: 0.03, &rng)
        XCTAssertEqual(try Self.run(city, keyword: "cafe").table.regions.count, 0)
    }

    /// A downtown (a Gaussian bump of POIs of every kind, four times the city's density at its
    /// centre) and a keyword that is half of all POIs everywhere, nothing planted: the noise of
    /// the 5th-neighbour density puts pieces of the downtown above `core_ratio`, and against the
    /// city they are significant. Tested also against the keyword's density in the ring around
    /// them (`contrast_ring`, the default), they are not: at most one level-0 region in the
    /// downtown; without the ring test several. A dense cluster planted in the downtown is still
    /// found.
    func testPiecesOfAnEvenlyDenseDowntownAreNotRegionsButAClusterInItIs() throws {
        func downtownCity(planted: Bool) -> City {
            var rng = SeededRandom(seed: 17)
            var city = City()
            city.square(20_000, side: 12_000, keyword: "common", share: 0.5, &rng)
            for _ in 0..<9_000 {
                let (a, d) = (rng.uniform(0, 2 * .pi), 700 * (-2 * Foundation.log(1 - rng.uniform())).squareRoot())
                city.add(d * cos(a), d * sin(a), rng.uniform() < 0.5 ? "common" : "shop")
            }
            if planted { city.disc(60, r: 120, cx: 400, cy: -300, category: "common", &rng) }
            return city
        }
        func levelZeroInDowntown(_ o: Outcome) -> Int {
            o.table.regions.filter { $0.level == 0 && Self.shareWithin($0, o, cx: 0, cy: 0, radius: 1_400) > 0.5 }
                .count
        }
        let null = downtownCity(planted: false)
        let tested = try Self.run(null, keyword: "common")
        XCTAssertLessThanOrEqual(levelZeroInDowntown(tested), 1)
        let untested = try Self.run(null, keyword: "common", overrides: [("contrast_ring", .number(0))])
        XCTAssertGreaterThanOrEqual(
            levelZeroInDowntown(untested), 2,
            "without the ring test the downtown is in pieces (the test above can fail)")
        let planted = try Self.run(downtownCity(planted: true), keyword: "common")
        XCTAssertTrue(
            planted.table.regions.contains {
                Self.shareWithin($0, planted, cx: 400, cy: -300, radius: 200) > 0.8 && $0.members.count >= 40
            }, "the planted cluster is a region")
    }

    /// A city of evenly spread POIs with cafés at 3 %: no region at any level.
    func testAUniformCityHasNoRegion() throws {
        var rng = SeededRandom(seed: 3)
        var city = City()
        city.square(30_000, side: 12_000, keyword: "cafe", share: 0.03, &rng)
        XCTAssertEqual(try Self.run(city, keyword: "cafe").table.regions.count, 0)
    }

    /// With `level0: propagated` every level is cut from the propagate stage's densities: the same
    /// city with those densities replaced gives other regions — none without them, none where the
    /// district's are taken away — while densities raised where the POIs are not in fact denser make
    /// no region (the count on the ground decides significance, not the density that chose the
    /// candidate).
    func testRegionsAreCutFromThePropagatedDensity() throws {
        var rng = SeededRandom(seed: 11)
        var city = City()
        city.square(16_000, side: 8_000, keyword: "cafe", share: 0.02, &rng)
        city.disc(300, r: 700, cx: 1_000, cy: -500, category: "cafe", &rng)
        let propagated: [(String, JSONValue)] = [("level0", .string("propagated"))]
        let base = try Self.run(city, keyword: "cafe", overrides: propagated)
        XCTAssertTrue(
            base.table.regions.contains { Self.shareWithin($0, base, cx: 1_000, cy: -500, radius: 800) > 0.9 })
        let none = try Self.run(city, keyword: "cafe", overrides: propagated) { s, _ in
            [Float](repeating: 0, count: s.count)
        }
        XCTAssertTrue(none.table.regions.isEmpty, "no density, no region")
        let lowered = try Self.run(city, keyword: "cafe", overrides: propagated) { s, p in
            let localX = p.row.map { city.x[Int($0)] }
            let localY = p.row.map { city.y[Int($0)] }
            return (0..<s.count).map { i in
                let dx = localX[i] - 1_000
                let dy = localY[i] + 500
                return dx * dx + dy * dy < 900 * 900 ? 0 : s.density[0][i]
            }
        }
        XCTAssertFalse(
            lowered.table.regions.contains { Self.shareWithin($0, lowered, cx: 1_000, cy: -500, radius: 800) > 0.5 },
            "the district's densities taken away, its region is gone")
        let raised = try Self.run(city, keyword: "cafe", overrides: propagated) { s, p in
            let localX = p.row.map { city.x[Int($0)] }
            let localY = p.row.map { city.y[Int($0)] }
            return (0..<s.count).map { i in
                localX[i] < -2_000 && localY[i] > 2_000 ? s.density[0][i] * 20 : s.density[0][i]
            }
        }
        XCTAssertFalse(
            raised.table.regions.contains { Self.shareWithin($0, raised, cx: -3_000, cy: 3_000, radius: 1_500) > 0.5 },
            "raised densities over evenly spread cafés are no significant region")
    }
}
