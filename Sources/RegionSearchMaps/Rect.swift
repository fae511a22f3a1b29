/// An axis-aligned rectangle in pixels (y down).
struct Rect: Equatable {
    var x, y, w, h: Double

    var center: (x: Double, y: Double) { (x + w / 2, y + h / 2) }

    /// The bounding box of points; nil for none.
    static func bounding(_ points: [(x: Double, y: Double)]) -> Rect? {
        guard let x0 = points.map(\.x).min(), let x1 = points.map(\.x).max(), let y0 = points.map(\.y).min(),
            let y1 = points.map(\.y).max()
        else { return nil }
        return Rect(x: x0, y: y0, w: x1 - x0, h: y1 - y0)
    }

    func contains(_ r: Rect) -> Bool { r.x >= x && r.y >= y && r.x + r.w <= x + w && r.y + r.h <= y + h }

    /// Whether the rectangles overlap, or come closer than `margin`.
    func intersects(_ r: Rect, margin: Double = 0) -> Bool {
        x - margin < r.x + r.w && r.x - margin < x + w && y - margin < r.y + r.h && r.y - margin < y + h
    }
}
