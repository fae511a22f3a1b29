import XCTest

@testable import RegionSearchCore
@testable import RegionSearchGDAL
@testable import RegionSearchModel
@testable import RegionSearchOutput

/// The scored POI layer against the tables it is made from, checked POI by POI.
final class POILayerTests: XCTestCase {
    /// Six POIs; the projected points in another (Hilbert-like) order; two keywords.
    static func inputs(regionLayerIDs: [(String, Int, Int64)]) -> POIFeatureSchema.Inputs {
        var pois = POITable()
        for i in 0..<6 {
            // Values from named keys carry their key codes (KeywordText): internal bytes.
            let code = String(decoding: KeywordText.keyCode(i), as: UTF8.self)
            pois.append(
                id: "p\(i)", name: "POI \(i)", keywordText: i % 2 == 0 ? code + "cafe\nbar" : code + "bank",
                lon: 24 + Double(i) / 10, lat: 60, source: 0, line: UInt64(i + 1))
        }
        var projected = ProjectedPoints()
        let order: [UInt32] = [3, 0, 5, 1, 4]  // POI 2 was not projected
        projected.row = Column(order)
        projected.x = Column(order.map { Double($0) })
        projected.y = Column(order.map { _ in 0 })
        projected.lon = Column(order.map { 24 + Double($0) / 10 })
        projected.lat = Column(order.map { _ in 60 })
        // score.k of projected point i = 10 k + row / 100.
        let scores = ScoreTable(
            keywords: ["cafe", "bank"],
            scores: (0..<2).map { k in order.map { Double(10 * k) + Double($0) / 100 } },
            matches: [order.map { $0 % 2 == 0 ? 1 : 0 }, order.map { $0 % 2 == 1 ? 1 : 0 }],
            ones: order.map { _ in 1 }, probe: order.map { _ in 0 })
        // cafe rank 1: projected points 1, 4 (POIs 0, 4); bank rank 1: point 0 (POI 3); bank rank 2: dropped.
        let regions = RegionTable(regions: [
            {
                var r = RegionTable.Region(keyword: 0, members: [1, 4], memberMatch: [1, 1])
                r.rank = 1
                return r
            }(),
            {
                var r = RegionTable.Region(keyword: 1, members: [0], memberMatch: [1])
                r.rank = 1
                return r
            }(),
            {
                var r = RegionTable.Region(keyword: 1, members: [3], memberMatch: [1])
                r.rank = 2
                return r
            }(),
        ])
        let features = regionLayerIDs.map { keyword, rank, id in
            FeatureLayer.Feature(
                geometry: .multiPolygon([]),
                values: OutputFormatTests.values(id: id, keyword: keyword, rank: Int64(rank), nKeyword: 5, area: 1))
        }
        let layer = FeatureLayer(
            name: "regions", geometryType: .multiPolygon, fields: RegionFeatureSchema.fields, features: features)
        return POIFeatureSchema.Inputs(
            pois: pois, projected: projected, scores: scores, regions: regions, regionLayer: layer)
    }

    func testEveryPOIHasItsScoresMatchesAndRegions() throws {
        let inputs = Self.inputs(regionLayerIDs: [("cafe", 1, 7), ("bank", 1, 9)])
        let layer = try POIFeatureSchema.layer(inputs, keywords: ["cafe", "bank"], selection: .all)
        XCTAssertEqual(
            layer.fields.map(\.name),
            [
                "poi_id", "name", "keywords", "score_1", "match_1", "region_1", "score_2", "match_2", "region_2",
            ])
        XCTAssertEqual(layer.count, 6)
        let regionOf: [[Int: Int64]] = [[0: 7, 4: 7], [3: 9]]  // POI row → region_id, per keyword
        for row in 0..<6 {
            let f = layer.feature(row)
            XCTAssertEqual(f.values[0], .string("p\(row)"))
            // Issue 21, finding 13: the values only, no key-code byte.
            XCTAssertEqual(f.values[2], .string(row % 2 == 0 ? "cafe; bar" : "bank"))
            guard case .point(let lon, _) = f.geometry else { return XCTFail() }
            XCTAssertEqual(lon, 24 + Double(row) / 10, accuracy: 1e-12)
            for k in 0..<2 {
                let base = 3 + 3 * k
                if row == 2 {
                    XCTAssertEqual(f.values[base], .null, "not projected: no score")
                    XCTAssertEqual(f.values[base + 1], .null)
                } else {
                    XCTAssertEqual(f.values[base], .real(Double(10 * k) + Double(row) / 100))
                    XCTAssertEqual(f.values[base + 1], .integer(row % 2 == k ? 1 : 0))
                }
                XCTAssertEqual(f.values[base + 2], regionOf[k][row].map { .integer($0) } ?? .null, "row \(row) k \(k)")
            }
        }
        // in_regions: the POIs of a written region (bank rank 2 was dropped by hulls: POI 1 is not one).
        let inRegions = try POIFeatureSchema.layer(inputs, keywords: ["cafe", "bank"], selection: .inRegions)
        XCTAssertEqual(
            (0..<inRegions.count).map { inRegions.feature($0).values[0] },
            [.string("p0"), .string("p3"), .string("p4")])
    }

    func testMismatchedArtifactsAreRefused() {
        let inputs = Self.inputs(regionLayerIDs: [("cafe", 1, 1), ("cafe", 1, 2)])
        XCTAssertThrowsError(try POIFeatureSchema.layer(inputs, keywords: ["cafe", "bank"], selection: .all)) {
            XCTAssertTrue("\($0)".contains("two regions of 'cafe' have rank 1"), "\($0)")
        }
        XCTAssertThrowsError(
            try POIFeatureSchema.layer(Self.inputs(regionLayerIDs: []), keywords: ["cafe"], selection: .all))
    }

    /// Issue 21, finding 13: a KML POI layer (XML) stays well-formed and readable: no key code
    /// reaches it, and a control character a name brought from the input is written as U+FFFD.
    func testAKMLPOILayerIsWellFormed() throws {
        var inputs = Self.inputs(regionLayerIDs: [("cafe", 1, 7), ("bank", 1, 9)])
        var pois = inputs.pois
        pois.names = StringColumn((0..<6).map { "POI \($0)\u{1}\u{8}" })
        inputs.pois = pois
        let layer = try POIFeatureSchema.layer(inputs, keywords: ["cafe", "bank"], selection: .all)
        let dir = GIS.directory("poi-kml")
        try VectorOutput.writeFile([layer], format: .kml, to: dir + "/p.kml", styleSidecar: false)
        let text = try String(contentsOfFile: dir + "/p.kml", encoding: .utf8)
        XCTAssertFalse(text.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" && $0 != "\t" && $0 != "\r" })
        XCTAssertTrue(text.contains("POI 0\u{FFFD}\u{FFFD}"), String(text.prefix(2000)))
        let back = try GDALDataset(openingVector: dir + "/p.kml")
        XCTAssertEqual(try back.layer(at: 0).featureCount, 6)
    }
}
