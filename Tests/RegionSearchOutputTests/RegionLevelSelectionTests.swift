import XCTest

@testable import RegionSearchModel
@testable import RegionSearchOutput
@testable import RegionSearchProjection

/// `hulls.levels`: what a flat consumer gets of nested regions, on squares whose areas and
/// overlaps are known.
final class RegionLevelSelectionTests: XCTestCase {
    /// A region of the table: keyword, level, parent row, and its members (point indices, all
    /// matching the keyword).
    private static func region(_ keyword: Int, level: Int, parent: Int, rank: Int, members: [UInt32] = [])
        -> RegionTable.Region
    {
        var r = RegionTable.Region(
            keyword: keyword, members: members, memberMatch: [UInt8](repeating: 1, count: members.count))
        r.level = level
        r.parent = parent
        r.rank = rank
        return r
    }

    /// Points at these longitudes and latitudes (x and y are not read here).
    private static func points(_ lonLat: [(Double, Double)]) -> ProjectedPoints {
        var p = ProjectedPoints()
        p.lon = Column(lonLat.map(\.0))
        p.lat = Column(lonLat.map(\.1))
        p.x = p.lon
        p.y = p.lat
        return p
    }

    /// Cafe: A (level 0, 0.02° square) holds B (level 1, 0.006° square inside it) which holds
    /// C (level 2, 0.002° inside B); D is another level-0 cafe region. Bank: E (level 0) over
    /// the same ground as A: another keyword, so never cut by cafe's regions. Each region has a
    /// member on its own ground (outside its children): points 0–4, one per region.
    private static func fixture() -> (
        table: RegionTable, polygons: [RegionPolygonBuilder.Polygon], points: ProjectedPoints
    ) {
        let table = RegionTable(regions: [
            region(0, level: 0, parent: -1, rank: 1, members: [0, 2, 3]),
            region(0, level: 0, parent: -1, rank: 2, members: [1]),
            region(0, level: 1, parent: 0, rank: 1, members: [2, 3]),
            region(0, level: 2, parent: 2, rank: 1, members: [3]),
            region(1, level: 0, parent: -1, rank: 1, members: [4]),
        ])
        let points = Self.points([
            (24.901, 60.101), (24.955, 60.105), (24.906, 60.106), (24.908, 60.108), (24.91, 60.11),
        ])
        let squares: [(Int, Double, Double, Double)] = [
            (0, 24.90, 60.10, 0.02), (1, 24.95, 60.10, 0.01), (2, 24.905, 60.105, 0.006), (3, 24.907, 60.107, 0.002),
            (4, 24.90, 60.10, 0.02),
        ]
        let polygons = squares.map { row, x, y, side in
            let ring = OutputFormatTests.square(x, y, side)
            return RegionPolygonBuilder.Polygon(
                region: row, polygons: [[ring]], areaM2: Geodesic.area(lon: ring.lon, lat: ring.lat), marginM: 5,
                shape: ShapeCheck(emptyShare: 0, membersInside: 1))
        }
        return (table, polygons, points)
    }

    func testParsesItsSpellings() {
        XCTAssertEqual(RegionLevelSelection("all"), .all)
        XCTAssertEqual(RegionLevelSelection("finest"), .finest)
        XCTAssertEqual(RegionLevelSelection("coarsest"), .coarsest)
        XCTAssertEqual(RegionLevelSelection("2"), .level(2))
        for bad in ["", "Finest", "-1", "1.0", "01", "all "] { XCTAssertNil(RegionLevelSelection(bad), bad) }
        XCTAssertEqual(RegionLevelSelection.level(3).description, "3")
    }

    func testAllCoarsestAndOneLevelKeepOrFilterTheDrawnPolygons() throws {
        let (table, polygons, points) = Self.fixture()
        func selected(_ levels: RegionLevelSelection) throws -> [RegionPolygonBuilder.Polygon] {
            try levels.select(polygons, table: table, points: points)
        }
        XCTAssertEqual(try selected(.all).map(\.region), [0, 1, 2, 3, 4])
        XCTAssertEqual(try selected(.coarsest).map(\.region), [0, 1, 4])
        XCTAssertEqual(try selected(.level(1)).map(\.region), [2])
        XCTAssertEqual(try selected(.level(5)).map(\.region), [])
        let level0 = try selected(.coarsest)
        XCTAssertEqual(level0.map(\.areaM2), [polygons[0].areaM2, polygons[1].areaM2, polygons[4].areaM2])
    }

    /// The finest cut: every place of the nested output is covered once per keyword, by the
    /// finest region there; leaves are whole; parents keep the ground around their children.
    func testFinestIsANonOverlappingCutCoveringWhatTheLevelsCover() throws {
        let (table, polygons, points) = Self.fixture()
        let cut = try RegionLevelSelection.finest.select(polygons, table: table, points: points)
        XCTAssertEqual(cut.map(\.region), [0, 1, 2, 3, 4], "table order kept")
        let geos = GEOSContext()
        func g(_ p: RegionPolygonBuilder.Polygon) throws -> GEOSGeometry {
            try RegionLevelSelection.geometry(p.polygons, geos: geos)
        }
        let (a, b, c) = (try g(polygons[0]), try g(polygons[2]), try g(polygons[3]))
        // A less B (B's hole), B less C, C whole; D and E untouched.
        XCTAssertEqual(try g(cut[0]).area, a.area - b.area, accuracy: 1e-12)
        XCTAssertEqual(cut[0].polygons[0].count, 2, "A has a hole where B is")
        XCTAssertEqual(try g(cut[2]).area, b.area - c.area, accuracy: 1e-12)
        XCTAssertEqual(cut[3].polygons.map { $0.count }, [1])
        XCTAssertEqual(try g(cut[3]).area, c.area, accuracy: 1e-15)
        XCTAssertEqual(cut[1].areaM2, polygons[1].areaM2)
        XCTAssertEqual(cut[4].areaM2, polygons[4].areaM2, "another keyword is not cut")
        // Geodesic areas follow the cut: A's is its square's less B's.
        XCTAssertEqual(cut[0].areaM2, polygons[0].areaM2 - polygons[2].areaM2, accuracy: 1)
        XCTAssertEqual(cut[2].areaM2, polygons[2].areaM2 - polygons[3].areaM2, accuracy: 1)
        // No two cafe regions overlap, and together they cover what A and D cover.
        let cafe = try [0, 1, 2, 3].map { try g(cut[$0]) }
        for i in 0..<4 {
            for j in (i + 1)..<4 { XCTAssertEqual(try cafe[i].intersection(cafe[j]).area, 0, accuracy: 1e-15) }
        }
        let union = try geos.unionAll(cafe)
        XCTAssertEqual(union.area, a.area + (try g(polygons[1])).area, accuracy: 1e-12)
    }

    /// A parent whose children cover it entirely is left out; a child's written polygon is what
    /// the hulls stage drew.
    func testAParentCoveredByItsChildrenIsLeftOut() throws {
        let table = RegionTable(regions: [
            Self.region(0, level: 0, parent: -1, rank: 1, members: [0]),
            Self.region(0, level: 1, parent: 0, rank: 1, members: [0]),
        ])
        let ring = OutputFormatTests.square(24.9, 60.1, 0.01)
        let polygons = [0, 1].map {
            RegionPolygonBuilder.Polygon(
                region: $0, polygons: [[ring]], areaM2: 1, marginM: 5,
                shape: ShapeCheck(emptyShare: 0, membersInside: 1))
        }
        let cut = try RegionLevelSelection.finest.select(
            polygons, table: table, points: Self.points([(24.905, 60.105)]))
        XCTAssertEqual(cut.map(\.region), [1])
        XCTAssertEqual(cut[0].polygons[0][0].lon, ring.lon)
    }

    /// A parent whose POIs all lie in its child is left out of the finest cut though its polygon
    /// reaches beyond the child's (ground around the child with none of its POIs: a sliver);
    /// with one of its POIs on that ground it keeps it.
    func testAParentWithNoneOfItsPOIsLeftAroundItsChildIsLeftOut() throws {
        let outer = OutputFormatTests.square(24.9, 60.1, 0.01)
        let inner = OutputFormatTests.square(24.902, 60.102, 0.006)
        let polygons = [outer, inner].enumerated().map { row, ring in
            RegionPolygonBuilder.Polygon(
                region: row, polygons: [[ring]], areaM2: Geodesic.area(lon: ring.lon, lat: ring.lat), marginM: 5,
                shape: ShapeCheck(emptyShare: 0, membersInside: 1))
        }
        // Point 0 inside the child, point 1 on the parent's ground around it.
        let points = Self.points([(24.905, 60.105), (24.9005, 60.1005)])
        let covered = RegionTable(regions: [
            Self.region(0, level: 0, parent: -1, rank: 1, members: [0]),
            Self.region(0, level: 1, parent: 0, rank: 1, members: [0]),
        ])
        XCTAssertEqual(
            try RegionLevelSelection.finest.select(polygons, table: covered, points: points).map(\.region), [1])
        let around = RegionTable(regions: [
            Self.region(0, level: 0, parent: -1, rank: 1, members: [0, 1]),
            Self.region(0, level: 1, parent: 0, rank: 1, members: [0]),
        ])
        let cut = try RegionLevelSelection.finest.select(polygons, table: around, points: points)
        XCTAssertEqual(cut.map(\.region), [0, 1])
        XCTAssertEqual(cut[0].polygons[0].count, 2, "the parent keeps its ground, with a hole where its child is")
        // Every level is written whole, and one level as drawn, whatever their POIs.
        XCTAssertEqual(try RegionLevelSelection.all.select(polygons, table: covered, points: points).count, 2)
    }

    /// The parameter: a manifest value the stage cannot use stops the run before it starts.
    func testTheLevelsParameterIsValidated() throws {
        let options = try RegionPolygonBuilder.Options.resolve(
            .object([("levels", .string("finest"))]), context: "hulls")
        XCTAssertEqual(options.1.levels, .finest)
        XCTAssertEqual(try RegionPolygonBuilder.Options.resolve(.object([]), context: "hulls").1.levels, .all)
        XCTAssertEqual(try RegionPolygonBuilder.Options.resolve(nil, context: "hulls").0["levels"], .string("all"))
        XCTAssertThrowsError(
            try RegionPolygonBuilder.Options.resolve(.object([("levels", .string("deepest"))]), context: "hulls")
        ) {
            XCTAssertTrue("\($0)".contains("hulls.levels: expected \"all\", \"finest\", \"coarsest\""), "\($0)")
        }
    }
}
