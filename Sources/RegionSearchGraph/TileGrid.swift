import RegionSearchCore

/// The uniform grid of square cells over the data's bounding box that a tiled graph build uses to
/// choose which points a tile loads (whole cells) and to find the points it did not load.
///
/// A pure function of the coordinates and `pointsPerCell`, so every tile job computes the same
/// grid from the same projected artifact: the cell side makes the bounding box hold about
/// `n / pointsPerCell` cells (at most ``maxCells``).
public struct TileGrid: Sendable, Equatable {
    public let minX: Double
    public let minY: Double
    /// Cell side in metres.
    public let cell: Double
    public let columns: Int
    public let rows: Int

    /// Upper bound on the number of cells (keeps per-cell tables small).
    public static let maxCells = 1 << 22
    /// The default density of the grid.
    public static let defaultPointsPerCell = 256

    public var cellCount: Int { columns * rows }

    public init(x: UnsafeBufferPointer<Double>, y: UnsafeBufferPointer<Double>, pointsPerCell: Int) {
        let box = PointBounds(x: x, y: y)
        var (minX, minY, maxX, maxY) = (box.minX, box.minY, box.maxX, box.maxY)
        if x.isEmpty { (minX, minY, maxX, maxY) = (0, 0, 1, 1) }
        let w = maxX - minX
        let h = maxY - minY
        let target = Double(max(1, x.count / max(1, pointsPerCell)))
        var cell = max((w * h / target).squareRoot(), max(w, h) / 4096, 1e-6)
        while (w / cell).rounded(.up) * (h / cell).rounded(.up) > Double(Self.maxCells) { cell *= 1.25 }
        self.minX = minX
        self.minY = minY
        self.cell = cell
        columns = max(1, Int((w / cell).rounded(.down)) + 1)
        rows = max(1, Int((h / cell).rounded(.down)) + 1)
    }

    @inline(__always)
    public func column(_ x: Double) -> Int {
        let c = ((x - minX) / cell).rounded(.down)
        return c <= 0 ? 0 : (c >= Double(columns - 1) ? columns - 1 : Int(c))
    }

    @inline(__always)
    public func row(_ y: Double) -> Int {
        let r = ((y - minY) / cell).rounded(.down)
        return r <= 0 ? 0 : (r >= Double(rows - 1) ? rows - 1 : Int(r))
    }

    @inline(__always)
    public func cell(x: Double, y: Double) -> Int { row(y) * columns + column(x) }

    /// Cells within `radius` cells (Chebyshev distance) of a marked cell.
    func dilate(_ mask: [Bool], radius: Int) -> [Bool] {
        guard radius > 0 else { return mask }
        // Separable: rows, then columns, each with a running count.
        var across = [Bool](repeating: false, count: cellCount)
        for r in 0..<rows {
            var count = 0
            let base = r * columns
            for c in 0..<min(columns, radius) where mask[base + c] { count += 1 }
            for c in 0..<columns {
                if c + radius < columns && mask[base + c + radius] { count += 1 }
                if c - radius - 1 >= 0 && mask[base + c - radius - 1] { count -= 1 }
                across[base + c] = count > 0
            }
        }
        var out = [Bool](repeating: false, count: cellCount)
        for c in 0..<columns {
            var count = 0
            for r in 0..<min(rows, radius) where across[r * columns + c] { count += 1 }
            for r in 0..<rows {
                if r + radius < rows && across[(r + radius) * columns + c] { count += 1 }
                if r - radius - 1 >= 0 && across[(r - radius - 1) * columns + c] { count -= 1 }
                out[r * columns + c] = count > 0
            }
        }
        return out
    }
}
