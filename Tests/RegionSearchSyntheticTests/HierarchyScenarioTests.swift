import Foundation
import XCTest

@testable import RegionSearchCLI
@testable import RegionSearchCore
@testable import RegionSearchEvaluation
@testable import RegionSearchModel
@testable import RegionSearchOutput
@testable import RegionSearchProjection
@testable import RegionSearchSynthetic
@testable import RegionSearchTestSupport

/// The scenarios of issue 22 (rivers through downtowns, street blocks, towns, downtowns) and the
/// strips' whole length: what each promises, measured on the written city.
final class HierarchyScenarioTests: XCTestCase {
    private func city(
        _ scenario: SyntheticScenario, n: Int, seed: UInt64 = 7, _ edit: (inout SyntheticCity.Config) -> Void = { _ in }
    ) throws -> SyntheticCity {
        var config = SyntheticCity.Config(scenario: scenario)
        config.n = n
        config.seed = seed
        edit(&config)
        return try SyntheticCity(config)
    }

    private func local(_ city: SyntheticCity) throws -> (x: [Double], y: [Double]) {
        let c = city.config
        let t = try PROJContext().transformation(
            from: "EPSG:4326",
            to: "+proj=aeqd +lat_0=\(c.centerLat) +lon_0=\(c.centerLon) +datum=WGS84 +units=m +no_defs")
        var x = city.lon
        var y = city.lat
        _ = try t.transform(x: &x, y: &y)
        return (x, y)
    }

    private func geometry(_ area: SyntheticCity.Area, _ geos: GEOSContext) throws -> GEOSGeometry {
        let polygons = try area.polygons.map {
            try geos.polygon(rings: $0.map { ($0.x + [$0.x[0]], $0.y + [$0.y[0]]) })
        }
        return polygons.count == 1 ? polygons[0] : try geos.unionAll(polygons)
    }

    private func property(_ area: SyntheticCity.Area, _ name: String) throws -> JSONValue {
        try XCTUnwrap(area.properties.first { $0.0 == name }?.1, name)
    }

    // MARK: - rivers-downtown

    func testRiversThroughDowntownsAreEmptyBandsWithDenseBanksAndFacingClusters() throws {
        let c = try city(.riversDowntown, n: 60_000)
        let (x, y) = try local(c)
        let geos = GEOSContext()
        XCTAssertEqual(c.mustNot.map(\.kind), ["river", "river"])
        let widths = try c.mustNot.map { try XCTUnwrap(try property($0, "band_width_m").doubleValue) }
        XCTAssertEqual(widths[0], 150)
        XCTAssertTrue(widths[1] >= 400 && widths[1] <= 600, "\(widths)")
        let xs = x.sorted()
        let (west, east) = (xs.first!, xs.last!)
        for (z, river) in c.mustNot.enumerated() {
            let band = try geometry(river, geos)
            // From the west edge to the east edge of the data.
            let e = try XCTUnwrap(band.envelope)
            XCTAssertLessThan(e.minX - west, 5, "river \(z)")
            XCTAssertLessThan(east - e.maxX, 5, "river \(z)")
            // Its area is its width times its (meandering) length: at least the width times the breadth.
            XCTAssertGreaterThan(band.area, widths[z] * (e.maxX - e.minX))
            XCTAssertLessThan(band.area, widths[z] * (e.maxX - e.minX) * 1.5)
            // No POI in it; no planted POI within 15 m of it.
            let inside = try band.prepared()
            XCTAssertEqual(try (0..<c.count).filter { try inside.covers(x: x[$0], y: y[$0]) }, [], "river \(z)")
            let margin = try band.buffer(SyntheticCity.riverBankGap - 0.01, quadrantSegments: 16).prepared()
            XCTAssertEqual(
                try (0..<c.count).filter { p in try c.clusterOf[p] >= 0 && margin.covers(x: x[p], y: y[p]) }, [])
        }
        // Both banks of the downtown river are dense: the local spacing (5th-neighbour distance) of
        // the background 650-1000 m from the river (beyond the clusters), within 700 m of the
        // middle downtown's centre along it, is about 50 m (55 m there by the bump's σ) on each
        // bank, far below the base field's 120 m.
        let field = (0..<c.count).filter { c.clusterOf[$0] < 0 }
        let index = LocationIndex(x: field.map { x[$0] }, y: field.map { y[$0] })
        let river = try geometry(c.mustNot[0], geos)
        let band = try river.buffer(1000).difference(river.buffer(650)).prepared()
        let columns = max(1, Int(((east - west) / SyntheticCity.riversDowntownColumn).rounded()))
        let centre = west + (Double(columns / 2) + 0.5) * (east - west) / Double(columns)
        var medians: [Double] = []
        for bank in [1.0, -1.0] {
            var d5: [Double] = []
            for p in field where abs(x[p] - centre) < 700 && (y[p] + 3000) * bank > 0 && y[p] < 0 {
                if try band.covers(x: x[p], y: y[p]) { d5.append(index.kthNearestOther(x: x[p], y: y[p], k: 5)!) }
            }
            XCTAssertGreaterThan(d5.count, 100)
            medians.append(RegionCheck.median(d5)!)
        }
        XCTAssertTrue(medians.allSatisfy { $0 > 45 && $0 < 62 }, "\(medians)")
        XCTAssertEqual(medians[0], medians[1], accuracy: 0.1 * medians[0])
        // Pairs face each other across their river, one on each bank, and no two truths overlap.
        let truths = try c.truths.map { try geometry($0, geos) }
        XCTAssertEqual(c.truths.count % 2, 0)
        for k in stride(from: 0, to: c.truths.count, by: 2) {
            XCTAssertEqual(try property(c.truths[k], "bank"), .string("north"))
            XCTAssertEqual(try property(c.truths[k + 1], "bank"), .string("south"))
            XCTAssertEqual(try property(c.truths[k], "river"), try property(c.truths[k + 1], "river"))
        }
        for i in truths.indices {
            for j in truths.indices where j > i { XCTAssertFalse(truths[i].intersects(truths[j]), "\(i) \(j)") }
        }
        // Four pairs per downtown on the downtown river, two per borough pair on the other.
        let downtownPairs = c.truths.filter { (try? property($0, "setting")) == .string("downtown") }.count / 2
        let boroughPairs = c.truths.filter { (try? property($0, "setting")) == .string("boroughs") }.count / 2
        XCTAssertEqual(downtownPairs, 2 * boroughPairs)
        XCTAssertEqual(downtownPairs % 4, 0)
    }

    /// The evaluator on the scenario's own truth: the clusters as regions span no river; a region
    /// made of both clusters of a pair spans its river.
    func testTheEvaluatorCountsPairsJoinedAcrossTheRiverAsSpanning() throws {
        let c = try city(.riversDowntown, n: 30_000) { $0.clusters = 2 }
        let truth = try RegionFeatureFile(path: "truth", text: c.truthGeoJSON())
        let mustNot = try RegionFeatureFile(path: "must-not", text: XCTUnwrap(c.mustNotGeoJSON()))
        var pois = EvaluationPOIs(path: "pois")
        for p in 0..<c.count {
            pois.append(
                id: String(c.ids[p]), keywordText: KeywordText.normalize(c.categoryOf[p]), lon: c.lon[p], lat: c.lat[p])
        }
        let alone = try Evaluator().scoreTruth(regions: truth, truth: truth, pois: pois, mustNot: mustNot)
        XCTAssertEqual(try XCTUnwrap(alone.rivers).banks, [2, 2])
        XCTAssertEqual(alone.levels.map(\.spanningRivers), [0])
        XCTAssertEqual(alone.bestLevelF1, [1, 1])
        var joined = truth
        joined.features = stride(from: 0, to: truth.features.count, by: 2).map { k in
            var f = truth.features[k]
            f.polygons += truth.features[k + 1].polygons
            return f
        }
        let pairs = try Evaluator().scoreTruth(regions: joined, truth: truth, pois: pois, mustNot: mustNot)
        XCTAssertEqual(pairs.levels.map(\.spanningRivers), [joined.features.count])
    }

    // MARK: - blocks

    func testKeywordBlocksHoldTheirMembersOnBothFrontagesAndInside() throws {
        let c = try city(.blocks, n: 60_000)
        let (x, y) = try local(c)
        let geos = GEOSContext()
        let blocks = c.truths.filter { $0.kind == "block" }
        let frontages = c.truths.filter { $0.kind == "frontage" }
        XCTAssertEqual(blocks.count, 12)
        XCTAssertEqual(frontages.count, 6)
        // The grid, from the first block: blocks 160 × 80 m, streets 20 m.
        let first = try geometry(blocks[0], geos).envelope!
        let i0 = try XCTUnwrap(property(blocks[0], "block_x").doubleValue)
        let j0 = try XCTUnwrap(property(blocks[0], "block_y").doubleValue)
        let x0 = first.minX - i0 * 180
        let y0 = first.minY - j0 * 100
        // Every POI lies on a block, none in a street.
        for p in 0..<c.count {
            let u = (x[p] - x0).truncatingRemainder(dividingBy: 180)
            let v = (y[p] - y0).truncatingRemainder(dividingBy: 100)
            XCTAssertTrue(u >= -1e-6 && u <= 160 + 1e-6 && v >= -1e-6 && v <= 80 + 1e-6, "POI \(p) in a street")
        }
        for (index, block) in c.truths.enumerated() where block.kind == "block" {
            let e = try geometry(block, geos).envelope!
            XCTAssertEqual(e.maxX - e.minX, 160, accuracy: 1e-6)
            XCTAssertEqual(e.maxY - e.minY, 80, accuracy: 1e-6)
            let members = (0..<c.count).filter { c.clusterOf[$0] == index }
            XCTAssertGreaterThanOrEqual(members.count, 24)
            let north = members.filter { e.maxY - y[$0] <= 12 }.count
            let south = members.filter { y[$0] - e.minY <= 12 }.count
            let inside = members.count - north - south
            XCTAssertGreaterThanOrEqual(north, members.count * 3 / 10, "block \(index)")
            XCTAssertGreaterThanOrEqual(south, members.count * 3 / 10, "block \(index)")
            XCTAssertGreaterThanOrEqual(inside, members.count / 10, "block \(index)")
            // Denser than around: at least 5 × the keyword's density in the 5 × 5 blocks about it.
            let around = (0..<c.count).filter {
                c.categoryOf[$0] == block.keyword && c.clusterOf[$0] != index && abs(x[$0] - (e.minX + 80)) < 450
                    && abs(y[$0] - (e.minY + 40)) < 250
            }.count
            XCTAssertGreaterThan(Double(members.count) / 12_800, 5 * Double(around) / (900 * 500 - 12_800))
        }
        // Frontage strips: members along one street side, within 12 m of the blocks' north edges.
        for (index, f) in c.truths.enumerated() where f.kind == "frontage" {
            let e = try geometry(f, geos).envelope!
            XCTAssertEqual(e.maxX - e.minX, 3 * 160 + 2 * 20, accuracy: 1e-6)
            let members = (0..<c.count).filter { c.clusterOf[$0] == index }
            XCTAssertGreaterThanOrEqual(members.count, 18)
            let edge = e.maxY - 10
            XCTAssertTrue(members.allSatisfy { edge - y[$0] >= 2 && edge - y[$0] <= 12 })
        }
    }

    // MARK: - towns

    func testTownsLieFiftyToAHundredKilometresOutAtATwentiethToATenthOfTheMetrosDensity() throws {
        let c = try city(.towns, n: 100_000)
        let (x, y) = try local(c)
        XCTAssertEqual(c.count, 100_000)
        let towns = c.truths.filter { $0.kind == "town" }
        XCTAssertEqual(towns.count, 8)
        XCTAssertEqual(c.truths.filter { $0.kind == "cluster" }.count, 10)
        let half = c.config.extentKm * 500
        let metro = (0..<c.count).filter { abs(x[$0]) <= half && abs(y[$0]) <= half }.count
        let metroDensity = Double(metro) / (4 * half * half)
        var bearings: [Double] = []
        for (index, t) in c.truths.enumerated() where t.kind == "town" {
            let tx = try XCTUnwrap(property(t, "town_x_m").doubleValue)
            let ty = try XCTUnwrap(property(t, "town_y_m").doubleValue)
            let sigma = try XCTUnwrap(property(t, "town_sigma_m").doubleValue)
            let factor = try XCTUnwrap(property(t, "density_factor").doubleValue)
            let distance = hypot(tx, ty)
            XCTAssertTrue(distance >= 50_000 && distance <= 100_000, "\(distance)")
            XCTAssertTrue(factor >= 0.05 && factor <= 0.1, "\(factor)")
            bearings.append(atan2(ty, tx))
            // The town's POIs within 2σ (planted ones left out), per km², against the metro's mean.
            let inTown = (0..<c.count).filter { c.clusterOf[$0] < 0 && hypot(x[$0] - tx, y[$0] - ty) <= 2 * sigma }
            let density = Double(inTown.count) / (.pi * 4 * sigma * sigma)
            // Binomial noise on 200-500 POIs: within 20 %.
            XCTAssertEqual(density / metroDensity, factor, accuracy: 0.2 * factor)
            // The dining centre lies within σ/2 of the town's centre and its members in their disc.
            let members = (0..<c.count).filter { c.clusterOf[$0] == index }
            XCTAssertTrue((12...24).contains(members.count))
            let cx = members.map { x[$0] }.reduce(0, +) / Double(members.count)
            let cy = members.map { y[$0] }.reduce(0, +) / Double(members.count)
            XCTAssertLessThan(hypot(cx - tx, cy - ty), sigma / 2 + 150)
        }
        // Spread around the metro: no two towns within 0.2 rad of each other's bearing.
        let sorted = bearings.sorted()
        for k in 1..<sorted.count { XCTAssertGreaterThan(sorted[k] - sorted[k - 1], 0.15) }
    }

    // MARK: - downtowns and strips

    func testTheDowntownsCityIsTheClustersCityWithoutClustersAndWritesItsDowntowns() throws {
        let downtowns = try city(.downtowns, n: 20_000)
        let plain = try city(.clusters, n: 20_000) { $0.clusters = 0 }
        XCTAssertEqual(downtowns.lon, plain.lon)
        XCTAssertEqual(downtowns.names, plain.names)
        XCTAssertTrue(downtowns.truths.isEmpty)
        XCTAssertEqual(downtowns.mustNot.map(\.kind), Array(repeating: "downtown", count: 5))
        XCTAssertNil(plain.mustNotGeoJSON())
        // Each disc of 2σ holds most of its downtown's POIs: together at least 0.86 × 40 % of the
        // city beyond the uniform background's share of their area.
        let (x, y) = try local(downtowns)
        let geos = GEOSContext()
        let discs = try geos.unionAll(try downtowns.mustNot.map { try geometry($0, geos) })
        let inside = try discs.prepared()
        let count = try (0..<downtowns.count).filter { try inside.covers(x: x[$0], y: y[$0]) }.count
        let side = downtowns.config.extentKm * 1000
        let uniform = 0.6 * Double(downtowns.count) * discs.area / (side * side)
        XCTAssertGreaterThan(Double(count), uniform + 0.8 * 0.4 * Double(downtowns.count))
        let file = try RegionFeatureFile(path: "m", text: XCTUnwrap(downtowns.mustNotGeoJSON()))
        XCTAssertNoThrow(try MustNotShare.validate(file))
    }

    /// A strip's truth is its whole length: members are spread from one end of the corridor to the
    /// other (their extent along the corridor's axis is most of the corridor's, less its caps).
    func testStripMembersRunTheWholeLengthOfTheirCorridor() throws {
        let c = try city(.strips, n: 60_000)
        let (x, y) = try local(c)
        for (i, strip) in c.truths.enumerated() {
            let ring = strip.polygons[0][0]
            let mx = ring.x.reduce(0, +) / Double(ring.x.count)
            let my = ring.y.reduce(0, +) / Double(ring.y.count)
            // The principal axis of the corridor's outline.
            var sxx = 0.0
            var sxy = 0.0
            var syy = 0.0
            for (px, py) in zip(ring.x, ring.y) {
                sxx += (px - mx) * (px - mx)
                sxy += (px - mx) * (py - my)
                syy += (py - my) * (py - my)
            }
            let angle = 0.5 * atan2(2 * sxy, sxx - syy)
            func along(_ px: Double, _ py: Double) -> Double { (px - mx) * cos(angle) + (py - my) * sin(angle) }
            let outline = zip(ring.x, ring.y).map { along($0, $1) }
            let members = (0..<c.count).filter { c.clusterOf[$0] == i }.map { along(x[$0], y[$0]) }
            let corridor = outline.max()! - outline.min()! - 2 * SyntheticCity.stripCorridor
            XCTAssertGreaterThan(members.max()! - members.min()!, 0.7 * corridor, "strip \(i)")
        }
    }

    func testGenerateCommandWritesTheNewScenarios() throws {
        let dir = TestSupport.temporaryDirectory()
        func run(_ args: [String]) -> ExitStatus {
            do {
                let parsed = try GenerateCommand.spec.parse(args)
                return ToolMain.execute { try GenerateCommand.run(parsed) }
            } catch {
                return .usage
            }
        }
        XCTAssertEqual(run(["--scenario", "downtowns", "--n", "5000", "--out", dir + "/d", "--quiet"]), .success)
        let d = try RegionFeatureFile.read(path: dir + "/d.must_not.geojson")
        XCTAssertEqual(d.features.map { $0.kind ?? "" }, Array(repeating: "downtown", count: 5))
        XCTAssertEqual(
            run(["--scenario", "towns", "--towns", "3", "--n", "20000", "--out", dir + "/t", "--quiet"]), .success)
        let t = try RegionFeatureFile.read(path: dir + "/t.truth.geojson")
        XCTAssertEqual(t.features.filter { $0.kind == "town" }.count, 3)
        XCTAssertEqual(run(["--scenario", "blocks", "--n", "1000", "--out", dir + "/b", "--quiet"]), .usage)
        XCTAssertEqual(
            run(["--scenario", "rivers-downtown", "--n", "20000", "--out", dir + "/r", "--quiet"]), .success)
        let r = try RegionFeatureFile.read(path: dir + "/r.must_not.geojson")
        XCTAssertEqual(r.features.map { $0.kind ?? "" }, ["river", "river"])
    }
}
