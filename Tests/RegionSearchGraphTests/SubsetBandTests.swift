import Foundation
import XCTest

@testable import RegionSearchCore
@testable import RegionSearchGraph

/// ``SubsetGeometry/bands(k:nearest:minimum:only:accept:floor:)``: closed forms on a street of
/// points, and a second, brute-force implementation on random points.
final class SubsetBandTests: XCTestCase {
    static func geometry(_ points: [(Double, Double)]) -> SubsetGeometry {
        let x = points.map(\.0)
        let y = points.map(\.1)
        return x.withUnsafeBufferPointer { bx in
            y.withUnsafeBufferPointer { SubsetGeometry(x: bx, y: $0, subset: (0..<points.count).map { UInt32($0) }) }
        }
    }

    func testAStreetOfPointsIsABandAndAPointBesideItIsOffIt() throws {
        // Twenty-one points 10 m apart on the x axis, one 60 m north of the middle (farther than
        // the middle's tenth neighbour), and a second POI stacked on the point at x = 50.
        var points = (0...20).map { (Double($0) * 10, 0.0) }
        points.append((100, 60))
        points.append((50, 0))
        let g = Self.geometry(points)
        let bands = g.bands(k: 10, nearest: g.nearestLocations(10), floor: { _ in 4 })
        // The middle point's ten nearest other locations are x = 50…150 without itself: the axis
        // is the street, collinear (so the half-width is the floor), 100 m long, the point on it.
        let middle = try XCTUnwrap(bands[10])
        XCTAssertEqual(middle.length, 100, accuracy: 1e-9)
        XCTAssertEqual(middle.halfWidth, 4)
        XCTAssertEqual(middle.offset, 0, accuracy: 1e-9)
        XCTAssertEqual(middle.aspect, 12.5, accuracy: 1e-9)
        // The point beside it: its nearest are street points, it stands 60 m off their axis.
        let side = try XCTUnwrap(bands[21])
        XCTAssertEqual(side.offset, 60, accuracy: 1e-9)
        XCTAssertEqual(side.halfWidth, 4)
        // Coincident POIs share their location's band.
        XCTAssertEqual(bands[22], bands[5])

        // Not for the side point, and without the point at x = 150 among anyone's neighbours: the
        // middle's band reaches from 50 to 140.
        let street = g.bands(
            k: 10, nearest: g.nearestLocations(10), minimum: 4, only: { $0 != 21 }, accept: { $1 != 15 },
            floor: { _ in 4 })
        XCTAssertNil(street[21])
        XCTAssertEqual(street[10]?.length ?? 0, 90, accuracy: 1e-9)
        // With no floor, collinear neighbours make a band of no width: infinitely long for it.
        let bare = g.bands(k: 10, nearest: g.nearestLocations(10), floor: { _ in 0 })
        XCTAssertEqual(bare[10]?.halfWidth, 0)
        XCTAssertEqual(bare[10]?.aspect, .infinity)
        // Too few accepted neighbours: no band.
        let none = g.bands(
            k: 10, nearest: g.nearestLocations(10), minimum: 4, accept: { _, _ in false }, floor: { _ in 4 })
        XCTAssertTrue(none.allSatisfy { $0 == nil })
    }

    func testTheBandsAgreeWithABruteForceFit() throws {
        var rng = SeededRandom(seed: 11)
        // A street of 100 points 1 km long, ±5 m wide, among 200 points spread over 1 km².
        var points = (0..<100).map { _ in (rng.uniform(0, 1_000), rng.uniform(-5, 5)) }
        points += (0..<200).map { _ in (rng.uniform(0, 1_000), rng.uniform(-500, 500)) }
        let g = Self.geometry(points)
        let k = 8
        let bands = g.bands(k: k, nearest: g.nearestLocations(k), floor: { _ in 1 })
        var streetAspect: [Double] = []
        for p in points.indices {
            let others = points.indices.filter { $0 != p }.sorted {
                hypot(points[$0].0 - points[p].0, points[$0].1 - points[p].1)
                    < hypot(points[$1].0 - points[p].0, points[$1].1 - points[p].1)
            }.prefix(k)
            let mx = others.map { points[$0].0 }.reduce(0, +) / Double(k)
            let my = others.map { points[$0].1 }.reduce(0, +) / Double(k)
            var (sxx, syy, sxy) = (0.0, 0.0, 0.0)
            for q in others {
                let (dx, dy) = (points[q].0 - mx, points[q].1 - my)
                sxx += dx * dx
                syy += dy * dy
                sxy += dx * dy
            }
            // The major axis: the eigenvector of the larger eigenvalue.
            let trace = sxx + syy
            let large = trace / 2 + ((sxx - syy) * (sxx - syy) / 4 + sxy * sxy).squareRoot()
            var (ux, uy) = abs(sxy) > 1e-12 ? (large - syy, sxy) : (sxx >= syy ? (1.0, 0.0) : (0.0, 1.0))
            let norm = hypot(ux, uy)
            (ux, uy) = (ux / norm, uy / norm)
            let along = (others + [p]).map { (points[$0].0 - mx) * ux + (points[$0].1 - my) * uy }
            let across = others.map { abs(-(points[$0].0 - mx) * uy + (points[$0].1 - my) * ux) }.sorted()
            let median = (across[k / 2 - 1] + across[k / 2]) / 2
            let band = try XCTUnwrap(bands[p])
            XCTAssertEqual(band.length, along.max()! - along.min()!, accuracy: 1e-6, "point \(p)")
            XCTAssertEqual(band.halfWidth, max(2 * median, 1), accuracy: 1e-6, "point \(p)")
            XCTAssertEqual(
                band.offset, abs(-(points[p].0 - mx) * uy + (points[p].1 - my) * ux), accuracy: 1e-6, "point \(p)")
            // The axis itself: through the centroid along the major axis (either way round).
            XCTAssertEqual(band.centreX, mx, accuracy: 1e-6)
            XCTAssertEqual(band.centreY, my, accuracy: 1e-6)
            XCTAssertEqual(abs(band.directionX * ux + band.directionY * uy), 1, accuracy: 1e-9)
            XCTAssertEqual(band.distanceFromAxis(points[p].0, points[p].1), band.offset, accuracy: 1e-6)
            if p < 100 { streetAspect.append(band.aspect) }
        }
        // And the street's points see a band several times longer than wide, the scattered ones
        // one about as wide as long.
        let scattered = bands[100...].compactMap { $0?.aspect }
        XCTAssertGreaterThan(Selection.median(streetAspect), 4)
        XCTAssertLessThan(Selection.median(scattered), 2)
    }
}
