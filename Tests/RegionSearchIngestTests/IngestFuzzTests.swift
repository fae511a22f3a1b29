import Foundation
import XCTest

@testable import RegionSearchCore
@testable import RegionSearchIngest
@testable import RegionSearchTestSupport

/// Random bytes and mutations of valid CSV, GeoJSON and gzip inputs, fed to every reader of
/// the ingest stage (with a fixed seed): no crash, bounded work (each result consumes input),
/// and every failure a clean ``InputError``/``FirstRecordError``/``UsageError``/``IngestError`` or a
/// rejected record.
final class IngestFuzzTests: XCTestCase {
    let scratch = IngestScratch()

    static let seeds: [String] = [
        "id,name,category,lon,lat\n1,\"Wang's \"\"Best\"\", "
            + "Sanlitun\",restaurant,116.1,39.9\n2,\"two\nlines\",cafe;bar,116.2,39.8\r\n3,x,\"['a', 'b']\",1e1,2\n",
        "|id|name|lat|lon|rubrics\n0|7|Нет|59.9|30.3|['Кафе', 'Бары']\n1|8|b|0|0|[]\n",
        "阿裡雪\t 清江路108\t \t 购物服务;服装鞋帽皮具店\t 120.186413,30.247994\n",
        "id;wkt\n1;POINT(1 2)\n2;SRID=4326;POINT Z (3 4 5)\n",
        "{\"type\":\"FeatureCollection\",\"features\":[{\"type\":\"Feature\",\"id\":1,\"geometry\":{\"type\":\"Point\",\"coordinates\":[1,2]},\"properties\":{\"name\":\"a\",\"category\":\"x;y\"}},{\"type\":\"Feature\",\"geometry\":{\"type\":\"Polygon\",\"coordinates\":[[[0,0],[4,0],[4,4],[0,0]]]},\"properties\":{}}]}",
        "\u{1E}{\"type\":\"Feature\",\"geometry\":{\"type\":\"LineString\",\"coordinates\":[[0,0],[1,1]]},\"properties\":{\"tags\":[\"a\",1]}}\n\u{1E}{\"type\":\"Feature\",\"geometry\":null}\n",
        "{\"type\":\"Feature\",\"geometry\":{\"type\":\"MultiPoint\",\"coordinates\":[[1,2],[3,4]]},\"properties\":{}}\n{\"type\":\"Feature\",\"geometry\":{\"type\":\"GeometryCollection\",\"geometries\":[]}}\n",
    ]

    static let special: [UInt8] = [
        0x22, 0x2C, 0x0A, 0x0D, 0x09, 0x7C, 0x3B, 0x1E, 0x7B, 0x7D, 0x5B, 0x5D, 0x5C, 0x00, 0xFF, 0xC3, 0x80, 0x27,
        0x3A, 0x20,
    ]

    private func mutate(_ input: [UInt8], _ rng: inout SeededRandom) -> [UInt8] {
        var b = input
        for _ in 0..<Int.random(in: 1...6, using: &rng) {
            let op = Int.random(in: 0..<6, using: &rng)
            let i = b.isEmpty ? 0 : Int.random(in: 0..<b.count, using: &rng)
            switch op {
            case 0 where !b.isEmpty: b[i] = UInt8.random(in: 0...255, using: &rng)
            case 1: b.insert(Self.special.randomElement(using: &rng)!, at: i)
            case 2 where !b.isEmpty: b.remove(at: i)
            case 3: b = Array(b.prefix(i))
            case 4 where !b.isEmpty:
                let j = Int.random(in: i..<b.count, using: &rng)
                b.insert(contentsOf: b[i...j], at: Int.random(in: 0...b.count, using: &rng))
            default:
                b[i..<i] =
                    [UInt8](
                        repeating: Self.special.randomElement(using: &rng)!, count: Int.random(in: 1...4, using: &rng))[
                        ...]
            }
        }
        return b
    }

    /// Reads everything; fails on unclean errors or runaway output.
    private func drain(_ make: () throws -> RecordSource, size: Int, context: String) {
        do {
            let source = try make()
            var results = 0
            while let r = try source.next() {
                results += 1
                if case .rejected(let rej) = r { XCTAssertFalse(rej.reason.isEmpty, context) }
                if results > size + 2 {
                    XCTFail("\(context): more results (\(results)) than input bytes (\(size))")
                    return
                }
            }
        } catch let e as InputError {
            XCTAssertFalse(e.description.isEmpty)
        } catch let e as FirstRecordError {
            // Delimited text whose first record cannot be scanned: refused, the record handed on
            // (bounded) for the rejects file.
            XCTAssertFalse(e.record.reason.isEmpty, context)
            XCTAssertLessThanOrEqual(e.record.raw.utf8.count, FirstRecordError.excerptBytes + 3, context)
        } catch let e as UsageError {
            XCTAssertFalse(e.message.isEmpty)
        } catch {
            XCTFail("\(context): unclean error \(type(of: error)): \(error)")
        }
    }

    func testReadersSurviveRandomAndMutatedInput() throws {
        var rng = SeededRandom(seed: 20_241_130)
        var gzipSeeds: [[UInt8]] = []
        for (k, s) in Self.seeds.enumerated() {
            let p = scratch.write(s, name: "seed\(k)")
            gzipSeeds.append(scratch.read(try scratch.gzip(p)))
        }
        let corpus = Self.seeds.map { Array($0.utf8) } + gzipSeeds
        let path = scratch.path("fuzz.bin")
        for iteration in 0..<3000 {
            let bytes: [UInt8]
            if iteration % 5 == 0 {
                bytes = (0..<Int.random(in: 0...300, using: &rng)).map { _ in
                    Bool.random(using: &rng)
                        ? Self.special.randomElement(using: &rng)! : UInt8.random(in: 0...255, using: &rng)
                }
            } else {
                bytes = mutate(corpus.randomElement(using: &rng)!, &rng)
            }
            IngestScratch.writeFile(path, bytes)
            let context = "iteration \(iteration)"
            // Auto-detection picks the reader (OSM is reported as unsupported by the stand-in).
            drain(
                { try OpenedInput.open(InputSpec(path: path)).source }, size: bytes.count * 40,
                context: context + " auto")
            drain(
                { try DelimitedReader(reader: ByteReader(path: path), spec: InputSpec(path: path)) },
                size: bytes.count * 40, context: context + " csv")
            drain(
                {
                    var s = InputSpec(path: path)
                    s.columns.coordinates = .index(1)
                    s.columns.keywords = [.init(column: .index(0), split: .list)]
                    s.header = .absent
                    s.maxRecordBytes = 1024
                    return try DelimitedReader(reader: ByteReader(path: path), spec: s)
                }, size: bytes.count * 40, context: context + " csv by index")
            drain(
                { try GeoJSONReader(reader: ByteReader(path: path), spec: InputSpec(path: path)) },
                size: bytes.count * 40, context: context + " geojson")
        }
    }

    /// The whole stage on mutated inputs, with one and two threads: success with counts that
    /// add up, or a clean error.
    func testStageSurvivesMutatedInput() throws {
        var rng = SeededRandom(seed: 77)
        let corpus = Self.seeds.map { Array($0.utf8) }
        for iteration in 0..<80 {
            let bytes = mutate(corpus.randomElement(using: &rng)!, &rng)
            let path = scratch.write(bytes, name: "stage-\(iteration)")
            for threads in ["1", "2"] {
                let out = scratch.path("stage.rsa")
                try? FileManager.default.removeItem(atPath: out)
                do {
                    try runIngest([
                        path, "--threads", threads, "--max-reject-ratio", "1", "--output", out, "--rejects",
                        scratch.path("stage.rej"),
                    ])
                    let meta = try ArtifactFile(path: out, expected: .pois).metadata
                    let c = meta["counts"]!
                    let read = c["read"]!.intValue!
                    let parts = ["accepted", "rejected", "merged_duplicates", "dropped_duplicates"].map {
                        c[$0]!.intValue!
                    }
                    XCTAssertEqual(read, parts.reduce(0, +), "iteration \(iteration)")
                } catch let e as ExitCoded {
                    XCTAssertTrue(
                        [ExitStatus.inputData, .usage].contains(e.exitStatus), "iteration \(iteration): \(e)")
                } catch {
                    XCTFail("iteration \(iteration): unclean error \(error)")
                }
            }
        }
        Parallel.threadCount = max(1, ProcessInfo.processInfo.activeProcessorCount)
    }
}
