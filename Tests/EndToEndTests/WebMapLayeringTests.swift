import Foundation
import XCTest

@testable import RegionSearchCore
@testable import RegionSearchMaps
@testable import RegionSearchOutput
@testable import RegionSearchSynthetic
@testable import RegionSearchTestSupport

/// The web map as a person first sees it, opened in headless Chromium (scripts/browser-check): the
/// maps of D.C.'s restaurants (../shared/data/dc-osm-2017) and of a synthetic city, each at its
/// first view and at two deeper zooms (where the finer levels appear; the 1,000,000-POI city's
/// also at a third, closer one). In every view, every
/// region of the levels shown must be drawn on top:
/// - its fill on top: at least 3/4 of the pixels sampled inside it (away from edges, markers and
///   what lies over the map) are its fill and the fills of the regions holding it (colours from
///   ``ColorScale``) laid over some colour — over the background or a POI dot, not the
///   background or a dot left untinted; a band too thin to sample shows its outline; a region
///   narrower than 12 px shows its marker ring, or the coarsest small region holding it does;
/// - the keyword's dots inside a region are tinted by the region's fill (the dot colour under the
///   fills), which is what fails when the regions lie under the POIs: a control case moves the
///   regions' pane under the POIs' and the check must report it.
/// The test also checks which levels are shown at each zoom (a level from its zoom on, every
/// level at the deepest view).
///
/// Two synthetic cities: one of 30,000 POIs (10 km across, the keyword 15 % of the background, so
/// that at the first view its ~4,500 dots would cover its regions), which the control case also
/// uses, and one of 1,000,000 POIs (`regionsearch generate --n 1000000`'s city: 40 km, 咖啡 and
/// bank; its map is the one the issue found covered by 40,889 dots), run with the default
/// parameters (nested levels, level 0 from each POI's own density). Generating and running the
/// million takes about 15 s with the suite's build (-O). REGIONSEARCH_WEBMAP_MANIFEST=path checks
/// the web map of that manifest's run instead of the 30,000-POI city (its first keyword).
///
/// Skipped, saying so, when chromium or python3 is missing (or, for D.C., the shared data).
final class WebMapLayeringTests: XCTestCase {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    static var sharedData: String {
        ProcessInfo.processInfo.environment["REGIONSEARCH_SHARED_DATA"]
            ?? URL(fileURLWithPath: repository).deletingLastPathComponent().appendingPathComponent("shared/data").path
    }

    /// Where the screenshots are kept for a person to look at.
    static let shots = NSTemporaryDirectory() + "regionsearch-webmap-layering"

    // MARK: - The runs

    /// A run's outputs: the regions GeoJSON and the web map beside it.
    struct Run {
        var regions: String
        var page: String
    }

    /// Runs `regionsearch run MANIFEST` and returns its outputs (the manifest's `output`).
    static func run(manifest: String) throws -> Run {
        let log = NSTemporaryDirectory() + "webmap-run-" + UUID().uuidString + ".log"
        defer { unlink(log) }
        let termination = try ChildProcess(
            executable: PipelineFixture.regionsearch, arguments: ["run", manifest], output: .file(log)
        ).wait()
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        guard case .exited(0) = termination else {
            throw NSError(
                domain: "webmap", code: 1,
                userInfo: [NSLocalizedDescriptionKey: "regionsearch run \(manifest): \(termination)\n\(text)"])
        }
        let json = try JSONParser.parse(try String(contentsOfFile: manifest, encoding: .utf8))
        let output = try XCTUnwrap(json["output"]?.stringValue)
        let dir = URL(fileURLWithPath: manifest).deletingLastPathComponent()
        let regions = output.hasPrefix("/") ? output : dir.appendingPathComponent(output).standardized.path
        return Run(regions: regions, page: MapProducts.stem(of: regions) + ".html")
    }

    /// A manifest in a new directory: one input, the regions and the web map only.
    static func manifest(name: String, input: JSONValue, keywords: [String]) throws -> String {
        let dir = TestSupport.temporaryDirectory("regionsearch-webmap-" + name + "-")
        let manifest = JSONValue.object([
            ("name", .string(name)), ("inputs", .array([input])), ("work_dir", .string("work")),
            ("output", .string("out/\(name).geojson")), ("keywords", .array(keywords.map { .string($0) })),
            ("maps", .object([("png", .bool(false)), ("svg", .bool(false))])),
            // Level 0 cut from the propagated densities: the fixture then nests (its own-density level
            // 0 has no finer level inside), which is what this test needs to see written.
            ("regions", .object([("nested", .bool(true)), ("level0", .string("propagated"))])),
        ])
        try manifest.serialized(pretty: true).write(toFile: dir + "/run.json", atomically: true, encoding: .utf8)
        return dir + "/run.json"
    }

    static let dc: Result<Run, Error> = Result {
        let csv = sharedData + "/dc-osm-2017/washington-dc-2017.csv"
        guard FileManager.default.fileExists(atPath: csv) else { throw XCTSkip("\(csv) is not available") }
        let input = JSONValue.object([
            ("path", .string(csv)),
            (
                "columns",
                .object([
                    ("id", .string("osm_id")), ("name", .string("name")), ("keywords", .string("fclass")),
                    ("lon", .string("lon")), ("lat", .string("lat")),
                ])
            ),
        ])
        return try run(manifest: try manifest(name: "dc", input: input, keywords: ["restaurant"]))
    }

    static let city: Result<Run, Error> = Result {
        if let given = ProcessInfo.processInfo.environment["REGIONSEARCH_WEBMAP_MANIFEST"] {
            return try run(manifest: given)
        }
        var config = SyntheticCity.Config()
        config.n = 30_000
        config.clusters = 12
        config.keywords = ["咖啡"]
        config.extentKm = 10
        config.backgroundRates = ["咖啡": 0.15]
        let path = try manifest(
            name: "city", input: .object([("path", .string("city.csv")), ("format", .string("csv"))]),
            keywords: ["咖啡"])
        try SyntheticCity(config).writeCSV(
            to: URL(fileURLWithPath: path).deletingLastPathComponent().path + "/city.csv")
        return try run(manifest: path)
    }

    /// The million-POI city of `regionsearch generate --n 1000000 --seed 4242`, default parameters.
    static let million: Result<Run, Error> = Result {
        var config = SyntheticCity.Config()
        config.n = 1_000_000
        config.seed = 4242
        let dir = TestSupport.temporaryDirectory("regionsearch-webmap-million-")
        try SyntheticCity(config).writeCSV(to: dir + "/city.csv")
        let manifest = JSONValue.object([
            ("name", .string("million")),
            ("inputs", .array([.object([("path", .string("city.csv")), ("format", .string("csv"))])])),
            ("work_dir", .string("work")), ("output", .string("out/million.geojson")),
            ("keywords", .array(config.keywords.map { .string($0) })),
            ("maps", .object([("png", .bool(false)), ("svg", .bool(false))])),
        ])
        try manifest.serialized(pretty: true).write(toFile: dir + "/run.json", atomically: true, encoding: .utf8)
        return try run(manifest: dir + "/run.json")
    }

    // MARK: - Regions as written

    /// A region of the GeoJSON: its index among the features (the page's region id), level,
    /// the feature's parent (index), keyword density and rings in lon/lat.
    struct Region {
        var id: Int
        var keyword: String
        var level: Int
        var parent: Int?
        var density: Double
        var rings: [[(lon: Double, lat: Double)]]
    }

    static func regions(_ path: String) throws -> (keywords: [String], regions: [Region]) {
        let json = try JSONParser.parse(try String(contentsOfFile: path, encoding: .utf8))
        let features = try XCTUnwrap(json["features"]?.arrayValue)
        var byRegionID: [Int: Int] = [:]
        var out: [Region] = []
        var keywords: [String] =
            json["regionsearch"]?["provenance"]?["propagate"]?["parameters"]?["keywords"]?.arrayValue?
            .compactMap(\.stringValue) ?? []
        for (i, f) in features.enumerated() {
            let p = try XCTUnwrap(f["properties"])
            let keyword = try XCTUnwrap(p["keyword"]?.stringValue)
            if !keywords.contains(keyword) { keywords.append(keyword) }
            var rings: [[(lon: Double, lat: Double)]] = []
            let g = try XCTUnwrap(f["geometry"])
            let parts =
                g["type"]?.stringValue == "Polygon"
                ? [try XCTUnwrap(g["coordinates"])] : try XCTUnwrap(g["coordinates"]?.arrayValue)
            for part in parts {
                for ring in part.arrayValue ?? [] {
                    rings.append(
                        (ring.arrayValue ?? []).compactMap { c in
                            guard let v = c.arrayValue?.compactMap(\.doubleValue), v.count >= 2 else { return nil }
                            return (v[0], v[1])
                        })
                }
            }
            if let id = p["region_id"]?.intValue { byRegionID[id] = i }
            out.append(
                Region(
                    id: i, keyword: keyword, level: p["level"]?.intValue ?? 0, parent: p["parent_id"]?.intValue,
                    density: p["keyword_density_per_km2"]?.doubleValue ?? 0, rings: rings))
        }
        for i in out.indices { out[i].parent = out[i].parent.flatMap { byRegionID[$0] } }
        return (keywords, out)
    }

    // MARK: - The browser

    static func which(_ name: String) -> String? {
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let path = "\(dir)/\(name)"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }

    /// One view of a page: moved by `move` (JavaScript run before the view is read; empty = the
    /// first view), screenshot taken after, and what the page reports about it.
    struct View {
        var state: JSONValue
        var screenshot: String
    }

    func view(_ page: String, name: String, move: String) throws -> View {
        guard Self.which("chromium") != nil else {
            throw XCTSkip(
                "chromium is not installed (apt-get install chromium, or scripts/setup): web-map layering test skipped")
        }
        guard let python = Self.which("python3") else {
            throw XCTSkip(
                "python3 is not installed (apt-get install python3, or scripts/setup): web-map layering test skipped")
        }
        try FileManager.default.createDirectory(atPath: Self.shots, withIntermediateDirectories: true)
        let shot = Self.shots + "/" + name + ".png"
        let read =
            "JSON.stringify({ stats: regionsearch.stats(), regions: regionsearch.regions(),"
            + " pois: regionsearch.shownPOIs(), overlays: regionsearch.overlays(), panes: regionsearch.panes() })"
        let eval =
            "new Promise(r => { const m = regionsearch.map, done = () => setTimeout(() => r(\(read)), 400); "
            + (move.isEmpty ? "done();" : "m.once('moveend', done); \(move)") + " })"
        let out = NSTemporaryDirectory() + "browser-check-" + UUID().uuidString + ".json"
        defer { unlink(out) }
        let termination = try ChildProcess.run(
            python,
            [
                Self.repository + "/scripts/browser-check", page, "--screenshot", shot, "--after", "--settle-ms", "500",
                "--eval", eval,
            ], output: .files(stdout: out, stderr: "/dev/null"))
        let report = try JSONParser.parse(try String(contentsOfFile: out, encoding: .utf8))
        XCTAssertEqual("\(termination)", "\(ChildProcess.Termination.exited(0))", report.serialized(pretty: true))
        let value = try XCTUnwrap(
            report["evaluations"]?.arrayValue?.first?["value"]?.stringValue,
            "\(name): \(report.serialized(pretty: true))")
        return View(state: try JSONParser.parse(value), screenshot: shot)
    }

    // MARK: - The check

    /// What a view showed, region by region.
    struct Findings {
        var failures: [String] = []
        var filled = 0
        var outlined = 0
        var marked = 0
        /// Regions shown but not on screen (outside the view, or under the panel).
        var unseen = 0
        var dots = 0
        var tintedDots = 0
        var levelsShown = 0
    }

    /// RGB 0–255 of a hex colour.
    static func rgb(_ hex: String) -> [Double] {
        let c = RGBA(hex: hex)!
        return [c.r * 255, c.g * 255, c.b * 255]
    }

    /// `top` at `alpha` over `under`.
    static func over(_ top: [Double], _ alpha: Double, _ under: [Double]) -> [Double] {
        zip(top, under).map { $0 * alpha + $1 * (1 - alpha) }
    }

    static func close(_ a: [Int], _ b: [Double], _ tolerance: Double) -> Bool {
        zip(a, b).allSatisfy { abs(Double($0) - $1) <= tolerance }
    }

    /// Checks one view of keyword `colorIndex`'s map against the regions as written.
    func check(_ view: View, regions all: [Region], keyword: String, colorIndex: Int) throws -> Findings {
        var found = Findings()
        let state = view.state
        let stats = try XCTUnwrap(state["stats"])
        let zoom = try XCTUnwrap(stats["zoom"]?.doubleValue)
        let levelZoom = try XCTUnwrap(stats["levelZoom"]?.arrayValue?.compactMap(\.doubleValue))
        found.levelsShown = try XCTUnwrap(stats["levels"]?.intValue)
        let image = try CairoSurface(png: Array(try Data(contentsOf: URL(fileURLWithPath: view.screenshot))))
        let (width, height) = (Double(image.width), Double(image.height))
        func pixel(_ x: Double, _ y: Double) -> [Int] {
            let p = image.pixel(x: Int(x), y: Int(y))
            return [Int(p.r), Int(p.g), Int(p.b)]
        }
        // The stacking the page declares: regions over the keyword's dots over the grey ones.
        let panes = try XCTUnwrap(state["panes"])
        let (zRegions, zPOIs, zContext) = (
            panes["regions"]?.doubleValue ?? 0, panes["pois"]?.doubleValue ?? 0, panes["context"]?.doubleValue ?? 0
        )
        if !(zRegions > zPOIs && zPOIs > zContext) {
            found.failures.append("panes: regions \(zRegions), POIs \(zPOIs), grey POIs \(zContext)")
        }

        // Web Mercator, as the page: world pixels at this zoom, relative to the view's centre.
        let scale = 256 * pow(2, zoom)
        func world(_ lon: Double, _ lat: Double) -> (Double, Double) {
            let phi = lat * .pi / 180
            return ((lon + 180) / 360 * scale, (1 - log(tan(phi) + 1 / cos(phi)) / .pi) / 2 * scale)
        }
        let centre = world(
            try XCTUnwrap(stats["center"]?["lng"]?.doubleValue), try XCTUnwrap(stats["center"]?["lat"]?.doubleValue))
        func screen(_ lon: Double, _ lat: Double) -> (x: Double, y: Double) {
            let p = world(lon, lat)
            return (p.0 - centre.0 + width / 2, p.1 - centre.1 + height / 2)
        }

        // What the page says it shows, checked against the levels' zooms.
        let pageRegions = try XCTUnwrap(state["regions"]?.arrayValue)
        var shown = Set<Int>()
        var markers: [Int: (x: Double, y: Double)] = [:]
        let mine = all.filter { $0.keyword == keyword }
        for r in pageRegions {
            let id = try XCTUnwrap(r["id"]?.intValue)
            guard let region = all.first(where: { $0.id == id }), region.keyword == keyword else {
                found.failures.append("the page's region \(id) is not a '\(keyword)' region of the file")
                continue
            }
            guard region.level < levelZoom.count else {
                found.failures.append(
                    "region \(id) has level \(region.level); the page knows \(levelZoom.count) levels")
                continue
            }
            let expected = zoom >= levelZoom[region.level] - 1e-9
            if r["shown"]?.boolValue != expected {
                found.failures.append("region \(id) (level \(region.level)) shown: \(r["shown"]!), zoom \(zoom)")
            }
            if expected { shown.insert(id) }
            if r["marker"]?.boolValue == true, let a = r["anchor"]?.arrayValue, let lat = a[0].doubleValue,
                let lon = a[1].doubleValue
            {
                markers[id] = screen(lon, lat)
            }
        }
        if pageRegions.count != mine.count {
            found.failures.append("the page has \(pageRegions.count) regions, the file \(mine.count)")
        }

        // The regions shown, on screen: rings in pixels, bounds, and the fill as composited.
        struct Shown {
            var region: Region
            var rings: [[(x: Double, y: Double)]]
            var box: (x0: Double, y0: Double, x1: Double, y1: Double)
            var fill: [Double]
            var alpha: Double
        }
        var onScreen: [Int: Shown] = [:]
        for region in mine where shown.contains(region.id) {
            let rings = region.rings.map { $0.map { screen($0.lon, $0.lat) } }
            let xs = rings.joined().map(\.x)
            let ys = rings.joined().map(\.y)
            onScreen[region.id] = Shown(
                region: region, rings: rings, box: (xs.min()!, ys.min()!, xs.max()!, ys.max()!),
                fill: Self.rgb(ColorScale.fill(keyword: colorIndex, density: region.density)),
                alpha: ColorScale.opacity(density: region.density))
        }
        let overlays = (state["overlays"]?.arrayValue ?? []).compactMap { r -> (Double, Double, Double, Double)? in
            guard let v = r.arrayValue?.compactMap(\.doubleValue), v.count == 4 else { return nil }
            return (v[0] - 3, v[1] - 3, v[2] + 3, v[3] + 3)
        }
        func covered(_ x: Double, _ y: Double) -> Bool {
            x < 0 || y < 0 || x >= width || y >= height
                || overlays.contains { x >= $0.0 && x <= $0.2 && y >= $0.1 && y <= $0.3 }
                || markers.values.contains { hypot(x - $0.x, y - $0.y) <= WebMapWriter.markerRadius + 4 }
        }
        func inside(_ s: Shown, _ x: Double, _ y: Double) -> Bool {
            guard x >= s.box.x0, x <= s.box.x1, y >= s.box.y0, y <= s.box.y1 else { return false }
            var odd = false
            for ring in s.rings {
                var j = ring.count - 1
                for i in ring.indices {
                    let (a, b) = (ring[i], ring[j])
                    if (a.y > y) != (b.y > y) && x < (b.x - a.x) * (y - a.y) / (b.y - a.y) + a.x { odd.toggle() }
                    j = i
                }
            }
            return odd
        }
        func nearEdge(_ s: Shown, _ x: Double, _ y: Double, _ d: Double) -> Bool {
            guard x >= s.box.x0 - d, x <= s.box.x1 + d, y >= s.box.y0 - d, y <= s.box.y1 + d else { return false }
            for ring in s.rings {
                for i in 1..<max(ring.count, 1) {
                    let (a, b) = (ring[i - 1], ring[i])
                    let (dx, dy) = (b.x - a.x, b.y - a.y)
                    let l2 = dx * dx + dy * dy
                    let t = l2 > 0 ? max(0, min(1, ((x - a.x) * dx + (y - a.y) * dy) / l2)) : 0
                    if hypot(x - (a.x + t * dx), y - (a.y + t * dy)) <= d { return true }
                }
            }
            return false
        }
        let drawn = Array(onScreen.values)
        /// The regions holding (x, y), coarsest first; nil near an edge of one.
        func holding(_ x: Double, _ y: Double, margin: Double) -> [Shown]? {
            var out: [Shown] = []
            for s in drawn {
                if nearEdge(s, x, y, margin) { return nil }
                if inside(s, x, y) { out.append(s) }
            }
            return out.sorted { $0.region.level < $1.region.level }
        }
        /// The colour `base` takes under the fills of `regions`, coarsest first.
        func composite(_ base: [Double], under regions: [Shown]) -> [Double] {
            regions.reduce(base) { Self.over($1.fill, $1.alpha, $0) }
        }
        /// Whether a pixel is the fills of `regions` over some colour: c = B + A·u for u in
        /// [0, 255]³, where the fills take every colour u to A·u + B (A = Π(1 − α)). The
        /// background, a keyword dot or any other colour left untinted is not.
        func tinted(_ p: [Int], by regions: [Shown]) -> Bool {
            let b = composite([0, 0, 0], under: regions)
            let a = regions.reduce(1.0) { $0 * (1 - $1.alpha) }
            return zip(p, b).allSatisfy { Double($0) >= $1 - 4 && Double($0) <= $1 + 255 * a + 4 }
        }
        let stroke = Self.rgb(ColorScale.stroke(keyword: colorIndex))

        for s in onScreen.values.sorted(by: { $0.region.id < $1.region.id }) {
            let r = s.region
            let extent = max(s.box.x1 - s.box.x0, s.box.y1 - s.box.y0)
            if s.box.x1 < 0 || s.box.y1 < 0 || s.box.x0 >= width || s.box.y0 >= height {
                found.unseen += 1
                continue
            }
            // Too small to see: its marker, or that of the coarsest small region holding it.
            if extent < WebMapWriter.smallRegionPixels {
                var chain = [r.id]
                var p = r.parent
                while let q = p, let holder = onScreen[q] {
                    chain.append(q)
                    p = holder.region.parent
                }
                guard let m = chain.compactMap({ markers[$0] }).first else {
                    found.failures.append("region \(r.id) (level \(r.level)) is \(Int(extent)) px and has no marker")
                    continue
                }
                var ring: [(x: Double, y: Double)] = []
                for k in 0..<16 {
                    let a = Double(k) * .pi / 8
                    let p = (x: m.x + WebMapWriter.markerRadius * cos(a), y: m.y + WebMapWriter.markerRadius * sin(a))
                    let hidden = overlays.contains { o in p.x >= o.0 && p.x <= o.2 && p.y >= o.1 && p.y <= o.3 }
                    if !hidden && p.x >= 0 && p.y >= 0 && p.x < width && p.y < height { ring.append(p) }
                }
                if ring.isEmpty {
                    found.unseen += 1
                    continue
                }
                let hits = ring.filter { Self.close(pixel($0.x, $0.y), stroke, 60) }.count
                if hits * 2 < ring.count {
                    found.failures.append("region \(r.id): its marker ring shows in \(hits) of \(ring.count) places")
                } else {
                    found.marked += 1
                }
                continue
            }
            // Its fill, where nothing lies over the map and away from every edge.
            let x0 = max(0, s.box.x0)
            let x1 = min(width - 1, s.box.x1)
            let y0 = max(0, s.box.y0)
            let y1 = min(height - 1, s.box.y1)
            let step = max(2, ((x1 - x0) * (y1 - y0) / 400).squareRoot())
            var samples = 0
            var matches = 0
            var y = y0 + step / 2
            while y < y1 {
                var x = x0 + step / 2
                while x < x1 {
                    defer { x += step }
                    let (px, py) = (x.rounded(.down) + 0.5, y.rounded(.down) + 0.5)
                    guard !covered(px, py), inside(s, px, py), let regions = holding(px, py, margin: 3) else {
                        continue
                    }
                    samples += 1
                    if tinted(pixel(px, py), by: regions) { matches += 1 }
                }
                y += step
            }
            if samples >= 8 {
                if matches * 4 >= samples * 3 {
                    found.filled += 1
                } else {
                    found.failures.append(
                        "region \(r.id) (level \(r.level)): its fill in \(matches) of \(samples) samples of its box "
                            + "(\(Int(s.box.x0)),\(Int(s.box.y0)))–(\(Int(s.box.x1)),\(Int(s.box.y1)))")
                }
                continue
            }
            // A band too thin to sample: its outline along its edges.
            var edge = 0
            var dark = 0
            for ring in s.rings {
                for i in 1..<max(ring.count, 1) {
                    let (a, b) = (ring[i - 1], ring[i])
                    let n = max(1, Int(hypot(b.x - a.x, b.y - a.y) / 2))
                    for k in 0..<n {
                        let t = Double(k) / Double(n)
                        let (px, py) = (a.x + t * (b.x - a.x), a.y + t * (b.y - a.y))
                        guard !covered(px, py) else { continue }
                        edge += 1
                        if Self.close(pixel(px, py), stroke, 60) { dark += 1 }
                    }
                }
            }
            if edge == 0 {
                found.unseen += 1
            } else if dark * 4 >= edge {
                found.outlined += 1
            } else {
                found.failures.append("region \(r.id) (level \(r.level)): outline in \(dark) of \(edge) edge pixels")
            }
        }

        // The keyword's dots inside a region lie under it: their centre is the dot's colour under
        // the region's fills (untinted means the dots are drawn over the regions).
        let poi = Self.rgb(WebMapWriter.hex(MapStyle.keywordPOI(colorIndex)))
        let dots = (state["pois"]?.arrayValue ?? []).compactMap { d -> (x: Double, y: Double)? in
            guard let v = d.arrayValue?.compactMap(\.doubleValue), v.count == 2 else { return nil }
            return screen(v[1], v[0])
        }
        var cells: [SIMD2<Int>: [Int]] = [:]
        func cell(_ p: (x: Double, y: Double)) -> SIMD2<Int> {
            SIMD2(Int((p.x / 10).rounded(.down)), Int((p.y / 10).rounded(.down)))
        }
        for (i, d) in dots.enumerated() { cells[cell(d), default: []].append(i) }
        for (i, d) in dots.enumerated() {
            let (px, py) = (d.x.rounded(.down) + 0.5, d.y.rounded(.down) + 0.5)
            guard !covered(px, py) else { continue }
            // No other dot (3.5 px and a 1 px ring) reaches its centre pixel.
            let c = cell(d)
            var alone = true
            for gx in -1...1 {
                for gy in -1...1 {
                    for j in cells[c &+ SIMD2(gx, gy)] ?? [] where j != i && hypot(dots[j].x - px, dots[j].y - py) < 6 {
                        alone = false
                    }
                }
            }
            guard alone, let regions = holding(px, py, margin: 5), !regions.isEmpty else { continue }
            let expected = composite(poi, under: regions)
            // A fill of the dot's own colour (the ramp's step 5) cannot be told from none.
            if Self.close(expected.map { Int($0.rounded()) }, poi, 16) { continue }
            found.dots += 1
            if Self.close(pixel(px, py), expected, 8) { found.tintedDots += 1 }
        }
        if found.dots > 0 && found.tintedDots * 10 < found.dots * 8 {
            found.failures.append(
                "only \(found.tintedDots) of \(found.dots) keyword dots inside regions are tinted by them: "
                    + "the dots are drawn over the regions")
        }
        return found
    }

    /// The first view and two deeper ones centred on the finest region (and, with `closer`, one
    /// more that many zoom levels deeper still), checked; returns the findings per view.
    func checkMap(_ run: Run, name: String, prepare: String = "", deeper: Bool = true, closer: Double? = nil) throws
        -> [(String, Findings)]
    {
        let (keywords, regions) = try Self.regions(run.regions)
        let keyword = try XCTUnwrap(keywords.first)
        let mine = regions.filter { $0.keyword == keyword }
        XCTAssertFalse(mine.isEmpty, "\(name): no '\(keyword)' region to look at")
        let first = try view(
            run.page, name: name + "-0", move: prepare + (prepare.isEmpty ? "" : " m.fire('moveend');"))
        var out = [("first view", try check(first, regions: regions, keyword: keyword, colorIndex: 0))]
        defer {
            for (view, f) in out {
                print(
                    "web map \(name), \(view): \(f.levelsShown) level(s) shown; regions: \(f.filled) filled, "
                        + "\(f.outlined) outlined, \(f.marked) marked, \(f.unseen) off screen; "
                        + "dots in regions tinted: \(f.tintedDots) of \(f.dots); failures: \(f.failures.count)")
            }
        }
        guard deeper else { return out }
        let stats = try XCTUnwrap(first.state["stats"])
        let z0 = try XCTUnwrap(stats["zoom"]?.doubleValue)
        let levelZoom = try XCTUnwrap(stats["levelZoom"]?.arrayValue?.compactMap(\.doubleValue))
        // The finest region (deepest level, first in the file): where the zooms go.
        let finest = try XCTUnwrap(mine.max { ($0.level, -$0.id) < ($1.level, -$1.id) })
        let lons = finest.rings.joined().map(\.lon)
        let lats = finest.rings.joined().map(\.lat)
        let (lon, lat) = ((lons.min()! + lons.max()!) / 2, (lats.min()! + lats.max()!) / 2)
        var z1 = z0 + 1.5
        var z2 = z0 + 3
        if levelZoom.count > 1 {
            z1 = max(z0 + 1, levelZoom[1])
            z2 = max(z1 + 1, levelZoom[levelZoom.count - 1])
        }
        for (i, z) in ([z1, z2] + (closer.map { [z2 + $0] } ?? [])).enumerated() {
            let v = try view(
                run.page, name: name + "-\(i + 1)",
                move: prepare + " m.setView([\(lat), \(lon)], \(z), { animate: false });")
            out.append(("zoom \(z)", try check(v, regions: regions, keyword: keyword, colorIndex: 0)))
        }
        XCTAssertEqual(out.last!.1.levelsShown, levelZoom.count, "\(name): every level is shown at the deepest view")
        return out
    }

    func assertClean(_ views: [(String, Findings)], _ name: String) {
        for (view, f) in views {
            XCTAssertEqual(f.failures, [], "\(name), \(view) (screenshots in \(Self.shots))")
            XCTAssertGreaterThan(f.filled + f.outlined + f.marked, 0, "\(name), \(view): no region seen")
        }
    }

    // MARK: - Tests

    func testDCRestaurantRegionsAreOnTopAtTheFirstViewAndDeeper() throws {
        let run = try Self.dc.get()
        let views = try checkMap(run, name: "dc")
        assertClean(views, "D.C.")
        // D.C.'s restaurants nest three deep, and the first view shows level 0 alone, many of its
        // regions too small to see there (marked).
        XCTAssertEqual(views[0].1.levelsShown, 1)
        XCTAssertGreaterThan(views[0].1.marked, 0)
        // At the first view a keyword dot inside a region is rarely alone (no other dot within
        // 6 px), which the tint check needs: the deeper views give it dots to check.
        XCTAssertGreaterThan(views.map(\.1.dots).reduce(0, +), 0, "dots inside regions were checked")
    }

    func testSyntheticCityRegionsAreOnTopAtTheFirstViewAndDeeper() throws {
        let run = try Self.city.get()
        let views = try checkMap(run, name: "city")
        assertClean(views, "the synthetic city")
        XCTAssertGreaterThan(views.map(\.1.dots).reduce(0, +), 0, "dots inside regions were checked")
    }

    func testMillionPOICityRegionsAreOnTopAtTheFirstViewAndDeeper() throws {
        let run = try Self.million.get()
        // The finest region lies in a downtown whose keyword dots touch one another at the two
        // deeper zooms (a dot is checked only where no other reaches its centre): a third view two
        // zoom levels closer, where they stand apart, checks them.
        let views = try checkMap(run, name: "million", closer: 2)
        assertClean(views, "the 1,000,000-POI city")
        // The default nests: the deeper views show a finer level than the first.
        XCTAssertEqual(views[0].1.levelsShown, 1)
        XCTAssertGreaterThan(views[2].1.levelsShown, 1)
        XCTAssertGreaterThan(views[3].1.dots, 0, "dots inside regions were checked at the closest view")
    }

    /// The check is not blind: with the regions' pane put under the POIs', it fails.
    func testTheCheckFailsWhenTheRegionsLieUnderThePOIs() throws {
        let run = try Self.city.get()
        let views = try checkMap(run, name: "city-control", prepare: "m.getPane('rs-regions').style.zIndex = '370';")
        for (view, f) in views where f.dots > 0 {
            XCTAssertTrue(
                f.failures.contains { $0.contains("keyword dots inside regions are tinted") }, "\(view): \(f.failures)")
        }
        XCTAssertTrue(views.contains { $0.1.dots > 0 })
        XCTAssertTrue(views.allSatisfy { $0.1.failures.contains { $0.hasPrefix("panes:") } })
        // Regions not drawn at all: no fill, outline or marker where they are.
        let hidden = try checkMap(
            run, name: "city-hidden", prepare: "m.getPane('rs-regions').style.display = 'none';", deeper: false)
        let failures = hidden[0].1.failures
        XCTAssertTrue(failures.contains { $0.contains("its fill in") }, "\(failures)")
        XCTAssertEqual(hidden[0].1.filled + hidden[0].1.outlined + hidden[0].1.marked, 0, "\(failures)")
    }
}
