import Foundation
import XCTest

@testable import RegionSearchCore
@testable import RegionSearchIngest
@testable import RegionSearchTestSupport

final class CoordinateTests: XCTestCase {
    static let hangzhou = SharedData.path("hangzhou-shangcheng-poi86/poi.csv")

    /// The three coordinate columns of the Hangzhou file (wgs84, gcj02, bd09), per row.
    private func hangzhouColumns() throws -> [(w: (Double, Double), g: (Double, Double), b: (Double, Double))] {
        let text = try String(contentsOfFile: Self.hangzhou, encoding: .utf8)
        var rows: [((Double, Double), (Double, Double), (Double, Double))] = []
        for line in text.split(separator: "\n") {
            let f = line.split(separator: "\t", omittingEmptySubsequences: false)
            func pair(_ s: Substring) -> (Double, Double) {
                let p = s.trimmingCharacters(in: .whitespaces).split(separator: ",")
                return (Double(p[0])!, Double(p[1])!)
            }
            rows.append((pair(f[4]), pair(f[5]), pair(f[6])))
        }
        return rows.map { (w: $0.0, g: $0.1, b: $0.2) }
    }

    private func distribution(_ d: [Double]) -> (median: Double, p99: Double, max: Double) {
        let s = d.sorted()
        return (s[s.count / 2], s[min(s.count - 1, Int(Double(s.count) * 0.99))], s.last!)
    }

    private func describe(_ d: (median: Double, p99: Double, max: Double)) -> String {
        String(format: "median %.3f m, p99 %.3f m, max %.3f m", d.median, d.p99, d.max)
    }

    /// Converting the file's GCJ-02 and BD-09 columns lands within a few metres of its WGS84
    /// column. That column was itself made with the one-step approximation w = 2g − f(g) (our
    /// forward transform reproduces it to the file's 1e-6° rounding), so the exact inverse
    /// differs from it by that approximation's error, about 1.7 m here; the exact inverse maps
    /// back onto the GCJ-02 column to within centimetres.
    func testHangzhouGCJ02AndBD09ConvertToTheWGS84Column() throws {
        let rows = try hangzhouColumns()
        XCTAssertEqual(rows.count, 22_437)
        var gcjErrors: [Double] = []
        var bdErrors: [Double] = []
        var oneStepErrors: [Double] = []
        var roundTripErrors: [Double] = []
        for r in rows {
            let g = ChineseCoordinates.gcj02ToWGS84(lon: r.g.0, lat: r.g.1)
            gcjErrors.append(metres(g.lon, g.lat, r.w.0, r.w.1))
            let back = ChineseCoordinates.wgs84ToGCJ02(lon: g.lon, lat: g.lat)
            roundTripErrors.append(metres(back.lon, back.lat, r.g.0, r.g.1))
            let b = ChineseCoordinates.bd09ToWGS84(lon: r.b.0, lat: r.b.1)
            bdErrors.append(metres(b.lon, b.lat, r.w.0, r.w.1))
            let f = ChineseCoordinates.wgs84ToGCJ02(lon: r.g.0, lat: r.g.1)
            oneStepErrors.append(metres(2 * r.g.0 - f.lon, 2 * r.g.1 - f.lat, r.w.0, r.w.1))
        }
        let gcj = distribution(gcjErrors)
        let bd = distribution(bdErrors)
        let oneStep = distribution(oneStepErrors)
        let roundTrip = distribution(roundTripErrors)
        XCTAssertLessThan(oneStep.max, 0.15, "one-step approximation vs the file's WGS84 column: \(describe(oneStep))")
        XCTAssertLessThan(
            roundTrip.max, 0.01, "exact inverse mapped forward vs the GCJ-02 column: \(describe(roundTrip))")
        XCTAssertLessThan(gcj.p99, 2.5, "GCJ-02→WGS84 vs the file's WGS84 column: \(describe(gcj))")
        XCTAssertLessThan(gcj.max, 3.0, "GCJ-02→WGS84 vs the file's WGS84 column: \(describe(gcj))")
        XCTAssertLessThan(bd.p99, 2.5, "BD-09→WGS84 vs the file's WGS84 column: \(describe(bd))")
        XCTAssertLessThan(bd.max, 3.0, "BD-09→WGS84 vs the file's WGS84 column: \(describe(bd))")
        print(
            "Hangzhou vs its wgs84 column: GCJ-02→WGS84 \(describe(gcj)); BD-09→WGS84 \(describe(bd)); "
                + "one-step approximation \(describe(oneStep)); exact round trip \(describe(roundTrip))")
    }

    func testInverseIsExactRoundTripAndBetterThanOneStep() {
        var rng = SeededRandom(seed: 3)
        var worstOneStep = 0.0
        for _ in 0..<2000 {
            let lon = Double.random(in: 73...135, using: &rng)
            let lat = Double.random(in: 18...53, using: &rng)
            let g = ChineseCoordinates.wgs84ToGCJ02(lon: lon, lat: lat)
            let back = ChineseCoordinates.gcj02ToWGS84(lon: g.lon, lat: g.lat)
            XCTAssertLessThan(metres(back.lon, back.lat, lon, lat), 0.02)
            let b = gcj02ToBD09(lon: g.lon, lat: g.lat)
            let gb = ChineseCoordinates.bd09ToGCJ02(lon: b.lon, lat: b.lat)
            XCTAssertLessThan(metres(gb.lon, gb.lat, g.lon, g.lat), 0.5)
            // The common one-step inverse (w = g - offset(g)) is off by up to metres.
            let f = ChineseCoordinates.wgs84ToGCJ02(lon: g.lon, lat: g.lat)
            worstOneStep = max(worstOneStep, metres(2 * g.lon - f.lon, 2 * g.lat - f.lat, lon, lat))
        }
        XCTAssertGreaterThan(worstOneStep, 0.5, "the iteration matters")
        // Outside China nothing is shifted.
        XCTAssertTrue(ChineseCoordinates.gcj02ToWGS84(lon: 2.35, lat: 48.85) == (2.35, 48.85))
        XCTAssertTrue(ChineseCoordinates.wgs84ToGCJ02(lon: 139.7, lat: 35.7) == (139.7, 35.7))
    }

    func testValidatorRules() {
        let v = RecordValidator(
            crs: .wgs84, bbox: GeoBox(west: 170, south: -10, east: -170, north: 10), rejectNullIsland: true)
        func check(_ lon: Double, _ lat: Double, text: String? = nil, _ validator: RecordValidator? = nil) -> String? {
            var x = lon
            var y = lat
            return (validator ?? v).check(lon: &x, lat: &y, coordinateText: text)
        }
        XCTAssertEqual(check(.nan, 1), "missing coordinates")
        XCTAssertEqual(check(.nan, .nan, text: "lon=\"abc\""), "unreadable coordinates: lon=\"abc\"")
        XCTAssertEqual(check(180.5, 1), "longitude out of range: 180.5")
        XCTAssertEqual(check(-.infinity, 1), "longitude out of range: -inf")
        XCTAssertEqual(check(175, -90.25), "latitude out of range: -90.25")
        XCTAssertEqual(check(0, 0), "null island: lon = lat = 0")
        XCTAssertEqual(check(0, 0.5), "outside bbox: 0, 0.5 not in 170,-10,-170,10")
        XCTAssertNil(check(179.5, 5), "inside a box across the antimeridian")
        XCTAssertNil(check(-175, -5))
        XCTAssertNil(check(180, 0))
        let open = RecordValidator(crs: .wgs84, bbox: nil, rejectNullIsland: false)
        XCTAssertNil(check(0, 0, open))
        XCTAssertNil(check(-180, -90, open))
        // Conversion happens before the bbox check.
        // The GCJ-02 input (120.190999) is outside the box; its WGS84 position (120.1864) is inside.
        let gcj = RecordValidator(
            crs: .gcj02, bbox: GeoBox(west: 120.18, south: 30.24, east: 120.19, north: 30.26), rejectNullIsland: true)
        var x = 120.190999
        var y = 30.245597
        XCTAssertNil(gcj.check(lon: &x, lat: &y, coordinateText: nil))
        XCTAssertEqual(
            metres(x, y, 120.186413, 30.247994), 1.7, accuracy: 0.3, "the file's one-step WGS84 value is 1.7 m off")
    }

    func testBoundingBoxParsing() {
        XCTAssertEqual(
            try GeoBox.parse("29.4, 59.6,30.8,60.3").get(), GeoBox(west: 29.4, south: 59.6, east: 30.8, north: 60.3))
        for bad in ["1,2,3", "a,b,c,d", "0,10,1,5", "0,0,190,1", "1,2,3,4,5"] {
            XCTAssertThrowsError(try GeoBox.parse(bad).get(), bad)
        }
        // An ingest filter may cross the antimeridian; a map's extent may not, and needs an area.
        XCTAssertEqual(try GeoBox.parse("170,-20,-170,-10").get().west, 170)
        XCTAssertEqual(
            try GeoBox.parseMapExtent("24.92,60.16,24.96,60.18").get(),
            GeoBox(west: 24.92, south: 60.16, east: 24.96, north: 60.18))
        for bad in ["170,-20,-170,-10", "24.96,60.16,24.93,60.17", "24.94,60.16,24.94,60.17", "24.9,60.2,25,60.2", "a"]
        {
            XCTAssertThrowsError(try GeoBox.parseMapExtent(bad).get(), bad)
        }
    }
}

/// GCJ-02 → BD-09 (the published forward transform): ingest only reads BD-09, so the forward
/// transform lives here, to check the inverse against.
private func gcj02ToBD09(lon: Double, lat: Double) -> (lon: Double, lat: Double) {
    let z = sqrt(lon * lon + lat * lat) + 0.000_02 * sin(lat * ChineseCoordinates.baiduFactor)
    let theta = atan2(lat, lon) + 0.000_003 * cos(lon * ChineseCoordinates.baiduFactor)
    return (z * cos(theta) + 0.0065, z * sin(theta) + 0.006)
}
