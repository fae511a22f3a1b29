import RegionSearchCore
import RegionSearchModel

/// All POIs within a distance of a place, by a uniform grid of square cells over the data: the
/// POIs of a street around a stretch the POI graph leaves in pieces (``StreetRunOn``), where a
/// walk of the graph would not reach them.
///
/// Cells are numbered row by row over the data's box, as wide as holds `perCell` POIs on average
/// over it (so about n / `perCell` cells, stored densely), each a range of POI indices. A
/// query's answer is in POI index order, whatever the cells.
struct PointBuckets: Sendable {
    /// POIs per cell on average over the data's box.
    static let perCell = 16.0
    let cell: Double
    private let minX: Double
    private let minY: Double
    // The grid's size in cells.
    private let columns: Int
    private let rows: Int
    /// POI indices by cell (row by row), by index within a cell; cell c holds
    /// `order[start[c]..<start[c + 1]]`.
    private let order: [UInt32]
    private let start: [Int]

    /// A grid over the points (x, y). The box holds about n / `perCell` cells, so the grid is
    /// dense, and a counting sort fills it in two passes.
    init(x: Column<Double>, y: Column<Double>) {
        let n = x.count
        let box = PointBounds(x: x, y: y)
        let (width, height) = (box.maxX - box.minX, box.maxY - box.minY)
        var (cell, columns, rows) = (Double.infinity, 1, 1)
        if n > 0 && width.isFinite && height.isFinite {
            // At least a metre, and no more cells than POIs along either side: data along one
            // line has a box of no area.
            let even = (width * height / Double(n) * Self.perCell).squareRoot()
            cell = max(even, 1, max(width, height) / Double(n))
            columns = Int(width / cell) + 1
            rows = Int(height / cell) + 1
        }  // else no box (no POIs, or a coordinate that is not finite): one cell holds them all.
        // A coordinate that is not finite goes to the first cell, so it is still looked at.
        func slot(_ offset: Double, _ count: Int) -> Int {
            let v = offset / cell
            return v.isFinite && v > 0 ? min(count - 1, Int(v)) : 0
        }
        var start = [Int](repeating: 0, count: columns * rows + 1)
        var cellOf = [Int32](repeating: 0, count: n)
        for i in 0..<n {
            let c = slot(x[i] - box.minX, columns) + columns * slot(y[i] - box.minY, rows)
            cellOf[i] = Int32(c)
            start[c + 1] += 1
        }
        for c in 0..<(columns * rows) { start[c + 1] += start[c] }
        var next = start
        var order = [UInt32](repeating: 0, count: n)
        for i in 0..<n {
            let c = Int(cellOf[i])
            order[next[c]] = UInt32(i)
            next[c] += 1
        }
        (self.cell, self.columns, self.rows, self.minX, self.minY) = (cell, columns, rows, box.minX, box.minY)
        (self.order, self.start) = (order, start)
    }

    /// The POIs within `radius` of (cx, cy), in index order.
    func within(_ radius: Double, of cx: Double, _ cy: Double, x: Column<Double>, y: Column<Double>) -> [UInt32] {
        guard !order.isEmpty, radius >= 0 else { return [] }
        let r2 = radius * radius
        // The cells the disc's box covers, clamped to the grid (and the whole grid when the
        // query or the grid has no finite extent).
        func range(_ lo: Double, _ hi: Double, _ origin: Double, _ count: Int) -> ClosedRange<Int>? {
            let (a, b) = ((lo - origin) / cell, (hi - origin) / cell)
            guard a.isFinite, b.isFinite else { return 0...(count - 1) }
            guard b >= 0, a < Double(count) else { return nil }
            // Clamped before the conversion: a reach beyond Int's range would trap.
            return Int(max(0, a))...Int(min(Double(count - 1), b))
        }
        guard let columnRange = range(cx - radius, cx + radius, minX, columns),
            let rowRange = range(cy - radius, cy + radius, minY, rows)
        else { return [] }
        let (c0, c1) = (columnRange.lowerBound, columnRange.upperBound)
        var out: [UInt32] = []
        for row in rowRange {
            for c in (c0 + columns * row)...(c1 + columns * row) {
                for i in order[start[c]..<start[c + 1]] {
                    let dx = x[Int(i)] - cx
                    let dy = y[Int(i)] - cy
                    if dx * dx + dy * dy <= r2 { out.append(i) }
                }
            }
        }
        out.sort()
        return out
    }
}
