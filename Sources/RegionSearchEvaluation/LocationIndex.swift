/// The distinct locations of a set of points (coincident points count once) in a uniform grid,
/// answering "how far is the k-th nearest *other* location?" exactly.
///
/// This is the evaluation's own copy of the project's local spacing (`graph.scale_k`: the
/// distance to the 5th nearest other location), kept apart from RegionSearchGraph so that the
/// instrument does not share code with what it measures. The search visits grid rings outwards
/// from the query's cell and stops once the k-th best distance is no larger than the distance
/// to the first unvisited ring, so the answer equals a brute-force scan (tested against one).
struct LocationIndex {
    /// Distinct locations, grouped by grid cell (CSR: `cellStart[c]..<cellStart[c+1]`).
    private let xs: [Double]
    private let ys: [Double]
    private let cellStart: [Int32]
    private let minX: Double
    private let minY: Double
    private let cell: Double
    private let columns: Int
    private let rows: Int

    /// Distinct locations held.
    var count: Int { xs.count }

    /// Indexes the distinct positions among `x`, `y` (exactly equal coordinates are one location).
    init(x: [Double], y: [Double]) {
        precondition(x.count == y.count)
        var order = Array(0..<x.count)
        order.sort { x[$0] != x[$1] ? x[$0] < x[$1] : y[$0] < y[$1] }
        var ux: [Double] = []
        var uy: [Double] = []
        for i in order where ux.last != x[i] || uy.last != y[i] {
            ux.append(x[i])
            uy.append(y[i])
        }
        let n = ux.count
        let x0 = ux.min() ?? 0
        let x1 = ux.max() ?? 0
        let y0 = uy.min() ?? 0
        let y1 = uy.max() ?? 0
        // About two locations per cell over the bounding box (or along it, for points on a line),
        // at most 2048 cells a side.
        let width = max(x1 - x0, 1e-6)
        let height = max(y1 - y0, 1e-6)
        let m = Double(max(n, 1))
        let size = max((width * height * 2 / m).squareRoot(), max(width, height) * 2 / m, max(width, height) / 2048)
        let c = max(1, Int(width / size) + 1)
        let r = max(1, Int(height / size) + 1)
        var counts = [Int32](repeating: 0, count: c * r + 1)
        func cellOf(_ px: Double, _ py: Double) -> Int {
            let i = min(c - 1, max(0, Int((px - x0) / size)))
            let j = min(r - 1, max(0, Int((py - y0) / size)))
            return j * c + i
        }
        for k in 0..<n { counts[cellOf(ux[k], uy[k]) + 1] += 1 }
        for k in 1..<counts.count { counts[k] += counts[k - 1] }
        var fill = counts
        var sx = [Double](repeating: 0, count: n)
        var sy = [Double](repeating: 0, count: n)
        for k in 0..<n {
            let cellIndex = cellOf(ux[k], uy[k])
            let at = Int(fill[cellIndex])
            sx[at] = ux[k]
            sy[at] = uy[k]
            fill[cellIndex] += 1
        }
        xs = sx
        ys = sy
        cellStart = counts
        minX = x0
        minY = y0
        cell = size
        columns = c
        rows = r
    }

    /// Whether a location lies exactly at (`x`, `y`).
    func contains(x: Double, y: Double) -> Bool {
        let i = min(columns - 1, max(0, Int(((x - minX) / cell).rounded(.down))))
        let j = min(rows - 1, max(0, Int(((y - minY) / cell).rounded(.down))))
        let c = j * columns + i
        return (Int(cellStart[c])..<Int(cellStart[c + 1])).contains { xs[$0] == x && ys[$0] == y }
    }

    /// The distance from (`x`, `y`) to its k-th nearest location other than a location exactly
    /// at (`x`, `y`); nil when fewer than `k` other locations exist.
    func kthNearestOther(x: Double, y: Double, k: Int) -> Double? {
        precondition(k >= 1)
        guard xs.count > k || (xs.count == k && !contains(x: x, y: y)) else { return nil }
        // The k smallest squared distances so far, ascending.
        var best: [Double] = []
        best.reserveCapacity(k + 1)
        let ci = min(columns - 1, max(0, Int(((x - minX) / cell).rounded(.down))))
        let cj = min(rows - 1, max(0, Int(((y - minY) / cell).rounded(.down))))
        // Distance from the query to the outside of its own cell's (2r+1)² block: every location
        // not yet visited after ring r is at least this far.
        let inX = x - (minX + Double(ci) * cell)
        let inY = y - (minY + Double(cj) * cell)
        let margin = max(0, min(inX, cell - inX, inY, cell - inY))
        let maxRing = max(columns, rows)
        var ring = 0
        while ring <= maxRing {
            let i0 = ci - ring
            let i1 = ci + ring
            let j0 = cj - ring
            let j1 = cj + ring
            for j in max(0, j0)...min(rows - 1, j1) {
                // Edge rows of the ring are visited whole, the rows between only at its two columns.
                let whole = j == j0 || j == j1
                let first = max(0, i0)
                let last = min(columns - 1, i1)
                var i = whole ? first : i0
                while i <= (whole ? last : i1) {
                    defer { i += whole || ring == 0 ? 1 : 2 * ring }
                    guard i >= 0 && i < columns else { continue }
                    let c = j * columns + i
                    for p in Int(cellStart[c])..<Int(cellStart[c + 1]) {
                        let dx = xs[p] - x
                        let dy = ys[p] - y
                        let d = dx * dx + dy * dy
                        if xs[p] == x && ys[p] == y { continue }  // the query's own location
                        if best.count == k, d >= best[k - 1] { continue }
                        var at = best.count
                        while at > 0 && best[at - 1] > d { at -= 1 }
                        best.insert(d, at: at)
                        if best.count > k { best.removeLast() }
                    }
                }
            }
            let reach = Double(ring) * cell + margin
            if best.count == k && best[k - 1] <= reach * reach { break }
            if i0 <= 0 && j0 <= 0 && i1 >= columns - 1 && j1 >= rows - 1 { break }  // the whole grid is visited
            ring += 1
        }
        return best.count == k ? best[k - 1].squareRoot() : nil
    }
}
