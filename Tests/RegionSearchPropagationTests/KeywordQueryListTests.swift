import Foundation
import XCTest

@testable import RegionSearchCore
@testable import RegionSearchModel
@testable import RegionSearchPropagation
@testable import RegionSearchStages
@testable import RegionSearchTestSupport

/// The query keyword list: validation, repeats after normalisation, and the real-data check that
/// `parking` is not `bicycle_parking` through ingest → project → graph → propagate.
final class KeywordQueryListTests: XCTestCase, ManifestParsing {
    private func options(_ keywords: [String]) throws -> PropagationOptions {
        try PropagationOptions.resolve(
            .object([("keywords", .array(keywords.map { .string($0) }))]), context: "propagate"
        ).1
    }

    func testRepeatsAfterNormalisationAreOneKeyword() throws {
        let o = try options(["bank", "咖啡", "BANK", "ｂａｎｋ", " Bank ", "bank*", "amenity=parking", "Amenity=PARKING"])
        XCTAssertEqual(o.keywords, ["bank", "咖啡", "bank*", "amenity=parking"])
        XCTAssertEqual(
            o.duplicates,
            [
                .init(given: "BANK", index: 2, sameAs: "bank"), .init(given: "ｂａｎｋ", index: 3, sameAs: "bank"),
                .init(given: " Bank ", index: 4, sameAs: "bank"),
                .init(given: "Amenity=PARKING", index: 7, sameAs: "amenity=parking"),
            ])
        XCTAssertEqual(PropagationOptions.distinct(["BANK", "bank", "cafe", "ＣＡＦＥ"]), ["BANK", "cafe"])
        XCTAssertEqual(try options(["⽕锅", "火锅"]).keywords, ["⽕锅"])
    }

    func testInvalidQueriesAreUsageErrors() {
        func reason(_ keywords: [String]) -> String {
            do {
                _ = try options(keywords)
                return "accepted"
            } catch {
                return String(describing: error)
            }
        }
        XCTAssertEqual(
            reason(["cafe", "*"]), "propagate.keywords[1]: " + KeywordQueryError.onlyWildcard("*").description)
        XCTAssertEqual(
            reason(["=parking"]), "propagate.keywords[0]: " + KeywordQueryError.noKey("=parking").description)
        XCTAssertEqual(
            reason(["amenity="]), "propagate.keywords[0]: " + KeywordQueryError.noValue("amenity=").description)
    }

    func testManifestKeywordsDropRepeatsAndRejectBadQueries() throws {
        let head = #"{"inputs": [{"path": "a"}], "work_dir": "w", "output": "o""#
        let m = try parse(head + #", "keywords": ["bank", "BANK", "cafe", "ｂａｎｋ"]}"#)
        XCTAssertEqual(m.keywords, ["bank", "cafe"], "one score column (and one results column) per keyword")
        XCTAssertEqual(
            message(head + #", "keywords": ["cafe", "*"]}"#),
            "pipelines/x.json:1:82: keywords[1]: " + KeywordQueryError.onlyWildcard("*").description)
        XCTAssertTrue(message(head + #", "keywords": ["=x"]}"#).contains(#"keywords[0]: "=x" has nothing before '='"#))
    }

    // MARK: - Real data

    /// dc-osm-2017: 420 `parking` and 308 `bicycle_parking` rows (its SOURCE.md). `parking` and
    /// `fclass=parking` must find exactly the 420, none of the 308; `PARKING` and `ｐａｒｋｉｎｇ`
    /// are the same keyword as `parking` and give no score column of their own.
    func testDCParkingIsNotBicycleParking() throws {
        let csv = try SharedData.require("dc-osm-2017/washington-dc-2017.csv")
        let records = csvRecords(try String(contentsOfFile: csv, encoding: .utf8))
        let header = records[0]
        let fid = try XCTUnwrap(header.firstIndex(of: "FID"))
        let fclassColumn = try XCTUnwrap(header.firstIndex(of: "fclass"))
        var fclass: [String: String] = [:]
        for r in records.dropFirst() { fclass[r[fid]] = r[fclassColumn] }
        XCTAssertEqual(fclass.count, 13_434)
        XCTAssertEqual(fclass.values.filter { $0 == "parking" }.count, 420)
        XCTAssertEqual(fclass.values.filter { $0 == "bicycle_parking" }.count, 308)

        let scratch = IngestScratch()
        let pois = scratch.path("pois.rsa")
        let projected = scratch.path("projected.rsa")
        let graph = scratch.path("graph.rsa")
        let scores = scratch.path("scores.rsa")
        try runIngest([
            csv, "--id-column", "FID", "--keyword-column", "fclass", "--duplicates", "keep_all", "--output", pois,
            "--rejects", scratch.path("rejects.txt"),
        ])
        try ProjectStage.run(ProjectStage.definition.commandSpec().parse(["--input", pois, "--output", projected]))
        try GraphStage.run(GraphStage.commandSpec().parse(["--input", projected, "--output", graph]))
        let queries = ["parking", "fclass=parking", "bicycle_parking", "PARKING", "ｐａｒｋｉｎｇ", "*_parking"]
        try PropagateStage.run(
            PropagateStage.commandSpec().parse([
                "--pois", pois, "--projected", projected, "--graph", graph, "--output", scores, "--keywords",
                queries.joined(separator: ","),
            ]))

        let poisFile = try ArtifactFile(path: pois, expected: .pois)
        let table = try POITable(artifact: poisFile)
        let rows = try ProjectedPoints(artifact: ArtifactFile(path: projected, expected: .projected)).row
        let scoreFile = try ArtifactFile(path: scores, expected: .scores)
        let s = try ScoreTable(artifact: scoreFile)
        XCTAssertEqual(s.keywords, ["parking", "fclass=parking", "bicycle_parking", "*_parking"])
        let duplicates = try XCTUnwrap(scoreFile.metadata["duplicate_keywords"]?.arrayValue)
        XCTAssertEqual(duplicates.map { $0["given"]?.stringValue }, ["PARKING", "ｐａｒｋｉｎｇ"])
        XCTAssertEqual(duplicates.map { $0["same_as"]?.stringValue }, ["parking", "parking"])

        func classes(_ c: Int) -> [String: Int] {
            var out: [String: Int] = [:]
            for i in 0..<s.count where s.matches[c][i] == 1 {
                out[fclass[table.ids[Int(rows[i])]] ?? "?", default: 0] += 1
            }
            return out
        }
        XCTAssertEqual(classes(0), ["parking": 420])
        XCTAssertEqual(classes(1), ["parking": 420])
        XCTAssertEqual(classes(2), ["bicycle_parking": 308])
        let suffix = classes(3)
        XCTAssertEqual(suffix["bicycle_parking"], 308)
        XCTAssertNil(suffix["parking"])
        XCTAssertTrue(suffix.keys.allSatisfy { $0.hasSuffix("_parking") }, "\(suffix)")
    }
}
