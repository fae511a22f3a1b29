import Foundation
import RegionSearchCore
import RegionSearchIngest
import RegionSearchStages
import XCTest

/// Temporary files and small helpers shared by the ingest tests.
final class IngestScratch {
    let directory: String
    private var counter = 0

    init() {
        let template = TestScratch.root + "/rs-ingest-test-XXXXXX"
        var bytes = Array(template.utf8CString)
        let made = bytes.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "mkdtemp failed")
        directory = String(decoding: bytes.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        Log.quiet = true
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    func path(_ name: String) -> String { directory + "/" + name }

    /// Writes `bytes` to a new file and returns its path.
    @discardableResult
    func write(_ bytes: [UInt8], name: String? = nil) -> String {
        counter += 1
        let p = path(name ?? "input-\(counter).txt")
        Self.writeFile(p, bytes)
        return p
    }

    /// Plain unlink/create/write: FileManager's atomic writes fsync, and rewriting a file by
    /// truncation makes ext4 flush it on close; either makes thousands of small files slow.
    static func writeFile(_ path: String, _ bytes: [UInt8]) {
        unlink(path)
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        precondition(fd >= 0, "cannot create \(path)")
        bytes.withUnsafeBytes { raw in
            var off = 0
            while off < raw.count {
                let n = Foundation.write(fd, raw.baseAddress! + off, raw.count - off)
                precondition(n > 0, "write failed")
                off += n
            }
        }
        close(fd)
    }

    @discardableResult
    func write(_ text: String, name: String? = nil) -> String { write(Array(text.utf8), name: name) }

    /// gzip-compresses a file with the system `gzip` (a second implementation of the format).
    func gzip(_ path: String) throws -> String {
        let out = path + ".gz"
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", "gzip -c -n '\(path)' > '\(out)'"]
        try p.run()
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0, "gzip failed")
        return out
    }

    func read(_ path: String) -> [UInt8] { Array(FileManager.default.contents(atPath: path) ?? Data()) }

    func text(_ path: String) -> String { String(decoding: read(path), as: UTF8.self) }
}

/// All results of a source, record by record.
func readAll(_ source: RecordSource, limit: Int = 1_000_000) throws -> [ReadResult] {
    var out: [ReadResult] = []
    while let r = try source.next() {
        out.append(r)
        if out.count > limit {
            XCTFail("reader did not stop")
            break
        }
    }
    return out
}

extension ReadResult {
    var record: RawRecord? {
        if case .record(let r) = self { return r }
        return nil
    }

    var rejected: RejectedRecord? {
        if case .rejected(let r) = self { return r }
        return nil
    }
}

/// A spec from JSON text (fails the test on a usage error).
func spec(_ json: String, file: StaticString = #filePath, line: UInt = #line) -> InputSpec {
    do {
        return try InputSpec(json: JSONParser.parse(json), context: "inputs[0]")
    } catch {
        XCTFail("bad spec \(json): \(error)", file: file, line: line)
        return InputSpec(path: "/nonexistent")
    }
}

/// Opens a delimited file with a spec given as JSON members (without "path").
func delimited(_ path: String, _ members: String = "") throws -> DelimitedReader {
    let s = spec("{\"path\": \"\(path)\"\(members.isEmpty ? "" : ", " + members)}")
    return try DelimitedReader(reader: ByteReader(path: path), spec: s)
}

func geojson(_ path: String, _ members: String = "") throws -> GeoJSONReader {
    let s = spec("{\"path\": \"\(path)\"\(members.isEmpty ? "" : ", " + members)}")
    return try GeoJSONReader(reader: ByteReader(path: path), spec: s)
}

/// Runs the ingest stage in-process with command-line arguments.
func runIngest(_ arguments: [String]) throws {
    let spec = IngestStage.commandSpec()
    try IngestStage.run(spec.parse(arguments))
}

/// Distance in metres between two WGS84 points (haversine; enough for metre-level checks).
func metres(_ lon1: Double, _ lat1: Double, _ lon2: Double, _ lat2: Double) -> Double {
    let r = 6_371_008.8
    let p1 = lat1 * .pi / 180
    let p2 = lat2 * .pi / 180
    let dp = p2 - p1
    let dl = (lon2 - lon1) * .pi / 180
    let a = sin(dp / 2) * sin(dp / 2) + cos(p1) * cos(p2) * sin(dl / 2) * sin(dl / 2)
    return 2 * r * asin(min(1, sqrt(a)))
}
