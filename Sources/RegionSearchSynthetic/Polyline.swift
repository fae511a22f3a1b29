import Foundation

/// A polyline in local metres: its length, points along it, and "is this point within r of it?"
/// answered exactly through a grid of the segments near each cell.
struct Polyline {
    let x: [Double]
    let y: [Double]
    /// Cumulative length at each vertex.
    let along: [Double]
    private let radius: Double
    private let minX: Double
    private let minY: Double
    private let cell: Double
    private let columns: Int
    private let rows: Int
    /// CSR lists of the segments (index of their first vertex) that come within `radius` of each cell.
    private let cellStart: [Int32]
    private let cellSegments: [Int32]

    /// - Parameter radius: the largest distance ``isWithin(_:x:y:)`` is asked about.
    init(x: [Double], y: [Double], radius: Double) {
        precondition(x.count == y.count && x.count >= 2)
        self.x = x
        self.y = y
        var acc = [0.0]
        for i in 1..<x.count { acc.append(acc[i - 1] + hypot(x[i] - x[i - 1], y[i] - y[i - 1])) }
        along = acc
        self.radius = radius
        let x0 = x.min()! - radius
        let y0 = y.min()! - radius
        let width = x.max()! + radius - x0
        let height = y.max()! + radius - y0
        let size = max(radius, 25, max(width, height) / 4096)
        let c = Int(width / size) + 1
        let r = Int(height / size) + 1
        func range(_ i: Int) -> (ClosedRange<Int>, ClosedRange<Int>) {
            let lx = min(x[i], x[i + 1]) - radius
            let hx = max(x[i], x[i + 1]) + radius
            let ly = min(y[i], y[i + 1]) - radius
            let hy = max(y[i], y[i + 1]) + radius
            return (
                max(0, Int((lx - x0) / size))...min(c - 1, Int((hx - x0) / size)),
                max(0, Int((ly - y0) / size))...min(r - 1, Int((hy - y0) / size))
            )
        }
        var counts = [Int32](repeating: 0, count: c * r + 1)
        for i in 0..<(x.count - 1) {
            let (cs, rs) = range(i)
            for j in rs { for k in cs { counts[j * c + k + 1] += 1 } }
        }
        for k in 1..<counts.count { counts[k] += counts[k - 1] }
        var fill = counts
        var list = [Int32](repeating: 0, count: Int(counts[c * r]))
        for i in 0..<(x.count - 1) {
            let (cs, rs) = range(i)
            for j in rs {
                for k in cs {
                    list[Int(fill[j * c + k])] = Int32(i)
                    fill[j * c + k] += 1
                }
            }
        }
        minX = x0
        minY = y0
        cell = size
        columns = c
        rows = r
        cellStart = counts
        cellSegments = list
    }

    var length: Double { along.last! }

    /// The point at arc length `s` (clamped) and the unit normal to the left of the direction of travel.
    func point(at s: Double) -> (x: Double, y: Double, nx: Double, ny: Double) {
        let t = min(max(s, 0), length)
        var i = 0
        while i < x.count - 2 && along[i + 1] < t { i += 1 }
        let dx = x[i + 1] - x[i]
        let dy = y[i + 1] - y[i]
        let l = max(hypot(dx, dy), 1e-12)
        let f = (t - along[i]) / l
        return (x[i] + f * dx, y[i] + f * dy, -dy / l, dx / l)
    }

    /// Distance from a point to segment `i`.
    func segmentDistance(_ i: Int, _ px: Double, _ py: Double) -> Double {
        let dx = x[i + 1] - x[i]
        let dy = y[i + 1] - y[i]
        let l2 = dx * dx + dy * dy
        let t = l2 > 0 ? max(0, min(1, ((px - x[i]) * dx + (py - y[i]) * dy) / l2)) : 0
        return hypot(px - (x[i] + t * dx), py - (y[i] + t * dy))
    }

    /// Whether the point is within `r` (≤ the construction radius) of the polyline.
    func isWithin(_ r: Double, x px: Double, y py: Double) -> Bool {
        precondition(r <= radius)
        let i = Int(((px - minX) / cell).rounded(.down))
        let j = Int(((py - minY) / cell).rounded(.down))
        guard i >= 0, j >= 0, i < columns, j < rows else { return false }
        let c = j * columns + i
        for k in Int(cellStart[c])..<Int(cellStart[c + 1]) where segmentDistance(Int(cellSegments[k]), px, py) < r {
            return true
        }
        return false
    }

    /// The exact distance to the polyline (all segments; for tests and rare checks).
    func distance(x px: Double, y py: Double) -> Double {
        (0..<(x.count - 1)).map { segmentDistance($0, px, py) }.min()!
    }
}
