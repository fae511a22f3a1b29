import Foundation
import XCTest

@testable import RegionSearchCore
@testable import RegionSearchIngest
@testable import RegionSearchTestSupport

/// The counting invariant of ingest, on random mutations of valid inputs of every reader (CSV,
/// GeoJSON collections, sequences and lines, OSM XML and PBF), with every duplicate policy and
/// one or two threads: read = accepted + rejected + merged (+ dropped), and each term equals an
/// independent count — the reader's own results, the coordinate rules applied to them one by
/// one, and the distinct ids among the valid records.
final class IngestCountingPropertyTests: XCTestCase {
    let scratch = IngestScratch()

    static let seeds: [[UInt8]] =
        [
            "id,name,category,lon,lat\n1,a,cafe,24.9,60.1\n2,b,bar,24.8,60.2\n1,c,pub;bar,24.7,60.3\n3,d,x,0,0\n"
                + "4,e,y,200,1\n,f,z,24.9,60.1\n2,g,,24.9,60.1\n",
            #"{"type":"FeatureCollection","features":[{"type":"Feature","id":1,"geometry":{"type":"Point","coordinates":[24.9,60.1]},"properties":{"category":"cafe"}},"#
                + #"{"type":"Feature","id":1,"geometry":{"type":"Polygon","coordinates":[[[24,60],[25,60],[25,61],[24,60]]]},"properties":{"category":"bar"}},"#
                + #"{"type":"Feature","id":9007199254740993,"geometry":{"type":"Point","coordinates":[24.9,60.1]},"properties":{}},"#
                + #"{"type":"Feature","id":9007199254740992,"geometry":{"type":"Point","coordinates":[24.9,60.1]},"properties":{}},"#
                + #"{"type":"Feature","geometry":null,"properties":{}}]}"#,
            #"{"type":"Feature","id":"a","geometry":{"type":"Point","coordinates":[24.9,60.1]},"properties":{"category":"x"}}"#
                + "\n"
                + #"{"type":"Feature","id":"a","geometry":{"type":"LineString","coordinates":[[24.9,60.1],[24.8,60]]},"properties":{}}"#
                + "\n"
                + #"{"type":"Feature","id":"b","geometry":{"type":"Point","coordinates":[1,2"# + "\n"
                + #"{"type":"Point","coordinates":[24.5,60.5]}"# + "\n"
                + #"{"type":"Feature","features":[],"geometry":{"type":"Point","coordinates":[24.5,60.5]},"properties":{}}"#
                + "\n",
            "\u{1E}"
                + #"{"type":"Feature","id":2,"geometry":{"type":"MultiPoint","coordinates":[[24,60],[25,61]]},"properties":{}}"#
                + "\n\u{1E}" + #"{"type":"Feature","id":2,"geometry":{"type":"GeometryCollection","geometries":[]}}"#
                + "\n",
            OSMSmallWorld.xml(),
        ].map { Array($0.utf8) } + [OSMSmallWorld.pbf(dense: true, compression: .raw)]

    private func mutate(_ input: [UInt8], _ rng: inout SeededRandom) -> [UInt8] {
        var b = input
        let special = Array("\",\n{}[]:;<>/=\u{1E}0123456789.-".utf8) + [0x00, 0xFF, 0x08, 0x0A, 0x12]
        for _ in 0..<Int.random(in: 0...3, using: &rng) where !b.isEmpty {
            let i = Int.random(in: 0..<b.count, using: &rng)
            switch Int.random(in: 0..<5, using: &rng) {
            case 0: b[i] = special.randomElement(using: &rng)!
            case 1: b.insert(special.randomElement(using: &rng)!, at: i)
            case 2: b.remove(at: i)
            case 3:
                let j = min(b.count, i + Int.random(in: 1...80, using: &rng))
                b.insert(contentsOf: b[i..<j], at: Int.random(in: 0...b.count, using: &rng))
            default: b = Array(b.prefix(i))
            }
        }
        return b
    }

    /// What the counts must be, from one pass of the reader and the coordinate rules.
    private struct Expected {
        var read = 0
        var rejected = 0
        /// Valid records' ids, in order.
        var ids: [String] = []
    }

    private func expected(_ path: String, settings: IngestSettings) throws -> Expected? {
        let input: OpenedInput
        do {
            input = try OpenedInput.open(InputSpec(path: path))
        } catch is ExitCoded {
            return nil
        }
        let validator = RecordValidator(
            crs: input.spec.crs, bbox: settings.bbox, rejectNullIsland: settings.rejectNullIsland)
        var e = Expected()
        do {
            while let r = try input.source.next() {
                e.read += 1
                switch r {
                case .rejected: e.rejected += 1
                case .record(var record):
                    if validator.check(lon: &record.lon, lat: &record.lat, coordinateText: nil) != nil {
                        e.rejected += 1
                    } else {
                        e.ids.append(record.id)
                    }
                }
                if e.read > 100_000 { return nil }
            }
        } catch is ExitCoded {
            return nil
        }
        return e
    }

    func testCountsAddUpAndMatchIndependentCounts() throws {
        var rng = SeededRandom(seed: 14)
        var checked = 0
        var merged = 0
        defer { Parallel.threadCount = max(1, ProcessInfo.processInfo.activeProcessorCount) }
        for iteration in 0..<400 {
            let seed = Self.seeds[iteration % Self.seeds.count]
            let bytes = iteration < Self.seeds.count ? seed : mutate(seed, &rng)
            let path = scratch.write(bytes, name: "count-\(iteration % 7)")
            for policy in IngestSettings.DuplicatePolicy.allCases {
                var settings = IngestSettings()
                settings.duplicates = policy
                guard let e = try expected(path, settings: settings) else { continue }
                Parallel.threadCount = 1 + iteration % 2
                let rejects = try RejectsWriter(path: scratch.path("count.rej"), style: .ndjson)
                defer { rejects.discard() }
                let result: IngestResult
                do {
                    result = try IngestDriver(settings: settings).run(
                        [try OpenedInput.open(InputSpec(path: path))], rejects: rejects)
                } catch let error as ExitCoded {
                    XCTAssertNotEqual(error.exitStatus, .internalError, "iteration \(iteration): \(error)")
                    continue
                }
                let c = result.total
                let context = "iteration \(iteration) \(policy): \(c.json.serialized())"
                XCTAssertEqual(c.read, c.accepted + c.rejected + c.mergedDuplicates + c.droppedDuplicates, context)
                XCTAssertEqual(c.read, e.read, "read = the reader's results; " + context)
                XCTAssertEqual(c.rejected, e.rejected, "rejected = reader rejects + coordinate rejects; " + context)
                XCTAssertEqual(rejects.count, c.rejected, "every reject written; " + context)
                XCTAssertEqual(result.table.count, c.accepted, context)
                let named = e.ids.filter { !$0.isEmpty }
                let distinct = Set(named).count + e.ids.count - named.count
                switch policy {
                case .merge:
                    XCTAssertEqual(c.accepted, distinct, context)
                    XCTAssertEqual(c.mergedDuplicates, e.ids.count - distinct, context)
                    merged += c.mergedDuplicates
                case .keepFirst:
                    XCTAssertEqual(c.accepted, distinct, context)
                    XCTAssertEqual(c.droppedDuplicates, e.ids.count - distinct, context)
                case .keepAll:
                    XCTAssertEqual(c.accepted, e.ids.count, context)
                    XCTAssertEqual(c.keptDuplicates, e.ids.count - distinct, context)
                }
                checked += 1
            }
        }
        XCTAssertGreaterThan(checked, 600, "most mutations stay readable")
        XCTAssertGreaterThan(merged, 100, "the seeds' repeated ids are merged")
    }

    /// Rejects are counted by kind, not by where they are: every bad JSON line is one kind.
    func testRejectKindsLeaveOutWhereInTheFile() {
        XCTAssertEqual(IngestCounts.kind(of: "invalid JSON at line 5, column 3: expected a value"), "invalid JSON")
        let malformed = "malformed GeoJSON at line 2 (byte 40): not an object"
        XCTAssertEqual(IngestCounts.kind(of: malformed), "malformed GeoJSON")
        XCTAssertEqual(IngestCounts.kind(of: "wrong column count: 3, expected 4"), "wrong column count")
        XCTAssertEqual(IngestCounts.kind(of: "null island"), "null island")
    }
}
