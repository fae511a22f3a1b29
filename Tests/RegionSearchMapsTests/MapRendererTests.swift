import Foundation
import XCTest

@testable import RegionSearchIngest
@testable import RegionSearchMaps
@testable import RegionSearchOutput
@testable import RegionSearchProjection

/// The static map, looked at: a synthetic case with regions and POIs at known places is drawn,
/// the PNG decoded again, and pixels checked where the test itself (PROJ + the map box found in
/// the image) says the regions and POIs are.
final class MapRendererTests: XCTestCase {
    let bbox = GeoBox(west: 24.930, south: 60.160, east: 24.970, north: 60.180)
    let dense = MapFixtures.Square(
        lon: 24.950, lat: 60.170, halfLon: 0.002, halfLat: 0.001, keyword: "cafe", rank: 1, density: 300)
    let sparse = MapFixtures.Square(
        lon: 24.938, lat: 60.175, halfLon: 0.0015, halfLat: 0.0008, keyword: "cafe", rank: 2, density: 30)
    let greyPOI = (lon: 24.962, lat: 60.165)
    let cafePOI = (lon: 24.962, lat: 60.176)

    private func render(_ data: MapData, formats: [MapFormat] = [.png]) throws -> [MapFormat: [UInt8]] {
        try MapRenderer(width: 1600, bbox: bbox).render(data, formats: formats).files
    }

    private func syntheticData() throws -> MapData {
        try MapFixtures.data(
            [dense, sparse],
            pois: MapFixtures.pois([
                (greyPOI.lon, greyPOI.lat, "shop"), (cafePOI.lon, cafePOI.lat, "cafe"),
            ]))
    }

    /// Pixel position of a lon/lat, computed here: the bbox projected with PROJ, fitted into the
    /// map box found as the extent of the background colour in the image.
    private func locator(_ image: CairoSurface) throws -> (Double, Double) -> (x: Double, y: Double) {
        let box = try XCTUnwrap(MapFixtures.bounds(of: MapFixtures.rgb("#f4f4f0"), in: image))
        // The box's 1 px border sits just outside the background (found on every second pixel).
        let (bx, by) = (Double(box.x0) - 1, Double(box.y0) - 1)
        let (bw, bh) = (Double(box.x1 - box.x0) + 3, Double(box.y1 - box.y0) + 3)
        let t = try PROJContext().transformation(from: "EPSG:4326", to: "EPSG:32635")
        var lon: [Double] = []
        var lat: [Double] = []
        for k in 0...8 {
            let f = Double(k) / 8
            lon += [
                bbox.west + f * (bbox.east - bbox.west), bbox.west + f * (bbox.east - bbox.west), bbox.west, bbox.east,
            ]
            lat += [
                bbox.south, bbox.north, bbox.south + f * (bbox.north - bbox.south),
                bbox.south + f * (bbox.north - bbox.south),
            ]
        }
        _ = try t.transform(x: &lon, y: &lat)
        let (x0, x1, y0, y1) = (lon.min()!, lon.max()!, lat.min()!, lat.max()!)
        let k = min(bw / (x1 - x0), bh / (y1 - y0))
        let (cx, cy) = ((x0 + x1) / 2, (y0 + y1) / 2)
        return { qlon, qlat in
            var x = [qlon]
            var y = [qlat]
            _ = try? t.transform(x: &x, y: &y)
            return (bx + bw / 2 + (x[0] - cx) * k, by + bh / 2 - (y[0] - cy) * k)
        }
    }

    func testRegionsArePaintedWhereTheyAreInTheirDensityBinsColour() throws {
        let png = try XCTUnwrap(try render(try syntheticData())[.png])
        XCTAssertEqual(Array(png.prefix(8)), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], "a PNG")
        let image = try CairoSurface(png: png)
        XCTAssertEqual(image.width, 1600)
        XCTAssertGreaterThan(image.height, 1200, "one panel of 1544 px with title, legend and footer")
        let at = try locator(image)

        // The dense region (300 per km² → bin 200–400) in Reds step 4 at that bin's opacity; the
        // sparse one (30 per km² → bin 25–50) in step 1: colour by density, not by rank.
        let reds = ColorScale.ramps[0]
        for (square, bin) in [(dense, 4), (sparse, 1)] {
            let expected = MapFixtures.blended(reds[bin], alpha: ColorScale.opacities[bin])
            let c = at(square.lon, square.lat)
            // Off the centre, where the rank label sits.
            for (dx, dy) in [(-25.0, 10.0), (25, 10), (-25, -10), (25, -10)] {
                let got = MapFixtures.pixel(image, c.x + dx, c.y + dy)
                XCTAssertTrue(
                    MapFixtures.close(got, expected), "region rank \(square.rank) at \(c): \(got) ≠ \(expected)")
            }
        }
        // A strong outline at the dense region's east edge: the ramp's darkest colour.
        let east = at(dense.lon + dense.halfLon, dense.lat)
        let edge = (-4...4).map { MapFixtures.pixel(image, east.x + Double($0), east.y + 12) }
        XCTAssertTrue(
            edge.contains { MapFixtures.close($0, MapFixtures.rgb(ColorScale.stroke(keyword: 0)), tolerance: 30) },
            "outline near \(east): \(edge)")
        // Beyond it, nothing but the background.
        XCTAssertEqual(MapFixtures.pixel(image, east.x + 60, east.y), MapFixtures.rgb("#f4f4f0"))

        // The POIs: grey for every POI, the keyword's POIs in its colour.
        func found(_ rgb: [Int], near p: (x: Double, y: Double)) -> Bool {
            for dy in -3...3 {
                for dx in -3...3
                where MapFixtures.close(MapFixtures.pixel(image, p.x + Double(dx), p.y + Double(dy)), rgb, tolerance: 6)
                {
                    return true
                }
            }
            return false
        }
        XCTAssertTrue(found(MapFixtures.rgb("#b9b9b9"), near: at(greyPOI.lon, greyPOI.lat)), "grey POI")
        XCTAssertTrue(found(MapFixtures.rgb(reds[5]), near: at(cafePOI.lon, cafePOI.lat)), "keyword POI")
        XCTAssertFalse(found(MapFixtures.rgb(reds[5]), near: at(greyPOI.lon, greyPOI.lat)), "the shop is not a cafe")
    }

    /// A panel title's counts are drawn at the largest size that fits the panel: measured with
    /// Cairo at each size (as the renderer draws them), never wider than the room, and one step
    /// larger would not fit. D.C.'s restaurant panel ("— 59 regions (by level 38, 20, 1) · 2,085
    /// of 13,434 POIs match" beside "restaurant") was cut at "ma" at the fixed 15 px.
    func testATitlesCountsGetTheLargestSizeThatFitsThePanel() throws {
        let cr = try CairoContext(try CairoSurface(.image, width: 10, height: 10))
        let counts = " — 59 regions (by level 38, 20, 1) · 2,085 of 13,434 POIs match"
        func width(_ size: Double) -> Double {
            cr.selectFont(size: size, bold: false)
            return cr.textSize(counts).width
        }
        let room = width(15) - 20
        let size = MapRenderer.fittingSize(largest: 15, smallest: 11, step: 0.5) { width($0) <= room }
        XCTAssertLessThan(size, 15)
        XCTAssertLessThanOrEqual(width(size), room)
        XCTAssertGreaterThan(width(size + 0.5), room, "the largest size that fits")
        // Room enough: the full size; no size fits: the smallest.
        XCTAssertEqual(MapRenderer.fittingSize(largest: 15, smallest: 11, step: 0.5) { width($0) <= 1_000 }, 15)
        XCTAssertEqual(MapRenderer.fittingSize(largest: 15, smallest: 11, step: 0.5) { width($0) <= 10 }, 11)
    }

    func testOnePanelPerKeywordEachInItsRampSameExtent() throws {
        var bank = dense
        bank.keyword = "bank"
        bank.density = 900  // the top bin
        let data = try MapFixtures.data(
            [dense, bank], pois: MapFixtures.pois([(greyPOI.lon, greyPOI.lat, "shop")]), keywords: ["cafe", "bank"])
        XCTAssertEqual(data.keywords.map(\.name), ["cafe", "bank"])
        let image = try CairoSurface(png: try XCTUnwrap(try render(data)[.png]))
        // Two map boxes side by side, of one size; the region at the same place in each, in Reds
        // (bin 200–400) in the first and Blues (≥ 800) in the second.
        let bg = MapFixtures.rgb("#f4f4f0")
        let left = try XCTUnwrap(MapFixtures.bounds(of: bg, in: image, xRange: 0..<800))
        let right = try XCTUnwrap(MapFixtures.bounds(of: bg, in: image, xRange: 800..<1600))
        XCTAssertEqual(left.x1 - left.x0, right.x1 - right.x0, accuracy: 2)
        XCTAssertEqual(left.y0, right.y0, accuracy: 2)
        XCTAssertEqual(left.y1, right.y1, accuracy: 2)
        XCTAssertLessThan(left.x1, right.x0)
        // Where the region is in the first panel (the cafe), from the first box's geometry.
        let cafe = try XCTUnwrap(
            (left.y0..<left.y1).lazy.compactMap { y -> (Int, Int)? in
                for x in left.x0..<left.x1
                where MapFixtures.close(
                    MapFixtures.pixel(image, Double(x), Double(y)),
                    MapFixtures.blended(ColorScale.ramps[0][4], alpha: ColorScale.opacities[4]))
                {
                    return (x, y)
                }
                return nil
            }.first)
        let shifted = MapFixtures.pixel(image, Double(cafe.0 - left.x0 + right.x0) + 20, Double(cafe.1) + 8)
        XCTAssertTrue(
            MapFixtures.close(shifted, MapFixtures.blended(ColorScale.ramps[1][6], alpha: ColorScale.opacities[6])),
            "bank region in the second panel: \(shifted)")
    }

    /// One panel per keyword, three in a row, until so many keywords would make the page taller
    /// than Cairo draws an image (32,767 pixels: 140 keywords in rows of three are 35,000): then more
    /// in a row, and the PNG is drawn instead of failing after every stage has run.
    func testManyKeywordsFitCairosLargestImage() throws {
        let names = (0..<140).map { "k\($0)" }
        var square = dense
        square.keyword = names[0]
        let data = try MapFixtures.data([square], pois: nil, keywords: names)
        let image = try CairoSurface(png: try XCTUnwrap(try render(data)[.png]))
        XCTAssertEqual(image.width, 1600)
        XCTAssertLessThanOrEqual(image.height, 32767)
        let bg = MapFixtures.rgb("#f4f4f0")
        let first = try XCTUnwrap(MapFixtures.bounds(of: bg, in: image, xRange: 0..<200))
        XCTAssertLessThan(first.x1 - first.x0, 1544 / 4, "more than three panels in a row")
        let seven = try MapFixtures.data([dense], pois: nil, keywords: (0..<7).map { "k\($0)" })
        let small = try CairoSurface(png: try XCTUnwrap(try render(seven)[.png]))
        let box = try XCTUnwrap(MapFixtures.bounds(of: bg, in: small, xRange: 0..<600))
        XCTAssertGreaterThan(box.x1 - box.x0, 1544 / 4, "three in a row")
    }

    /// Nested levels: the finer region (listed first in the file) is drawn over the one holding
    /// it, its fill laid over the parent's, so it is darker; the parent is found by parent_id.
    func testNestedLevelsAreDrawnCoarsestFirstDarkerInside() throws {
        var child = MapFixtures.Square(
            lon: dense.lon + 0.0008, lat: dense.lat, halfLon: 0.0008, halfLat: 0.0005, keyword: "cafe", rank: 1,
            density: 900)
        child.level = 1
        child.parent = 1
        var parent = dense
        parent.level = 0
        // A grandchild too small to see (a few metres), inside the child.
        var speck = MapFixtures.Square(
            lon: child.lon, lat: child.lat, halfLon: 0.00002, halfLat: 0.00001, keyword: "cafe", rank: 1,
            density: 2000)
        speck.level = 2
        speck.parent = 0
        let data = try MapFixtures.data([child, parent, speck], pois: nil)
        XCTAssertEqual(data.regions.map(\.level), [1, 0, 2])
        XCTAssertEqual(data.regions.map(\.parent), [1, nil, 0])
        XCTAssertEqual(data.regions[2].ancestors(in: data.regions), [0, 1])
        XCTAssertEqual(data.drawingOrder(keyword: 0), [1, 0, 2], "coarsest first")
        XCTAssertEqual(data.levelCount, 3)
        let image = try CairoSurface(png: try XCTUnwrap(try render(data)[.png]))
        let at = try locator(image)
        let reds = ColorScale.ramps[0]
        let background = MapStyle.mapBackground
        let parentFill = MapFixtures.blended(reds[4], alpha: ColorScale.opacities[4])
        let under = RGBA(
            Double(parentFill[0]) / 255, Double(parentFill[1]) / 255, Double(parentFill[2]) / 255)
        let childFill = MapFixtures.blended(reds[6], alpha: ColorScale.opacities[6], over: under)
        // In the parent, west of the child: the parent's fill over the background.
        let west = at(dense.lon - 0.0015, dense.lat + 0.0003)
        XCTAssertTrue(MapFixtures.close(MapFixtures.pixel(image, west.x, west.y), parentFill), "parent")
        // In the child (off its centre, where the ring of the speck is): both fills.
        let inChild = at(child.lon + 0.0005, child.lat - 0.0003)
        let got = MapFixtures.pixel(image, inChild.x, inChild.y)
        XCTAssertTrue(MapFixtures.close(got, childFill), "child over parent: \(got) ≠ \(childFill)")
        XCTAssertLessThan(got.reduce(0, +), parentFill.reduce(0, +), "darker inside")
        XCTAssertNotEqual(MapFixtures.blended(reds[6], alpha: ColorScale.opacities[6], over: background), childFill)
        // The speck is ringed (8 px around its centre, in the ramp's darkest colour).
        let c = at(speck.lon, speck.lat)
        let ring = (0..<16).map { k -> [Int] in
            let a = Double(k) * .pi / 8
            return MapFixtures.pixel(image, c.x + 8 * cos(a), c.y + 8 * sin(a))
        }
        XCTAssertGreaterThanOrEqual(
            ring.filter { MapFixtures.close($0, MapFixtures.rgb(reds[6]), tolerance: 40) }.count, 8, "\(ring)")
    }

    func testBytesAreIdenticalOnRerenderInOneProcess() throws {
        let data = try syntheticData()
        let first = try render(data, formats: [.png, .svg, .pdf])
        let second = try render(data, formats: [.png, .svg, .pdf])
        for format in [MapFormat.png, .svg, .pdf] {
            XCTAssertNotNil(first[format], format.rawValue)
            XCTAssertEqual(first[format], second[format], "\(format.rawValue) differs between two renders")
        }
        let svg = String(decoding: first[.svg]!, as: UTF8.self)
        XCTAssertTrue(svg.contains("width=\"1600px\""), "SVG sized in px")
        XCTAssertTrue(svg.contains("<image"), "the POI layer is an embedded image")
        let pdf = String(decoding: first[.pdf]!, as: UTF8.self)
        XCTAssertTrue(pdf.hasPrefix("%PDF-1.5"))
        XCTAssertTrue(pdf.contains("/CreationDate (20000101000000Z)"), "fixed date, not now")
    }

    func testCJKAndCyrillicKeywordsHaveGlyphsOtherScriptsAreReported() throws {
        let squares = ["咖啡", "Кафе", "कॉफ़ी"].enumerated().map { i, k in
            MapFixtures.Square(
                lon: 24.94 + 0.01 * Double(i), lat: 60.17, halfLon: 0.001, halfLat: 0.001, keyword: k, rank: 1,
                density: 50)
        }
        let data = try MapFixtures.data(squares, pois: nil)
        let (files, notes) = try MapRenderer(width: 1600, bbox: bbox).render(data, formats: [.png])
        XCTAssertNotNil(files[.png])
        XCTAssertEqual(notes.count, 1, "\(notes)")
        XCTAssertTrue(notes[0].contains("कॉफ़ी") && notes[0].contains("fonts-noto-cjk"), notes[0])
    }
}
