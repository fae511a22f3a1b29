import XCTest

@testable import RegionSearchCore
@testable import RegionSearchGraph
@testable import RegionSearchModel
@testable import RegionSearchTestSupport

/// kNN against brute force, duplicates, local scale and pruning against direct evaluation of
/// their definitions, and thread-count independence.
final class GraphBuilderTests: XCTestCase {
    static func build(_ p: PointSet, _ options: GraphOptions) throws -> (
        graph: AdjacencyGraph, statistics: GraphStatistics
    ) {
        try p.x.withUnsafeBufferPointer { x in
            try p.y.withUnsafeBufferPointer { y in try GraphBuilder.build(x: x, y: y, options: options) }
        }
    }

    private func build(_ p: PointSet, _ options: GraphOptions) throws -> (
        graph: AdjacencyGraph, statistics: GraphStatistics
    ) { try Self.build(p, options) }

    private func edges(_ g: AdjacencyGraph) -> Set<UInt64> {
        Set(g.edgeList.map { UInt64($0.0) << 32 | UInt64($0.1) })
    }

    /// Distinct locations (lowest index first) and each point's representative, by brute force.
    private func representatives(_ p: PointSet) -> [Int] {
        var first: [String: Int] = [:]
        return (0..<p.count).map { i in
            let key = "\(p.x[i].bitPattern == (-0.0).bitPattern ? 0 : p.x[i]),\(p.y[i] == 0 ? 0 : p.y[i])"
            if let r = first[key] { return r }
            first[key] = i
            return i
        }
    }

    private func d2(_ p: PointSet, _ i: Int, _ j: Int) -> Double {
        let dx = p.x[i] - p.x[j]
        let dy = p.y[i] - p.y[j]
        return dx * dx + dy * dy
    }

    /// The brute-force kNN graph: each distinct location to its k nearest other locations by
    /// (distance², index), union, plus duplicate → representative edges.
    private func bruteForceKNN(_ p: PointSet, k: Int) -> Set<UInt64> {
        let rep = representatives(p)
        let locations = (0..<p.count).filter { rep[$0] == $0 }
        var out = Set<UInt64>()
        for i in locations {
            // Keep the k best by (distance², index) with an insertion pass (a full sort is slow unoptimised).
            var nearest: [(Double, Int)] = []
            for j in locations where j != i {
                let c = (d2(p, i, j), j)
                if nearest.count == k && !(c < nearest[k - 1]) { continue }
                if nearest.count == k { nearest.removeLast() }
                nearest.insert(c, at: nearest.firstIndex { c < $0 } ?? nearest.count)
            }
            for (_, j) in nearest { out.insert(UInt64(min(i, j)) << 32 | UInt64(max(i, j))) }
        }
        for i in 0..<p.count where rep[i] != i { out.insert(UInt64(rep[i]) << 32 | UInt64(i)) }
        return out
    }

    func testKNNMatchesBruteForce() throws {
        let cases: [(String, PointSet, Int)] = [
            ("uniform", PointSet.uniform(1500, seed: 1).hilbertSorted(), 8),
            ("clustered", PointSet.clustered(2000, seed: 2).hilbertSorted(), 8),
            ("duplicates", PointSet.clustered(1200, seed: 3).withDuplicates(400, seed: 4).hilbertSorted(), 6),
            ("grid ties", PointSet.grid(30, 30, spacing: 10).shuffled(seed: 5), 8),
            ("grid ties k=5", PointSet.grid(20, 25, spacing: 2.5, originX: 0, originY: 0), 5),
            ("tiny", PointSet.uniform(5, seed: 6), 8),
            ("collinear", PointSet.collinear(300, seed: 7), 3),
        ]
        for (name, p, k) in cases {
            let g = try build(p, GraphOptions(method: .knn, k: k, pruneFactor: 0, voidRadius: 0, farFactor: 0)).graph
            let expected = bruteForceKNN(p, k: k)
            let got = edges(g)
            XCTAssertEqual(got.subtracting(expected).count, 0, "\(name): extra edges")
            XCTAssertEqual(expected.subtracting(got).count, 0, "\(name): missing edges")
        }
    }

    func testKNNScaleIsTheKthNeighbourDistance() throws {
        let p = PointSet.clustered(1500, seed: 8).withDuplicates(300, seed: 9).hilbertSorted()
        let (g, stats) = try build(
            p, GraphOptions(method: .knn, k: 8, scaleK: 5, pruneFactor: 0, voidRadius: 0, farFactor: 0))
        XCTAssertEqual(stats.duplicatesLinked, p.count - Set(representatives(p)).count)
        let rep = representatives(p)
        let locations = (0..<p.count).filter { rep[$0] == $0 }
        for i in 0..<p.count {
            let r = rep[i]
            let sorted = locations.filter { $0 != r }.map { d2(p, r, $0) }.sorted()
            XCTAssertEqual(g.scale[i], Float(sorted[4].squareRoot()), "point \(i)")
        }
    }

    /// Duplicates: one zero-length edge to the representative, and the representatives'
    /// Delaunay graph is that of the distinct locations.
    func testDuplicatesAreLinkedToTheirRepresentative() throws {
        let base = PointSet.uniform(800, seed: 10)
        var p = base.withDuplicates(500, seed: 11)
        // −0.0 and +0.0 are the same location.
        p.x += [0, -0.0, 0]
        p.y += [5, 5, -0.0]
        p = p.shuffled(seed: 12)
        let (g, stats) = try build(p, GraphOptions(method: .delaunay, pruneFactor: 0, voidRadius: 0, farFactor: 0))
        let rep = representatives(p)
        XCTAssertEqual(stats.duplicatesLinked, rep.enumerated().filter { $0.offset != $0.element }.count)
        for i in 0..<p.count where rep[i] != i {
            XCTAssertEqual(Array(g.neighbors[g.range(i)]), [UInt32(rep[i])], "duplicate \(i)")
            XCTAssertEqual(Array(g.length[g.range(i)]), [0])
        }
        let locations = (0..<p.count).filter { rep[$0] == $0 }
        let lx = locations.map { p.x[$0] }
        let ly = locations.map { p.y[$0] }
        let geos = GEOSDelaunay.edges(x: lx, y: ly)
        var expected = Set(
            geos.map { e -> UInt64 in
                let a = locations[Int(e >> 32)]
                let b = locations[Int(e & 0xFFFF_FFFF)]
                return UInt64(min(a, b)) << 32 | UInt64(max(a, b))
            })
        for i in 0..<p.count where rep[i] != i { expected.insert(UInt64(rep[i]) << 32 | UInt64(i)) }
        let got = edges(g)
        // GEOS may miss thin hull triangles (see DelaunayTests); everything it has must be there.
        XCTAssertEqual(expected.subtracting(got).count, 0)
        XCTAssertLessThanOrEqual(got.subtracting(expected).count, 3)
    }

    /// σ and the pruning rule, evaluated directly from their definitions on the unpruned graph.
    func testScaleAndPruningFollowTheirDefinitions() throws {
        let p = PointSet.clustered(1500, seed: 13).withDuplicates(150, seed: 14).hilbertSorted()
        let rep = representatives(p)
        let locations = (0..<p.count).filter { rep[$0] == $0 }
        // Distances from each location to all other locations, ascending (ties by index do not
        // change the distance sequence).
        var sortedDistances: [Int: [Float]] = [:]
        for i in locations {
            sortedDistances[i] = locations.filter { $0 != i }.map { Float(d2(p, i, $0).squareRoot()) }.sorted()
        }
        for method in GraphMethod.allCases {
            for (scaleK, factor, maxEdge) in [(5, 3.0, nil), (3, 1.5, 400.0), (12, 0.0, 250.0), (1, 2.0, nil)]
                as [(Int, Double, Double?)]
            {
                let full = try build(
                    p, GraphOptions(method: method, k: 8, scaleK: scaleK, pruneFactor: 0, voidRadius: 0, farFactor: 0)
                ).graph
                let (pruned, stats) = try build(
                    p,
                    GraphOptions(
                        method: method, k: 8, scaleK: scaleK, maxEdgeMetres: maxEdge, pruneFactor: factor,
                        voidRadius: 0, farFactor: 0))
                // σ: distance to the scaleK-th nearest other location (a duplicate takes its location's).
                for i in 0..<p.count {
                    XCTAssertEqual(full.scale[i], sortedDistances[rep[i]]![scaleK - 1], "\(method) σ of \(i)")
                }
                XCTAssertEqual(pruned.scale, full.scale)
                var keep = Set<UInt64>()
                var byMax = 0
                var byScale = 0
                for i in 0..<p.count {
                    for e in full.range(i) {
                        let j = Int(full.neighbors[e])
                        guard i < j else { continue }
                        let l = Double(full.length[e])
                        if l > 0, let maxEdge, l > maxEdge {
                            byMax += 1
                        } else if l > 0 && factor > 0 && l > factor * Double(max(full.scale[i], full.scale[j])) {
                            byScale += 1
                        } else {
                            keep.insert(UInt64(i) << 32 | UInt64(j))
                        }
                    }
                }
                XCTAssertEqual(edges(pruned), keep, "\(method) \(scaleK) \(factor) \(String(describing: maxEdge))")
                XCTAssertEqual(stats.droppedByMaxEdge, byMax)
                XCTAssertEqual(stats.droppedByLocalScale, byScale)
                XCTAssertEqual(stats.edgesBeforePruning, full.edgeCount)
                XCTAssertEqual(stats.edges, keep.count)
                XCTAssertEqual(stats.isolatedNodes, (0..<p.count).filter { pruned.range($0).isEmpty }.count)
                // Lengths are those of the unpruned graph.
                for i in 0..<p.count {
                    for e in pruned.range(i) {
                        let j = Int(pruned.neighbors[e])
                        XCTAssertEqual(pruned.length[e], Float(d2(p, i, j).squareRoot()))
                    }
                }
            }
        }
    }

    /// σ by best-first search on the Delaunay graph is exact also with ties and cocircular points
    /// (grids) and when scale_k exceeds the number of Delaunay neighbours.
    func testDelaunayScaleIsExactOnGridsAndCollinearPoints() throws {
        let cases = [
            PointSet.grid(25, 20, spacing: 10).shuffled(seed: 1), PointSet.collinear(200, seed: 2),
            PointSet.grid(15, 15, spacing: 3, originX: 0.1, originY: 0.7).withDuplicates(40, seed: 3),
        ]
        for p in cases {
            let rep = representatives(p)
            let locations = (0..<p.count).filter { rep[$0] == $0 }
            for scaleK in [1, 4, 9, 20] {
                let g = try build(
                    p, GraphOptions(method: .delaunay, scaleK: scaleK, pruneFactor: 0, voidRadius: 0, farFactor: 0)
                ).graph
                for i in 0..<p.count {
                    let r = rep[i]
                    let sorted = locations.filter { $0 != r }.map { Float(d2(p, r, $0).squareRoot()) }.sorted()
                    XCTAssertEqual(g.scale[i], sorted[min(scaleK, sorted.count) - 1], "σ of \(i), scale_k \(scaleK)")
                }
            }
        }
    }

    /// Two dense blobs (spacing ~10–20 m) separated by an empty band 150 m wide: the
    /// triangulation bridges the band, pruning by local scale cuts every bridge.
    func testPruningCutsEdgesAcrossAnEmptyBand() throws {
        var r = GraphTestRandom(seed: 15)
        var p = PointSet()
        for blob in 0..<2 {
            let x0 = blob == 0 ? 0.0 : 600 + 150
            for i in 0..<40 {
                for j in 0..<50 {
                    p.x.append(PointSet.originX + x0 + Double(i) * 15 + (r.uniform() - 0.5) * 10)
                    p.y.append(PointSet.originY + Double(j) * 15 + (r.uniform() - 0.5) * 10)
                }
            }
        }
        p = p.hilbertSorted()
        let gap = (PointSet.originX + 600, PointSet.originX + 750 - 10)
        func crossings(_ g: AdjacencyGraph) -> Int {
            g.edgeList.filter { (a, b) in
                let xa = p.x[Int(a)]
                let xb = p.x[Int(b)]
                return min(xa, xb) < gap.0 && max(xa, xb) > gap.1
            }.count
        }
        for method in GraphMethod.allCases {
            let unpruned = try build(p, GraphOptions(method: method, k: 8, pruneFactor: 0, voidRadius: 0, farFactor: 0))
                .graph
            let pruned = try build(p, GraphOptions(method: method, k: 8, pruneFactor: 3)).graph
            if method == .delaunay { XCTAssertGreaterThan(crossings(unpruned), 20, "Delaunay bridges the band") }
            XCTAssertEqual(crossings(pruned), 0, "\(method): no edge crosses the band after pruning")
            // Inside the blobs nothing is lost: every node keeps edges.
            XCTAssertEqual((0..<p.count).filter { pruned.range($0).isEmpty }.count, 0)
        }
    }

    /// A dense core next to a sparse suburb keeps its connecting edges (normal at the sparse end),
    /// while a POI far from everything (a hundred times the data's spacing) is isolated.
    func testPruningKeepsEdgesIntoSparseSurroundingsButIsolatesFarPoints() throws {
        var r = GraphTestRandom(seed: 16)
        var p = PointSet()
        for _ in 0..<2000 {
            p.x.append(PointSet.originX + r.uniform() * 300)
            p.y.append(PointSet.originY + r.uniform() * 300)
        }
        // A suburb 20× as sparse (σ ≈ 9 m in the core, ≈ 180 m out there).
        for _ in 0..<400 {
            p.x.append(PointSet.originX - 1000 + r.uniform() * 2300)
            p.y.append(PointSet.originY - 1000 + r.uniform() * 2300)
        }
        // Three outliers 50 km away, close to one another.
        for k in 0..<3 {
            p.x.append(PointSet.originX + 50_000 + Double(k) * 30)
            p.y.append(PointSet.originY + 50_000)
        }
        p = p.hilbertSorted()
        for method in GraphMethod.allCases {
            let g = try build(p, GraphOptions(method: method, pruneFactor: 3)).graph
            var seen = [Bool](repeating: false, count: g.nodeCount)
            let start = (0..<p.count).first { p.x[$0] < PointSet.originX + 10_000 }!
            var queue = [start]
            seen[start] = true
            while let i = queue.popLast() {
                for e in g.range(i) where !seen[Int(g.neighbors[e])] {
                    seen[Int(g.neighbors[e])] = true
                    queue.append(Int(g.neighbors[e]))
                }
            }
            // Core and suburb are one component; the outliers are not part of it.
            XCTAssertEqual(seen.filter { $0 }.count, g.nodeCount - 3, "\(method)")
            for i in 0..<p.count where p.x[i] > PointSet.originX + 10_000 {
                XCTAssertFalse(seen[i])
                for e in g.range(i) { XCTAssertLessThan(Double(g.length[e]), 100, "outliers join only each other") }
            }
        }
    }

    func testOutputIsIdenticalForAnyThreadCount() throws {
        let p = PointSet.clustered(60_000, seed: 17).withDuplicates(3000, seed: 18).hilbertSorted()
        let saved = Parallel.threadCount
        defer { Parallel.threadCount = saved }
        for method in GraphMethod.allCases {
            var results: [AdjacencyGraph] = []
            for threads in [1, 2, 5] {
                Parallel.threadCount = threads
                results.append(try build(p, GraphOptions(method: method, k: 7, maxEdgeMetres: 500)).graph)
            }
            for g in results.dropFirst() {
                XCTAssertEqual(g.offsets, results[0].offsets)
                XCTAssertEqual(g.neighbors, results[0].neighbors)
                XCTAssertEqual(g.length, results[0].length)
                XCTAssertEqual(g.scale, results[0].scale)
            }
        }
    }

    func testSmallInputs() throws {
        for method in GraphMethod.allCases {
            var (g, s) = try build(PointSet(), GraphOptions(method: method))
            XCTAssertEqual(g.nodeCount, 0)
            XCTAssertEqual(s.edges, 0)
            (g, s) = try build(PointSet(x: [3], y: [4]), GraphOptions(method: method))
            XCTAssertEqual(g.scale, [LocalScale.fallbackMetres])
            XCTAssertEqual(s.isolatedNodes, 1)
            // All points coincide: a star of zero-length edges, σ falls back.
            (g, s) = try build(PointSet(x: [3, 3, 3], y: [4, 4, 4]), GraphOptions(method: method))
            XCTAssertEqual(Set(g.edgeList.map { "\($0.0)-\($0.1)" }), ["0-1", "0-2"])
            XCTAssertEqual(g.scale, [1, 1, 1])
            XCTAssertEqual(s.duplicatesLinked, 2)
            (g, s) = try build(PointSet(x: [0, 30], y: [0, 40]), GraphOptions(method: method, scaleK: 5))
            XCTAssertEqual(g.edgeList.count, 1)
            XCTAssertEqual(g.length, [50, 50])
            XCTAssertEqual(g.scale, [50, 50])
        }
    }

    func testNonFiniteAndOutOfRangeCoordinatesAreRejected() {
        for (x, y, index) in [
            ([0, .nan, 1], [0, 1, 2], 1), ([0, 1], [.infinity, 1], 0), ([0, 1e31], [0, 0], 1),
            ([1e-40, 0], [0, 0], 0),
        ]
            as [([Double], [Double], Int)]
        {
            XCTAssertThrowsError(try build(PointSet(x: x, y: y), GraphOptions())) { error in
                let text = "\(error)"
                XCTAssertTrue(text.contains("point \(index) "), text)
            }
        }
    }
}
