import Foundation
import XCTest

@testable import RegionSearchIngest
@testable import RegionSearchTestSupport

/// An external tool the tests need failed or is missing (the test fails, it is not skipped).
struct ToolError: Error {
    var message: String
}

/// Shared helpers of the OSM reader tests.
enum OSMTestSupport {
    static let helsinkiPBF = SharedData.path("helsinki-center-osm/Helsinki.osm.pbf")

    /// A fresh temporary directory, removed when the test ends; in memory (/dev/shm) when
    /// available, since the fuzz tests write thousands of small files.
    static func temporaryDirectory(_ test: XCTestCase) throws -> String {
        var isDirectory: ObjCBool = false
        let base =
            FileManager.default.fileExists(atPath: "/dev/shm", isDirectory: &isDirectory) && isDirectory.boolValue
                && FileManager.default.isWritableFile(atPath: "/dev/shm")
            ? URL(fileURLWithPath: "/dev/shm") : FileManager.default.temporaryDirectory
        let url = base.appendingPathComponent("osm-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        test.addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url.path
    }

    static func write(_ bytes: [UInt8], to path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    static func write(_ text: String, to path: String) throws {
        try write(Array(text.utf8), to: path)
    }

    /// Every result of a source, in order.
    static func readAll(_ source: RecordSource) throws -> [ReadResult] {
        var results: [ReadResult] = []
        while let r = try source.next() { results.append(r) }
        return results
    }

    static func readPBF(_ path: String, options: OSMOptions = OSMOptions()) throws -> (
        results: [ReadResult], counts: OSMElementCounts
    ) {
        let reader = try OSMPBFReader(path: path, options: options)
        let results = try readAll(reader)
        return (results, reader.counts)
    }

    static func readXML(_ path: String, options: OSMOptions = OSMOptions()) throws -> (
        results: [ReadResult], counts: OSMElementCounts
    ) {
        let reader = try OSMXMLReader(reader: ByteReader(path: path), options: options)
        let results = try readAll(reader)
        return (results, reader.counts)
    }

    static func records(_ results: [ReadResult]) -> [RawRecord] {
        results.compactMap { if case .record(let r) = $0 { return r } else { return nil } }
    }

    static func rejects(_ results: [ReadResult]) -> [RejectedRecord] {
        results.compactMap { if case .rejected(let r) = $0 { return r } else { return nil } }
    }

    /// Runs `osmium` with arguments; fails the test (not skips) when it is not installed.
    static func osmium(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        let candidates = ["/usr/bin/osmium", "/usr/local/bin/osmium"]
        guard let tool = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            XCTFail(
                "osmium is not installed; install Debian's osmium-tool (apt-get install -y osmium-tool) to run the "
                    + "OSM cross-check tests",
                file: file, line: line)
            throw ToolError(message: "osmium missing")
        }
        let (status, message) = try TestSupport.run(tool, arguments)
        guard status == 0 else {
            XCTFail("osmium \(arguments.joined(separator: " ")) failed: \(message)", file: file, line: line)
            throw ToolError(message: "osmium failed")
        }
    }

    /// Asserts two result lists are the same records and rejects (ids, names, keywords,
    /// coordinates to 1e-7°; reject reasons and raw texts), ignoring line and byte offset.
    static func assertSameResults(
        _ a: [ReadResult], _ b: [ReadResult], _ message: String, file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertEqual(a.count, b.count, "\(message): result counts differ", file: file, line: line)
        var reported = 0
        for (index, (x, y)) in zip(a, b).enumerated() {
            var problem: String?
            switch (x, y) {
            case (.record(let p), .record(let q)):
                if p.id != q.id || p.name != q.name || p.keywords != q.keywords || p.keywordKeys != q.keywordKeys
                    || abs(p.lon - q.lon) > 1e-7
                    || abs(p.lat - q.lat) > 1e-7
                {
                    problem = "\(p) vs \(q)"
                }
            case (.rejected(let p), .rejected(let q)):
                if p.reason != q.reason || p.raw != q.raw { problem = "\(p) vs \(q)" }
            default:
                problem = "\(x) vs \(y)"
            }
            if let problem {
                reported += 1
                if reported <= 5 { XCTFail("\(message): result \(index) differs: \(problem)", file: file, line: line) }
            }
        }
        if reported > 5 { XCTFail("\(message): \(reported) results differ in all", file: file, line: line) }
    }
}
