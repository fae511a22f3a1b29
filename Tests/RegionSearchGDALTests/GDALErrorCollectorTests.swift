import CGDAL
import Dispatch
import Foundation
import Synchronization
import XCTest

@testable import RegionSearchGDAL
@testable import RegionSearchTestSupport

/// GDAL's messages reach the collector of the call that caused them: per thread, nested scopes
/// restored, warnings kept apart from failures.
final class GDALErrorCollectorTests: XCTestCase {
    func testEachThreadCollectsOnlyItsOwnMessages() {
        let problems = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 16) { t in
            for i in 0..<20 {
                let path = "/nonexistent/thread-\(t)-open-\(i).gpkg"
                do {
                    _ = try GDALDataset(openingVector: path)
                    problems.withLock { $0.append("\(path) opened") }
                } catch {
                    let text = "\(error)"
                    // Its own path, and no other thread's or iteration's.
                    if !text.contains(path) || text.components(separatedBy: "/nonexistent/").count != 3 {
                        problems.withLock { $0.append(text) }
                    }
                }
            }
        }
        XCTAssertEqual(problems.withLock { $0 }, [])
    }

    func testNestedScopesRestoreTheOuterHandlerAndWarningsAreNotFailures() throws {
        let outer = GDALErrorCollector()
        let inner = GDALErrorCollector()
        outer.capture {
            CPLErrorForTest.raise(failure: true, "outer one")
            inner.capture { CPLErrorForTest.raise(failure: true, "inner") }
            CPLErrorForTest.raise(failure: false, "outer warning")
        }
        XCTAssertEqual(inner.takeFailures().map(\.text), ["inner"])
        XCTAssertEqual(outer.takeFailures().map(\.text), ["outer one"])
        XCTAssertEqual(outer.takeWarnings().map(\.text), ["outer warning"])

        // A point in a GeoPackage MultiPolygon layer: GDAL warns and writes it; not a failure.
        let dir = GIS.directory("warn")
        let file = try AtomicVectorFile(dir + "/w.gpkg", format: .geoPackage)
        let layer = try file.createLayer(
            LayerSchema(name: "w", geometry: .multiPolygon, fields: [.init("name", .string)]), srs: nil)
        try layer.write(OutputFeature(geometry: .point(x: 1, y: 2), values: [.string("a point")]))
        let warnings = file.dataset.takeWarnings()
        XCTAssertTrue(warnings.contains { $0.text.contains("POINT") }, "\(warnings)")
        try file.commit()
    }

    func testMessagesAreMadePrintableAndPasswordsRedacted() {
        let c = GDALErrorCollector()
        c.capture { CPLErrorForTest.raise(failure: true, "bad \u{1B}[31mbyte\u{07}") }
        XCTAssertEqual(c.takeFailures().map(\.text), ["bad \\x1b[31mbyte\\x07"])
        XCTAssertEqual(
            GDALLibrary.redacted("PG:host=db password=s3cret dbname=gis"), "PG:host=db password=*** dbname=gis")
        XCTAssertEqual(GDALLibrary.redacted("PG:password='a b' dbname=gis"), "PG:password=*** dbname=gis")
        XCTAssertEqual(GDALLibrary.redacted("/data/x.gpkg"), "/data/x.gpkg")
    }

    /// Issue 21: a message GDAL spreads over lines (PostgreSQL's `ERROR: …\nLINE 1: …`) reads as
    /// one line, not with a literal `\n`.
    func testMultiLineMessagesBecomeOneLine() {
        let c = GDALErrorCollector()
        c.capture {
            CPLErrorForTest.raise(failure: true, "ERROR:  relation \"x\" does not exist\nLINE 1: SELECT *\r\n  \n")
        }
        XCTAssertEqual(c.takeFailures().map(\.text), ["ERROR:  relation \"x\" does not exist LINE 1: SELECT *"])
    }
}

/// Raises a GDAL message the way a driver does (`CPLError` is variadic: through `CPLErrorV`).
enum CPLErrorForTest {
    static func raise(failure: Bool, _ text: String) {
        let copy = strdup(text)!
        defer { free(copy) }
        withVaList([copy]) { CPLErrorV(failure ? CE_Failure : CE_Warning, CPLE_AppDefined, "%s", $0) }
    }
}
