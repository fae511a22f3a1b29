import XCTest

@testable import RegionSearchCLI
@testable import RegionSearchCore
@testable import RegionSearchEvaluation
@testable import RegionSearchGraph
@testable import RegionSearchIngest
@testable import RegionSearchModel
@testable import RegionSearchOutput
@testable import RegionSearchPipeline
@testable import RegionSearchProjection
@testable import RegionSearchPropagation
@testable import RegionSearchRegions
@testable import RegionSearchStages
@testable import RegionSearchSynthetic

final class ArtifactTests: XCTestCase {
    private func sample(_ dir: String) throws -> String {
        var pois = POITable()
        pois.append(id: "1", name: "Café A", keywordText: "cafe", lon: 24.94, lat: 60.17, source: 0, line: 2)
        pois.append(id: "2", name: "咖啡", keywordText: "咖啡\nshop", lon: 120.1, lat: 30.2, source: 0, line: 3)
        let path = dir + "/pois.rsa"
        try pois.writer(metadata: .object([("k", .number(1))])).write(to: path)
        return path
    }

    func testRoundTrip() throws {
        let dir = TestSupport.temporaryDirectory()
        let path = try sample(dir)
        let file = try ArtifactFile(path: path, expected: .pois)
        let pois = try POITable(artifact: file)
        XCTAssertEqual(pois.count, 2)
        XCTAssertEqual(pois.names[0], "Café A")
        XCTAssertEqual(pois.keywords[1], "咖啡\nshop")
        XCTAssertEqual(pois.lat, [60.17, 30.2])
        XCTAssertEqual(file.metadata["k"], .number(1))
        XCTAssertEqual((file.size - ArtifactFormat.trailerSize) % 64, 0, "layout is 64-byte aligned up to the trailer")
    }

    func testEveryFlippedByteIsDetected() throws {
        let dir = TestSupport.temporaryDirectory()
        let path = try sample(dir)
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        for offset in stride(from: 0, to: original.count, by: 7) {
            var bytes = original
            bytes[offset] ^= 0x5A
            try bytes.write(to: URL(fileURLWithPath: path))
            XCTAssertThrowsError(try ArtifactFile(path: path, expected: .pois), "flip at \(offset)") { error in
                XCTAssertTrue("\(error)".contains(path), "error names the file: \(error)")
            }
        }
    }

    func testTruncationAndWrongKindAreNamed() throws {
        let dir = TestSupport.temporaryDirectory()
        let path = try sample(dir)
        XCTAssertThrowsError(try ArtifactFile(path: path, expected: .graph)) {
            XCTAssertTrue("\($0)".contains("expected a graph artifact but this is a pois artifact"), "\($0)")
        }
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        for cut in [0, 10, 100, original.count - 1] {
            try original.prefix(cut).write(to: URL(fileURLWithPath: path))
            XCTAssertThrowsError(try ArtifactFile(path: path, expected: .pois)) { error in
                let text = "\(error)"
                XCTAssertTrue(text.contains("truncated") || text.contains("not a RegionSearch artifact"), text)
            }
        }
    }

    func testAtomicWriteLeavesPreviousVersionUntilCommit() throws {
        let dir = TestSupport.temporaryDirectory()
        let path = dir + "/f.txt"
        try AtomicFile.write("old", to: path)
        let f = try AtomicFile(path: path)
        try f.write("new content")
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "old")
        try f.commit()
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "new content")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir).filter {
            $0.contains(AtomicFile.temporaryMarker)
        }
        XCTAssertEqual(leftovers, [])
    }
}
