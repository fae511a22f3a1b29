import XCTest

@testable import RegionSearchCore
@testable import RegionSearchModel
@testable import RegionSearchRegions

/// `regions.fdr_scope` with nested levels (``DensityHierarchy/FalseDiscovery``): "keyword" controls
/// the false discovery rate over each keyword's candidates, "run" over every keyword's — level 0
/// together, then the finer levels together. Checked against Benjamini–Hochberg computed here over
/// the p-values the regions carry, on a city with three keywords of unequal strength.
final class FDRScopeTests: XCTestCase {
    typealias City = DensityHierarchyTests.City

    /// 16,000 POIs over 8 km, cafés, bars and bakeries 2 % each; a café district and a bar district,
    /// each with a dense core (the nested levels), a small bar cluster with a tight core and a small
    /// bakery cluster.
    static func city() -> City {
        var rng = SeededRandom(seed: 23)
        var city = City()
        for _ in 0..<16_000 {
            let u = rng.uniform()
            city.add(
                rng.uniform(-4_000, 4_000), rng.uniform(-4_000, 4_000),
                u < 0.02 ? "cafe" : u < 0.04 ? "bar" : u < 0.06 ? "bakery" : "shop")
        }
        city.disc(300, r: 700, cx: 1_000, cy: -500, category: "cafe", &rng)
        city.disc(100, r: 120, cx: 1_150, cy: -450, category: "cafe", &rng)
        city.disc(200, r: 600, cx: -2_000, cy: 2_000, category: "bar", &rng)
        city.disc(80, r: 100, cx: -1_900, cy: 2_100, category: "bar", &rng)
        city.disc(25, r: 120, cx: -1_000, cy: -2_500, category: "bar", &rng)
        city.disc(12, r: 15, cx: -1_000, cy: -2_500, category: "bar", &rng)
        city.disc(14, r: 90, cx: 2_500, cy: 2_500, category: "bakery", &rng)
        return city
    }

    static let keywords = ["cafe", "bar", "bakery"]

    /// The regions of the three keywords, with `overrides` of the regions stage's parameters.
    /// The finer regions are the districts' cores alone (`child_extend_ratio` 1.5): so tight that
    /// their q-values lie below the level-0 rate the first test splits at, and some are kept there
    /// (with the default 1 they grow outwards over their districts and only pass at rates above
    /// it; how far a finer region extends is not what these tests are about).
    static func run(_ city: City, overrides: [(String, JSONValue)]) throws -> RegionTable {
        try DensityHierarchyTests.run(
            city, keywords: keywords, overrides: [("child_extend_ratio", .number(1.5))] + overrides
        ).table
    }

    /// The regions of `table` that `include` accepts, in a fixed order (keyword, members).
    static func sorted(_ table: RegionTable, _ include: (RegionTable.Region) -> Bool) -> [RegionTable.Region] {
        table.regions.filter(include).sorted {
            $0.keyword != $1.keyword ? $0.keyword < $1.keyword : $0.members.lexicographicallyPrecedes($1.members)
        }
    }

    func assertQValues(
        _ regions: [RegionTable.Region], pooled: Bool, _ message: String, line: UInt = #line
    ) {
        let expected: [Double]
        if pooled {
            expected = Significance.benjaminiHochberg(regions.map(\.pValue))
        } else {
            var q = [Double](repeating: .nan, count: regions.count)
            for c in 0..<Self.keywords.count {
                let indices = regions.indices.filter { regions[$0].keyword == c }
                for (i, v) in zip(indices, Significance.benjaminiHochberg(indices.map { regions[$0].pValue })) {
                    q[i] = v
                }
            }
            expected = q
        }
        for (r, q) in zip(regions, expected) {
            XCTAssertEqual(r.qValue, q, accuracy: 1e-12 * q, message, line: line)
        }
    }

    func testRunScopePoolsLevelZeroThenTheFinerLevelsOverAllKeywords() throws {
        let city = Self.city()
        let keep = (RegionOptions.fdrSpec.key, JSONValue.number(1))
        let run = try Self.run(city, overrides: [keep, (RegionOptions.fdrScopeSpec.key, .string("run"))])
        let perKeyword = try Self.run(city, overrides: [keep])

        // With every candidate kept, both scopes see the same candidates with the same p-values.
        let runZero = Self.sorted(run) { $0.level == 0 }
        let runFiner = Self.sorted(run) { $0.level > 0 }
        XCTAssertEqual(Set(runZero.map(\.keyword)).count, 3, "every keyword has level-0 candidates")
        XCTAssertEqual(Set(runFiner.map(\.keyword)).count, 2, "the café and bar districts have finer candidates")
        XCTAssertEqual(runZero.map(\.pValue), Self.sorted(perKeyword) { $0.level == 0 }.map(\.pValue))
        XCTAssertEqual(runFiner.map(\.pValue), Self.sorted(perKeyword) { $0.level > 0 }.map(\.pValue))

        // "run": Benjamini–Hochberg over all keywords' level-0 candidates, and over all finer ones.
        assertQValues(runZero, pooled: true, "run, level 0")
        assertQValues(runFiner, pooled: true, "run, finer levels")
        // "keyword": over each keyword's own — and here that is not the same.
        let keywordZero = Self.sorted(perKeyword) { $0.level == 0 }
        assertQValues(keywordZero, pooled: false, "keyword, level 0")
        assertQValues(Self.sorted(perKeyword) { $0.level > 0 }, pooled: false, "keyword, finer levels")
        XCTAssertNotEqual(runZero.map(\.qValue), keywordZero.map(\.qValue), "pooling changes the q-values here")
        XCTAssertNotEqual(
            runFiner.map(\.qValue), Self.sorted(perKeyword) { $0.level > 0 }.map(\.qValue), "and the finer ones")

        // At a rate between a level-0 candidate's two q-values, "run" keeps exactly the level-0
        // candidates whose pooled q-value passes it — not that one, which "keyword" keeps — and
        // only finer regions that pass below them.
        let split = try XCTUnwrap(zip(runZero, keywordZero).first { $0.qValue > $1.qValue })
        let fdr = (split.0.qValue + split.1.qValue) / 2
        let rate = (RegionOptions.fdrSpec.key, JSONValue.number(fdr))
        let kept = try Self.run(city, overrides: [rate, (RegionOptions.fdrScopeSpec.key, .string("run"))])
        let keptZero = Self.sorted(kept) { $0.level == 0 }
        XCTAssertEqual(keptZero.map(\.members), runZero.filter { $0.qValue <= fdr }.map(\.members))
        XCTAssertFalse(keptZero.contains { $0.members == split.0.members })
        XCTAssertTrue(try Self.run(city, overrides: [rate]).regions.contains { $0.members == split.1.members })
        // The finer levels are judged over the finer candidates below the level-0 regions the run
        // kept: every finer candidate of the keep-all run (each a region there) whose level-0
        // ancestor is one of them.
        func root(_ i: Int) -> Int {
            var i = i
            while run.regions[i].parent >= 0 { i = run.regions[i].parent }
            return i
        }
        let keptRoots = Set(keptZero.map(\.members))
        let pool = run.regions.indices.filter {
            run.regions[$0].level > 0 && keptRoots.contains(run.regions[root($0)].members)
        }.map { run.regions[$0].pValue }
        let q = Significance.pooledBenjaminiHochberg(pool)
        let keptFiner = kept.regions.filter { $0.level > 0 }
        XCTAssertFalse(keptFiner.isEmpty)
        for r in keptFiner {
            XCTAssertEqual(r.qValue, q([r.pValue])[0], accuracy: 1e-12 * r.qValue)
            XCTAssertLessThanOrEqual(r.qValue, fdr)
            XCTAssertGreaterThanOrEqual(r.parent, 0)
        }
    }

    func testRunScopeWithPropagatedLevelZeroPoolsEveryCandidate() throws {
        let city = Self.city()
        let table = try Self.run(
            city,
            overrides: [
                (RegionOptions.fdrSpec.key, .number(1)), (RegionOptions.fdrScopeSpec.key, .string("run")),
                (RegionOptions.levelZeroSpec.key, .string("propagated")),
            ])
        let all = Self.sorted(table) { _ in true }
        XCTAssertGreaterThan(Set(all.map(\.keyword)).count, 1)
        assertQValues(all, pooled: true, "run, propagated level 0: every level of every keyword together")
    }

    func testThePooledLookupGivesWhatBenjaminiHochbergGivesThePool() {
        var rng = SeededRandom(seed: 3)
        var pool = (0..<200).map { _ in pow(rng.uniform(), 3) }
        pool += pool.prefix(20)  // ties
        pool += [1, 1, 0]
        let lookup = Significance.pooledBenjaminiHochberg(pool)
        XCTAssertEqual(lookup(pool), Significance.benjaminiHochberg(pool))
        XCTAssertEqual(lookup([]), [])
    }
}
