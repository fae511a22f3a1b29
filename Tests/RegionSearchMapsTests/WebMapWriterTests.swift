import Foundation
import XCTest

@testable import RegionSearchCore
@testable import RegionSearchEvaluation
@testable import RegionSearchMaps
@testable import RegionSearchOutput
@testable import RegionSearchTestSupport

/// The web map's data and index, without a browser (WebMapBrowserTests opens the page).
final class WebMapWriterTests: XCTestCase {
    func testQuadtreeHoldsEveryPointOnceInsideItsNodes() {
        var random = SeededRandom(seed: 5)
        let n = 5_000
        // A dense blob and a sparse spread, so the tree is deep in one place and shallow elsewhere.
        let lon = (0..<n).map { i in i % 2 == 0 ? 24.9 + 0.002 * random.uniform() : 24.8 + 0.3 * random.uniform() }
        let lat = (0..<n).map { i in i % 2 == 0 ? 60.1 + 0.001 * random.uniform() : 60.0 + 0.2 * random.uniform() }
        let subset = (0..<n).filter { $0 % 7 != 3 }
        let tree = PointQuadtree(lon: lon, lat: lat, indices: subset)
        XCTAssertEqual(tree.order.sorted(), subset, "every point exactly once")
        for node in tree.nodes {
            XCTAssertLessThanOrEqual(node.count, PointQuadtree.capacity)
            for i in tree.order[node.start..<(node.start + node.count)] {
                XCTAssertTrue(
                    tree.qx[i] >= node.x0 && tree.qx[i] < node.x1 && tree.qy[i] >= node.y0 && tree.qy[i] < node.y1)
                XCTAssertEqual(tree.origin.lon + Double(tree.qx[i]) * PointQuadtree.quantum, lon[i], accuracy: 1e-6)
            }
            // The bounds the page culls and thins by hold the node's points and lie in its quadrant.
            for i in tree.order[node.start..<(node.start + node.count)] {
                XCTAssertTrue(
                    tree.qx[i] >= node.bx0 && tree.qx[i] <= node.bx1 && tree.qy[i] >= node.by0 && tree.qy[i] <= node.by1
                )
            }
            XCTAssertTrue(node.bx0 >= node.x0 && node.bx1 < node.x1 && node.by0 >= node.y0 && node.by1 < node.y1)
            // A node with children keeps a full sample; its children lie inside it.
            let children = node.children.filter { $0 >= 0 }
            if !children.isEmpty { XCTAssertEqual(node.count, PointQuadtree.capacity) }
            for c in children {
                let child = tree.nodes[c]
                XCTAssertTrue(child.x0 >= node.x0 && child.x1 <= node.x1 && child.y0 >= node.y0 && child.y1 <= node.y1)
                XCTAssertEqual(child.x1 - child.x0, (node.x1 - node.x0) / 2)
                XCTAssertTrue(
                    child.bx0 >= node.bx0 && child.bx1 <= node.bx1 && child.by0 >= node.by0 && child.by1 <= node.by1)
            }
        }
        XCTAssertGreaterThan(tree.nodes.count, 20)
        let again = PointQuadtree(lon: lon, lat: lat, indices: subset)
        XCTAssertEqual(again.nodes, tree.nodes)
        XCTAssertEqual(again.order, tree.order)
    }

    func testPageDataCarriesTheColourScaleAndThePagePolicyAllowsNoNetwork() throws {
        let squares = [
            MapFixtures.Square(
                lon: 24.95, lat: 60.17, halfLon: 0.002, halfLat: 0.001, keyword: "cafe", rank: 1, density: 300),
            MapFixtures.Square(
                lon: 24.93, lat: 60.17, halfLon: 0.002, halfLat: 0.001, keyword: "bank", rank: 1, density: 20),
        ]
        // A property that would end the script element if written as it is.
        let text = MapFixtures.geoJSON(squares).replacingOccurrences(
            of: "\"rank\":1", with: "\"rank\":1,\"note\":\"</script><b>x</b> & more\"")
        let data = try MapData(
            file: try RegionFeatureFile(path: "r.geojson", text: text), keywords: ["cafe", "bank"], only: nil,
            title: "test", attribution: "© test data",
            pois: MapFixtures.pois([(24.95, 60.17, "cafe"), (24.90, 60.10, "shop")]))
        let html = String(decoding: try WebMapWriter().page(data), as: UTF8.self)
        XCTAssertTrue(
            html.contains(
                "content=\"default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:\""))
        XCTAssertFalse(html.contains("sourceMappingURL"))
        XCTAssertFalse(html.contains("url(images/"), "Leaflet's images are inlined")
        // The data: one element, parseable, with the regions' colours from ColorScale.
        let start = try XCTUnwrap(html.range(of: "<script type=\"application/json\" id=\"regionsearch-data\">"))
        let end = try XCTUnwrap(html.range(of: "</script>", range: start.upperBound..<html.endIndex))
        let json = try JSONParser.parse(String(html[start.upperBound..<end.lowerBound]))
        let keywords = try XCTUnwrap(json["keywords"]?.arrayValue)
        XCTAssertEqual(keywords.map { $0["name"]?.stringValue }, ["cafe", "bank"])
        XCTAssertEqual(keywords[0]["regions"]?.arrayValue?[0]["fill"]?.stringValue, ColorScale.ramps[0][4])
        XCTAssertEqual(keywords[0]["regions"]?.arrayValue?[0]["opacity"]?.doubleValue, ColorScale.opacities[4])
        XCTAssertEqual(keywords[1]["regions"]?.arrayValue?[0]["fill"]?.stringValue, ColorScale.ramps[1][0])
        XCTAssertEqual(keywords[1]["stroke"]?.stringValue, ColorScale.stroke(keyword: 1))
        XCTAssertEqual(keywords[0]["poiCount"]?.intValue, 1)
        XCTAssertEqual(json["attribution"]?.stringValue, "© test data")
        XCTAssertEqual(json["context"]?["p"]?.arrayValue?.count, 4, "two POIs, x and y each")
        let properties = try XCTUnwrap(keywords[0]["regions"]?.arrayValue?[0]["properties"]?.arrayValue)
        XCTAssertTrue(properties.contains(.array([.string("note"), .string("</script><b>x</b> & more")])))
        XCTAssertTrue(properties.contains(.array([.string("keyword_density_per_km2"), .string("300")])))
        // A property or name cannot end the script element.
        XCTAssertEqual(html.components(separatedBy: "</script>").count - 1, 3, "Leaflet, data, page script")

        let online = String(
            decoding: try WebMapWriter(basemap: "https://{s}.tile.example.org/{z}/{x}/{y}.png").page(data),
            as: UTF8.self)
        XCTAssertTrue(online.contains("img-src data: https://*.tile.example.org\""))
        XCTAssertEqual(try WebMapWriter().page(data), try WebMapWriter().page(data), "deterministic")
    }

    /// Issue 21, finding 4: the basemap's host reaches the page's Content-Security-Policy
    /// attribute only as a host source; anything that could end the attribute or add a source is
    /// refused with the reason.
    func testBasemapTemplatesAreCheckedBeforeTheyReachThePage() throws {
        XCTAssertEqual(
            try BasemapTemplate("https://tile.openstreetmap.org/{z}/{x}/{y}.png").origin,
            "https://tile.openstreetmap.org")
        XCTAssertEqual(
            try BasemapTemplate("https://{s}.tile.example.org:8080/{z}/{x}/{y}.png").origin,
            "https://*.tile.example.org:8080")
        XCTAssertEqual(try BasemapTemplate("http://[2001:db8::1]:81/{z}/{x}/{y}").origin, "http://[2001:db8::1]:81")
        XCTAssertEqual(try BasemapTemplate("https://t{r}.example.org/{z}/{x}/{y}").origin, "https:")
        for bad in [
            "https://a\"><img src=x onerror=document.title=1337><meta x=\"/{z}/{x}/{y}.png",
            "https://a b.org/{z}/{x}/{y}", "https://a.org;script-src *;/{z}/{x}/{y}", "https://a'.org/{z}/{x}/{y}",
            "https://user:pw@a.org/{z}/{x}/{y}", "javascript:alert(1)//{z}/{x}/{y}", "https://a.org/{z}/{x}",
            "https://ä.org/{z}/{x}/{y}", "https://-a.org/{z}/{x}/{y}", "https://a.org:80x/{z}/{x}/{y}",
            "https:///{z}/{x}/{y}", "https://a..org/{z}/{x}/{y}",
        ] {
            XCTAssertThrowsError(try BasemapTemplate(bad), bad)
        }
        let data = try MapData(
            file: try RegionFeatureFile(path: "r.geojson", text: MapFixtures.geoJSON([])), keywords: ["cafe"],
            only: nil, title: "t", attribution: "", pois: MapFixtures.pois([(24.95, 60.17, "cafe")]))
        XCTAssertThrowsError(
            try WebMapWriter(basemap: "https://a\"><img src=x onerror=alert(1)>/{z}/{x}/{y}.png").page(data))
    }

    /// The zoom from which each level shows: level 0 always; a finer one once its median region
    /// is 32 px across (zoom 0 is a 256 px world), on quarter steps, never before the level above.
    func testLevelsShowFromTheZoomAtWhichTheirMedianRegionIsLargeEnough() throws {
        func region(_ level: Int, halfLon: Double, parent: Int? = nil) -> MapRegion {
            var r = MapRegion(
                keyword: 0, rank: 1, level: level,
                polygons: [
                    [
                        GeoJSONWriter.Ring(
                            lon: [0, 2 * halfLon, 2 * halfLon, 0, 0], lat: [0, 0, halfLon / 100, halfLon / 100, 0])
                    ]
                ], properties: [], density: 100, densitySource: .property)
            r.parent = parent
            return r
        }
        // Level 1: regions 1/1024, 1/512 and 1/256 px wide at zoom 0 (w degrees are 1 px there).
        let w = 360.0 / 256
        let regions = [
            region(0, halfLon: 100 * w), region(1, halfLon: w / 2 / 1024), region(1, halfLon: w / 2 / 512),
            region(1, halfLon: w / 2 / 256), region(2, halfLon: 100 * w),
        ]
        let zooms = WebMapWriter.levelZoom(regions)
        // Median level-1 extent: 1/512 px at zoom 0, so 32 px at zoom log2(32 · 512) = 14.
        XCTAssertEqual(zooms, [0, 14, 14], "level 2's huge regions still wait for level 1")
        XCTAssertEqual(WebMapWriter.box(regions[2].polygons).extent, 1.0 / 512, accuracy: 1e-9)
        XCTAssertEqual(WebMapWriter.levelZoom([region(0, halfLon: 1)]), [0])
        // A region one pixel off a quarter step is shown a quarter step later, not earlier.
        XCTAssertEqual(WebMapWriter.levelZoom([regions[0], region(1, halfLon: w / 2 / 500)]), [0, 14])
    }

    /// The page's data says where each region goes in the hierarchy and where its label and
    /// marker are.
    func testPageDataCarriesLevelsParentsAndAnchors() throws {
        var parent = MapFixtures.Square(
            lon: 24.95, lat: 60.17, halfLon: 0.004, halfLat: 0.002, keyword: "cafe", rank: 1, density: 100)
        parent.level = 0
        var child = MapFixtures.Square(
            lon: 24.951, lat: 60.1705, halfLon: 0.001, halfLat: 0.0005, keyword: "cafe", rank: 1, density: 900)
        child.level = 1
        child.parent = 1
        let data = try MapData(
            file: try RegionFeatureFile(path: "r.geojson", text: MapFixtures.geoJSON([child, parent])),
            keywords: ["cafe"], only: nil, title: "test", attribution: "", pois: nil)
        let html = String(decoding: try WebMapWriter().page(data), as: UTF8.self)
        let start = try XCTUnwrap(html.range(of: "<script type=\"application/json\" id=\"regionsearch-data\">"))
        let end = try XCTUnwrap(html.range(of: "</script>", range: start.upperBound..<html.endIndex))
        let json = try JSONParser.parse(String(html[start.upperBound..<end.lowerBound]))
        XCTAssertEqual(json["smallRegionPixels"]?.doubleValue, WebMapWriter.smallRegionPixels)
        let keyword = try XCTUnwrap(json["keywords"]?.arrayValue?.first)
        let regions = try XCTUnwrap(keyword["regions"]?.arrayValue)
        // Coarsest first; ids are the map's region indices (the file lists the child first).
        XCTAssertEqual(regions.map { $0["id"]?.intValue }, [1, 0])
        XCTAssertEqual(regions.map { $0["level"]?.intValue }, [0, 1])
        XCTAssertEqual(regions.map { $0["parent"] }, [.null, .number(1)])
        XCTAssertEqual(regions[1]["anchor"], .array([.number(60.1705), .number(24.951)]))
        XCTAssertEqual(regions[0]["label"], .array([.number(60.17), .number(24.95)]))
        XCTAssertEqual(keyword["levelZoom"]?.arrayValue?.count, 2)
        XCTAssertTrue(
            regions[1]["properties"]?.arrayValue?.contains(.array([.string("parent_id"), .string("2")])) ?? false)
    }
}
