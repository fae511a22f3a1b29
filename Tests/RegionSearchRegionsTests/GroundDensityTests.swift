import XCTest

@testable import RegionSearchCore
@testable import RegionSearchGraph
@testable import RegionSearchModel
@testable import RegionSearchRegions

/// The ground's POI density around each POI over the data's (``GroundDensity``) against a
/// brute-force count over every pair of POIs, on a dense and a sparse piece of city: 10 km apart
/// (a grid over the whole box) and 2,000 km apart (only the occupied cells kept).
final class GroundDensityTests: XCTestCase {
    func testSharesAreTheWindowsDensityOverTheDatasCappedAtOne() throws {
        try checkAgainstBruteForce(sparseOffset: 13_000)
        try checkAgainstBruteForce(sparseOffset: 2_000_000)
    }

    func checkAgainstBruteForce(sparseOffset: Double, file: StaticString = #filePath, line: UInt = #line) throws {
        var rng = SeededRandom(seed: 21)
        var x: [Double] = []
        var y: [Double] = []
        // A dense square (3,600 POIs on 9 km²) and, 10 km east, a sparse one (400 POIs on 9 km²).
        for _ in 0..<3_600 {
            x.append(rng.uniform(0, 3_000))
            y.append(rng.uniform(0, 3_000))
        }
        for _ in 0..<400 {
            x.append(sparseOffset + rng.uniform(0, 3_000))
            y.append(rng.uniform(0, 3_000))
        }
        let (graph, _) = try x.withUnsafeBufferPointer { bx in
            try y.withUnsafeBufferPointer { by in try GraphBuilder.build(x: bx, y: by, options: GraphOptions()) }
        }
        let owned = DensityRegionFinder.ownedGround(graph: graph, scaleK: 5)
        let ground = GroundDensity(x: Column(x), y: Column(y), ground: owned, windowPOIs: 300)

        // Brute force: every POI's window is the 3 × 3 cells around its own; every other POI in
        // one of them counts, with the ground it occupies.
        let n = x.count
        let density = Double(n) / owned.reduce(0, +)
        XCTAssertEqual(ground.cellSize, (300 / (9 * density)).squareRoot(), accuracy: 1e-9, file: file, line: line)
        let cell = ground.cellSize
        let (minX, minY) = (x.min()!, y.min()!)
        let cx = x.map { Int(($0 - minX) / cell) }
        let cy = y.map { Int(($0 - minY) / cell) }
        for i in 0..<n {
            var count = 0.0
            var area = 0.0
            for j in 0..<n where abs(cx[j] - cx[i]) <= 1 && abs(cy[j] - cy[i]) <= 1 {
                count += 1
                area += owned[j]
            }
            let expected = min(1, count / area / density)
            XCTAssertEqual(ground.share[i], expected, accuracy: 1e-9 * expected, "POI \(i)", file: file, line: line)
        }
        // The dense square is the data's density or more (capped at 1); the sparse one a fraction
        // of it, near the ratio of the two squares' densities over the data's.
        let denseShares = ground.share[0..<3_600]
        let sparseShares = ground.share[3_600...]
        XCTAssertGreaterThan(denseShares.filter { $0 == 1 }.count, 3_000, file: file, line: line)
        let sparseMedian = Selection.median(Array(sparseShares))
        XCTAssertLessThan(sparseMedian, 0.3, file: file, line: line)
        XCTAssertGreaterThan(sparseMedian, 0.05, file: file, line: line)
    }

    func testWithoutAWindowEveryShareIsOne() throws {
        let x = [0.0, 10, 20, 0, 10, 20, 0, 10, 20]
        let y = [0.0, 0, 0, 10, 10, 10, 20, 20, 20]
        let (graph, _) = try x.withUnsafeBufferPointer { bx in
            try y.withUnsafeBufferPointer { by in try GraphBuilder.build(x: bx, y: by, options: GraphOptions()) }
        }
        let owned = DensityRegionFinder.ownedGround(graph: graph, scaleK: 5)
        let ground = GroundDensity(x: Column(x), y: Column(y), ground: owned, windowPOIs: 0)
        XCTAssertEqual(ground.share, [Double](repeating: 1, count: 9))
    }
}
