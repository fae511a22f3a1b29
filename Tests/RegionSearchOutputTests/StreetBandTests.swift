import CGEOS
import XCTest

@testable import RegionSearchCore
@testable import RegionSearchModel
@testable import RegionSearchOutput
@testable import RegionSearchProjection

/// Rule 3a (`street_aspect`): a region that is a street is drawn as a street-wide band along its
/// centre line, the same width all along, without the bulges and arms of its grown skeleton; a
/// block lined on its frontages, a loop or a handful of POIs is drawn as its grown skeleton.
final class StreetBandTests: XCTestCase {
    /// Regions of the points at `x`, `y` (metres east and north of 77° W, 39° N, in UTM 18N), one
    /// per group of input rows, joined by every pair at most `reach` apart, spacing 20 m, margin
    /// 6 m; the polygons in UTM, drawn with the given `street_aspect`.
    private func drawn(x: [Double], y: [Double], reach: Double, streetAspect: Double) throws -> (
        polygon: GEOSGeometry, membersInside: Double, isStreet: Bool
    ) {
        let frame = try PlanarTestFrame(x: x, y: y)
        var edges: [(Int, Int)] = []
        for a in x.indices {
            for b in (a + 1)..<x.count where hypot(x[a] - x[b], y[a] - y[b]) <= reach { edges.append((a, b)) }
        }
        var options = RegionPolygonBuilder.Options(margin: 6, minExtent: 0)
        options.streetAspect = streetAspect
        let (polygons, dropped) = try frame.build(
            RegionTable(regions: [frame.region(rows: Array(x.indices), edges: edges, spacing: 20, rank: 1)]),
            with: RegionPolygonBuilder(options: options))
        XCTAssertEqual(dropped, 0)
        return (
            try frame.planar(polygons[0], geos: GEOSContext()), polygons[0].shape.membersInside, polygons[0].isStreet
        )
    }

    /// 40 POIs every 20 m along y = 0, 20, 10, 5 or 15 m to either side in a fixed pattern (the
    /// two sides of a street), and one POI 70 m off the street at x = 400.
    private func street() -> (x: [Double], y: [Double]) {
        let pattern: [Double] = [-20, 10, -5, 15, -15, 5, 20, -10]
        var x = (0..<40).map { Double($0) * 20 }
        var y = (0..<40).map { pattern[$0 % pattern.count] }
        x.append(400)
        y.append(70)
        return (x, y)
    }

    /// How far north and south of (x, 0) the polygon reaches, in half-metre steps.
    private func reach(_ polygon: GEOSGeometry, at x: Double) throws -> (north: Double, south: Double) {
        let prepared = try polygon.prepared()
        var north = 0.0
        while try prepared.covers(x: x, y: north + 0.5) { north += 0.5 }
        var south = 0.0
        while try prepared.covers(x: x, y: -(south + 0.5)) { south += 0.5 }
        return (north, south)
    }

    func testAStreetIsABandOfOneWidthWithoutItsOutlier() throws {
        let (x, y) = street()
        let band = try drawn(x: x, y: y, reach: 45, streetAspect: 4)
        let skeleton = try drawn(x: x, y: y, reach: 45, streetAspect: 0)
        // Its kind says how it is drawn: a street with street_aspect 4, an area without.
        XCTAssertTrue(band.isStreet)
        XCTAssertFalse(skeleton.isStreet)
        // The POI 70 m off the street: the grown skeleton draws it (a disc of the margin), the
        // band leaves it out — 1 of 41 members, so 40 / 41 are inside.
        XCTAssertTrue(try skeleton.polygon.prepared().covers(x: 400, y: 70))
        XCTAssertFalse(try band.polygon.prepared().covers(x: 400, y: 70))
        XCTAssertEqual(band.membersInside, 40.0 / 41, accuracy: 1e-4)
        let inside = try band.polygon.prepared()
        for k in 0..<40 { XCTAssertTrue(try inside.covers(x: x[k], y: y[k]), "member \(k) on the street is inside") }
        // One width all along: between x = 100 and 700 the band reaches as far north and south
        // everywhere (the centre line wavers by the pattern's smoothing, a few metres), and it
        // holds the members at ±20 m without reaching past twice that plus the margin.
        var widths: [Double] = []
        for px in stride(from: 100.0, through: 700, by: 50) {
            let r = try reach(band.polygon, at: px)
            XCTAssertGreaterThanOrEqual(r.north, 20, "x = \(px)")
            XCTAssertGreaterThanOrEqual(r.south, 20, "x = \(px)")
            XCTAssertLessThanOrEqual(max(r.north, r.south), 2 * 20 + 6, "x = \(px)")
            widths.append(r.north + r.south)
        }
        XCTAssertLessThanOrEqual(widths.max()! - widths.min()!, 5, "one width all along: \(widths)")
        // Its ends reach the end members (x = 0 and 780) and stop one half-width past them.
        let w = widths.reduce(0, +) / Double(widths.count)
        XCTAssertTrue(try inside.covers(x: -1, y: 0))
        XCTAssertFalse(try inside.covers(x: -w / 2 - 3, y: 0))
        XCTAssertFalse(try inside.covers(x: 780 + w / 2 + 3, y: 0))
        // The skeleton's zigzag between the two sides is narrower in places and bulges in others.
        var skeletonWidths: [Double] = []
        for px in stride(from: 100.0, through: 700, by: 50) {
            let r = try reach(skeleton.polygon, at: px)
            skeletonWidths.append(r.north + r.south)
        }
        XCTAssertGreaterThan(skeletonWidths.max()! - skeletonWidths.min()!, 5, "\(skeletonWidths)")
    }

    func testABlockLinedOnItsFrontagesIsNotABand() throws {
        // North and south frontages 60 m apart, 300 m long, POIs every 20 m, joined around the
        // east end: the spine runs along one frontage, around the end and back along the other.
        // A street does not turn back: drawn as the grown skeleton (closed into the block).
        var x: [Double] = []
        var y: [Double] = []
        for k in 0...15 {
            x.append(Double(k) * 20)
            y.append(0)
        }
        for k in 0...15 {
            x.append(Double(k) * 20)
            y.append(60)
        }
        x += [300, 300]
        y += [20, 40]
        let aspect4 = try drawn(x: x, y: y, reach: 21, streetAspect: 4)
        let off = try drawn(x: x, y: y, reach: 21, streetAspect: 0)
        XCTAssertEqual(aspect4.polygon.area, off.polygon.area, accuracy: 1e-6 * off.polygon.area)
        XCTAssertTrue(try aspect4.polygon.prepared().covers(x: 150, y: 30), "the block is drawn whole")
        XCTAssertFalse(aspect4.isStreet, "a block is an area")
    }

    func testAShortRowIsNotABand() throws {
        // 11 POIs in a row: too few to fix a line and a width (at least 12).
        let x = (0..<11).map { Double($0) * 20 }
        let y = (0..<11).map { $0 % 2 == 0 ? 8.0 : -8 }
        let aspect4 = try drawn(x: x, y: y, reach: 45, streetAspect: 4)
        let off = try drawn(x: x, y: y, reach: 45, streetAspect: 0)
        XCTAssertEqual(aspect4.polygon.area, off.polygon.area, accuracy: 1e-6 * off.polygon.area)
        XCTAssertFalse(aspect4.isStreet, "11 POIs in a row are an area")
    }

    /// The band tests' distance check (``RegionPolygonBuilder/within(_:_:line:band:reach:)``,
    /// which stops at the first segment close enough) gives the answers of the distance to the
    /// whole polyline, measured segment by segment, on random points and polylines.
    func testDistanceCheckMatchesTheDistanceToTheWholeLine() {
        var state: UInt64 = 42
        func uniform(_ low: Double, _ high: Double) -> Double {
            // SplitMix64: a fixed sequence, so a failure reproduces.
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return low + (high - low) * Double((z ^ (z >> 31)) >> 11) / Double(1 << 53)
        }
        var answers = Set<[Bool]>()
        for _ in 0..<2000 {
            let line = (0..<(2 + Int(uniform(0, 8)))).map { _ in (x: uniform(0, 500), y: uniform(0, 500)) }
            let (px, py) = (uniform(-100, 600), uniform(-100, 600))
            var distance = Double.infinity
            for k in 0..<(line.count - 1) {
                distance = min(distance, StreetSpine.distance(px, py, toSegment: line[k], line[k + 1]))
            }
            let (limit, reach) = (uniform(0, 200), uniform(0, 200))
            let band: (Double) -> Bool = { 3 * $0 <= 3 * limit }
            let got = RegionPolygonBuilder.within(px, py, line: line, band: band, reach: reach)
            XCTAssertEqual(got.band, band(distance))
            XCTAssertEqual(got.reach, distance <= reach)
            answers.insert([got.band, got.reach])
        }
        // Every combination of the two answers came up.
        XCTAssertEqual(answers.count, 4)
    }
}
