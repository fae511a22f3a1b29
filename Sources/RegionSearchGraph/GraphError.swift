import RegionSearchCore

/// Why a graph could not be built from the given points.
public enum GraphError: Error, CustomStringConvertible, ExitCoded {
    /// A point has a NaN or infinite coordinate (the project stage drops these, so the input
    /// artifact is damaged or was not written by it).
    case nonFiniteCoordinate(index: Int, x: Double, y: Double)
    /// A coordinate is outside the range the exact predicates handle without overflow or
    /// underflow: each must be 0 or have a magnitude in [1e-30, 1e30] — far beyond any
    /// projected CRS in metres.
    case coordinateOutOfRange(index: Int, x: Double, y: Double)

    public var description: String {
        switch self {
        case .nonFiniteCoordinate(let index, let x, let y):
            return
                "point \(index) has a non-finite coordinate (x = \(x), y = \(y)); the project stage never writes "
                + "such points"
        case .coordinateOutOfRange(let index, let x, let y):
            return
                "point \(index) has a coordinate far outside any projected CRS (x = \(x), y = \(y)); coordinates "
                + "must be 0 or of magnitude 1e-30 to 1e30"
        }
    }

    public var exitStatus: ExitStatus { .artifact }
}
