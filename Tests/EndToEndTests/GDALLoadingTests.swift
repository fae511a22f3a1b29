import Foundation
import XCTest

@testable import RegionSearchTestSupport

/// GDAL is loaded on first use (the CGDAL target's forwarders), not when a process starts: the
/// dynamic loader's own log (`LD_DEBUG=libs`) shows which shared objects a process initialises.
final class GDALLoadingTests: XCTestCase {
    private func loadsGDAL(_ result: PipelineFixture.Result) -> Bool {
        result.output.split(separator: "\n").contains { $0.contains("calling init:") && $0.contains("libgdal.so") }
    }

    /// The processes whose loader log is in the output (`LD_DEBUG` prefixes each line with a pid).
    private func processesLogged(_ result: PipelineFixture.Result) -> Int {
        var pids = Set<Substring>()
        for line in result.output.split(separator: "\n") where line.contains("calling init:") {
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            if let colon = trimmed.firstIndex(of: ":") { pids.insert(trimmed[..<colon]) }
        }
        return pids.count
    }

    func testNoExecutableLoadsGDALUnlessItReadsOrWritesThroughIt() throws {
        let f = try PipelineFixture()
        defer { f.remove() }
        let executables = [
            "regionsearch", "regionsearch-ingest", "regionsearch-project", "regionsearch-graph",
            "regionsearch-propagate", "regionsearch-regions", "regionsearch-hulls", "regionsearch-evaluate",
            "regionsearch-generate", "regionsearch-preview",
        ]
        for name in executables {
            let r = try f.tool(
                ["--version"], executable: PipelineFixture.toolDirectory + "/" + name,
                environment: ["LD_DEBUG": "libs"])
            XCTAssertEqual(r.status, 0, name)
            XCTAssertTrue(r.output.contains("calling init:"), "\(name): the loader log is there")
            XCTAssertFalse(loadsGDAL(r), "\(name) --version initialised libgdal")
        }
        // The whole pipeline to GeoJSON (and its maps): no stage touches GDAL.
        let geojson = try f.run(["--quiet"], environment: ["LD_DEBUG": "libs"])
        XCTAssertEqual(geojson.status, 0, geojson.output)
        XCTAssertGreaterThanOrEqual(
            processesLogged(geojson), 7, "the loader logs of the driver and all six stages are there")
        XCTAssertFalse(loadsGDAL(geojson), "a GeoJSON run initialised libgdal")
        // A GeoPackage output goes through GDAL: loaded then, and the file reads back.
        let gpkg = f.root + "/out/test.gpkg"
        try f.writeManifest(output: .string("../out/test.gpkg"))
        let written = try f.run(["--quiet"], environment: ["LD_DEBUG": "libs"])
        XCTAssertEqual(written.status, 0, written.output)
        XCTAssertTrue(loadsGDAL(written), "writing a GeoPackage loads libgdal")
        let info = try f.tool(["-ro", "-so", gpkg, "regions"], executable: "/usr/bin/ogrinfo")
        XCTAssertEqual(info.status, 0, info.output)
        XCTAssertTrue(info.output.contains("Geometry: Multi Polygon"), info.output)
    }

    /// Without GDAL (REGIONSEARCH_GDAL names a library that is not there) a GeoJSON run works and a
    /// GeoPackage output fails before any stage runs, with the loader's reason and the output status.
    func testAMissingGDALIsATypedErrorOnlyWhereGDALIsNeeded() throws {
        let f = try PipelineFixture()
        defer { f.remove() }
        let missing = ["REGIONSEARCH_GDAL": f.root + "/no-such-libgdal.so"]
        try f.writeManifest(output: .string("../out/test.gpkg"))
        let gpkg = try f.run([], environment: missing)
        XCTAssertEqual(gpkg.status, 6, gpkg.output)
        XCTAssertTrue(gpkg.output.contains("cannot load GDAL"), gpkg.output)
        XCTAssertTrue(gpkg.output.contains("no-such-libgdal.so"), gpkg.output)
        XCTAssertFalse(FileManager.default.fileExists(atPath: f.root + "/out/test.gpkg"))
        XCTAssertFalse(gpkg.output.contains("ingest"), "found before any stage ran: \(gpkg.output)")
        try f.writeManifest()
        let geojson = try f.run(["--quiet"], environment: missing)
        XCTAssertEqual(geojson.status, 0, geojson.output)
        XCTAssertTrue(FileManager.default.fileExists(atPath: f.outputPath))
    }
}
