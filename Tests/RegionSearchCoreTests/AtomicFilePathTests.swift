import XCTest

@testable import RegionSearchCore

/// The path helpers every target names files with: one last component and one directory part,
/// the same answer in the runner, the GDAL writers, ingest and the maps.
final class AtomicFilePathTests: XCTestCase {
    func testBaseNameIsTheLastComponentAndATrailingSlashEndsNone() {
        XCTAssertEqual(AtomicFile.baseName(of: "/a/b/c.json"), "c.json")
        XCTAssertEqual(AtomicFile.baseName(of: "c.json"), "c.json")
        XCTAssertEqual(AtomicFile.baseName(of: "out/regions/"), "regions")
        XCTAssertEqual(AtomicFile.baseName(of: "a//b"), "b")
        XCTAssertEqual(AtomicFile.baseName(of: "pois.gpkg-wal"), "pois.gpkg-wal")
        XCTAssertEqual(AtomicFile.baseName(of: "/"), "")
        XCTAssertEqual(AtomicFile.baseName(of: ""), "")
    }

    func testDirectoryAndBaseNameRebuildThePath() {
        for path in ["/a/b/c.json", "out/regions.geojson", "/top.json"] {
            XCTAssertEqual(
                (AtomicFile.directory(of: path) == "/" ? "" : AtomicFile.directory(of: path)) + "/"
                    + AtomicFile.baseName(of: path), path)
        }
        XCTAssertEqual(AtomicFile.directory(of: "c.json"), ".")
    }
}
