import Foundation
import XCTest

/// Writes `projected` artifacts for benchmarking `regionsearch-graph` when
/// `RS_GRAPH_BENCH_DIR` is set (skipped otherwise): clustered city-like points with 5%
/// duplicates, in Hilbert order, at the sizes listed in `RS_GRAPH_BENCH_SIZES` (default
/// 100000,1000000), as `DIR/projected-N.rsa`. `RS_GRAPH_BENCH_LAYOUT=circle` writes points on a
/// circle instead (convex position, a worst case for hull bookkeeping), as `DIR/circle-N.rsa`.
final class GraphBenchmarkInputs: XCTestCase {
    func testWriteBenchmarkInputs() throws {
        guard let dir = ProcessInfo.processInfo.environment["RS_GRAPH_BENCH_DIR"] else {
            throw XCTSkip("set RS_GRAPH_BENCH_DIR to write benchmark inputs")
        }
        let sizes = (ProcessInfo.processInfo.environment["RS_GRAPH_BENCH_SIZES"] ?? "100000,1000000")
            .split(separator: ",").compactMap { Int($0) }
        let circle = ProcessInfo.processInfo.environment["RS_GRAPH_BENCH_LAYOUT"] == "circle"
        for n in sizes {
            var points: PointSet
            if circle {
                var r = GraphTestRandom(seed: UInt64(n))
                points = PointSet()
                for _ in 0..<n {
                    let a = r.uniform() * 2 * Double.pi
                    points.x.append(PointSet.originX + 20_000 * cos(a))
                    points.y.append(PointSet.originY + 20_000 * sin(a))
                }
                points = points.hilbertSorted()
            } else {
                let base = PointSet.clustered(n - n / 20, seed: UInt64(n), side: 40_000)
                points = base.withDuplicates(n / 20, seed: 7).hilbertSorted()
            }
            let path = dir + (circle ? "/circle-\(n).rsa" : "/projected-\(n).rsa")
            try points.writeProjected(to: path)
            XCTAssertEqual(points.count, n)
        }
    }
}
