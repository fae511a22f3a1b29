import XCTest

@testable import RegionSearchCore
@testable import RegionSearchModel
@testable import RegionSearchOutput
@testable import RegionSearchProjection

/// Worldwide data: a projection that suits the whole extent, and region polygons whose areas
/// stay true anywhere — at high latitude and across the antimeridian.
final class WorldProjectionTests: XCTestCase {
    /// Background points spread over the globe, including both poles and both sides of ±180°.
    private func worldPoints(_ n: Int) -> (lon: [Double], lat: [Double]) {
        var rng = SeededRandom(seed: 3)
        var lon: [Double] = [-179.99, 179.99, 0, 0]
        var lat: [Double] = [10, 10, 90, -90]
        while lon.count < n {
            lon.append(rng.uniform(-180, 180))
            lat.append(asin(rng.uniform(-1, 1)) * 180 / .pi)  // uniform on the sphere
        }
        return (lon, lat)
    }

    func testWorldDataGetsAnEqualAreaWorldProjectionWithEveryPointFinite() throws {
        let (lon, lat) = worldPoints(3000)
        let r = try lon.withUnsafeBufferPointer { a in
            try lat.withUnsafeBufferPointer { b in try Projector.project(lon: a, lat: b, crs: "auto") }
        }
        XCTAssertTrue(r.choice.definition.contains("+proj=eqearth"), r.choice.definition)
        XCTAssertFalse(r.choice.isLocal)
        XCTAssertEqual(r.failedRows, [])
        XCTAssertTrue(r.points.x.allSatisfy { $0.isFinite } && r.points.y.allSatisfy { $0.isFinite })
    }

    /// A disc of radius `radius` metres around (lon, lat), as `count` points on its rim.
    private func rim(lon: Double, lat: Double, radius: Double, count: Int) -> (lon: [Double], lat: [Double]) {
        var xs: [Double] = []
        var ys: [Double] = []
        for k in 0..<count {
            let p = Geodesic.destination(lon: lon, lat: lat, azimuth: Double(k) * 360 / Double(count), distance: radius)
            xs.append(p.lon)
            ys.append(p.lat)
        }
        return (xs, ys)
    }

    func testRegionAreasStayWithinTwoPercentOfGeodesicTruth() throws {
        // Three hot spots of radius 20 km: across the antimeridian at 70°N, near the South Pole,
        // and at the equator; each region's polygon must have the disc's geodesic area (π r², to
        // well within 2 %) and the antimeridian one must be split there.
        let (bgLon, bgLat) = worldPoints(2000)
        let spots: [(Double, Double)] = [(179.95, 70), (40, -85), (-60, 0)]
        var lon = bgLon
        var lat = bgLat
        var spotOf = [Int](repeating: -1, count: lon.count)
        for (s, c) in spots.enumerated() {
            let r = rim(lon: c.0, lat: c.1, radius: 20_000, count: 360)
            lon += r.lon
            lat += r.lat
            spotOf += [Int](repeating: s, count: r.lon.count)
        }
        let projected = try lon.withUnsafeBufferPointer { a in
            try lat.withUnsafeBufferPointer { b in try Projector.project(lon: a, lat: b, crs: "auto") }
        }
        XCTAssertFalse(projected.choice.isLocal)
        let points = projected.points
        var regions: [RegionTable.Region] = []
        for s in 0..<spots.count {
            let members = (0..<points.count).filter { spotOf[Int(points.row[$0])] == s }.map { UInt32($0) }
            let flags = [UInt8](
                repeating: RegionTable.Region.matchesFlag | RegionTable.Region.shapeFlag, count: members.count)
            regions.append(RegionTable.Region(keyword: s, members: members, memberMatch: flags))
        }
        let builder = RegionPolygonBuilder(options: .init(margin: 0, minExtent: 0))
        let (polygons, dropped) = try builder.build(
            table: RegionTable(regions: regions), points: points, crs: projected.choice.definition, crsIsLocal: false)
        XCTAssertEqual(dropped, 0)
        XCTAssertEqual(polygons.count, 3)
        let truth = Double.pi * 20_000 * 20_000
        for p in polygons {
            XCTAssertEqual(p.areaM2 / truth, 1, accuracy: 0.02, "spot \(p.region): \(p.areaM2) m² vs \(truth)")
            for ring in p.rings {
                XCTAssertTrue(ring.lon.allSatisfy { $0 >= -180 && $0 <= 180 })
                XCTAssertGreaterThan(
                    GeoJSONWriter.signedArea(lon: ring.lon, lat: ring.lat), 0, "rings are counter-clockwise")
            }
        }
        XCTAssertEqual(
            polygons.first { $0.region == 0 }?.rings.count, 2, "the antimeridian disc is split into two parts")
        XCTAssertEqual(polygons.first { $0.region == 2 }?.rings.count, 1)
    }

    /// A region across the antimeridian holds its members on both sides: `members_inside` is
    /// counted on the polygon before its split, whose longitudes run on past 180°, so a member at
    /// −179.9° is found at 180.1° in it (the OurAirports Aleutians region of 10 closed airfields,
    /// 3 of them west of 180°, read 0.7).
    func testMembersInsideCountsBothSidesOfTheAntimeridian() throws {
        let (bgLon, bgLat) = worldPoints(2000)
        var lon = bgLon
        var lat = bgLat
        var spot: [Int] = []
        // A 7 × 7 grid 5 km apart around (180°, 52°N), half of it west of the antimeridian.
        for i in -3...3 {
            for j in -3...3 {
                let p = Geodesic.destination(lon: 180, lat: 52, azimuth: 90, distance: Double(i) * 5_000)
                let q = Geodesic.destination(lon: p.lon, lat: p.lat, azimuth: 0, distance: Double(j) * 5_000)
                spot.append(lon.count)
                lon.append(normalizeLongitude(q.lon))
                lat.append(q.lat)
            }
        }
        XCTAssertGreaterThan(spot.filter { lon[$0] < 0 }.count, 10, "members on both sides")
        let projected = try lon.withUnsafeBufferPointer { a in
            try lat.withUnsafeBufferPointer { b in try Projector.project(lon: a, lat: b, crs: "auto") }
        }
        let points = projected.points
        let rows = Set(spot)
        let members = (0..<points.count).filter { rows.contains(Int(points.row[$0])) }.map { UInt32($0) }
        let flags = [UInt8](
            repeating: RegionTable.Region.matchesFlag | RegionTable.Region.shapeFlag, count: members.count)
        var region = RegionTable.Region(keyword: 0, members: members, memberMatch: flags)
        region.spacing = 5_000
        let (polygons, dropped) = try RegionPolygonBuilder(options: .init(margin: 1_000)).build(
            table: RegionTable(regions: [region]), points: points, crs: projected.choice.definition,
            crsIsLocal: false)
        XCTAssertEqual(dropped, 0)
        let polygon = try XCTUnwrap(polygons.first)
        XCTAssertEqual(polygon.rings.count, 2, "split at the antimeridian")
        XCTAssertEqual(polygon.shape.membersInside, 1)
    }
}
