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

    /// The cells holding a point not loaded inside or on the circumcircle of a, b, c that lie
    /// nearest to `anchor` (a corner the window must certify): those within two cells of the
    /// nearest one. Where the window must grow for that corner's triangles to become the global
    /// ones — not the whole circle: a triangle bridging a concave bend of the window, or closing
    /// the window's hull over another tile, has a huge circle, but the corner only needs the
    /// points next to it; the next round finds the rest. (Empty for a needle, whose circle is not
    /// trusted.)
    func blockedCellsInCircle(_ a: Int, _ b: Int, _ c: Int, nearestTo anchor: Int) -> [Int] {
        var cells: [Int]? = []
        _ = blockedPointInCircle(a, b, c, offenders: &cells)
        guard let found = cells, !found.isEmpty else { return [] }
        let ax = grid.column(x[anchor])
        let ay = grid.row(y[anchor])
        func distance(_ cell: Int) -> Int { max(abs(cell % grid.columns - ax), abs(cell / grid.columns - ay)) }
        let nearest = found.map(distance).min()!
        return found.filter { distance($0) <= nearest + 2 }
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

    /// The convex hull of the whole data set, with the points on its edges: global indices in order
    /// around it (one per location, the lowest index), or empty when all points are collinear.
    ///
    /// A point can only be on the hull if its cell's bounding box is not strictly inside the octagon
    /// of the data's extreme points in eight directions (Akl–Toussaint), so only the boundary cells
    /// are sorted; Andrew's monotone chain with exact orientation keeps collinear boundary points,
    /// which the Delaunay triangulation joins in a row.
    func globalHull() -> [Int] {
        let n = x.count
        guard n >= 3 else { return [] }
        // Extreme points along x, y, x + y, x − y (ties by index: the first).
        var best = [Int](repeating: 0, count: 8)
        func key(_ i: Int, _ d: Int) -> Double {
            switch d {
            case 0: return x[i]
            case 1: return x[i] + y[i]
            case 2: return y[i]
            case 3: return y[i] - x[i]
            case 4: return -x[i]
            case 5: return -x[i] - y[i]
            case 6: return -y[i]
            default: return x[i] - y[i]
            }
        }
        for i in 1..<n {
            for d in 0..<8 where key(i, d) > key(best[d], d) { best[d] = i }
        }
        // The octagon, counter-clockwise (directions in angular order), without repeats.
        var octagon: [Int] = []
        for i in best where !octagon.contains(where: { x[$0] == x[i] && y[$0] == y[i] }) { octagon.append(i) }
        func strictlyInside(_ px: Double, _ py: Double) -> Bool {
            guard octagon.count >= 3 else { return false }
            for k in 0..<octagon.count {
                let a = octagon[k]
                let b = octagon[(k + 1) % octagon.count]
                if GeometricPredicates.orient2d(x[a], y[a], x[b], y[b], px, py) <= 0 { return false }
            }
            return true
        }
        var candidates: [Int] = []
        for c in 0..<grid.cellCount where count(c) > 0 {
            let (x0, y0, x1, y1) = (cellBox[4 * c], cellBox[4 * c + 1], cellBox[4 * c + 2], cellBox[4 * c + 3])
            if strictlyInside(x0, y0) && strictlyInside(x1, y0) && strictlyInside(x0, y1) && strictlyInside(x1, y1) {
                continue
            }
            for k in cellStart[c]..<cellStart[c + 1] where !strictlyInside(x[Int(cellPoints[k])], y[Int(cellPoints[k])])
            {
                candidates.append(Int(cellPoints[k]))
            }
        }
        candidates.sort { a, b in x[a] != x[b] ? x[a] < x[b] : (y[a] != y[b] ? y[a] < y[b] : a < b) }
        var sorted: [Int] = []
        for i in candidates where sorted.last.map({ x[$0] != x[i] || y[$0] != y[i] }) ?? true { sorted.append(i) }
        guard sorted.count >= 3 else { return [] }
        func chain(_ points: [Int]) -> [Int] {
            var h: [Int] = []
            for p in points {
                while h.count >= 2,
                    GeometricPredicates.orient2d(
                        x[h[h.count - 2]], y[h[h.count - 2]], x[h[h.count - 1]], y[h[h.count - 1]], x[p], y[p]) < 0
                {
                    h.removeLast()
                }
                h.append(p)
            }
            return h
        }
        let lower = chain(sorted)
        let upper = chain(sorted.reversed())
        // All collinear: the chains retrace each other and there is no area.
        if lower.count == sorted.count && upper.count == sorted.count { return [] }
        return Array(lower.dropLast()) + Array(upper.dropLast())
    }

    /// The cells within one cell of the segment from point a to point b.
    func cellsAlong(_ a: Int, _ b: Int) -> [Int] {
        let length = ((x[b] - x[a]) * (x[b] - x[a]) + (y[b] - y[a]) * (y[b] - y[a])).squareRoot()
        let steps = max(1, Int((2 * length / grid.cell).rounded(.up)))
        var out = Set<Int>()
        for s in 0...steps {
            let t = Double(s) / Double(steps)
            let c = grid.column(x[a] + t * (x[b] - x[a]))
            let r = grid.row(y[a] + t * (y[b] - y[a]))
            for dr in -1...1 {
                for dc in -1...1 {
                    let rr = r + dr
                    let cc = c + dc
                    if rr >= 0 && rr < grid.rows && cc >= 0 && cc < grid.columns { out.insert(rr * grid.columns + cc) }
                }
            }
        }
        return out.sorted()
    }
}
