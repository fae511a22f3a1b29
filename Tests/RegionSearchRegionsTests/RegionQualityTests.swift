import XCTest

@testable import RegionSearchGraph
@testable import RegionSearchOutput
@testable import RegionSearchProjection
@testable import RegionSearchRegions
@testable import RegionSearchStages
@testable import RegionSearchSynthetic

/// The failure modes of the obvious version of the method, each on a synthetic city with a
/// known answer (issue 6): chance regions, base rates, rivers, fringes, stacked POIs, shapes.
final class RegionQualityTests: XCTestCase {
    typealias Pipeline = PlantedClusterTests

    /// Best IoU of every planted cluster with a region of its keyword.
    private func bestIoUs(_ city: SyntheticCity, _ out: PlantedClusterTests.Outcome) throws -> [Double] {
        let geos = GEOSContext()
        return try city.clusters.enumerated().map { ci, c in
            var best = 0.0
            for p in out.polygons where out.keywords[out.table.regions[p.region].keyword] == c.keyword {
                best = max(best, try Pipeline.iou(p.rings[0], city.truthLon[ci], city.truthLat[ci], geos: geos))
            }
            return best
        }
    }

    /// Share of each region's area that lies inside a planted cluster of its keyword.
    private func insideShares(_ city: SyntheticCity, _ out: PlantedClusterTests.Outcome) throws -> [Double] {
        let geos = GEOSContext()
        return try out.polygons.map { p in
            let kw = out.keywords[out.table.regions[p.region].keyword]
            var best = 0.0
            for (ci, c) in city.clusters.enumerated() where c.keyword == kw {
                best = max(best, try Pipeline.insideShare(p.rings[0], city.truthLon[ci], city.truthLat[ci], geos: geos))
            }
            return best
        }
    }

    /// lift: a city whose keywords are spread evenly over its POIs (five downtowns, 10× density
    /// contrast) has no over-represented place.
    func testNoClustersGivesAtMostTwoLiftRegions() throws {
        for seed in [21, 22] {
            var config = SyntheticCity.Config()
            config.n = 15_000
            config.seed = UInt64(seed)
            config.clusters = 0
            config.extentKm = 8
            config.backgroundRates = ["rare": 0.005, "common": 0.5]
            let city = try SyntheticCity(config)
            let out = try Pipeline.runPipeline(city: city, keywords: ["rare", "咖啡", "common"], measure: .lift)
            XCTAssertLessThanOrEqual(
                out.polygons.count, 2,
                "seed \(seed): \(out.table.regions.map { ($0.keyword, $0.nPOIs, $0.nKeyword, $0.pValue) })")
        }
    }

    /// density: a city of uniform density (no downtowns) without clusters has no place where a
    /// keyword's POIs are much closer together than typical.
    func testUniformCityGivesAtMostTwoDensityRegions() throws {
        for seed in [23, 24] {
            var config = SyntheticCity.Config()
            config.n = 15_000
            config.seed = UInt64(seed)
            config.clusters = 0
            config.extentKm = 8
            config.downtownShare = 0
            config.backgroundRates = ["rare": 0.005, "common": 0.5]
            let city = try SyntheticCity(config)
            for method in GraphMethod.allCases {
                let out = try Pipeline.runPipeline(city: city, keywords: ["rare", "咖啡", "common"], graph: method)
                XCTAssertLessThanOrEqual(
                    out.polygons.count, 2,
                    "seed \(seed), \(method): \(out.table.regions.map { ($0.keyword, $0.nKeyword, $0.pValue) })")
            }
        }
    }

    func testRareAndCommonKeywordsBothGiveRegionsOnTheirClusters() throws {
        for (keyword, rate) in [("rare", 0.005), ("common", 0.5)] {
            var config = SyntheticCity.Config()
            config.n = 15_000
            config.seed = 31
            config.extentKm = 8
            config.backgroundRates = [keyword: rate]
            let spots: [(Double, Double)] = [(-2500, -2000), (0, 2200), (2500, -2000), (-2000, 2000)]
            config.explicitClusters = spots.map {
                SyntheticCity.Cluster(keyword: keyword, x: $0.0, y: $0.1, radius: 200, count: 90)
            }
            let city = try SyntheticCity(config)
            let out = try Pipeline.runPipeline(city: city, keywords: [keyword], measure: .lift)
            let ious = try bestIoUs(city, out)
            XCTAssertGreaterThanOrEqual(ious.filter { $0 >= 0.3 }.count, 3, "\(keyword) at \(rate): best IoUs \(ious)")
            // Every region sits on a planted cluster: mostly inside one, or overlapping one well.
            let ins = try insideShares(city, out)
            let regionIoUs = try out.polygons.map { p -> Double in
                let geos = GEOSContext()
                return try city.clusters.indices.map {
                    try Pipeline.iou(p.rings[0], city.truthLon[$0], city.truthLat[$0], geos: geos)
                }.max() ?? 0
            }
            for i in 0..<out.polygons.count {
                XCTAssertTrue(
                    ins[i] > 0.5 || regionIoUs[i] > 0.3,
                    "\(keyword): region \(i) does not sit on a planted cluster (inside \(ins[i]), IoU \(regionIoUs[i]))"
                )
            }
        }
    }

    func testClustersAcrossAnEmptyBandStayTwoRegions() throws {
        // A 150 m river with nothing in it; two bar districts 200 m apart on its banks.
        var config = SyntheticCity.Config()
        config.n = 15_000
        config.seed = 41
        config.extentKm = 6
        config.emptyBands = [.init(minX: -75, minY: -3000, maxX: 75, maxY: 3000)]
        config.explicitClusters = [
            SyntheticCity.Cluster(keyword: "bar", x: -250, y: 0, radius: 150, count: 70),
            SyntheticCity.Cluster(keyword: "bar", x: 250, y: 0, radius: 150, count: 70),
        ]
        let city = try SyntheticCity(config)
        for measure in RegionOptions.Measure.allCases {
            for method in GraphMethod.allCases {
                let out = try Pipeline.runPipeline(city: city, keywords: ["bar"], graph: method, measure: measure)
                XCTAssertEqual(
                    out.polygons.filter { out.table.regions[$0.region].level == 0 }.count, 2,
                    "\(measure), \(method): one level-0 region per bank")
                let ious = try bestIoUs(city, out)
                XCTAssertTrue(ious.allSatisfy { $0 >= 0.5 }, "\(measure), \(method): best IoUs \(ious)")
                // No region crosses the river.
                for p in out.polygons {
                    for ring in p.rings {
                        let x = try xs(of: ring, city: city)
                        XCTAssertTrue(
                            x.allSatisfy { $0 < 0 } || x.allSatisfy { $0 > 0 },
                            "\(measure), \(method): a region crosses the river: \(x.min()!)…\(x.max()!) m")
                    }
                }
            }
        }
    }

    /// Ring x coordinates in the city's local plane (metres east of its centre).
    private func xs(of ring: GeoJSONWriter.Ring, city: SyntheticCity) throws -> [Double] {
        let t = try PROJContext().transformation(
            from: "EPSG:4326",
            to:
                "+proj=aeqd +lat_0=\(city.config.centerLat) +lon_0=\(city.config.centerLon) +datum=WGS84 "
                + "+units=m +no_defs"
        )
        var x = ring.lon
        var y = ring.lat
        _ = try t.transform(x: &x, y: &y)
        return x
    }

    func testOneWideSparseHotSpotIsOneRegion() throws {
        // A large district (r = 900 m) of a keyword: it must come back whole, not in fragments —
        // one level-0 region. The cluster is a truncated Gaussian, denser towards its middle, so
        // a finer region may nest inside it (a darker middle, not a fragment).
        var config = SyntheticCity.Config()
        config.n = 15_000
        config.seed = 51
        config.extentKm = 8
        config.explicitClusters = [SyntheticCity.Cluster(keyword: "bar", x: 0, y: 0, radius: 900, count: 220)]
        let city = try SyntheticCity(config)
        let out = try Pipeline.runPipeline(city: city, keywords: ["bar"])
        let regions = out.table.regions
        XCTAssertEqual(
            regions.filter { $0.level == 0 }.count, 1, "regions: \(regions.map { ($0.level, $0.nPOIs, $0.nKeyword) })")
        for r in regions where r.level > 0 {
            XCTAssertEqual(regions[r.parent].level, r.level - 1, "a finer region nests in the one a level up")
            XCTAssertTrue(Set(r.members).isSubset(of: Set(regions[r.parent].members)))
        }
        XCTAssertGreaterThan(try bestIoUs(city, out)[0], 0.5)
    }

    func testPolygonsAreValidAndDoNotOverlapWithinAKeyword() throws {
        var config = SyntheticCity.Config()
        config.n = 15_000
        config.seed = 61
        config.extentKm = 8
        config.clusters = 10
        config.keywords = ["咖啡"]
        config.minRadius = 150
        config.maxRadius = 400
        let city = try SyntheticCity(config)
        for hull in [RegionPolygonBuilder.Options(), RegionPolygonBuilder.Options(concave: true, concaveRatio: 0.2)] {
            let out = try Pipeline.runPipeline(city: city, keywords: ["咖啡"], hull: hull)
            XCTAssertGreaterThan(out.polygons.count, 5)
            let geos = GEOSContext()
            let polys = try out.polygons.map { try geos.polygon(x: $0.rings[0].lon, y: $0.rings[0].lat) }
            let level = out.polygons.map { out.table.regions[$0.region].level }
            for (i, p) in polys.enumerated() {
                XCTAssertTrue(p.isValid, "polygon \(i): \(p.validityReason)")
                // Regions of one level never overlap; a finer one lies inside its parent.
                for j in (i + 1)..<polys.count where level[j] == level[i] {
                    XCTAssertLessThan(try p.intersection(polys[j]).area, 1e-12, "polygons \(i) and \(j) overlap")
                }
                let parent = out.table.regions[out.polygons[i].region].parent
                if parent >= 0, let j = out.polygons.firstIndex(where: { $0.region == parent }) {
                    XCTAssertLessThan(
                        try p.area - p.intersection(polys[j]).area, 1e-12, "polygon \(i) lies inside its parent \(j)")
                }
            }
        }
    }

    func testStackedPOIsGetAMinimumExtent() throws {
        // 40 shops geocoded to one mall entrance, in an ordinary neighbourhood.
        var config = SyntheticCity.Config()
        config.n = 8_000
        config.seed = 71
        config.extentKm = 5
        config.clusters = 0
        let city0 = try SyntheticCity(config)
        var city = city0
        for k in 0..<40 {
            city.ids.append(100_000 + k)
            city.names.append("Mall shop \(k)")
            city.categoryOf.append("mall")
            city.lon.append(config.centerLon + 0.001)
            city.lat.append(config.centerLat + 0.001)
            city.clusterOf.append(-1)
        }
        let out = try Pipeline.runPipeline(city: city, keywords: ["mall"])
        XCTAssertEqual(out.polygons.count, 1)
        let p = try XCTUnwrap(out.polygons.first)
        // A point hull becomes a disc: radius = the margin (half the local POI spacing), at least
        // half of min_extent_m (20 m). The buffer is a 32-gon: its area is 0.994 of the disc's.
        let radius = max(0.5 * out.table.regions[p.region].spacing, 10)
        let expected = Double.pi * radius * radius
        XCTAssertEqual(p.areaM2, expected, accuracy: expected * 0.02)
        let geos = GEOSContext()
        XCTAssertTrue(try geos.polygon(x: p.rings[0].lon, y: p.rings[0].lat).isValid)
    }

    func testTheOfficesOfOneBuildingAreOneRegion() throws {
        // 26 offices of one building, geocoded to two entrances 0.8 m apart (13 each, spread over
        // 0.2 m): below regions.min_spacing_m those metres are noise, not a scale to split at.
        var config = SyntheticCity.Config()
        config.n = 8_000
        config.seed = 72
        config.extentKm = 5
        config.clusters = 0
        var city = try SyntheticCity(config)
        let metre = 1 / 111_320.0
        for k in 0..<26 {
            let entrance = Double(k % 2) * 0.8 * metre
            let jitter = Double(k / 2) * 0.2 / 13 * metre
            city.ids.append(200_000 + k)
            city.names.append("Office \(k)")
            city.categoryOf.append("company")
            city.lon.append(config.centerLon + 0.002 + entrance + jitter)
            city.lat.append(config.centerLat - 0.001 + jitter)
            city.clusterOf.append(-1)
        }
        let out = try Pipeline.runPipeline(city: city, keywords: ["company"])
        XCTAssertEqual(out.polygons.count, 1, "one building, one region")
        XCTAssertEqual(out.table.regions.first?.nKeyword, 26)
        // Without the floor the two entrances are two "regions" a metre apart. (The polygons then
        // drop the second: the first's margin covers every one of its members, and a region left
        // with none of its members is covered. The regions stage's split is what the floor prevents.)
        let split = try Pipeline.runPipeline(
            city: city, keywords: ["company"], regions: [("min_spacing_m", .number(0))])
        XCTAssertEqual(split.table.regions.count, 2, "the failure the floor prevents")
        XCTAssertEqual(split.polygons.count, 1, "the second entrance's region is covered by the first's polygon")
    }

    func testCompatibilityFormsOfKeywordsAreMatched() throws {
        // Fullwidth ＣＡＦＥ and the Kangxi radical ⽕ in the data match cafe and 火锅 queries.
        var config = SyntheticCity.Config()
        config.n = 8_000
        config.seed = 81
        config.extentKm = 5
        config.explicitClusters = [
            SyntheticCity.Cluster(keyword: "ＣＡＦＥ", x: -1000, y: 0, radius: 200, count: 60),
            SyntheticCity.Cluster(keyword: "⽕锅", x: 1000, y: 0, radius: 200, count: 60),
        ]
        let city = try SyntheticCity(config)
        let out = try Pipeline.runPipeline(city: city, keywords: ["cafe", "火锅"])
        XCTAssertEqual(Set(out.table.regions.map { $0.keyword }), [0, 1])
    }
}
