import XCTest

@testable import RegionSearchCore
@testable import RegionSearchProjection

final class ProjectionTests: XCTestCase {
    private func extent(_ lon: [Double], _ lat: [Double]) -> GeographicExtent {
        lon.withUnsafeBufferPointer { a in lat.withUnsafeBufferPointer { b in GeographicExtent(lon: a, lat: b) } }
    }

    func testAutoPicksUTMZoneOfTheData() {
        // Central Helsinki: zone 35N.
        XCTAssertEqual(CRSChoice.automatic(for: extent([24.935, 24.953], [60.164, 60.179])).definition, "EPSG:32635")
        // Hangzhou: zone 51N.
        XCTAssertEqual(CRSChoice.automatic(for: extent([120.13, 120.20], [30.20, 30.26])).definition, "EPSG:32651")
        // Sydney: zone 56S.
        XCTAssertEqual(CRSChoice.automatic(for: extent([151.1, 151.3], [-33.95, -33.8])).definition, "EPSG:32756")
    }

    func testAntimeridianExtent() {
        // Fiji straddles ±180: the arc is 6° wide, not 356°.
        let e = extent([177.0, 179.9, -179.8, -178.0, 178.5], [-18, -17, -16.5, -19, -18.2])
        XCTAssertEqual(e.width, 5.0, accuracy: 1e-9)
        XCTAssertEqual(e.west, 177.0, accuracy: 1e-9)
        XCTAssertEqual(e.centerLongitude, 179.5, accuracy: 1e-9)
        let choice = CRSChoice.automatic(for: e)
        XCTAssertTrue(choice.definition.contains("+proj=laea"), choice.definition)
        XCTAssertFalse(choice.isLocal)
    }

    func testWorldAndPolarData() {
        let world = CRSChoice.automatic(for: extent([-170, -60, 0, 60, 150, 179], [-89, -40, 0, 40, 60, 82]))
        XCTAssertTrue(world.definition.contains("+proj=eqearth"), world.definition)
        let antarctic = CRSChoice.automatic(for: extent([-170, -60, 0, 60, 150], [-89, -75, -70, -80, -85]))
        XCTAssertTrue(antarctic.definition.contains("+lat_0=-90"), antarctic.definition)
    }

    func testProjectedDistancesMatchGeodesicDistances() throws {
        // Second implementation: UTM distances vs GeographicLib geodesics (UTM scale error < 0.1 % here).
        var rng = SeededRandom(seed: 1)
        let lon = (0..<200).map { _ in rng.uniform(24.90, 25.00) }
        let lat = (0..<200).map { _ in rng.uniform(60.15, 60.20) }
        let result = try lon.withUnsafeBufferPointer { a in
            try lat.withUnsafeBufferPointer { b in try Projector.project(lon: a, lat: b, crs: "auto") }
        }
        XCTAssertEqual(result.choice.definition, "EPSG:32635")
        XCTAssertTrue(result.failedRows.isEmpty)
        let p = result.points
        XCTAssertEqual(p.count, 200)
        XCTAssertEqual(Set(p.row).count, 200, "every POI row appears once")
        for k in stride(from: 0, to: 198, by: 3) {
            let d = hypot(p.x[k] - p.x[k + 1], p.y[k] - p.y[k + 1])
            let g = Geodesic.distance(lon1: p.lon[k], lat1: p.lat[k], lon2: p.lon[k + 1], lat2: p.lat[k + 1])
            XCTAssertEqual(d / g, 1, accuracy: 1e-3)
            XCTAssertEqual(p.lon[k], lon[Int(p.row[k])])
        }
    }

    func testUnprojectablePointsAreReportedNotKept() throws {
        // An orthographic view of Europe cannot show the far side of the globe.
        let lon = [10.0, -170.0, 12.0]
        let lat = [50.0, -40.0, 51.0]
        let r = try lon.withUnsafeBufferPointer { a in
            try lat.withUnsafeBufferPointer { b in
                try Projector.project(
                    lon: a, lat: b, crs: "+proj=ortho +lat_0=50 +lon_0=10 +datum=WGS84 +units=m +type=crs")
            }
        }
        XCTAssertEqual(r.failedRows, [1])
        XCTAssertEqual(r.points.count, 2)
    }

    func testRejectsGeographicAndUnknownCRS() {
        let lon = [10.0]
        let lat = [50.0]
        XCTAssertThrowsError(
            try lon.withUnsafeBufferPointer { a in
                try lat.withUnsafeBufferPointer { b in try Projector.project(lon: a, lat: b, crs: "EPSG:4326") }
            }
        ) { XCTAssertTrue("\($0)".contains("not a projected CRS"), "\($0)") }
        XCTAssertThrowsError(
            try lon.withUnsafeBufferPointer { a in
                try lat.withUnsafeBufferPointer { b in try Projector.project(lon: a, lat: b, crs: "EPSG:999999") }
            }
        ) { XCTAssertTrue("\($0)".contains("crs:"), "\($0)") }
    }

    func testHilbertIndexOnSmallGrid() {
        // The first-order curve visits (0,0), (0,1), (1,1), (1,0) on the top level quadrants.
        let s = UInt32(1 << (HilbertOrder.bits - 1))
        let d = [(0, 0), (0, s), (s, s), (s, 0)].map { HilbertOrder.index(x: $0.0, y: $0.1) }
        XCTAssertEqual(d, d.sorted())
        XCTAssertEqual(Set(d).count, 4)
        // Adjacent cells along the curve are grid neighbours (continuity), checked on an 8 × 8 grid.
        var cells: [(UInt32, Int, Int)] = []
        let step = UInt32(1 << (HilbertOrder.bits - 3))
        for gx in 0..<8 {
            for gy in 0..<8 { cells.append((HilbertOrder.index(x: UInt32(gx) * step, y: UInt32(gy) * step), gx, gy)) }
        }
        cells.sort { $0.0 < $1.0 }
        for k in 1..<cells.count {
            XCTAssertEqual(abs(cells[k].1 - cells[k - 1].1) + abs(cells[k].2 - cells[k - 1].2), 1)
        }
    }

    func testRadixOrderIsStable() {
        let keys: [UInt32] = [5, 1, 5, 0, 1, 70000, 5]
        XCTAssertEqual(HilbertOrder.radixSortedIndices(keys), [3, 1, 4, 0, 2, 6, 5])
    }

    func testRadixOrderMatchesAStableSortOnRandomKeys() {
        var rng = SeededRandom(seed: 11)
        for spread in [UInt32(3), 2048, 1 << 22, UInt32.max] {
            let keys = (0..<20_000).map { _ in
                UInt32(rng.below(Int(min(spread, UInt32(Int32.max))) + 1)) &* (spread == UInt32.max ? 2_654_435_761 : 1)
            }
            let expected = keys.indices.sorted { keys[$0] != keys[$1] ? keys[$0] < keys[$1] : $0 < $1 }.map {
                UInt32($0)
            }
            XCTAssertEqual(HilbertOrder.radixSortedIndices(keys), expected, "spread \(spread)")
        }
    }

    func testTableHilbertIndexEqualsTheLevelByLevelDefinition() {
        var rng = SeededRandom(seed: 5)
        for _ in 0..<200_000 {
            let x = UInt32(rng.below(1 << HilbertOrder.bits))
            let y = UInt32(rng.below(1 << HilbertOrder.bits))
            XCTAssertEqual(HilbertOrder.index(x: x, y: y), HilbertOrder.indexByLevels(x: x, y: y), "(\(x), \(y))")
        }
        // Every 8-bit pair in the top, middle and bottom bits.
        for a in UInt32(0)..<256 {
            for b in UInt32(0)..<256 {
                for shift in [UInt32(0), 4, 8] {
                    XCTAssertEqual(
                        HilbertOrder.index(x: a << shift, y: b << shift),
                        HilbertOrder.indexByLevels(x: a << shift, y: b << shift))
                }
            }
        }
    }

    func testGeodesicAreaOfOneDegreeCell() {
        // 1° × 1° at the equator on WGS84: 12,308.778 km² (GeographicLib Planimeter).
        let a = Geodesic.area(lon: [0, 1, 1, 0, 0], lat: [0, 0, 1, 1, 0])
        XCTAssertEqual(a / 1e6, 12_308.78, accuracy: 0.5)
    }
}
