import XCTest

@testable import RegionSearchCore
@testable import RegionSearchModel
@testable import RegionSearchOutput
@testable import RegionSearchSynthetic

/// The hulls stage's parallel paths on a whole synthetic city (built in process by
/// ``PlantedClusterTests/runPipeline(city:keywords:graph:measure:regions:hull:)``).
final class HullThreadCountTests: XCTestCase {
    /// Region polygons built on several threads (shapes in parallel, overlaps removed in rank
    /// order) are the polygons built on one, coordinate for coordinate; the point census sorted
    /// by radix, over all points or only those near the polygons, counts what a scan of every
    /// point counts.
    func testHullPolygonsAndCensusAreTheSameOnAnyThreadCount() throws {
        let saved = Parallel.threadCount
        defer { Parallel.threadCount = saved }
        var config = SyntheticCity.Config()
        config.n = 12_000
        config.seed = 45
        config.extentKm = 6
        config.clusters = 8
        config.keywords = ["咖啡", "bank"]
        config.minRadius = 150
        config.maxRadius = 400
        let city = try SyntheticCity(config)
        Parallel.threadCount = 1
        let one = try PlantedClusterTests.runPipeline(city: city, keywords: ["咖啡", "bank"])
        XCTAssertGreaterThan(one.polygons.count, 4)
        func flat(_ polygons: [RegionPolygonBuilder.Polygon]) -> [[UInt64]] {
            polygons.map { p in
                [UInt64(p.region), p.areaM2.bitPattern, p.marginM.bitPattern]
                    + p.polygons.flatMap { $0.flatMap { $0.lon.map(\.bitPattern) + $0.lat.map(\.bitPattern) } }
            }
        }
        for threads in [2, 3] {
            Parallel.threadCount = threads
            let many = try RegionPolygonBuilder(options: .init()).build(
                table: one.table, points: one.points, crs: "EPSG:32650", crsIsLocal: true)
            let again = try RegionPolygonBuilder(options: .init()).build(
                table: one.table, points: one.points, crs: "EPSG:32650", crsIsLocal: true)
            XCTAssertEqual(flat(many.polygons), flat(again.polygons), "\(threads) threads, twice")
            Parallel.threadCount = 1
            let single = try RegionPolygonBuilder(options: .init()).build(
                table: one.table, points: one.points, crs: "EPSG:32650", crsIsLocal: true)
            XCTAssertEqual(flat(many.polygons), flat(single.polygons), "\(threads) threads vs 1")
            XCTAssertEqual(many.dropped, single.dropped)
        }
        let census = PointCensus(lon: one.points.lon, lat: one.points.lat)
        let near = PointCensus(lon: one.points.lon, lat: one.points.lat, near: one.polygons.map(\.polygons))
        let geos = GEOSContext()
        let match = Column<UInt8>((0..<one.points.count).map { UInt8($0 % 3 == 0 ? 1 : 0) })
        for p in one.polygons {
            let counted = try census.count(p.polygons, match: match, geos: geos)
            let nearCounted = try near.count(p.polygons, match: match, geos: geos)
            XCTAssertEqual(nearCounted.all, counted.all)
            XCTAssertEqual(nearCounted.matching, counted.matching)
            var all = 0
            var matching = 0
            for part in p.polygons {
                let polygon = try geos.polygon(rings: part.map { (x: $0.lon, y: $0.lat) }).prepared()
                for i in 0..<one.points.count where try polygon.covers(x: one.points.lon[i], y: one.points.lat[i]) {
                    all += 1
                    if match[i] != 0 { matching += 1 }
                }
            }
            XCTAssertEqual(counted.all, all)
            XCTAssertEqual(counted.matching, matching)
        }
    }
}
