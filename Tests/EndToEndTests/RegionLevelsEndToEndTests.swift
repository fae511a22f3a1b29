import Foundation
import XCTest

@testable import RegionSearchCore
@testable import RegionSearchOutput
@testable import RegionSearchTestSupport

/// `hulls.levels` through `regionsearch run`: what a flat consumer gets of the fixture's nested
/// regions (its four cafe blobs give a level-0 region holding a level-1 one), in the regions,
/// the POI layer and the maps, and a value the stage cannot use refused before anything runs.
final class RegionLevelsEndToEndTests: XCTestCase {
    /// The features of the hulls artifact: properties and a GEOS geometry each.
    private func features(_ f: PipelineFixture, _ geos: GEOSContext) throws -> [(JSONValue, GEOSGeometry)] {
        try (f.regionsArtifact()["features"]?.arrayValue ?? []).map { feature in
            let g = try XCTUnwrap(feature["geometry"])
            let parts =
                g["type"]?.stringValue == "Polygon"
                ? [try XCTUnwrap(g["coordinates"])] : try XCTUnwrap(g["coordinates"]?.arrayValue)
            let polygons = try parts.map { part in
                try geos.polygon(
                    rings: (part.arrayValue ?? []).map { ring in
                        let v = (ring.arrayValue ?? []).map { $0.arrayValue?.compactMap(\.doubleValue) ?? [] }
                        return (x: v.map { $0[0] }, y: v.map { $0[1] })
                    })
            }
            let geometry = polygons.count == 1 ? polygons[0] : try geos.unionAll(polygons)
            return (try XCTUnwrap(feature["properties"]), geometry)
        }
    }

    func testLevelsChooseWhatAFlatConsumerGets() throws {
        let f = try PipelineFixture()
        defer { f.remove() }
        try f.writeManifest(
            output: .string("../out/test.geojson"), poiOutput: .string("../out/pois.gpkg"),
            // Level 0 cut from the propagated densities: the fixture then nests (its own-density level
            // 0 has no finer level inside), which is what this test needs to see written.
            sections: [("regions", .object([("nested", .bool(true)), ("level0", .string("propagated"))]))])
        try f.runOK()
        let geos = GEOSContext()
        let nested = try features(f, geos)
        let levels = nested.map { $0.0["level"]?.intValue ?? -1 }
        XCTAssertTrue(levels.contains(0) && levels.contains(1), "the fixture nests: \(levels)")
        func property(_ p: JSONValue, _ key: String) -> Double { p[key]?.doubleValue ?? .nan }

        // finest: no two regions overlap; a parent keeps what lies around its children, and its
        // keyword POIs and theirs add up to the nested parent's (counted on the written polygons).
        try f.runOK(["--set", "hulls.levels=finest"])
        XCTAssertEqual(try f.ranStages(), ["hulls"], "only the hulls stage depends on levels")
        let cut = try features(f, geos)
        for i in cut.indices {
            for j in cut.indices where j > i {
                XCTAssertEqual(
                    try cut[i].1.intersection(cut[j].1).area, 0, accuracy: 1e-14, "regions \(i + 1), \(j + 1)")
            }
        }
        let union = try geos.unionAll(cut.map(\.1))
        XCTAssertEqual(union.area, try geos.unionAll(nested.map(\.1)).area, accuracy: 1e-12, "the same ground")
        for (p, g) in nested where p["level"]?.intValue == 0 {
            let id = try XCTUnwrap(p["region_id"]?.intValue)
            let children = nested.filter { $0.0["parent_id"]?.intValue == id }
            guard !children.isEmpty else { continue }
            let rest = try XCTUnwrap(
                cut.first { $0.0["level"]?.intValue == 0 && $0.0["rank"] == p["rank"] }, "the parent's remainder")
            XCTAssertEqual(rest.1.area, g.area - children.reduce(0) { $0 + $1.1.area }, accuracy: 1e-12)
            let inside =
                property(rest.0, "n_keyword_pois") + children.reduce(0) { $0 + property($1.0, "n_keyword_pois") }
            XCTAssertEqual(inside, property(p, "n_keyword_pois"), accuracy: 2, "POIs on a shared edge may count twice")
            XCTAssertLessThan(property(rest.0, "area_m2"), property(p, "area_m2"))
        }
        // The POI layer names the written (cut) regions; the maps are drawn from them.
        let pois = try ReadBack(f.root + "/out/pois.gpkg", layer: "pois")
        let ids = Set(cut.compactMap { $0.0["region_id"]?.intValue }.map(Int64.init))
        for row in pois.rows {
            if case .integer(let id)? = row["region_1"] { XCTAssertTrue(ids.contains(id), "\(id)") }
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: f.root + "/out/test.html"))

        // coarsest and one level.
        try f.runOK(["--set", "hulls.levels=coarsest"])
        let coarsest = try features(f, geos)
        XCTAssertEqual(coarsest.count, levels.filter { $0 == 0 }.count)
        XCTAssertTrue(coarsest.allSatisfy { $0.0["level"]?.intValue == 0 && $0.0["parent_id"] == .null })
        try f.runOK(["--set", "hulls.levels=1"])
        let one = try features(f, geos)
        XCTAssertEqual(one.count, levels.filter { $0 == 1 }.count)
        XCTAssertTrue(one.allSatisfy { $0.0["level"]?.intValue == 1 && $0.0["parent_id"] == .null })
        XCTAssertEqual(one.map { $0.0["region_id"]?.intValue }, Array(1...one.count), "numbered from 1")

        // Back to all: the nested features again.
        try f.runOK()
        XCTAssertEqual(try features(f, geos).map(\.0), nested.map(\.0))

        // A value the stage cannot use stops the run before anything runs.
        try f.writeManifest(
            output: .string("../out/test.geojson"), sections: [("hulls", .object([("levels", .string("deepest"))]))])
        let bad = try f.run()
        XCTAssertEqual(bad.status, 2, bad.output)
        XCTAssertTrue(
            bad.output.contains("hulls.levels: expected \"all\", \"finest\", \"coarsest\" or a level number"),
            bad.output)
    }
}
