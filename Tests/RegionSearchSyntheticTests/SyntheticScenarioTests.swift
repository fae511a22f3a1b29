import Foundation
import XCTest

@testable import RegionSearchCLI
@testable import RegionSearchCore
@testable import RegionSearchEvaluation
@testable import RegionSearchOutput
@testable import RegionSearchProjection
@testable import RegionSearchSynthetic
@testable import RegionSearchTestSupport

/// The generator's scenarios: deterministic, the counts they promise, members inside their truth,
/// strips at 2–3 × the base share, empty river bands at the stated widths and spacings, voids
/// without POIs, a periphery whose POIs are kilometres apart.
final class SyntheticScenarioTests: XCTestCase {
    private func city(
        _ scenario: SyntheticScenario, n: Int, seed: UInt64 = 7, _ edit: (inout SyntheticCity.Config) -> Void = { _ in }
    )
        throws -> SyntheticCity
    {
        var config = SyntheticCity.Config(scenario: scenario)
        config.n = n
        config.seed = seed
        edit(&config)
        return try SyntheticCity(config)
    }

    /// The POIs in the generator's local plane (azimuthal equidistant about the centre).
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

    func testEveryScenarioIsDeterministicAndItsMembersLieInTheirTruth() throws {
        let geos = GEOSContext()
        for scenario in SyntheticScenario.allCases {
            let n = scenario == .periphery ? 30_000 : 12_000
            let a = try city(scenario, n: n) { if scenario == .strips { $0.clusters = 4 } }
            let b = try city(scenario, n: n) { if scenario == .strips { $0.clusters = 4 } }
            let other = try city(scenario, n: n, seed: 8) { if scenario == .strips { $0.clusters = 4 } }
            XCTAssertEqual(a.lon, b.lon, "\(scenario)")
            XCTAssertEqual(a.names, b.names, "\(scenario)")
            XCTAssertEqual(a.truthGeoJSON(), b.truthGeoJSON(), "\(scenario)")
            XCTAssertEqual(a.truthMembersCSV(), b.truthMembersCSV(), "\(scenario)")
            XCTAssertEqual(a.mustNotGeoJSON(), b.mustNotGeoJSON(), "\(scenario)")
            XCTAssertNotEqual(a.lon, other.lon, "\(scenario): another seed, another city")
            XCTAssertEqual(a.ids, Array(1...a.count))

            // Members: one row per planted POI, each of its truth's keyword, inside its polygon.
            let rows = a.truthMembersCSV().split(separator: "\n").dropFirst()
            XCTAssertEqual(rows.count, a.clusterOf.filter { $0 >= 0 }.count, "\(scenario)")
            let (x, y) = try local(a)
            let prepared = try a.truths.map { try geometry($0, geos).prepared() }
            for (i, area) in a.truths.enumerated() {
                let members = (0..<a.count).filter { a.clusterOf[$0] == i }
                XCTAssertEqual(members.count, area.count, "\(scenario) truth \(i)")
                for p in members {
                    XCTAssertEqual(a.categoryOf[p], area.keyword)
                    XCTAssertTrue(try prepared[i].covers(x: x[p], y: y[p]), "\(scenario) truth \(i) POI \(p)")
                }
            }
            // The written truth has the same features, each with its kind (but the clusters scenario's
            // files stay as they were: no kind).
            let truth = try RegionFeatureFile(path: "t", text: a.truthGeoJSON())
            XCTAssertEqual(truth.features.count, a.truths.count)
            XCTAssertEqual(
                truth.features.first?.kind, scenario == .clusters ? nil : a.truths.first?.kind, "\(scenario)")
            if let text = a.mustNotGeoJSON() {
                let mustNot = try RegionFeatureFile(path: "m", text: text)
                XCTAssertNoThrow(try MustNotShare.validate(mustNot))
                // No POI lies in a void (the polygons are inside the areas kept empty).
                let voids = try geos.unionAll(
                    try a.mustNot.filter { $0.kind == "void" }.map { try geometry($0, geos) }
                ).prepared()
                let inVoid = try (0..<a.count).filter { try voids.covers(x: x[$0], y: y[$0]) }
                XCTAssertEqual(inVoid, [], "\(scenario)")
            }
        }
        // Only the periphery and the rivers have must-not areas.
        XCTAssertNil(try city(.clusters, n: 2000).mustNotGeoJSON())
        XCTAssertNil(try city(.uniform, n: 2000).mustNotGeoJSON())
    }

    func testCountsPerScenario() throws {
        for scenario in [SyntheticScenario.clusters, .periphery, .ellipses, .uniform] {
            XCTAssertEqual(try city(scenario, n: 20_000).count, 20_000, "\(scenario)")
        }
        let uniform = try city(.uniform, n: 40_000)
        XCTAssertTrue(uniform.truths.isEmpty)
        XCTAssertEqual(uniform.truthMembersCSV(), "id,cluster_id\n")
        // Uniform: each quarter of the square holds a quarter of the POIs (binomial σ ≈ 87).
        let (x, y) = try local(uniform)
        for (sx, sy) in [(1.0, 1.0), (1, -1), (-1, 1), (-1, -1)] {
            let q = (0..<uniform.count).filter { x[$0] * sx > 0 && y[$0] * sy > 0 }.count
            XCTAssertEqual(Double(q), 10_000, accuracy: 450)
        }
        let periphery = try city(.periphery, n: 20_000)
        XCTAssertEqual(periphery.truths.count, 12)
        XCTAssertEqual(
            periphery.truths.filter { $0.properties.contains { $0.0 == "ring" && $0.1 == .string("core") } }.count, 6)
        let ellipses = try city(.ellipses, n: 20_000)
        XCTAssertEqual(ellipses.truths.count, 20)
        XCTAssertTrue(ellipses.clusters.allSatisfy { $0.aspect == 5 && $0.radius >= 400 && $0.radius <= 1200 })
        XCTAssertEqual(try city(.rivers, n: 20_000).truths.count, 4 * 3 * 2, "3 pairs on each of 4 rivers")
    }

    func testStripsAreStreetsWhereTheKeywordHasTwoToThreeTimesItsShare() throws {
        let c = try city(.strips, n: 60_000)
        XCTAssertEqual(c.truths.count, 12)
        let base = SyntheticCity.backgroundShare("restaurant", c.config)
        XCTAssertEqual(base, 12.0 / 94, accuracy: 1e-12)
        let (x, y) = try local(c)
        let geos = GEOSContext()
        var ratios: [Double] = []
        for (i, strip) in c.truths.enumerated() {
            XCTAssertEqual(strip.kind, "strip")
            XCTAssertTrue((30...40).contains(strip.count))
            let length = try XCTUnwrap(strip.properties.first { $0.0 == "length_m" }?.1.doubleValue)
            XCTAssertTrue(length >= 1000 && length <= 2000, "\(length)")
            // The share of the keyword among all POIs in the corridor, counted here from the POIs.
            let corridor = try geometry(strip, geos).prepared()
            var all = 0
            var keyword = 0
            for p in 0..<c.count where try corridor.covers(x: x[p], y: y[p]) {
                all += 1
                if c.categoryOf[p] == "restaurant" { keyword += 1 }
            }
            let share = Double(keyword) / Double(all)
            let written = try XCTUnwrap(strip.properties.first { $0.0 == "keyword_share" }?.1.doubleValue)
            // The generator counted the corridor before other strips' POIs were added; a strip never
            // comes within 1 km of another, so the counts agree.
            XCTAssertEqual(share, written, accuracy: 1e-4, "strip \(i)")
            ratios.append(share / base)
            // The corridor is 80 m wide, about its length long: area ≈ 80 × length + π 40².
            XCTAssertEqual(try geometry(strip, geos).area, 80 * length + .pi * 1600, accuracy: 0.03 * 80 * length)
        }
        // 2–3 × (rounding of the street POIs moves it by at most about one POI in a hundred).
        XCTAssertTrue(ratios.allSatisfy { $0 > 1.9 && $0 < 3.1 }, "\(ratios)")
        XCTAssertGreaterThan(
            Set(c.truths.map { $0.properties.first { $0.0 == "legs" }!.1.doubleValue! }).count, 1, "straight and bent")
        // A keyword without background share cannot make a strip.
        XCTAssertThrowsError(try city(.strips, n: 5000) { $0.keywords = ["nothing"] }) { e in
            XCTAssertTrue("\(e)".contains("--background-rate nothing=SHARE"), "\(e)")
        }
    }

    func testRiverBandsAreEmptyAtTheirWidthsAndClustersKeepFifteenMetres() throws {
        let c = try city(.rivers, n: 60_000)
        let (x, y) = try local(c)
        let geos = GEOSContext()
        XCTAssertEqual(c.mustNot.count, 4)
        for (z, band) in c.mustNot.enumerated() {
            let width = try XCTUnwrap(band.properties.first { $0.0 == "band_width_m" }?.1.doubleValue)
            let spacing = try XCTUnwrap(band.properties.first { $0.0 == "field_spacing_m" }?.1.doubleValue)
            XCTAssertEqual(width, SyntheticCity.riverZones[z].width)
            XCTAssertEqual(width / spacing, [3, 2.5, 3, 4][z])
            // The band polygon is the centre line buffered by half the width: its area is about
            // width × (length of the meander), more than width × the zone's breadth.
            let polygon = try geometry(band, geos)
            let xs = band.polygons.flatMap { $0[0].x }
            let breadth = xs.max()! - xs.min()!
            XCTAssertGreaterThan(polygon.area, width * breadth)
            // Nothing in the band; no planted POI within 15 m of it (less 1 cm for the polygon).
            let inside = try polygon.prepared()
            XCTAssertEqual(try (0..<c.count).filter { try inside.covers(x: x[$0], y: y[$0]) }, [], "river \(z)")
            let margin = try polygon.buffer(SyntheticCity.riverBankGap - 0.01, quadrantSegments: 16).prepared()
            let near = try (0..<c.count).filter { p in try c.clusterOf[p] >= 0 && margin.covers(x: x[p], y: y[p]) }
            XCTAssertEqual(near, [], "river \(z)")
            // But the clusters do reach the margin: most of them have a member within 15-30 m of the
            // water (about 4 % of a cluster's disc lies there, so a cluster may miss it by chance).
            let reach = try polygon.buffer(SyntheticCity.riverBankGap + 15).prepared()
            let clusterOfZone = c.truths.indices.filter {
                c.truths[$0].properties.contains { $0.0 == "river" && $0.1 == .number(Double(z)) }
            }
            let reaching = try clusterOfZone.filter { k in
                try (0..<c.count).contains { p in try c.clusterOf[p] == k && reach.covers(x: x[p], y: y[p]) }
            }
            XCTAssertGreaterThanOrEqual(reaching.count, clusterOfZone.count - 2, "river \(z)")
            // The field's local spacing (median distance to the 5th nearest other POI, away from the
            // river and the zone's edges) is the stated one, within 5 %.
            let y0 = -2 * SyntheticCity.riverZoneHeight + Double(z) * SyntheticCity.riverZoneHeight
            let field = (0..<c.count).filter { y[$0] >= y0 && y[$0] < y0 + SyntheticCity.riverZoneHeight }
            let index = LocationIndex(x: field.map { x[$0] }, y: field.map { y[$0] })
            let far = try polygon.buffer(500).prepared()
            let xMax = field.map { x[$0] }.max()!
            var d5: [Double] = []
            for p in field
            where c.clusterOf[p] < 0 && abs(x[p]) < xMax - 300 && y[p] > y0 + 300
                && y[p] < y0 + SyntheticCity.riverZoneHeight - 300
            {
                if try !far.covers(x: x[p], y: y[p]) { d5.append(index.kthNearestOther(x: x[p], y: y[p], k: 5)!) }
            }
            XCTAssertGreaterThan(d5.count, 500)
            XCTAssertEqual(RegionCheck.median(d5)!, spacing, accuracy: 0.05 * spacing, "river \(z)")
        }
        // The two clusters of a pair face each other across their river: disjoint, on opposite banks.
        for k in stride(from: 0, to: c.truths.count, by: 2) {
            let north = c.truths[k]
            let south = c.truths[k + 1]
            XCTAssertEqual(north.properties.first { $0.0 == "bank" }?.1, .string("north"))
            XCTAssertEqual(south.properties.first { $0.0 == "bank" }?.1, .string("south"))
            XCTAssertFalse(try geometry(north, geos).intersects(try geometry(south, geos)))
        }
    }

    func testThePeripheryThinsOutToKilometresAndTheVoidsAreEmpty() throws {
        let c = try city(.periphery, n: 60_000)
        let (x, y) = try local(c)
        let index = LocationIndex(x: x, y: y)
        let extent = c.config.extentKm * 1000
        func spacing(_ r0: Double, _ r1: Double) -> Double {
            let ring = (0..<c.count).filter { hypot(x[$0], y[$0]) >= r0 && hypot(x[$0], y[$0]) < r1 }
            return RegionCheck.median(ring.map { index.kthNearestOther(x: x[$0], y: y[$0], k: 1)! })!
        }
        let core = spacing(0, 0.03 * extent)
        let edge = spacing(0.45 * extent, extent)
        XCTAssertLessThan(core, 30, "a dense core")
        XCTAssertGreaterThan(edge, 1000, "POIs km apart at the edge")
        // The water (east of the coast) and the bay hold no POI; nor do the parks and lakes.
        XCTAssertEqual(c.mustNot.filter { $0.kind == "void" }.count, 7, "the water and six parks and lakes")
        XCTAssertEqual(c.mustNot.filter { $0.kind == "sparse" }.map(\.keyword), c.config.keywords)
        XCTAssertLessThan((0..<c.count).filter { x[$0] > 0.17 * extent }.count, 1)
        // The clusters are denser than their background: 25-50 % as many keyword POIs as it has.
        for t in c.truths {
            let density = try XCTUnwrap(t.properties.first { $0.0 == "background_per_km2" }?.1.doubleValue)
            let radius = try XCTUnwrap(t.properties.first { $0.0 == "radius_m" }?.1.doubleValue)
            let expected = density * .pi * radius * radius / 1e6
            XCTAssertTrue(t.count == 20 || (Double(t.count) >= 0.24 * expected && Double(t.count) <= 0.51 * expected))
        }
    }

    func testGenerateCommandWritesTheMustNotFile() throws {
        let dir = TestSupport.temporaryDirectory()
        func run(_ args: [String]) -> ExitStatus {
            do {
                let parsed = try GenerateCommand.spec.parse(args)
                return ToolMain.execute { try GenerateCommand.run(parsed) }
            } catch {
                return .usage
            }
        }
        XCTAssertEqual(run(["--scenario", "lakes", "--out", dir + "/x"]), .usage)
        XCTAssertEqual(run(["--scenario", "rivers", "--n", "8000", "--out", dir + "/r", "--quiet"]), .success)
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir + "/r.must_not.geojson"))
        let truth = try RegionFeatureFile.read(path: dir + "/r.truth.geojson")
        XCTAssertEqual(Set(truth.features.map { $0.kind ?? "" }), ["cluster"])
        XCTAssertEqual(run(["--n", "3000", "--out", dir + "/c", "--quiet"]), .success)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/c.must_not.geojson"))
        // A prefix must end in a name: a folder would get hidden `.csv` files.
        for prefix in ["", dir, dir + "/", dir + "/."] {
            XCTAssertEqual(run(["--n", "3000", "--out", prefix, "--quiet"]), .usage, prefix)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/.csv"))
    }

    /// The files of one city are replaced as a set: when one of them cannot be written (a full
    /// disk; here its temporary file cannot be created), the previous set stays whole. The POI
    /// file used to be replaced first, leaving a new city beside the old city's truth.
    func testGenerateReplacesTheFilesOfACityAsOneSet() throws {
        let dir = TestSupport.temporaryDirectory()
        func run(_ args: [String]) -> ExitStatus {
            ToolMain.execute(GenerateCommand.spec, args + ["--quiet"]) { try GenerateCommand.run($0) }
        }
        let prefix = dir + "/x"
        XCTAssertEqual(run(["--n", "1", "--seed", "1", "--out", prefix]), .success)
        let names = [".csv", ".truth.geojson", ".truth_members.csv"]
        func contents() throws -> [Data] { try names.map { try Data(contentsOf: URL(fileURLWithPath: prefix + $0)) } }
        let before = try contents()
        // Every temporary name AtomicFile tries for the truth file is taken.
        let blockers = (0..<16).map { dir + "/.x.truth.geojson" + AtomicFile.temporaryMarker + "\(getpid())-\($0)" }
        for b in blockers { XCTAssertTrue(FileManager.default.createFile(atPath: b, contents: Data())) }
        XCTAssertNotEqual(run(["--n", "1", "--seed", "2", "--out", prefix]), .success)
        XCTAssertEqual(try contents(), before, "the previous city is left as it was")
        for b in blockers { try FileManager.default.removeItem(atPath: b) }
        XCTAssertEqual(run(["--n", "1", "--seed", "2", "--out", prefix]), .success)
        XCTAssertNotEqual(try contents()[0], before[0])
        // A must-not file of an earlier scenario under the prefix is not left beside this city.
        XCTAssertEqual(run(["--scenario", "downtowns", "--n", "100", "--out", prefix]), .success)
        XCTAssertTrue(FileManager.default.fileExists(atPath: prefix + ".must_not.geojson"))
        XCTAssertEqual(run(["--n", "100", "--out", prefix]), .success)
        XCTAssertFalse(FileManager.default.fileExists(atPath: prefix + ".must_not.geojson"))
        // One written by someone else is not the generator's to remove.
        try Data("{}".utf8).write(to: URL(fileURLWithPath: prefix + ".must_not.geojson"))
        XCTAssertEqual(run(["--n", "100", "--out", prefix]), .success)
        XCTAssertTrue(FileManager.default.fileExists(atPath: prefix + ".must_not.geojson"))
    }

    /// Clusters whose minor semi-axis is below a metre were written as truth polygons without area
    /// (coordinates to 7 decimals): 20 empty MultiPolygons that nothing can match.
    func testGenerateRefusesClustersTooSmallToWrite() {
        let dir = TestSupport.temporaryDirectory()
        func run(_ args: [String]) -> ExitStatus {
            ToolMain.execute(GenerateCommand.spec, args + ["--quiet", "--out", dir + "/x"]) {
                try GenerateCommand.run($0)
            }
        }
        XCTAssertEqual(run(["--n", "100", "--min-radius-m", "0.001", "--max-radius-m", "0.001"]), .usage)
        XCTAssertEqual(run(["--n", "100", "--aspect", "1000"]), .usage)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/x.truth.geojson"))
        XCTAssertEqual(run(["--n", "100", "--min-radius-m", "1", "--max-radius-m", "1"]), .success)
    }

    /// A city larger than the machine's memory is refused before anything is generated.
    func testGenerateRefusesACityLargerThanMemory() {
        let gib: UInt64 = 1 << 30
        XCTAssertNil(GenerateCommand.memoryRefusal(n: 10_000_000, physicalMemory: 24 * gib))
        XCTAssertNil(GenerateCommand.memoryRefusal(n: 100_000_000, physicalMemory: 24 * gib))
        let refusal = GenerateCommand.memoryRefusal(n: 1_000_000_000, physicalMemory: 24 * gib)
        XCTAssertEqual(
            refusal,
            "--n 1000000000 would need about 170.0 GB of memory (about 170 bytes a POI) and this machine has 25.8 GB: "
                + "give a smaller --n")
        XCTAssertNotNil(GenerateCommand.memoryRefusal(n: 1_000_000, physicalMemory: 100_000_000))
    }

    /// The polyline's grid answers "within r?" as the exact distance to its segments does.
    func testPolylineIsWithinMatchesTheDistance() {
        var rng = SeededRandom(seed: 3)
        let xs = (0..<40).map { Double($0) * 37 }
        let line = Polyline(x: xs, y: xs.map { 200 * sin($0 / 150) }, radius: 60)
        XCTAssertEqual(
            line.length,
            zip(xs.dropFirst(), xs).enumerated().reduce(0.0) { s, e in
                s + hypot(e.element.0 - e.element.1, 200 * sin(e.element.0 / 150) - 200 * sin(e.element.1 / 150))
            }, accuracy: 1e-9)
        var near = 0
        for _ in 0..<20_000 {
            let x = rng.uniform(-100, 1550)
            let y = rng.uniform(-300, 300)
            let r = rng.uniform(1, 60)
            let exact = line.distance(x: x, y: y) < r
            XCTAssertEqual(line.isWithin(r, x: x, y: y), exact)
            if exact { near += 1 }
        }
        XCTAssertGreaterThan(near, 1000)
        let p = line.point(at: 37 * 2.5)
        XCTAssertEqual(hypot(p.nx, p.ny), 1, accuracy: 1e-12)
        XCTAssertLessThan(line.distance(x: p.x, y: p.y), 1e-9)
    }
}
