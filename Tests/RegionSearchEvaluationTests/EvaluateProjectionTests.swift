import CGEOS
import XCTest

@testable import RegionSearchEvaluation
@testable import RegionSearchOutput
@testable import RegionSearchProjection
@testable import RegionSearchSynthetic

/// Metres come from PROJ: areas and IoUs measured in the automatic CRS agree with geodesic
/// areas on the ellipsoid; and the generator's own truth scores as expected.
final class EvaluateProjectionTests: XCTestCase {
    /// A lon/lat rectangle (edges along meridians and parallels).
    private func box(_ lon0: Double, _ lat0: Double, _ lon1: Double, _ lat1: Double) -> GeoJSONWriter.Ring {
        // Densified so that the straight edges in the projected plane follow the parallels.
        var lon: [Double] = []
        var lat: [Double] = []
        let n = 50
        for k in 0..<n {
            lon.append(lon0 + (lon1 - lon0) * Double(k) / Double(n))
            lat.append(lat0)
        }
        for k in 0..<n {
            lon.append(lon1)
            lat.append(lat0 + (lat1 - lat0) * Double(k) / Double(n))
        }
        for k in 0..<n {
            lon.append(lon1 - (lon1 - lon0) * Double(k) / Double(n))
            lat.append(lat1)
        }
        for k in 0..<n {
            lon.append(lon0)
            lat.append(lat1 - (lat1 - lat0) * Double(k) / Double(n))
        }
        lon.append(lon0)
        lat.append(lat0)
        return GeoJSONWriter.Ring(lon: lon, lat: lat)
    }

    func testIoUInMetresMatchesGeodesicAreasAtSixtyNorth() throws {
        // A 1 km square at 60°N, 2.5° west of its UTM zone's central meridian (27°E).
        let lon0 = 24.5
        let lat0 = 60.0
        let dLat = 1000 / Geodesic.distance(lon1: lon0, lat1: lat0, lon2: lon0, lat2: lat0 + 0.01) * 0.01
        let dLon = 1000 / Geodesic.distance(lon1: lon0, lat1: lat0, lon2: lon0 + 0.01, lat2: lat0) * 0.01
        let truth = box(lon0, lat0, lon0 + dLon, lat0 + dLat)
        let shifted = box(lon0 + dLon / 2, lat0, lon0 + 1.5 * dLon, lat0 + dLat)
        let overlap = box(lon0 + dLon / 2, lat0, lon0 + dLon, lat0 + dLat)
        let aT = Geodesic.area(lon: truth.lon, lat: truth.lat)
        let aS = Geodesic.area(lon: shifted.lon, lat: shifted.lat)
        let aO = Geodesic.area(lon: overlap.lon, lat: overlap.lat)
        XCTAssertEqual(aT, 1e6, accuracy: 1e6 * 0.002)  // the construction is a 1 km square
        let expected = aO / (aT + aS - aO)

        let s = try Evaluator().scoreTruth(
            regions: RegionFeatureFile(
                path: "r", features: [RegionFeature(id: .number(0), keyword: "k", polygons: [[shifted]], index: 0)]),
            truth: RegionFeatureFile(
                path: "t", features: [RegionFeature(id: .number(0), keyword: "k", polygons: [[truth]], index: 0)]))
        XCTAssertEqual(s.crs?.definition, "EPSG:32635")
        XCTAssertEqual(s.truths[0].bestIoU, expected, accuracy: expected * 0.005)
        // Areas in m²: within 0.5 % of the geodesic area (UTM scale error 2.5° off the meridian: ~0.1 %).
        XCTAssertEqual(s.truths[0].area, aT, accuracy: aT * 0.005)
    }

    private func city() throws -> SyntheticCity {
        var config = SyntheticCity.Config()
        config.n = 20_000
        config.seed = 3
        return try SyntheticCity(config)
    }

    func testGeneratorTruthScoredAgainstItselfIsPerfect() throws {
        let c = try city()
        let truth = try RegionFeatureFile(path: "truth", text: c.truthGeoJSON())
        XCTAssertEqual(truth.features.count, 20)
        let s = try Evaluator().scoreTruth(regions: truth, truth: truth)
        XCTAssertEqual(s.overall.recall, [1, 1])
        XCTAssertEqual(s.overall.precision, [1, 1])
        XCTAssertEqual(s.overall.f1, [1, 1])
        XCTAssertEqual(s.overall.meanBestIoU!, 1, accuracy: 1e-12)
        XCTAssertEqual(s.overall.precisionInside, 1)
        XCTAssertEqual(s.truths.map(\.regionID), s.truths.map(\.truthID))
    }

    /// The oracle: convex hulls of each cluster's planted POIs. A hull of n points of a Gaussian
    /// with σ = r/2, truncated to the disc of radius r, covers on average 29 % of the disc for
    /// n = 10, 45 % for n = 20 and 53 % for n = 30 (Monte Carlo, 20 000 draws each); over the
    /// generator's n = U(0.5, 1.5) × 20 about 12 % of hulls fall below IoU 0.3. Over 20 clusters
    /// the number below 0.3 is then Binomial(20, 0.12): 7 or more has probability < 1 %, so
    /// recall@0.3 ≥ 0.65; the mean best IoU is 0.43 ± 0.03 (one standard error), so within [0.3, 0.6].
    func testOracleHullsOfPlantedPOIsRecallMostClusters() throws {
        let c = try city()
        let truth = try RegionFeatureFile(path: "truth", text: c.truthGeoJSON())
        let geos = GEOSContext()
        let proj = PROJContext()
        let t = try proj.transformation(from: "EPSG:4326", to: "EPSG:32650")
        var features: [RegionFeature] = []
        var hullAreas: [Double] = []
        for (k, cluster) in c.clusters.enumerated() {
            var x: [Double] = []
            var y: [Double] = []
            for i in 0..<c.count where c.clusterOf[i] == k {
                x.append((c.lon[i] * 1e7).rounded() / 1e7)
                y.append((c.lat[i] * 1e7).rounded() / 1e7)
            }
            _ = try t.transform(x: &x, y: &y)
            let hull = try geos.multiPoint(x: x, y: y).convexHull()
            hullAreas.append(hull.area)
            var (hx, hy) = try hull.exteriorRing()
            _ = try t.transform(x: &hx, y: &hy, inverse: true)
            features.append(
                RegionFeature(
                    id: .number(Double(k)), keyword: cluster.keyword,
                    polygons: [[GeoJSONWriter.Ring(lon: hx, lat: hy)]], index: k))
        }
        let s = try Evaluator().scoreTruth(regions: RegionFeatureFile(path: "oracle", features: features), truth: truth)
        XCTAssertEqual(s.crs?.definition, "EPSG:32650")
        XCTAssertGreaterThanOrEqual(s.overall.recall[0], 0.65)
        XCTAssertGreaterThan(s.overall.meanBestIoU!, 0.3)
        XCTAssertLessThan(s.overall.meanBestIoU!, 0.6)
        XCTAssertEqual(s.overall.precisionInside, 1)  // every hull lies inside its disc
        for (k, m) in s.truths.enumerated() {
            // Each disc's best match is its own cluster's hull, and since the hull lies inside
            // the disc the IoU is the hull's share of the disc's area.
            XCTAssertEqual(m.regionID, .number(Double(k)))
            XCTAssertEqual(m.bestIoU, hullAreas[k] / m.area, accuracy: 2e-3)
        }
    }
}
