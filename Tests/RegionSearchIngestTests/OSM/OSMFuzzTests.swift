import Foundation
import XCTest

@testable import RegionSearchIngest
@testable import RegionSearchTestSupport

/// Mutated copies of small valid files (fixed seed): the readers must never crash or loop, and
/// may only yield records, rejects, or an ``InputError``.
final class OSMFuzzTests: XCTestCase {
    /// SplitMix64, for reproducible mutations.
    private typealias Random = GraphTestRandom

    private struct Outcome {
        var completed = 0
        var failed = 0
        var records = 0
        var rejects = 0
    }

    /// One of several structural mutations; `alphabet` biases replacement bytes.
    private func mutate(_ seed: [UInt8], _ random: inout Random, alphabet: [UInt8]) -> [UInt8] {
        var bytes = seed
        func byte() -> UInt8 {
            random.below(2) == 0 ? alphabet[random.below(alphabet.count)] : UInt8(truncatingIfNeeded: random.next())
        }
        let rounds = 1 + random.below(4)
        for _ in 0..<rounds where !bytes.isEmpty {
            let at = random.below(bytes.count)
            switch random.below(6) {
            case 0:
                bytes[at] = byte()
            case 1:
                bytes[at] ^= UInt8(1 << random.below(8))
            case 2:
                bytes.removeSubrange(at..<min(bytes.count, at + 1 + random.below(16)))
            case 3:
                bytes.insert(contentsOf: (0..<(1 + random.below(8))).map { _ in byte() }, at: at)
            case 4:
                let length = min(bytes.count - at, 1 + random.below(64))
                let slice = Array(bytes[at..<at + length])
                bytes.insert(contentsOf: slice, at: random.below(bytes.count))
            default:
                bytes.removeSubrange(at...)
            }
        }
        return bytes
    }

    private func run(
        seeds: [[UInt8]], iterations: Int, seed: UInt64, alphabet: [UInt8], open: (String) throws -> RecordSource
    ) throws -> Outcome {
        let dir = try OSMTestSupport.temporaryDirectory(self)
        let path = dir + "/fuzz"
        var random = Random(seed: seed)
        var outcome = Outcome()
        for i in 0..<iterations {
            let mutated = mutate(seeds[i % seeds.count], &random, alphabet: alphabet)
            try OSMTestSupport.write(mutated, to: path)
            do {
                let source = try open(path)
                var n = 0
                while let result = try source.next() {
                    n += 1
                    if case .record = result { outcome.records += 1 } else { outcome.rejects += 1 }
                    // Far more results than any mutation of the seeds can hold means a loop.
                    guard n < 10_000 else {
                        XCTFail("iteration \(i): reader does not stop")
                        break
                    }
                }
                outcome.completed += 1
            } catch let error as InputError {
                XCTAssertFalse(error.description.isEmpty)
                outcome.failed += 1
            } catch {
                XCTFail("iteration \(i): unexpected error type \(type(of: error)): \(error)")
            }
        }
        return outcome
    }

    func testMutatedPBF() throws {
        var withLocations = PBFTestWriter()
        withLocations.header(optional: ["LocationsOnWays"], compression: .raw)
        withLocations.data(
            [
                .nodes([TestNode(id: 1, lat: 1, lon: 1, tags: [("amenity", "cafe"), ("cuisine", "a;b")])]),
                .ways([
                    TestWay(
                        id: 2, refs: [1, 5, 6, 1], tags: [("shop", "x")], locations: [(1, 1), (1, 2), (2, 2), (1, 1)])
                ]),
            ],
            compression: .raw)
        let seeds = [
            OSMSmallWorld.pbf(dense: true, compression: .raw),
            OSMSmallWorld.pbf(dense: false, compression: .raw),
            OSMSmallWorld.pbf(dense: true, compression: .zlib),
            withLocations.bytes,
        ]
        // Protobuf-significant bytes: continuation bits, small field keys, lengths.
        let alphabet: [UInt8] = [
            0x00, 0x01, 0x02, 0x08, 0x0A, 0x10, 0x12, 0x1A, 0x22, 0x42, 0x4A, 0x52, 0x7F, 0x80, 0xFF,
        ]
        let outcome = try run(seeds: seeds, iterations: 3_000, seed: 0x05A1_F00D, alphabet: alphabet) {
            try OSMPBFReader(path: $0, options: OSMOptions())
        }
        XCTAssertGreaterThan(outcome.completed, 100, "some mutations stay readable")
        XCTAssertGreaterThan(outcome.failed, 100, "some mutations are file errors")
        XCTAssertGreaterThan(outcome.rejects, 100, "some mutations give rejected records")
        XCTAssertGreaterThan(outcome.records, 300)
    }

    func testMutatedXML() throws {
        let syntax = """
            <?xml version="1.0"?>
            <!-- c -->
            <osm version="0.6">
              <node id="1" lat="60.1" lon="24.9"><tag k="name" v="A&amp;B &#233;"/><tag k="amenity" v="cafe;bar"/></node>
              <node id="2" lat="60.2" lon="24.8"/>
              <way id="3"><nd ref="1"/><nd ref="2"/><nd ref="1"/><tag k="shop" v="yes"/></way>
              <relation id="4"><member type="way" ref="3" role="outer"/><tag k="type" v="multipolygon"/></relation>
            </osm>

            """
        let seeds = [Array(OSMSmallWorld.xml().utf8), Array(syntax.utf8)]
        let alphabet = Array("<>/\"'=&;#x \n!?-[]0123456789.".utf8)
        let outcome = try run(seeds: seeds, iterations: 3_000, seed: 0x0C0F_FEE5, alphabet: alphabet) {
            try OSMXMLReader(reader: ByteReader(path: $0), options: OSMOptions())
        }
        XCTAssertGreaterThan(outcome.completed, 100)
        XCTAssertGreaterThan(outcome.failed, 100)
        XCTAssertGreaterThan(outcome.rejects, 100)
        XCTAssertGreaterThan(outcome.records, 1_000)
    }
}
