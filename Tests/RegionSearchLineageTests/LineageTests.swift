import Foundation
import RegionSearchCore
import XCTest

@testable import RegionSearchLineage
@testable import RegionSearchTestSupport

/// Ids along a lineage: kept, given above the high-water mark, parents following, reruns
/// reproducing the same bytes, and the lineage file reading back as written.
final class LineageTests: XCTestCase {
    typealias F = LineageFixtures

    /// `regionsearch diff` on a device says what the path is instead of reading /dev/zero until
    /// memory runs out (a `.json` name read it whole); a folder still goes to GDAL, which says
    /// it holds no regions.
    func testARegionFileThatIsADeviceIsRefusedByWhatItIs() throws {
        for path in ["/dev/zero", "/dev/urandom"] {
            XCTAssertThrowsError(try RegionFile.read(path), path) { error in
                guard case .cannotRead(let named, let reason) = error as? LineageError else {
                    return XCTFail("\(error)")
                }
                XCTAssertEqual(named, path)
                XCTAssertTrue(reason.hasPrefix("is a device or socket"), reason)
            }
        }
        let dir = TestSupport.temporaryDirectory()
        XCTAssertThrowsError(try RegionFile.read(dir)) { error in
            XCTAssertFalse("\(error)".contains("is a device"), "\(error)")
        }
    }

    /// A named pipe whose writer comes only after the wait for it (a warning) is read when it
    /// writes: a slow writer is not refused (checked on another thread, with a deadline).
    func testANamedPipeIsReadWhenItsSlowWriterWrites() throws {
        let fifo = TestSupport.temporaryDirectory() + "/regions"
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        ReadOpening.writerWait = 0.2
        defer { ReadOpening.writerWait = 10 }
        let region = LineageState(
            highWaterMark: 7, result: "r", regions: [F.region(7, members: 1...3, east: 0, north: 0, side: 90)],
            previous: nil
        ).text
        Thread.detachNewThread {
            Thread.sleep(forTimeInterval: 0.8)
            let fd = open(fifo, O_WRONLY)
            _ = region.withCString { write(fd, $0, strlen($0)) }
            close(fd)
        }
        let outcome = TestSupport.finishing(within: 20) {
            do {
                return "ids " + (try RegionFile.read(fifo).regions.map { String($0.id) }.joined(separator: ","))
            } catch {
                return "\(error)"
            }
        }
        XCTAssertEqual(outcome, "ids 7")
    }

    /// A stream or a wrong file is read only up to a limit: `yes '{' | regionsearch diff a -`
    /// trapped when an allocation of 2 GB failed.
    /// `regionsearch diff` read a region whose `level` was 1.5 or "1" as level 0, and -1 as -1,
    /// and matched it among the wrong level's regions without a word.
    func testALevelThatIsNoWholeNumberIsRefused() throws {
        func region(_ level: JSONValue) throws -> TrackedRegion {
            try TrackedRegion(
                properties: .object([("region_id", .number(1)), ("keyword", .string("cafe")), ("level", level)]),
                polygons: F.square(east: 0, north: 0, side: 100))
        }
        XCTAssertEqual(try region(.number(2)).level, 2)
        XCTAssertEqual(try region(.null).level, 0)
        for bad: JSONValue in [.number(1.5), .number(-1), .string("1")] {
            XCTAssertThrowsError(try region(bad), bad.serialized()) { error in
                XCTAssertTrue("\(error)".contains("'level' must be a whole number ≥ 0"), "\(error)")
            }
        }
    }

    func testARegionFileIsReadOnlyUpToItsLimit() throws {
        let dir = TestSupport.temporaryDirectory()
        let path = dir + "/big.geojson"
        try String(repeating: "{", count: 200_000).write(toFile: path, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try RegionFile.readIfJSON(path, limit: 1 << 16)) { error in
            XCTAssertTrue("\(error)".contains("holds more than 65,536 bytes of JSON"), "\(error)")
        }
        XCTAssertEqual(try RegionFile.readIfJSON(path, limit: 200_000)?.count, 200_000)
    }

    func testAFreshLineageKeepsTheResultsNumbersAndCallsEverythingNew() throws {
        let tonight = [
            F.region(1, members: 1...30, east: 0, north: 0, side: 300),
            F.region(2, level: 1, parent: 1, members: 1...10, east: 0, north: 0, side: 100),
        ]
        let o = try Lineage.advance(previous: nil, current: tonight, result: "r1", currentSource: "result r1")
        XCTAssertFalse(o.continued)
        XCTAssertEqual(o.regions.map(\.id), [1, 2])
        XCTAssertEqual(o.regions.map(\.parentID), [nil, 1])
        XCTAssertEqual(o.state.highWaterMark, 2)
        XCTAssertTrue(o.report.entries.allSatisfy { $0.verdict == .new })
        XCTAssertNil(o.state.previous)
    }

    func testIdsAreKeptNewOnesNeverReuseARetiredIdAndParentsFollow() throws {
        // Last night: ids 4 and 9 (the high-water mark is 12: 10, 11, 12 were retired earlier).
        let last = F.state(
            [
                F.region(4, members: 1...30, east: 0, north: 0, side: 300),
                F.region(9, level: 1, parent: 4, members: 1...12, east: 0, north: 0, side: 100),
            ], highWaterMark: 12)
        // Tonight the unidentified result numbers them 1, 2 and adds 3 (new) with child 4 (new).
        let tonight = [
            F.region(1, members: 1...30, east: 0, north: 0, side: 300),
            F.region(2, rank: 2, members: 100...140, east: 5000, north: 0, side: 300),
            F.region(3, level: 1, parent: 1, members: 1...12, east: 0, north: 0, side: 100),
            F.region(4, level: 1, rank: 2, parent: 2, members: 100...110, east: 5000, north: 0, side: 100),
        ]
        let o = try Lineage.advance(previous: last, current: tonight, result: "r2", currentSource: "result r2")
        XCTAssertTrue(o.continued)
        XCTAssertEqual(o.regions.map(\.id), [4, 13, 9, 14])
        XCTAssertEqual(o.regions.map(\.parentID), [nil, nil, 4, 13])
        XCTAssertEqual(o.state.highWaterMark, 14)
        XCTAssertEqual(o.report.entries.map(\.verdict), [.unchanged, .new, .unchanged, .new])
        XCTAssertEqual(o.stableID, [1: 4, 2: 13, 3: 9, 4: 14])
    }

    /// A keyword respelt in the manifest (`restaurant` → `Restaurant`, `ＲＥＳＴＡＵＲＡＮＴ`) finds the
    /// same POIs: its regions keep their ids. Every region had been retired and issued anew.
    func testAKeywordSpeltAnotherWayKeepsItsRegionsIds() throws {
        let last = F.state([F.region(4, members: 1...30, east: 0, north: 0, side: 300)], highWaterMark: 12)
        for spelling in ["Restaurant", "ＲＥＳＴＡＵＲＡＮＴ", " restaurant "] {
            let tonight = [F.region(1, keyword: spelling, members: 1...30, east: 0, north: 0, side: 300)]
            let o = try Lineage.advance(previous: last, current: tonight, result: "r2", currentSource: "result r2")
            XCTAssertEqual(o.regions.map(\.id), [4], spelling)
            XCTAssertEqual(o.regions.map(\.keyword), [spelling], "the output keeps tonight's spelling")
            XCTAssertEqual(o.report.entries.map(\.verdict), [.unchanged], spelling)
        }
        // Another keyword is another group.
        let other = [F.region(1, keyword: "restaurants", members: 1...30, east: 0, north: 0, side: 300)]
        let o = try Lineage.advance(previous: last, current: other, result: "r3", currentSource: "result r3")
        XCTAssertEqual(o.regions.map(\.id), [13])
    }

    func testARerunIsMatchedAgainstTheSamePreviousResultAndGivesTheSameBytes() throws {
        let last = F.state([F.region(5, members: 1...30, east: 0, north: 0, side: 300)], result: "r1")
        let tonight = [F.region(1, members: 1...40, east: 0, north: 0, side: 330)]
        let first = try Lineage.advance(previous: last, current: tonight, result: "r2", currentSource: "r2")
        XCTAssertEqual(first.report.entries.first?.verdict, .grown)
        // The second run finds the first run's lineage file as the published one.
        let published = try LineageState(bytes: Array(first.state.text.utf8), path: "published")
        let second = try Lineage.advance(previous: published, current: tonight, result: "r2", currentSource: "r2")
        XCTAssertEqual(second.state.text, first.state.text)
        XCTAssertEqual(second.report.jsonText, first.report.jsonText)
        XCTAssertEqual(second.report.entries.first?.verdict, .grown, "not 'unchanged' against itself")
        // A fresh lineage reruns as a fresh lineage.
        let fresh = try Lineage.advance(previous: nil, current: tonight, result: "r2", currentSource: "r2")
        let again = try Lineage.advance(
            previous: try LineageState(bytes: Array(fresh.state.text.utf8), path: "p"), current: tonight,
            result: "r2", currentSource: "r2")
        XCTAssertEqual(again.state.text, fresh.state.text)
        XCTAssertFalse(again.continued)
    }

    func testTheLineageFileReadsBackAsWritten() throws {
        var region = F.region(3, members: 1...5, east: 0, north: 0, side: 100)
        region.label = "North Clark Street"
        region.labelRule = "street"
        region.members = ["10", "9", "@-87.6,41.8", "a\"b"].sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        region.keywordPOIs = 4
        let state = LineageState(
            highWaterMark: 7, result: "abc", regions: [region],
            previous: .init(
                highWaterMark: 6, result: "xyz", regions: [F.region(2, members: 1...3, east: 0, north: 0, side: 90)]))
        let text = state.text
        let read = try LineageState(bytes: Array(text.utf8), path: "l.json")
        XCTAssertEqual(read.text, text)
        XCTAssertEqual(read.regions.first?.members, region.members)
        XCTAssertEqual(read.regions.first?.label, "North Clark Street")
        XCTAssertEqual(read.previous?.regions.first?.id, 2)
        XCTAssertEqual(read.previous?.highWaterMark, 6)
    }

    /// The manifest that keeps a lineage is written into the file and read back; a file written
    /// before it was recorded has none, and a manifest that is not a path is refused.
    func testTheOwningManifestRoundTripsAndIsOptional() throws {
        var state = LineageState(
            highWaterMark: 3, result: "r", regions: [F.region(2, members: 1...3, east: 0, north: 0, side: 90)],
            previous: nil)
        XCTAssertNil(try LineageState(bytes: Array(state.text.utf8), path: "l.json").manifest)
        XCTAssertFalse(state.text.contains("\"manifest\""), "no owner, no member: the bytes of earlier files")
        state.manifest = "../pipelines/nightly.json"
        XCTAssertEqual(
            try LineageState(bytes: Array(state.text.utf8), path: "l.json").manifest, "../pipelines/nightly.json")
        let empty = state.text.replacingOccurrences(of: "\"../pipelines/nightly.json\"", with: "\"\"")
        XCTAssertThrowsError(try LineageState(bytes: Array(empty.utf8), path: "e.json")) { error in
            XCTAssertTrue("\(error)".contains("regionsearch_lineage.manifest' is not a path"), "\(error)")
        }
    }

    func testALineageFileFromTheFutureOrARegionFileIsRefusedWithWhatToDo() throws {
        let future =
            #"{"type":"FeatureCollection","regionsearch_lineage":{"format":99,"high_water_mark":1,"result":"x"},"features":[]}"#
        XCTAssertThrowsError(try LineageState(bytes: Array(future.utf8), path: "f.json")) { error in
            XCTAssertEqual(error as? LineageError, .unsupportedFormat(path: "f.json", version: 99))
            // A fresh lineage is the way out where the file is the lineage a run continues only.
            XCTAssertTrue((error as? LineageError)?.lineageDescription.contains("--fresh-lineage") ?? false)
            XCTAssertFalse("\(error)".contains("--fresh-lineage"), "\(error)")
        }
        // A region file is named one; other JSON (`{"x": 1}`) is not called a region file.
        let regionFile = #"{"type":"FeatureCollection","features":[]}"#
        XCTAssertThrowsError(try LineageState(bytes: Array(regionFile.utf8), path: "r.json")) { error in
            XCTAssertTrue("\(error)".contains("a region file, not a lineage file"), "\(error)")
        }
        XCTAssertThrowsError(try LineageState(bytes: Array(#"{"x":1}"#.utf8), path: "x.json")) { error in
            XCTAssertTrue("\(error)".contains("not a lineage file (nor a region file)"), "\(error)")
        }
        // Two features with one id (a file merged by hand): refused, naming both.
        let once = LineageState(
            highWaterMark: 3, result: "r",
            regions: [F.region(2, members: 1...3, east: 0, north: 0, side: 90)], previous: nil
        ).text
        guard case .object(let members) = try JSONParser.parse(once) else { return XCTFail("not an object") }
        let twice = JSONValue.object(
            members.map { key, value in
                guard key == "features", case .array(let features) = value else { return (key, value) }
                return (key, .array(features + features))
            }
        ).serialized()
        XCTAssertThrowsError(try LineageState(bytes: Array(twice.utf8), path: "t.json")) { error in
            XCTAssertTrue("\(error)".contains("features[1]: region_id 2 is also the id of features[0]"), "\(error)")
        }
        let plain = #"{"type":"FeatureCollection","features":[]}"#
        XCTAssertThrowsError(try LineageState(bytes: Array(plain.utf8), path: "r.geojson")) { error in
            XCTAssertTrue("\(error)".contains("not a lineage file"), "\(error)")
        }
    }
}
