import XCTest

@testable import RegionSearchGraph
@testable import RegionSearchModel
@testable import RegionSearchTestSupport

/// A tiled graph build gathers into exactly the single build: every column and count, for both
/// methods, any number of tiles, any first halo.
final class GraphTileTests: XCTestCase {
    private func tiled(_ p: PointSet, tiles: Int, options: GraphOptions, halo: Int = 1, pointsPerCell: Int = 64)
        throws -> (graph: AdjacencyGraph, statistics: GraphStatistics, rounds: [Int])
    {
        try p.x.withUnsafeBufferPointer { x in
            try p.y.withUnsafeBufferPointer { y in
                let grid = TileGrid(x: x, y: y, pointsPerCell: pointsPerCell)
                var parts: [GraphTilePart] = []
                for t in 0..<tiles {
                    let core = (t * p.count / tiles)..<((t + 1) * p.count / tiles)
                    parts.append(
                        try GraphTile.build(x: x, y: y, core: core, grid: grid, options: options, haloCells: halo))
                }
                let (g, s) = try GraphTile.gather(parts: parts, nodeCount: p.count, options: options)
                return (g, s, parts.map { $0.loadedPerRound.count })
            }
        }
    }

    private func single(_ p: PointSet, options: GraphOptions) throws -> (AdjacencyGraph, GraphStatistics) {
        try p.x.withUnsafeBufferPointer { x in
            try p.y.withUnsafeBufferPointer { y in try GraphBuilder.build(x: x, y: y, options: options) }
        }
    }

    private func assertSame(
        _ a: (AdjacencyGraph, GraphStatistics),
        _ b: (graph: AdjacencyGraph, statistics: GraphStatistics, rounds: [Int]),
        _ label: String, file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertEqual(Array(a.0.offsets), Array(b.graph.offsets), "\(label): offsets", file: file, line: line)
        XCTAssertEqual(Array(a.0.neighbors), Array(b.graph.neighbors), "\(label): neighbours", file: file, line: line)
        XCTAssertEqual(
            a.0.length.map(\.bitPattern), b.graph.length.map(\.bitPattern), "\(label): lengths", file: file,
            line: line)
        XCTAssertEqual(
            a.0.scale.map(\.bitPattern), b.graph.scale.map(\.bitPattern), "\(label): scales", file: file, line: line)
        let s = a.1
        let t = b.statistics
        XCTAssertEqual(
            [
                s.nodes, s.locations, s.duplicatesLinked, s.edgesBeforePruning, s.droppedByMaxEdge,
                s.droppedByLocalScale, s.droppedByEmptyBand, s.edges, s.isolatedNodes,
            ],
            [
                t.nodes, t.locations, t.duplicatesLinked, t.edgesBeforePruning, t.droppedByMaxEdge,
                t.droppedByLocalScale, t.droppedByEmptyBand, t.edges, t.isolatedNodes,
            ], "\(label): counts", file: file, line: line)
        XCTAssertEqual(s.medianScale.bitPattern, t.medianScale.bitPattern, "\(label): median", file: file, line: line)
    }

    func testTilesGatherIntoTheSingleGraph() throws {
        let sets: [(String, PointSet)] = [
            ("clustered", PointSet.clustered(4000, seed: 3).hilbertSorted()),
            ("stacked", PointSet.clustered(2000, seed: 4).withDuplicates(700, seed: 5).hilbertSorted()),
            ("lattice", PointSet.grid(50, 40).hilbertSorted()),
        ]
        for (name, p) in sets {
            for method in GraphMethod.allCases {
                let options = GraphOptions(method: method)
                let reference = try single(p, options: options)
                if name != "lattice" {
                    XCTAssertGreaterThan(reference.1.droppedByEmptyBand + reference.1.droppedByLocalScale, 0, name)
                }
                for tiles in [1, 2, 7, 16] {
                    let result = try tiled(p, tiles: tiles, options: options)
                    assertSame(reference, result, "\(name) \(method) \(tiles) tiles")
                }
            }
        }
    }

    /// A first window of the tile's own cells only cannot be certified; the tile grows it and
    /// still gathers into the single graph.
    func testASmallFirstHaloGrows() throws {
        let p = PointSet.clustered(5000, seed: 11).hilbertSorted()
        let options = GraphOptions()
        let reference = try single(p, options: options)
        let result = try tiled(p, tiles: 4, options: options, halo: 0, pointsPerCell: 16)
        assertSame(reference, result, "halo 0")
        XCTAssertTrue(result.rounds.allSatisfy { $0 > 1 }, "every tile should have grown: \(result.rounds)")
    }
}
