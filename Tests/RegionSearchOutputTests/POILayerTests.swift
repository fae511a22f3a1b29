import XCTest

@testable import RegionSearchCore
@testable import RegionSearchGDAL
@testable import RegionSearchModel
@testable import RegionSearchOutput
@testable import RegionSearchTestSupport

/// The scored POI layer against the tables it is made from, checked POI by POI.
final class POILayerTests: XCTestCase {
    /// Six POIs; the projected points in another (Hilbert-like) order; two keywords.
    /// Regions: cafe level 0 rank 1 (projected points 1, 4: POIs 0, 4) holding cafe level 1 rank 1
    /// (point 1: POI 0); bank rank 1 (point 0: POI 3) and bank rank 2 (point 3: POI 1), which
    /// the layer may leave out. `regionLayerIDs` are the written features: (keyword, rank,
    /// region_id), or (keyword, rank, region_id, level, parent_id).
    static func inputs(regionLayerIDs: [(String, Int, Int64)]) -> POIFeatureSchema.Inputs {
        inputs(written: regionLayerIDs.map { ($0.0, $0.1, $0.2, 0, nil) })
    }

    static func inputs(written regionLayerIDs: [(String, Int, Int64, Int, Int64?)]) -> POIFeatureSchema.Inputs {
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
            {
                var r = RegionTable.Region(keyword: 0, members: [1], memberMatch: [1])
                r.rank = 1
                r.level = 1
                r.parent = 0
                return r
            }(),
        ])
        let features = regionLayerIDs.map { keyword, rank, id, level, parent in
            FeatureLayer.Feature(
                geometry: .multiPolygon([]),
                values: OutputFormatTests.values(
                    id: id, keyword: keyword, rank: Int64(rank), nKeyword: 5, area: 1, level: Int64(level),
                    parent: parent))
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
                "poi_id", "name", "keywords", "score_1", "match_1", "region_1", "region_1_level", "region_1_path",
                "score_2", "match_2", "region_2", "region_2_level", "region_2_path",
            ])
        XCTAssertEqual(
            layer.fields.map(\.shapefileName).filter { $0.hasPrefix("r") },
            ["region_1", "rlevel_1", "rpath_1", "region_2", "rlevel_2", "rpath_2"])
        XCTAssertEqual(layer.count, 6)
        // Only level 0 written: POI row → region_id, per keyword.
        let regionOf: [[Int: Int64]] = [[0: 7, 4: 7], [3: 9]]
        for row in 0..<6 {
            let f = layer.feature(row)
            XCTAssertEqual(f.values[0], .string("p\(row)"))
            // Issue 21, finding 13: the values only, no key-code byte.
            XCTAssertEqual(f.values[2], .string(row % 2 == 0 ? "cafe; bar" : "bank"))
            guard case .point(let lon, _) = f.geometry else { return XCTFail() }
            XCTAssertEqual(lon, 24 + Double(row) / 10, accuracy: 1e-12)
            for k in 0..<2 {
                let base = 3 + 5 * k
                if row == 2 {
                    XCTAssertEqual(f.values[base], .null, "not projected: no score")
                    XCTAssertEqual(f.values[base + 1], .null)
                } else {
                    XCTAssertEqual(f.values[base], .real(Double(10 * k) + Double(row) / 100))
                    XCTAssertEqual(f.values[base + 1], .integer(row % 2 == k ? 1 : 0))
                }
                let id = regionOf[k][row]
                XCTAssertEqual(f.values[base + 2], id.map { .integer($0) } ?? .null, "row \(row) k \(k)")
                XCTAssertEqual(f.values[base + 3], id.map { _ in .integer(0) } ?? .null, "row \(row) k \(k)")
                XCTAssertEqual(f.values[base + 4], id.map { .string(String($0)) } ?? .null, "row \(row) k \(k)")
            }
        }
        // in_regions: the POIs of a written region (bank rank 2 was dropped by hulls: POI 1 is not one).
        let inRegions = try POIFeatureSchema.layer(inputs, keywords: ["cafe", "bank"], selection: .inRegions)
        XCTAssertEqual(
            (0..<inRegions.count).map { inRegions.feature($0).values[0] },
            [.string("p0"), .string("p3"), .string("p4")])
    }

    /// Nested regions: a POI's `region_k` is the finest written region it was found in, with its
    /// level and the path of region_ids from level 0; a POI only in the parent gets the parent.
    func testAPOIHasItsFinestRegionAndItsAncestors() throws {
        let inputs = Self.inputs(written: [("cafe", 1, 7, 0, nil), ("cafe", 1, 8, 1, 7), ("bank", 1, 9, 0, nil)])
        let layer = try POIFeatureSchema.layer(inputs, keywords: ["cafe", "bank"], selection: .all)
        func cafe(_ row: Int) -> [FieldValue] { Array(layer.feature(row).values[5...7]) }
        XCTAssertEqual(cafe(0), [.integer(8), .integer(1), .string("7/8")], "in the level-1 region and its parent")
        XCTAssertEqual(cafe(4), [.integer(7), .integer(0), .string("7")], "in the level-0 region only")
        XCTAssertEqual(cafe(1), [.null, .null, .null])
        XCTAssertEqual(Array(layer.feature(3).values[10...12]), [.integer(9), .integer(0), .string("9")])
        // Written as one level only (hulls.levels "1"): the child, without its parent in the layer.
        let flat = try POIFeatureSchema.layer(
            Self.inputs(written: [("cafe", 1, 1, 1, nil)]), keywords: ["cafe", "bank"], selection: .all)
        XCTAssertEqual(Array(flat.feature(0).values[5...7]), [.integer(1), .integer(1), .string("1")])
        XCTAssertEqual(Array(flat.feature(4).values[5...7]), [.null, .null, .null])
    }

    func testMismatchedArtifactsAreRefused() {
        let inputs = Self.inputs(regionLayerIDs: [("cafe", 1, 1), ("cafe", 1, 2)])
        XCTAssertThrowsError(try POIFeatureSchema.layer(inputs, keywords: ["cafe", "bank"], selection: .all)) {
            XCTAssertTrue("\($0)".contains("two regions of 'cafe' at level 0 have rank 1"), "\($0)")
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
