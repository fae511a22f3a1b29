/// The axis-aligned box of a set of points: the smallest and largest x and y.
///
/// Infinite with the wrong sign (min +∞, max −∞) for no points, so a caller that needs a box for
/// empty data chooses its own.
public struct PointBounds: Sendable, Equatable {
    public var minX: Double
    public var minY: Double
    public var maxX: Double
    public var maxY: Double

    /// The box of the points (x[i], y[i]) over the indices of `x` (`y` has at least as many).
    @inlinable
    public init<C: RandomAccessCollection>(x: C, y: C) where C.Element == Double, C.Index == Int {
        var minX = Double.infinity
        var minY = Double.infinity
        var maxX = -Double.infinity
        var maxY = -Double.infinity
        for i in x.indices {
            minX = min(minX, x[i])
            minY = min(minY, y[i])
            maxX = max(maxX, x[i])
            maxY = max(maxY, y[i])
        }
        (self.minX, self.minY, self.maxX, self.maxY) = (minX, minY, maxX, maxY)
    }
}
