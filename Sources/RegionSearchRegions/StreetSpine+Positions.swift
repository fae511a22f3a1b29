import Foundation
import RegionSearchCore

extension StreetSpine {
    /// The spine of the keyword-graph positions `positions` over those of `edges` that join two of
    /// them (taken in `edges`' order, each as long as its ends are apart); `point` gives a
    /// position's coordinates. Nil as ``init(x:y:edges:minimumHalfWidth:)`` says.
    init?(
        positions: [Int32], edges: [(a: Int32, b: Int32)], minimumHalfWidth: Double,
        point: (Int32) -> (x: Double, y: Double)
    ) {
        var at = [Int32: Int]()
        for (j, p) in positions.enumerated() { at[p] = j }
        let points = positions.map(point)
        let spineEdges = edges.compactMap { e -> (a: Int, b: Int, length: Double)? in
            guard let a = at[e.a], let b = at[e.b] else { return nil }
            return (a, b, hypot(points[a].x - points[b].x, points[a].y - points[b].y))
        }
        self.init(x: points.map(\.x), y: points.map(\.y), edges: spineEdges, minimumHalfWidth: minimumHalfWidth)
    }
}
