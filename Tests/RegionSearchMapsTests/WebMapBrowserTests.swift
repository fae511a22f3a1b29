import Foundation
import XCTest

@testable import RegionSearchCore
@testable import RegionSearchMaps
@testable import RegionSearchOutput
@testable import RegionSearchTestSupport

/// The web map opened in headless Chromium (Debian's `chromium`, driven over the DevTools pipe
/// by scripts/browser-check): it shows the regions where they are, logs no error, requests
/// nothing from the network, loads only the POIs in view, switches keywords and shows a
/// region's properties on click. Skipped, saying so, when chromium or python3 is missing.
final class WebMapBrowserTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    static func which(_ name: String) -> String? {
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let path = "\(dir)/\(name)"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }

    /// Runs scripts/browser-check; returns its exit status and JSON report.
    private func check(_ page: String, screenshot: String?, evals: [String]) throws -> (Int32, JSONValue) {
        guard Self.which("chromium") != nil else {
            throw XCTSkip(
                "chromium is not installed (apt-get install chromium, or scripts/setup): web-map browser test skipped")
        }
        guard let python = Self.which("python3") else {
            throw XCTSkip(
                "python3 is not installed (apt-get install python3, or scripts/setup): web-map browser test skipped")
        }
        var arguments = [Self.root + "/scripts/browser-check", page]
        if let screenshot { arguments += ["--screenshot", screenshot] }
        for e in evals { arguments += ["--eval", e] }
        let out = NSTemporaryDirectory() + "browser-check-" + UUID().uuidString + ".json"
        defer { unlink(out) }
        let termination = try ChildProcess.run(
            python, arguments, output: .files(stdout: out, stderr: "/dev/null"))
        let text = try String(contentsOfFile: out, encoding: .utf8)
        guard case .exited(let code) = termination else { throw XCTSkip("browser-check: \(termination)") }
        return (code, try JSONParser.parse(text))
    }

    /// 3,600 POIs on a grid, every fourth a cafe; a dense cafe region and a bank region.
    private func cityData() throws -> (MapData, MapFixtures.Square) {
        let cafe = MapFixtures.Square(
            lon: 24.950, lat: 60.170, halfLon: 0.0025, halfLat: 0.0012, keyword: "cafe", rank: 1, density: 300)
        let bank = MapFixtures.Square(
            lon: 24.938, lat: 60.176, halfLon: 0.0015, halfLat: 0.0008, keyword: "bank", rank: 1, density: 30)
        var points: [(lon: Double, lat: Double, keywords: String)] = []
        for i in 0..<60 {
            for j in 0..<60 {
                let k = i * 60 + j
                points.append(
                    (
                        24.930 + 0.0006 * Double(i), 60.160 + 0.0003 * Double(j),
                        k % 4 == 0 ? "cafe" : k % 9 == 1 ? "bank" : "shop"
                    ))
            }
        }
        return (try MapFixtures.data([cafe, bank], pois: MapFixtures.pois(points), keywords: ["cafe", "bank"]), cafe)
    }

    /// Web Mercator pixel of a lon/lat in a Leaflet view (centre, zoom, size), computed here.
    private func screen(lon: Double, lat: Double, view: JSONValue) throws -> (x: Double, y: Double) {
        let z = try XCTUnwrap(view["zoom"]?.doubleValue)
        let scale = 256 * pow(2, z)
        func world(_ lon: Double, _ lat: Double) -> (Double, Double) {
            let phi = lat * .pi / 180
            return ((lon + 180) / 360 * scale, (1 - log(tan(phi) + 1 / cos(phi)) / .pi) / 2 * scale)
        }
        let c = world(
            try XCTUnwrap(view["center"]?["lng"]?.doubleValue), try XCTUnwrap(view["center"]?["lat"]?.doubleValue))
        let p = world(lon, lat)
        let w = try XCTUnwrap(view["size"]?["x"]?.doubleValue)
        let h = try XCTUnwrap(view["size"]?["y"]?.doubleValue)
        return (p.0 - c.0 + w / 2, p.1 - c.1 + h / 2)
    }

    func testPageShowsRegionsWithoutErrorsOrNetworkAndLoadsOnlyVisiblePOIs() throws {
        let (data, cafe) = try cityData()
        let dir = TestSupport.temporaryDirectory()
        let page = dir + "/map.html"
        try AtomicFile.write(try WebMapWriter().page(data), to: page)
        let shot = dir + "/shot.png"
        let zoomIn =
            "new Promise(r => { regionsearch.map.once('moveend', () => r(JSON.stringify(regionsearch.stats())));"
            + " regionsearch.map.setView([60.170, 24.950], 19, { animate: false }); })"
        // The cafe region (the first of the map's regions) as a click opens it.
        let popup =
            "(() => { regionsearch.openRegion(0);"
            + " return document.querySelector('.leaflet-popup-content').textContent; })()"
        let (status, report) = try check(
            page, screenshot: shot,
            evals: [
                "JSON.stringify(regionsearch.stats())", popup,
                "regionsearch.select(1); JSON.stringify(regionsearch.stats())",
                "regionsearch.select(0); 0", zoomIn,
            ])
        XCTAssertEqual(status, 0, "browser-check found problems: \(report.serialized(pretty: true))")
        XCTAssertEqual(report["problems"]?.arrayValue?.count, 0)
        let requests = try XCTUnwrap(report["requests"]?.arrayValue?.compactMap(\.stringValue))
        XCTAssertTrue(requests.allSatisfy { $0.hasPrefix("file:") || $0.hasPrefix("data:") }, "\(requests)")

        let evaluations = try XCTUnwrap(report["evaluations"]?.arrayValue)
        func value(_ i: Int) throws -> JSONValue {
            try JSONParser.parse(try XCTUnwrap(evaluations[i]["value"]?.stringValue))
        }
        let start = try value(0)
        XCTAssertEqual(start["keyword"]?.intValue, 0)
        XCTAssertEqual(start["poisTotal"]?.intValue, 900)
        XCTAssertEqual(start["poisShown"]?.intValue, 900, "the whole city is in view: every cafe")
        XCTAssertEqual(start["contextShown"]?.intValue, 3600)

        // The screenshot: the cafe region's fill in its screen box (computed here from the view).
        let image = try CairoSurface(png: Array(try Data(contentsOf: URL(fileURLWithPath: shot))))
        XCTAssertEqual(image.width, 1600)
        let a = try screen(lon: cafe.lon - cafe.halfLon, lat: cafe.lat + cafe.halfLat, view: start)
        let b = try screen(lon: cafe.lon + cafe.halfLon, lat: cafe.lat - cafe.halfLat, view: start)
        XCTAssertGreaterThan(b.x - a.x, 40, "the region is large enough on screen to sample")
        let background = MapFixtures.rgb("#f4f4f0")
        let fill = MapFixtures.blended(ColorScale.ramps[0][4], alpha: ColorScale.opacities[4])
        var filled = 0
        var samples = 0
        for fx in [0.2, 0.35, 0.65, 0.8] {
            for fy in [0.2, 0.8] {
                let p = MapFixtures.pixel(image, a.x + fx * (b.x - a.x), a.y + fy * (b.y - a.y))
                samples += 1
                XCTAssertNotEqual(p, background)
                if MapFixtures.close(p, fill, tolerance: 4) { filled += 1 }
            }
        }
        XCTAssertGreaterThanOrEqual(
            filled, samples - 2, "most samples show the region's fill (POI dots may cover some)")
        // Far west of every POI: the bare background.
        let west = try screen(lon: 24.925, lat: 60.170, view: start)
        if west.x > 5 { XCTAssertEqual(MapFixtures.pixel(image, west.x, west.y), background) }

        let popupText = try XCTUnwrap(evaluations[1]["value"]?.stringValue)
        XCTAssertTrue(popupText.contains("keyword_density_per_km2") && popupText.contains("300"), popupText)
        XCTAssertTrue(popupText.hasPrefix("cafe — level 0, rank 1"), popupText)
        let bank = try value(2)
        XCTAssertEqual(bank["keyword"]?.intValue, 1)
        XCTAssertEqual(bank["poisTotal"]?.intValue, data.keywordPOICount(1))
        // Zoomed in on one block: only the POIs near it are on the map.
        let zoomed = try value(4)
        XCTAssertEqual(zoomed["zoom"]?.doubleValue, 19)
        let shown = try XCTUnwrap(zoomed["poisShown"]?.intValue)
        XCTAssertGreaterThan(shown, 0)
        XCTAssertLessThan(shown, 100, "of 900 cafes, only those in view are loaded")
        XCTAssertLessThan(try XCTUnwrap(zoomed["contextShown"]?.intValue), 400)
    }

    /// The check is not blind: a page that fetches a tile (a basemap here) fails it.
    func testCheckerReportsANetworkRequest() throws {
        let (data, _) = try cityData()
        let page = TestSupport.temporaryDirectory() + "/online.html"
        try AtomicFile.write(
            try WebMapWriter(basemap: "http://tiles.example.invalid/{z}/{x}/{y}.png").page(data), to: page)
        let (status, report) = try check(page, screenshot: nil, evals: [])
        XCTAssertEqual(status, 1)
        let problems = report["problems"]?.arrayValue ?? []
        XCTAssertTrue(
            problems.contains {
                $0["kind"]?.stringValue == "network"
                    && ($0["text"]?.stringValue?.hasPrefix("http://tiles.example.invalid/") ?? false)
            }, report.serialized(pretty: true))
    }
}
