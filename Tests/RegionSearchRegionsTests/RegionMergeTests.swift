import XCTest

@testable import RegionSearchModel
@testable import RegionSearchRegions

/// Step 4 of ``RegionFinder``: regions of one keyword whose hulls come within `merge_distance`
/// of each other merge (repeatedly); farther ones stay apart. Driven through
/// ``RegionFinder/candidates(keyword:scores:ones:probe:match:options:)`` on hand-made fragments.
final class RegionMergeTests: XCTestCase {
    /// A city of square fragments of five matching POIs each (the corners of a 10 m square at
    /// `origins[f]` and its centre, all linked to each other) among 400 background POIs that match
    /// nothing and have no edges. Each fragment is one candidate region of its own (share 1, every
    /// member a shape POI, so its hull is the square). Fragment f's POIs are 5f…5f+4.
    private struct City {
        var x: [Double] = []
        var y: [Double] = []
        var edges: [(UInt32, UInt32)] = []
        var match: [UInt8] = []
        var scores: [Double] = []

        init(origins: [(Double, Double)]) {
            for (ox, oy) in origins {
                let first = UInt32(x.count)
                for (dx, dy) in [(0.0, 0.0), (10.0, 0.0), (10.0, 10.0), (0.0, 10.0), (5.0, 5.0)] {
                    x.append(ox + dx)
                    y.append(oy + dy)
                    match.append(1)
                    scores.append(1)
                }
                for a in 0..<UInt32(5) { for b in (a + 1)..<5 { edges.append((first + a, first + b)) } }
            }
            for k in 0..<400 {
                x.append(Double(k % 20) * 1000 + 50_000)
                y.append(Double(k / 20) * 1000 + 50_000)
                match.append(0)
                scores.append(0)
            }
        }

        func regions(mergeDistance: Double?, scale: Float = 0) -> (
            regions: [RegionTable.Region], summary: RegionFinder.KeywordSummary
        ) {
            var graph = AdjacencyGraph(nodeCount: x.count, edges: edges, x: x, y: y)
            graph.scale = Column([Float](repeating: scale, count: x.count))
            let finder = RegionFinder(x: x, y: y, graph: graph)
            let n = x.count
            return finder.candidates(
                keyword: 3, scores: scores, ones: [Double](repeating: 1, count: n),
                probe: [Double](repeating: 0.1, count: n),
                match: match, options: RegionFinder.Options(mergeDistance: mergeDistance))
        }
    }

    private func members(_ fragments: [Int]) -> [UInt32] {
        fragments.flatMap { f in (0..<5).map { UInt32(5 * f + $0) } }.sorted()
    }

    func testFragmentsWithoutNeighboursAreRegionsOfTheirOwn() {
        let (regions, summary) = City(origins: [(0, 0), (1000, 0)]).regions(mergeDistance: 100)
        XCTAssertEqual(regions.map { $0.members }, [members([0]), members([1])])
        XCTAssertEqual(regions.map { $0.keyword }, [3, 3])
        XCTAssertEqual(summary.components, 2)
        XCTAssertEqual(summary.merged, 0)
        XCTAssertEqual(summary.mergeDistance, 100)
        XCTAssertEqual(regions[0].areaM2, 100, accuracy: 1e-9, "the hull is the square")
    }

    /// Gaps between the squares' facing edges against merge_distance 100 m.
    func testCloserThanMergeDistanceMergesFartherDoesNot() {
        for (gap, merges) in [
            (0.0, true), (40, true), (99.5, true), (100, true), (100.5, false), (150, false), (5000, false),
        ] {
            let (regions, summary) = City(origins: [(0, 0), (10 + gap, 0)]).regions(mergeDistance: 100)
            if merges {
                XCTAssertEqual(regions.map { $0.members }, [members([0, 1])], "gap \(gap)")
                XCTAssertEqual(summary.merged, 1, "gap \(gap)")
                XCTAssertEqual(regions.first?.nPOIs, 10)
            } else {
                XCTAssertEqual(regions.map { $0.members }, [members([0]), members([1])], "gap \(gap)")
                XCTAssertEqual(summary.merged, 0, "gap \(gap)")
            }
        }
        // Diagonal: corner to corner 60·√2 ≈ 84.9 m merges, 80·√2 ≈ 113.1 m does not.
        XCTAssertEqual(City(origins: [(0, 0), (70, 70)]).regions(mergeDistance: 100).regions.count, 1)
        XCTAssertEqual(City(origins: [(0, 0), (90, 90)]).regions(mergeDistance: 100).regions.count, 2)
        // Overlapping hulls (no shared POI, no edge between them) merge.
        XCTAssertEqual(
            City(origins: [(0, 0), (5, 5)]).regions(mergeDistance: 1).regions.map { $0.members }, [members([0, 1])])
    }

    /// Merging repeats: a chain of fragments each within reach of the next becomes one region,
    /// even when its ends are far apart and whatever the order the fragments were found in; a
    /// fragment out of reach of all of them stays apart.
    func testChainsMergeRepeatedly() {
        // Fragments 0…3 along x with 80 m gaps (ends 290 m apart); fragment 4 is 400 m away.
        let chain: [(Double, Double)] = [(0, 0), (90, 0), (180, 0), (270, 0), (680, 0)]
        let (regions, summary) = City(origins: chain).regions(mergeDistance: 100)
        XCTAssertEqual(regions.map { $0.members }, [members([0, 1, 2, 3]), members([4])])
        XCTAssertEqual(summary.merged, 3)
        // The same fragments found in another order (the far one first, the chain shuffled).
        let shuffled: [(Double, Double)] = [(680, 0), (180, 0), (0, 0), (270, 0), (90, 0)]
        let other = City(origins: shuffled).regions(mergeDistance: 100)
        XCTAssertEqual(other.regions.map { $0.members }, [members([0]), members([1, 2, 3, 4])])
        XCTAssertEqual(other.summary.merged, 3)
        // Fragment 0 is 101.2 m from fragments 1 and 2 (corner to corner) but 95 m from the
        // rectangle that their merged hull is: a merge that brings a region within reach of an
        // earlier one is followed up (the backward scan).
        let backward: [(Double, Double)] = [(45, 105), (0, 0), (90, 0)]
        let merged = City(origins: backward).regions(mergeDistance: 100)
        XCTAssertEqual(merged.regions.map { $0.members }, [members([0, 1, 2])])
        XCTAssertEqual(merged.summary.merged, 2)
        XCTAssertEqual(
            City(origins: [(45, 105), (0, 0)]).regions(mergeDistance: 100).regions.count, 2, "not without fragment 2")
    }

    /// Without a merge distance it is twice the median local spacing of the regions' members.
    func testAutomaticMergeDistanceIsTwiceTheMedianSpacing() {
        let near = City(origins: [(0, 0), (60, 0)]).regions(mergeDistance: nil, scale: 30)
        XCTAssertEqual(near.summary.mergeDistance, 60)
        XCTAssertEqual(near.regions.count, 1, "50 m apart, merge distance 60 m")
        let far = City(origins: [(0, 0), (80, 0)]).regions(mergeDistance: nil, scale: 30)
        XCTAssertEqual(far.regions.count, 2, "70 m apart, merge distance 60 m")
    }

    func testUnionKeepsEveryMemberOnceInOrder() {
        let a = RegionTable.Region(keyword: 1, members: [2, 5, 9], memberMatch: [1, 3, 0])
        let b = RegionTable.Region(keyword: 1, members: [1, 6, 10], memberMatch: [3, 0, 1])
        let u = RegionFinder.union(a, b)
        XCTAssertEqual(u.keyword, 1)
        XCTAssertEqual(u.members, [1, 2, 5, 6, 9, 10])
        XCTAssertEqual(u.memberMatch, [3, 1, 3, 0, 0, 1])
        let overlapping = RegionFinder.union(
            a, RegionTable.Region(keyword: 1, members: [5, 9, 11], memberMatch: [3, 0, 1]))
        XCTAssertEqual(overlapping.members, [2, 5, 9, 11])
        XCTAssertEqual(overlapping.memberMatch, [1, 3, 0, 1])
    }
}
