import XCTest

@testable import RegionSearchCore
@testable import RegionSearchModel
@testable import RegionSearchTestSupport

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
        XCTAssertEqual(file.columns.first?.offset, ArtifactFormat.headerSize)
        for c in file.columns { XCTAssertEqual(c.offset % 64, 0, "column \(c.name) is 64-byte aligned") }
    }

    func testEveryFlippedByteIsDetected() throws {
        let dir = TestSupport.temporaryDirectory()
        let path = try sample(dir)
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        for offset in stride(from: 0, to: original.count, by: 7) {
            var bytes = original
            bytes[offset] ^= 0x5A
            try bytes.write(to: URL(fileURLWithPath: path))
            // Caught when the file is opened (header, trailer, metadata, directory, padding) or when
            // the column holding the byte is first used.
            XCTAssertThrowsError(
                try {
                    let f = try ArtifactFile(path: path, expected: .pois)
                    _ = try POITable(artifact: f)
                }(),
                "flip at \(offset)"
            ) { error in
                XCTAssertTrue("\(error)".contains(path), "error names the file: \(error)")
            }
        }
    }

    /// A damaged column is reported when it is first used, naming it; the other columns stay
    /// usable, and a column that is never asked for is never read.
    func testDamagedColumnIsCaughtWhenFirstUsed() throws {
        let dir = TestSupport.temporaryDirectory()
        let path = dir + "/cols.rsa"
        var w = ArtifactWriter(kind: .projected, rowCount: 4)
        w.add("x", [1.0, 2.0, 3.0, 4.0])
        w.add("y", [5.0, 6.0, 7.0, 8.0])
        try w.write(to: path)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let clean = try ArtifactFile(path: path, expected: .projected)
        let y = try XCTUnwrap(clean.columns.first { $0.name == "y" })
        bytes[y.offset + 3] ^= 0x01
        try bytes.write(to: URL(fileURLWithPath: path))
        let file = try ArtifactFile(path: path, expected: .projected)
        XCTAssertEqual(try file.array("x", as: Double.self), [1, 2, 3, 4])
        XCTAssertThrowsError(try file.array("y", as: Double.self)) { error in
            XCTAssertTrue("\(error)".contains("checksum mismatch in column 'y'"), "\(error)")
        }
        XCTAssertThrowsError(try file.verifyAllColumns())
        XCTAssertThrowsError(try ArtifactFile.identity(path: path, verifyingColumns: true))
        // Without reading the columns the identity is the clean file's: it is the directory's.
        XCTAssertEqual(try ArtifactFile.identity(path: path, verifyingColumns: false).hash, clean.identity)
    }

    /// A whole large file is verified on several threads: intact, it passes; with two damaged
    /// columns, the error names the first of them on any thread count, as one thread finds it.
    func testAllColumnsVerifiedOnThreadsNameTheFirstDamagedColumn() throws {
        let saved = Parallel.threadCount
        defer { Parallel.threadCount = saved }
        let dir = TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/large.rsa"
        let rows = 400_000
        var w = ArtifactWriter(kind: .projected, rowCount: rows)
        for (c, name) in ["a", "b", "c", "d", "e"].enumerated() {
            w.add(name, (0..<rows).map { Double($0 * (c + 1)) })
        }
        try w.write(to: path)
        let clean = try ArtifactFile(path: path, expected: .projected)
        XCTAssertGreaterThanOrEqual(clean.size, 1 << 23, "large enough to be shared out")
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        for threads in [1, 2, 3] {
            Parallel.threadCount = threads
            XCTAssertNoThrow(try ArtifactFile(path: path, expected: .projected).verifyAllColumns(), "\(threads)")
        }
        for name in ["d", "b"] {
            let column = try XCTUnwrap(clean.columns.first { $0.name == name })
            bytes[column.offset + column.length - 5] ^= 0x10
        }
        try bytes.write(to: URL(fileURLWithPath: path))
        for threads in [1, 2, 3] {
            Parallel.threadCount = threads
            XCTAssertThrowsError(try ArtifactFile(path: path, expected: .projected).verifyAllColumns()) { error in
                XCTAssertTrue("\(error)".contains("checksum mismatch in column 'b'"), "\(threads) threads: \(error)")
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
