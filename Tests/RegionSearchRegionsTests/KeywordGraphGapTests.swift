import XCTest

@testable import RegionSearchCore
@testable import RegionSearchGraph
@testable import RegionSearchModel
@testable import RegionSearchRegions

/// Rule 2 of ``KeywordGraph`` for a gap the keyword's own cluster spans (`regions.wide_detour`):
/// a keyword cluster on both banks of a river is not joined across it, however sparse the keyword
/// is on its banks, while a cluster around a small enclosed void (a block's empty interior) is.
///
/// The city: POIs of other kinds on a 20 m grid, jittered by ±4 m, over 1,200 × 1,000 m, with the
/// empty ground left out; keyword POIs on a 60 m grid over the cluster, offset from the
/// background's points, none on the empty ground. Every keyword edge across the empty ground is
/// checked: that the POI graph has cut the ground (no path within `detour` × its length, so rule 2's
/// first way does not join it), that the keyword spans it (the edge is short by rule 1 and at most
/// the 2k-th keyword neighbour's distance at both ends, so the rule before regions stage version
/// 16 joined it), and what the rule does now.
final class KeywordGraphGapTests: XCTestCase {
    struct City {
        var kg: KeywordGraph
        var support: PathSupport
        /// The keyword edges (indices into the geometry's edges) that cross the empty ground.
        var crossing: [Int]
    }

    /// `empty(x, y)`: ground with no POI; `keywordRows`, `keywordColumns`: the keyword grid;
    /// `across(a, b)`: whether the edge between two keyword POIs crosses the empty ground.
    static func city(
        empty: (Double, Double) -> Bool, keywordRows: [Double], keywordColumns: [Double],
        across: ((x: Double, y: Double), (x: Double, y: Double)) -> Bool
    ) throws -> City {
        var random = SeededRandom(seed: 2026)
        var px: [Double] = []
        var py: [Double] = []
        for x in keywordColumns {
            for y in keywordRows where !empty(x, y) {
                px.append(x)
                py.append(y)
            }
        }
        let keywordCount = px.count
        for i in 0...60 {
            for j in 0...50 {
                let x = Double(i) * 20 + random.uniform(-4, 4)
                let y = Double(j) * 20 + random.uniform(-4, 4)
                if empty(x, y) { continue }
                px.append(x)
                py.append(y)
            }
        }
        let (graph, x, y, kg) = try DensityRegionFinderTests.cityGraphs(px, py, keywordCount: keywordCount)
        let crossing = kg.geometry.edges.indices.filter { e in
            let (a, b) = kg.geometry.edges[e]
            let (i, j) = (Int(kg.geometry.subset[Int(a)]), Int(kg.geometry.subset[Int(b)]))
            return across((px[i], py[i]), (px[j], py[j]))
        }
        return City(kg: kg, support: PathSupport(graph: graph, x: x, y: y), crossing: crossing)
    }

    /// The checks every crossing edge must pass for the test to mean anything.
    func assertSpannedAndCut(_ city: inout City, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertFalse(city.crossing.isEmpty, "no keyword edge crosses the empty ground", file: file, line: line)
        let kg = city.kg
        for e in city.crossing {
            let (a, b) = kg.geometry.edges[e]
            let l = kg.geometry.lengths[e]
            XCTAssertTrue(kg.isShort(e), "edge \(a)–\(b) (\(l) m) is long by rule 1", file: file, line: line)
            XCTAssertLessThanOrEqual(
                l, min(kg.wideSpacing[Int(a)], kg.wideSpacing[Int(b)]), "the keyword does not span edge \(a)–\(b)",
                file: file, line: line)
            XCTAssertFalse(
                city.support.connected(
                    Int(kg.geometry.subset[Int(a)]), Int(kg.geometry.subset[Int(b)]), within: 2 * l),
                "the POI graph joins \(a)–\(b) within twice its length: the void was not cut", file: file, line: line)
        }
    }

    func accepted(_ city: inout City, wideDetour: Double) -> Set<Int> {
        let kg = KeywordGraph(
            keywordPoints: city.kg.geometry.subset, x: city.support.x, y: city.support.y,
            rules: KeywordGraph.Rules(wideDetour: wideDetour))
        let edges = kg.acceptedEdges(
            eligible: [Bool](repeating: true, count: kg.count), support: &city.support)
        let index = Dictionary(
            uniqueKeysWithValues: kg.geometry.edges.enumerated().map { (e, pair) in
                ("\(pair.0)-\(pair.1)", e)
            })
        return Set(edges.map { index["\($0.a)-\($0.b)"]! })
    }

    /// A 100 m river across the whole city (y 450–550), the keyword's rows 9 m from its banks
    /// (118 m apart across it) and 60 m apart on each side: the keyword's 10th neighbour is at least
    /// 120 m away on the banks, so the edges across the river are ones the keyword spans.
    func testAClusterOnBothBanksIsNotJoinedAcrossTheRiver() throws {
        var city = try Self.city(
            empty: { _, y in y > 450 && y < 550 }, keywordRows: [321, 381, 441, 559, 619, 679],
            keywordColumns: stride(from: 367.0, through: 847, by: 60).map { $0 },
            across: { a, b in min(a.y, b.y) < 450 && max(a.y, b.y) > 550 })
        assertSpannedAndCut(&city)
        let old = accepted(&city, wideDetour: 0)
        XCTAssertTrue(Set(city.crossing).isSubset(of: old), "the rule before version 16 joined across the river")
        let now = accepted(&city, wideDetour: 4)
        XCTAssertTrue(now.isDisjoint(with: city.crossing), "joined across the river")
        // Each bank's cluster is still one piece.
        let pieces = KeywordGraph.components(
            count: city.kg.count, eligible: [Bool](repeating: true, count: city.kg.count),
            edges: now.map { city.kg.geometry.edges[$0] }.map { (Int32($0.0), Int32($0.1)) })
        XCTAssertEqual(pieces.count, 2)
    }

    /// A block's empty interior, 160 × 60 m (x 520–680, y 470–530), inside the cluster: the keyword
    /// spans it, and the POI graph goes round it within four times the gap (the edge checked runs
    /// straight across its middle, 70 m: the way round is about 230 m).
    func testAClusterAroundAnEmptyBlockInteriorIsJoinedAcrossIt() throws {
        let interior: (Double, Double) -> Bool = { x, y in x > 520 && x < 680 && y > 470 && y < 530 }
        var city = try Self.city(
            empty: interior, keywordRows: [347, 407, 465, 535, 593, 653],
            keywordColumns: stride(from: 427.0, through: 787, by: 60).map { $0 },
            across: { a, b in
                // Straight from one long side to the other in the middle (near a short side the
                // way round is short whatever the rule).
                min(a.y, b.y) < 470 && max(a.y, b.y) > 530 && a.x == b.x && abs(a.x - 600) < 40
            })
        assertSpannedAndCut(&city)
        let now = accepted(&city, wideDetour: 4)
        XCTAssertTrue(Set(city.crossing).isSubset(of: now), "not joined across the block's interior")
        let pieces = KeywordGraph.components(
            count: city.kg.count, eligible: [Bool](repeating: true, count: city.kg.count),
            edges: now.map { city.kg.geometry.edges[$0] }.map { (Int32($0.0), Int32($0.1)) })
        XCTAssertEqual(pieces.count, 1)
        // With the way round held to twice the gap (rule 2's first way alone), it splits.
        XCTAssertTrue(accepted(&city, wideDetour: 2).isDisjoint(with: city.crossing))
    }
}
