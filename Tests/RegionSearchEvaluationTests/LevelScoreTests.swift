import XCTest

@testable import RegionSearchCore
@testable import RegionSearchEvaluation

/// Levels, truth kinds, river spans and downtown counts against closed-form answers (shapes drawn
/// in UTM metres, measured in that CRS).
final class LevelScoreTests: XCTestCase {
    typealias F = EvaluateFixtures

    /// A feature of polygons (each one exterior ring) with a level and, for truths, a kind.
    private func feature(
        _ id: Int, _ keyword: String?, level: Int = 0, kind: String? = nil, name: String? = nil, _ rings: F.Ring...
    ) -> RegionFeature {
        var properties: [(String, JSONValue)] = []
        if let name { properties.append(("name", .string(name))) }
        return RegionFeature(
            id: .number(Double(id)), keyword: keyword, polygons: rings.map { [F.lonLat($0)] }, index: id, kind: kind,
            properties: .object(properties), level: level)
    }

    private func score(
        regions: [RegionFeature], truth: [RegionFeature],
        pois: [(id: String, category: String, x: Double, y: Double)]? =
            nil, mustNot: [RegionFeature]? = nil, checks: Bool = false
    ) throws -> TruthScore {
        var e = F.evaluator
        if checks { e.checks = CheckOptions() }
        return try e.scoreTruth(
            regions: F.file("regions", regions), truth: F.file("truth", truth), pois: pois.map(F.pois),
            mustNot: mustNot.map { F.file("must-not", $0) })
    }

    /// Two truths (a strip and a district, both bank); a coarse region over both (level 0) and two
    /// finer ones (level 1): the first is the strip, the second overlaps the district by a third.
    private var nested: (regions: [RegionFeature], truth: [RegionFeature]) {
        (
            [
                feature(0, "bank", level: 0, F.rectangle(0, 0, 4000, 1000)),
                feature(1, "bank", level: 1, F.square(0, 0)),
                feature(2, "bank", level: 1, F.square(3000, 500)),
            ],
            [
                feature(0, "bank", kind: "strip", F.square(0, 0)),
                feature(1, "bank", kind: "district", F.square(3000, 0)),
            ]
        )
    }

    func testATruthIsMatchedByARegionOfAnyLevelAndPrecisionIsCountedPerLevel() throws {
        let (regions, truth) = nested
        let s = try score(regions: regions, truth: truth)
        // Best IoU over all levels: the strip 1 (level 1), the district max(1/4, 1/3) = 1/3.
        XCTAssertEqual(s.truths[0].bestIoU, 1, accuracy: 1e-9)
        XCTAssertEqual(s.truths[1].bestIoU, 1.0 / 3.0, accuracy: 1e-9)
        XCTAssertEqual(s.overall.recall, [1, 0.5])
        // Pooled precision over all three regions: @0.3 two of three, @0.5 one of three.
        XCTAssertEqual(s.overall.precision[0], 2.0 / 3.0, accuracy: 1e-12)
        XCTAssertEqual(s.overall.precision[1], 1.0 / 3.0, accuracy: 1e-12)
        XCTAssertEqual(s.overall.f1[1], 0.4, accuracy: 1e-12)

        XCTAssertEqual(s.levels.map(\.level), [0, 1])
        let coarse = s.levels[0]
        XCTAssertEqual(coarse.regionCount, 1)
        XCTAssertEqual(coarse.scoredRegionCount, 1)
        // The coarse region has IoU 1/4 with each truth: nothing at 0.3 or 0.5.
        XCTAssertEqual(coarse.recall, [0, 0])
        XCTAssertEqual(coarse.precision, [0, 0])
        XCTAssertEqual(coarse.f1, [0, 0])
        let fine = s.levels[1]
        XCTAssertEqual(fine.regionCount, 2)
        XCTAssertEqual(fine.recall, [1, 0.5])
        XCTAssertEqual(fine.precision, [1, 0.5])
        XCTAssertEqual(fine.f1[0], 1, accuracy: 1e-12)
        XCTAssertEqual(fine.f1[1], 0.5, accuracy: 1e-12)
        XCTAssertEqual(fine.regionsPerKeyword.map(\.count), [2])
        // Best level: level 1 at both thresholds, above the pooled F1@0.5 (0.4).
        XCTAssertEqual(s.bestLevel, [1, 1])
        XCTAssertEqual(s.bestLevelF1[0], 1, accuracy: 1e-12)
        XCTAssertEqual(s.bestLevelF1[1], 0.5, accuracy: 1e-12)

        let json = s.json
        XCTAssertEqual(json["best_level"]?["f1@0.5"], .number(0.5))
        XCTAssertEqual(json["best_level"]?["level@0.5"], .number(1))
        XCTAssertEqual(json["levels"]?.arrayValue?.count, 2)
        XCTAssertEqual(json["levels"]?.arrayValue?[1]["precision@0.5"], .number(0.5))
        XCTAssertEqual(json["levels"]?.arrayValue?[1]["regions_per_keyword"]?["bank"], .number(2))
        XCTAssertTrue(s.table.contains("best-level F1: @0.3 1.0000 (level 1), @0.5 0.5000 (level 1)"), s.table)
    }

    func testEachKindIsScoredAsIfTheTruthHeldOnlyIt() throws {
        let (regions, truth) = nested
        let s = try score(regions: regions, truth: truth)
        XCTAssertEqual(s.kinds.map(\.kind), ["district", "strip"])
        let district = s.kinds[0]
        let strip = s.kinds[1]
        XCTAssertEqual(strip.truthCount, 1)
        XCTAssertEqual(strip.scoredRegionCount, 3)
        XCTAssertEqual(strip.recall, [1, 1])
        // Level 1 against the strip alone: recall 1. @0.3 the second region draws the district
        // (IoU 1/3), a right answer to another kind, and is left out: precision 1, F1 1. @0.5 it
        // matches nothing and counts against the strip: precision 1/2, F1 2/3. Level 0 (IoU 1/4)
        // scores 0.
        XCTAssertEqual(strip.bestLevelF1[0], 1, accuracy: 1e-12)
        XCTAssertEqual(strip.bestLevelF1[1], 2.0 / 3.0, accuracy: 1e-12)
        XCTAssertEqual(strip.bestLevel, [1, 1])
        // The district: the second fine region has IoU 1/3 with it → @0.3 recall 1, and the first
        // (the strip, IoU 1) is left out: precision 1; @0.5 nothing at any level (F1 0, reported at
        // the coarsest level).
        XCTAssertEqual(district.recall, [1, 0])
        XCTAssertEqual(district.bestLevelF1[0], 1, accuracy: 1e-12)
        XCTAssertEqual(district.bestLevel, [1, 0])
        XCTAssertEqual(district.bestLevelF1[1], 0)
        let json = try XCTUnwrap(s.json["kinds"]?.arrayValue)
        XCTAssertEqual(json[1]["kind"], .string("strip"))
        XCTAssertEqual(json[1]["best_level_f1@0.5"], .number(0.6667))
        XCTAssertEqual(json[0]["recall@0.5"], .number(0))
    }

    /// Per kind, a region drawing a truth of another kind is left out of the precision; one that
    /// draws nothing counts against every kind.
    func testARegionOfAnotherKindIsLeftOutOfAKindsPrecisionAndAStrayOneCounts() throws {
        let truth = [
            feature(0, "bank", kind: "block", F.square(0, 0)),
            feature(1, "bank", kind: "frontage", F.square(3000, 0)),
        ]
        let regions = [
            feature(0, "bank", F.square(0, 0)),  // the block
            feature(1, "bank", F.square(3000, 0)),  // the frontage
            feature(2, "bank", F.square(9000, 0)),  // nothing
        ]
        let s = try score(regions: regions, truth: truth)
        // Pooled: two of three regions right.
        XCTAssertEqual(s.overall.precision[1], 2.0 / 3.0, accuracy: 1e-12)
        for k in s.kinds {
            // Per kind: recall 1, precision 1/2 (its region over itself and the stray one), F1 2/3;
            // with the frontage counted against the block it would be 1/3 and F1 1/2.
            XCTAssertEqual(k.recall, [1, 1], k.kind)
            XCTAssertEqual(k.bestLevelF1[0], 2.0 / 3.0, accuracy: 1e-12, k.kind)
            XCTAssertEqual(k.bestLevelF1[1], 2.0 / 3.0, accuracy: 1e-12, k.kind)
        }
    }

    func testAFileWithoutLevelsIsOneLevelZeroWithThePooledScores() throws {
        let truth = [feature(0, "bank", kind: "strip", F.square(0, 0)), feature(1, "bank", F.square(3000, 0))]
        let regions = [
            F.feature(0, "bank", F.square(0, 0)), F.feature(1, "bank", F.square(6000, 0)),
            F.feature(2, "bank", F.square(9000, 0)),
        ]
        let s = try score(regions: regions, truth: truth)
        XCTAssertEqual(s.levels.map(\.level), [0])
        XCTAssertEqual(s.levels[0].recall, s.overall.recall)
        XCTAssertEqual(s.levels[0].precision, s.overall.precision)
        XCTAssertEqual(s.bestLevelF1, s.overall.f1)
        XCTAssertEqual(s.bestLevel, [0, 0])
        // No level table for such a file, and its regions carry no level in the report.
        XCTAssertFalse(s.table.contains("best-level F1:"), s.table)
        // Only the truth with a kind is in the kinds (the other has none).
        XCTAssertEqual(s.kinds.map(\.kind), ["strip"])
        XCTAssertEqual(s.kinds[0].recall, [1, 1])
    }

    func testLevelAndParentAreReadFromTheFile() throws {
        let text = """
            {"type":"FeatureCollection","features":[
            {"type":"Feature","properties":{"region_id":7,"keyword":"bank","level":2,"parent_id":3},
             "geometry":{"type":"Polygon","coordinates":[[[15,52],[15.01,52],[15.01,52.01],[15,52]]]}},
            {"type":"Feature","properties":{"region_id":3,"keyword":"bank","level":null,"parent_id":null},
             "geometry":{"type":"Polygon","coordinates":[[[15,52],[15.01,52],[15.01,52.01],[15,52]]]}}]}
            """
        let file = try RegionFeatureFile(path: "r", text: text)
        XCTAssertEqual(file.features.map(\.level), [2, 0])
        XCTAssertEqual(file.features.map(\.parentID), [.number(3), nil])
        let bad = text.replacingOccurrences(of: "\"level\":2", with: "\"level\":1.5")
        XCTAssertThrowsError(try RegionFeatureFile(path: "r", text: bad)) { e in
            XCTAssertTrue("\(e)".contains("the \"level\" property must be a whole number"), "\(e)")
        }
        let negative = text.replacingOccurrences(of: "\"level\":2", with: "\"level\":-1")
        XCTAssertThrowsError(try RegionFeatureFile(path: "r", text: negative))
    }

    // MARK: - Rivers

    /// POIs at the corners of a 10 km square: the domain whose convex hull the banks are cut from.
    private let corners: [(id: String, category: String, x: Double, y: Double)] = [
        ("c1", "shop", -5000, -5000), ("c2", "shop", 5000, -5000), ("c3", "shop", 5000, 5000),
        ("c4", "shop", -5000, 5000),
    ]

    func testRegionsThatHoldLandOnBothBanksSpanTheRiver() throws {
        // A 200 m river from the west edge to the east edge, y 900-1100.
        let river = feature(0, nil, kind: "river", F.rectangle(-5000, 900, 5000, 1100))
        let truth = [feature(0, "bank", F.square(-4000, -4000))]
        let regions = [
            feature(1, "bank", F.rectangle(0, 0, 500, 2000)),  // across the water: spans
            feature(2, "bank", F.rectangle(600, 0, 800, 895)),  // stops 5 m short of the water
            feature(3, "bank", F.rectangle(1000, 0, 1500, 905)),  // 5 m into the water (< 10 m)
            feature(4, "bank", F.rectangle(2000, 0, 2500, 800), F.rectangle(2000, 1200, 2500, 2000)),  // both banks
            feature(5, "bank", F.rectangle(3000, 0, 3500, 1105)),  // across, 5 m onto the far bank: tolerated
            feature(6, "bank", level: 1, F.rectangle(0, 1200, 500, 1500)),  // the north bank only
            feature(7, "bank", level: 1, F.rectangle(4000, 500, 4200, 1500)),  // across, at level 1
        ]
        let s = try score(regions: regions, truth: truth, pois: corners, mustNot: [river], checks: true)
        let r = try XCTUnwrap(s.rivers)
        XCTAssertEqual(r.banks, [2])
        XCTAssertEqual(r.spans.map(\.count), [1, 0, 0, 1, 0, 0, 1])
        XCTAssertEqual(s.levels.map(\.spanningRivers), [2, 1])
        XCTAssertEqual(s.riverSpans.map(\.regionID), [.number(1), .number(4), .number(7)])
        XCTAssertEqual(s.json["rivers"]?["n_regions_spanning"], .number(3))
        XCTAssertEqual(s.json["levels"]?.arrayValue?[0]["n_regions_spanning_river"], .number(2))
        // A river is water: its area counts in the void share (the first region holds 200 × 500 m²
        // of its 1 km²; the others' overlaps are added to the union's).
        XCTAssertGreaterThan(try XCTUnwrap(s.overall.mustNot).voidArea, 100_000)

        // A tolerance of 0: the region reaching 5 m onto the far bank spans the river too.
        var e = F.evaluator
        e.checks = CheckOptions()
        e.riverTolerance = 0
        let strict = try e.scoreTruth(
            regions: F.file("regions", regions), truth: F.file("truth", truth), pois: F.pois(corners),
            mustNot: F.file("must-not", [river]))
        XCTAssertEqual(try XCTUnwrap(strict.rivers).spans.map(\.count), [1, 0, 0, 1, 1, 0, 1])
    }

    func testVoidsNamedRiversAreRiversAndOtherVoidsAreNot() throws {
        let named = feature(0, nil, kind: "void", name: "river 2", F.rectangle(-5000, 900, 5000, 1100))
        let park = feature(1, nil, kind: "void", name: "park", F.rectangle(-5000, -2100, 5000, -1900))
        let regions = [
            feature(1, "bank", F.rectangle(0, 0, 500, 2000)),  // across the named river
            feature(2, "bank", F.rectangle(0, -2500, 500, -1500)),  // across the park
        ]
        let s = try score(
            regions: regions, truth: [feature(0, "bank", F.square(-4000, -4000))], pois: corners,
            mustNot: [named, park])
        XCTAssertEqual(try XCTUnwrap(s.rivers).riverIDs.count, 1)
        XCTAssertEqual(try XCTUnwrap(s.rivers).spans.map(\.count), [1, 0])
        // Without rivers there is no rivers member.
        let none = try score(
            regions: regions, truth: [feature(0, "bank", F.square(-4000, -4000))], pois: corners, mustNot: [park])
        XCTAssertNil(none.rivers)
        XCTAssertNil(none.json["rivers"])
    }

    func testTheSidesOfARiverAreTakenWithinItsOwnExtent() throws {
        // A river 2 km long in the middle of the data (x -1000…1000): a region across it spans
        // it; one beside its end that holds land north and south of its line does not reach its
        // sides (they are within its extent); a region north of it does not.
        let river = feature(0, nil, kind: "river", F.rectangle(-1000, -100, 1000, 100))
        let regions = [
            feature(1, "bank", F.rectangle(-200, -500, 200, 500)),
            feature(2, "bank", F.rectangle(1500, -500, 1900, 500)),
            feature(3, "bank", F.rectangle(-200, 300, 200, 900)),
        ]
        let s = try score(
            regions: regions, truth: [feature(0, "bank", F.square(-4000, -4000))], pois: corners, mustNot: [river])
        XCTAssertEqual(try XCTUnwrap(s.rivers).banks, [2])
        XCTAssertEqual(try XCTUnwrap(s.rivers).spans.map(\.count), [1, 0, 0])
    }

    // MARK: - Downtowns

    func testLevelZeroRegionsAreCountedPerDowntown() throws {
        let downtowns = [
            feature(0, nil, kind: "downtown", F.disc(0, 0, radius: 1000)),
            feature(1, nil, kind: "downtown", F.disc(5000, 0, radius: 1000)),
        ]
        let regions = [
            feature(0, "bank", F.square(-500, -500, side: 400)),  // in downtown 0
            feature(1, "bank", F.square(100, 100, side: 400)),  // in downtown 0
            feature(2, "bank", F.rectangle(800, -100, 4800, 100)),  // touches both, mostly downtown 1
            feature(3, "bank", F.square(10_000, 0)),  // outside
            feature(4, "bank", level: 1, F.square(-100, -100, side: 100)),  // level 1: not counted
            feature(5, "咖啡", F.square(4800, -200, side: 400)),  // another keyword, downtown 1
        ]
        let s = try score(regions: regions, truth: [feature(0, "bank", F.square(-4000, -4000))], mustNot: downtowns)
        let d = try XCTUnwrap(s.downtowns)
        XCTAssertEqual(d.downtownIDs, [.number(0), .number(1)])
        XCTAssertEqual(d.byKeyword.map(\.keyword), ["bank", "咖啡"])
        XCTAssertEqual(d.byKeyword[0].perDowntown, [2, 1])
        XCTAssertEqual(d.byKeyword[0].outside, 1)
        XCTAssertEqual(d.byKeyword[1].perDowntown, [0, 1])
        XCTAssertEqual(d.maxPerDowntown, 2)
        XCTAssertEqual(s.json["downtowns"]?["max_level0_regions_per_downtown"], .number(2))
        XCTAssertEqual(s.json["downtowns"]?["keywords"]?["bank"]?["outside"], .number(1))
        // Downtowns are no must-not area: they add nothing to the void or sparse shares.
        XCTAssertEqual(s.overall.mustNot?.voidArea, 0)
        XCTAssertEqual(s.overall.mustNot?.sparseArea, 0)
    }
}
