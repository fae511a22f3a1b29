import Foundation
import XCTest

@testable import RegionSearchBenchmark
@testable import RegionSearchTestSupport

/// A huge polygon is read as positions: memory stays a small multiple of the record.
final class GeoJSONMemoryTests: XCTestCase {
    func testOneHugePolygonDoesNotAmplifyMemory() throws {
        let dir = NSTemporaryDirectory() + "regionsearch-mem-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/big.geojson"
        let n = 1_000_000
        var text =
            #"{"type":"FeatureCollection","features":[{"type":"Feature","id":1,"properties":{},"#
            + #""geometry":{"type":"Polygon","coordinates":[["#
        text.reserveCapacity(n * 26)
        for k in 0..<n {
            let a = 2 * Double.pi * Double(k) / Double(n)
            text += "[\(String(format: "%.7f", 24.9 + 0.01 * cos(a))),\(String(format: "%.7f", 60.1 + 0.01 * sin(a)))],"
        }
        text += "[24.91,60.1]]]}}]}"
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        let size = text.utf8.count
        XCTAssertNotNil(MeasuredProcess.gnuTime, "scripts/setup installs GNU time, which measures a child's peak")
        let tools = PipelineFixture.toolDirectory
        let usage = try MeasuredProcess.run(
            tools + "/regionsearch-ingest", [path, "--output", dir + "/p.rsa", "--rejects", dir + "/r.txt", "--quiet"],
            stderrPath: dir + "/err")
        XCTAssertEqual(usage.status, 0, (try? String(contentsOfFile: dir + "/err", encoding: .utf8)) ?? "")
        // Before: the JSON tree of the polygon, about 7 times the text (2.7 GB for 200 MB).
        XCTAssertLessThan(usage.peakRSS, 4 * size + 40 << 20, "peak \(usage.peakRSS >> 20) MB for \(size >> 20) MB")
    }
}
