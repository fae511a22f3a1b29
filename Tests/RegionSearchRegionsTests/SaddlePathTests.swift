import XCTest

@testable import RegionSearchRegions

/// The bridge between two candidates that `joinedAtSaddles` adds
/// (``DensityRegionFinder/path(from:source:target:label:over:through:scratch:)``), against a
/// second implementation: a plain breadth-first search with the two sets as hash sets and the
/// predecessors in a dictionary, as the regions stage searched before it kept them in scratch arrays.
/// Random graphs, labels and passable positions; one scratch reused across all searches, as the
/// stage reuses it.
final class SaddlePathTests: XCTestCase {
    /// The reference: fewest hops from any of `from` to any of `to`, through positions `through`
    /// accepts, neighbours in order; the positions strictly between the two sets.
    static func referencePath(
        from: [Int32], to: [Int32], over adjacency: [[Int32]], through: (Int) -> Bool
    ) -> [Int32] {
        let target = Set(to)
        let source = Set(from)
        var previous: [Int32: Int32] = [:]
        var queue = from
        var head = 0
        for p in from { previous[p] = -1 }
        while head < queue.count {
            let v = queue[head]
            head += 1
            for w in adjacency[Int(v)] where previous[w] == nil && (target.contains(w) || through(Int(w))) {
                if target.contains(w) && source.contains(v) { continue }
                previous[w] = v
                if target.contains(w) {
                    var out: [Int32] = []
                    var u = v
                    while u >= 0 && !source.contains(u) {
                        out.append(u)
                        u = previous[u]!
                    }
                    return out
                }
                queue.append(w)
            }
        }
        return []
    }

    func testMatchesAPlainBreadthFirstSearch() {
        var seed: UInt64 = 0x5AD_D1E
        func next(_ bound: Int) -> Int {
            // A fixed sequence (SplitMix64), so a failure reproduces.
            seed &+= 0x9E37_79B9_7F4A_7C15
            var z = seed
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int((z ^ (z >> 31)) % UInt64(bound))
        }
        var found = 0
        var scratch = DensityRegionFinder.PathScratch(count: 200)
        for _ in 0..<300 {
            let m = 20 + next(180)
            // Random sparse graph, neighbours in a random order (the search reads them in order).
            var adjacency = [[Int32]](repeating: [], count: m)
            for _ in 0..<(m * (1 + next(3))) {
                let (a, b) = (next(m), next(m))
                guard a != b else { continue }
                adjacency[a].append(Int32(b))
                adjacency[b].append(Int32(a))
            }
            // Three candidates (labels 0, 1, 2), the rest unlabelled (−1); some passable.
            var label = [Int32](repeating: -1, count: m)
            for p in 0..<m where next(4) == 0 { label[p] = Int32(next(3)) }
            let passable = (0..<m).map { _ in next(3) != 0 }
            let (a, b): (Int32, Int32) = (0, 1)
            let from = (0..<m).filter { label[$0] == a }.map { Int32($0) }
            let to = (0..<m).filter { label[$0] == b }.map { Int32($0) }
            guard !from.isEmpty, !to.isEmpty else { continue }
            let through: (Int) -> Bool = { passable[$0] && label[$0] < 0 }
            let expected = Self.referencePath(from: from, to: to, over: adjacency, through: through)
            let got = DensityRegionFinder.path(
                from: from, source: a, target: b, label: label, over: adjacency, through: through,
                scratch: &scratch)
            XCTAssertEqual(got, expected)
            if !expected.isEmpty { found += 1 }
        }
        // The comparison covered searches that found a bridge, not only empty ones.
        XCTAssertGreaterThan(found, 30)
    }
}
