import RegionSearchCore

/// The points of the whole data set bucketed by ``TileGrid`` cell, and which cells a tile has
/// loaded; answers exactly whether any point the tile did *not* load lies in a disc or beyond a
/// line — the two questions that certify a tile's local triangulation as the global one.
///
/// Every answer errs only towards "yes, there may be one": a cell or disc test in floating point
/// only skips a cell when it is clearly clear, and each point it cannot skip is decided by the exact
/// predicates (``GeometricPredicates``).
struct TileWindow {
    let grid: TileGrid
    let x: UnsafeBufferPointer<Double>
    let y: UnsafeBufferPointer<Double>
    /// Cell of each point.
    let cellOf: [Int32]
    /// `cellPoints[cellStart[c] ..< cellStart[c + 1]]`: the points of cell c, ascending.
    let cellStart: [Int]
    let cellPoints: [UInt32]
    /// Per cell: the bounding box of its points (minX, minY, maxX, maxY).
    let cellBox: [Double]
    /// Loaded cells.
    private(set) var loaded: [Bool]
    /// Summed-area table of the points in cells not loaded ("blocked"), (columns+1) × (rows+1).
    private var blockedTable: [Int64] = []
    private(set) var blockedTotal = 0

    init(grid: TileGrid, x: UnsafeBufferPointer<Double>, y: UnsafeBufferPointer<Double>) {
        self.grid = grid
        self.x = x
        self.y = y
        let n = x.count
        let cells = grid.cellCount
        var cellOf = [Int32](repeating: 0, count: n)
        var start = [Int](repeating: 0, count: cells + 1)
        cellOf.withUnsafeMutableBufferPointer { out in
            let out = out
            Parallel.forRanges(n, minChunk: 1 << 16) { range in
                for i in range { out[i] = Int32(truncatingIfNeeded: grid.cell(x: x[i], y: y[i])) }
            }
        }
        for c in cellOf { start[Int(c) + 1] += 1 }
        for c in 0..<cells { start[c + 1] += start[c] }
        var fill = start
        var points = [UInt32](repeating: 0, count: n)
        var box = [Double](repeating: 0, count: 4 * cells)
        for c in 0..<cells {
            box[4 * c] = .infinity
            box[4 * c + 1] = .infinity
            box[4 * c + 2] = -.infinity
            box[4 * c + 3] = -.infinity
        }
        for i in 0..<n {
            let c = Int(cellOf[i])
            points[fill[c]] = UInt32(truncatingIfNeeded: i)
            fill[c] += 1
            box[4 * c] = min(box[4 * c], x[i])
            box[4 * c + 1] = min(box[4 * c + 1], y[i])
            box[4 * c + 2] = max(box[4 * c + 2], x[i])
            box[4 * c + 3] = max(box[4 * c + 3], y[i])
        }
        self.cellOf = cellOf
        cellStart = start
        cellPoints = points
        cellBox = box
        loaded = [Bool](repeating: false, count: cells)
    }

    func count(_ c: Int) -> Int { cellStart[c + 1] - cellStart[c] }

    /// Loads exactly the cells marked in `cells` and indexes the rest.
    mutating func load(_ cells: [Bool]) {
        loaded = cells
        let w = grid.columns
        let h = grid.rows
        var table = [Int64](repeating: 0, count: (w + 1) * (h + 1))
        var total = 0
        for r in 0..<h {
            var rowSum: Int64 = 0
            for c in 0..<w {
                let cell = r * w + c
                if !cells[cell] {
                    rowSum += Int64(count(cell))
                    total += count(cell)
                }
                table[(r + 1) * (w + 1) + c + 1] = table[r * (w + 1) + c + 1] + rowSum
            }
        }
        blockedTable = table
        blockedTotal = total
    }

    /// The loaded points, ascending.
    func loadedPoints() -> [UInt32] {
        var out: [UInt32] = []
        for i in 0..<cellOf.count where loaded[Int(cellOf[i])] { out.append(UInt32(truncatingIfNeeded: i)) }
        return out
    }

    /// Points outside the loaded cells in the cell rectangle [c0, c1] × [r0, r1] (inclusive).
    @inline(__always)
    func blocked(columns c0: Int, _ c1: Int, rows r0: Int, _ r1: Int) -> Int64 {
        let w = grid.columns + 1
        return blockedTable[(r1 + 1) * w + c1 + 1] - blockedTable[r0 * w + c1 + 1] - blockedTable[(r1 + 1) * w + c0]
            + blockedTable[r0 * w + c0]
    }

    /// Whether a point not loaded lies inside or on the circle through a, b, c (a triangle of
    /// the loaded points). True also when the circle cannot be computed reliably (a needle).
    func blockedPointInCircle(_ a: Int, _ b: Int, _ c: Int) -> Bool {
        var none: [Int]? = nil
        return blockedPointInCircle(a, b, c, offenders: &none)
    }

    /// The cells holding a point not loaded inside or on the circle through a, b, c (every such
    /// cell; a needle's circle cannot be trusted, so then every candidate cell).
    func blockedCellsInCircle(_ a: Int, _ b: Int, _ c: Int) -> [Int] {
        var cells: [Int]? = []
        _ = blockedPointInCircle(a, b, c, offenders: &cells)
        return cells ?? []
    }

    /// Whether a point not loaded lies inside or on the circle; with `offenders` non-nil, also
    /// collects every cell that holds one (instead of stopping at the first).
    private func blockedPointInCircle(_ a: Int, _ b: Int, _ c: Int, offenders: inout [Int]?) -> Bool {
        guard blockedTotal > 0 else { return false }
        let (ax, ay, bx, by, cx, cy) = (x[a], y[a], x[b], y[b], x[c], y[c])
        let det = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)
        let longest = max(
            (bx - ax) * (bx - ax) + (by - ay) * (by - ay), (cx - ax) * (cx - ax) + (cy - ay) * (cy - ay),
            (cx - bx) * (cx - bx) + (cy - by) * (cy - by))
        let (ox, oy) = DelaunayTriangulation.circumcenter(ax, ay, bx, by, cx, cy)
        let r = ((ax - ox) * (ax - ox) + (ay - oy) * (ay - oy)).squareRoot()
        let reach = r * (1 + 1e-7) + 1e-7 * (abs(ox) + abs(oy)) + 1e-9
        // Too thin for a centre within that margin: uncertified.
        guard abs(det) > 1e-9 * longest, ox.isFinite, oy.isFinite, reach.isFinite else {
            if offenders != nil { offenders = nil }
            return true
        }
        let clockwise = GeometricPredicates.orient2d(ax, ay, bx, by, cx, cy) < 0
        let g = grid
        let c0 = g.column(ox - reach)
        let c1 = g.column(ox + reach)
        let r0 = g.row(oy - reach)
        let r1 = g.row(oy + reach)
        if blocked(columns: c0, c1, rows: r0, r1) == 0 { return false }
        var found = false
        for row in r0...r1 {
            let y0 = g.minY + Double(row) * g.cell
            let y1 = y0 + g.cell
            let dy = max(0, y0 - oy, oy - y1)
            if dy > reach { continue }
            let half = (reach * reach - min(dy * dy, reach * reach)).squareRoot()
            let ca = g.column(ox - half)
            let cb = g.column(ox + half)
            if blocked(columns: ca, cb, rows: row, row) == 0 { continue }
            for col in ca...cb {
                let cell = row * g.columns + col
                if loaded[cell] || count(cell) == 0 { continue }
                // The cell's points' bounding box against the disc.
                let bx0 = cellBox[4 * cell]
                let by0 = cellBox[4 * cell + 1]
                let bx1 = cellBox[4 * cell + 2]
                let by1 = cellBox[4 * cell + 3]
                let ddx = max(0, bx0 - ox, ox - bx1)
                let ddy = max(0, by0 - oy, oy - by1)
                if ddx * ddx + ddy * ddy > reach * reach { continue }
                for k in cellStart[cell]..<cellStart[cell + 1] {
                    let p = Int(cellPoints[k])
                    let s = GeometricPredicates.incircle(ax, ay, bx, by, cx, cy, x[p], y[p])
                    if clockwise ? s <= 0 : s >= 0 {
                        found = true
                        if offenders == nil { return true }
                        offenders!.append(cell)
                        break
                    }
                }
            }
        }
        return found
    }

    /// Whether a point not loaded lies strictly on the outer side of the hull edge a → b (the side
    /// away from its triangle, whose third corner is `inner`) or on the open segment between them.
    func blockedPointBeyond(_ a: Int, _ b: Int, inner: Int) -> Bool { blockedCellBeyond(a, b, inner: inner) != nil }

    /// A cell holding a point not loaded beyond the hull edge a → b (or on its open segment),
    /// scanning rows outwards from the edge's: nil when there is none.
    func blockedCellBeyond(_ a: Int, _ b: Int, inner: Int) -> Int? {
        guard blockedTotal > 0 else { return nil }
        let (ax, ay, bx, by) = (x[a], y[a], x[b], y[b])
        let side = GeometricPredicates.orient2d(ax, ay, bx, by, x[inner], y[inner])
        guard side != 0 else { return grid.cell(x: ax, y: ay) }
        // outer(p) > 0 on the far side.
        @inline(__always) func outer(_ px: Double, _ py: Double) -> Double {
            let o = GeometricPredicates.orient2d(ax, ay, bx, by, px, py)
            return side < 0 ? o : -o
        }
        let g = grid
        let startRow = g.row((ay + by) / 2)
        var order: [Int] = [startRow]
        var step = 1
        while startRow - step >= 0 || startRow + step < g.rows {
            if startRow + step < g.rows { order.append(startRow + step) }
            if startRow - step >= 0 { order.append(startRow - step) }
            step += 1
        }
        // The outer side as A·x + B·y + C ≥ 0 in floating point, only to narrow each row to the
        // columns it can reach (widened by a cell); the exact test decides every point.
        let s: Double = side < 0 ? 1 : -1
        let coefA = -s * (by - ay)
        let coefB = s * (bx - ax)
        let coefC = s * ((by - ay) * ax - (bx - ax) * ay)
        for row in order {
            let y0 = g.minY + Double(row) * g.cell
            let y1 = y0 + g.cell
            var c0 = 0
            var c1 = g.columns - 1
            if coefA == 0 {
                if max(coefB * y0, coefB * y1) + coefC < -abs(coefB) * g.cell { continue }
            } else {
                let xa = (-coefC - coefB * y0) / coefA
                let xb = (-coefC - coefB * y1) / coefA
                if coefA > 0 {
                    c0 = g.column(min(xa, xb) - g.cell)
                } else {
                    c1 = g.column(max(xa, xb) + g.cell)
                }
                if !(xa.isFinite && xb.isFinite) { (c0, c1) = (0, g.columns - 1) }
            }
            guard c0 <= c1, blocked(columns: c0, c1, rows: row, row) > 0 else { continue }
            for col in c0...c1 {
                let cell = row * g.columns + col
                if loaded[cell] || count(cell) == 0 { continue }
                let bx0 = cellBox[4 * cell]
                let by0 = cellBox[4 * cell + 1]
                let bx1 = cellBox[4 * cell + 2]
                let by1 = cellBox[4 * cell + 3]
                // All four corners strictly inside: the whole box is (the side is a half-plane).
                if outer(bx0, by0) < 0 && outer(bx1, by0) < 0 && outer(bx0, by1) < 0 && outer(bx1, by1) < 0 {
                    continue
                }
                for k in cellStart[cell]..<cellStart[cell + 1] {
                    let p = Int(cellPoints[k])
                    let o = outer(x[p], y[p])
                    if o > 0 { return cell }
                    if o == 0 {
                        let inside =
                            ax != bx
                            ? (min(ax, bx) < x[p] && x[p] < max(ax, bx)) : (min(ay, by) < y[p] && y[p] < max(ay, by))
                        if inside { return cell }
                    }
                }
            }
        }
        return nil
    }
}
