/// An axis-aligned bounding box in the coordinates of a geometry.
public struct GEOSEnvelope: Sendable, Equatable {
    public var minX: Double
    public var minY: Double
    public var maxX: Double
    public var maxY: Double

    public init(minX: Double, minY: Double, maxX: Double, maxY: Double) {
        self.minX = minX
        self.minY = minY
        self.maxX = maxX
        self.maxY = maxY
    }

    /// Whether the two boxes share at least one point (touching counts).
    @inline(__always)
    public func intersects(_ o: GEOSEnvelope) -> Bool {
        minX <= o.maxX && o.minX <= maxX && minY <= o.maxY && o.minY <= maxY
    }

    @inline(__always)
    public func contains(x: Double, y: Double) -> Bool { x >= minX && x <= maxX && y >= minY && y <= maxY }

    /// The smallest box holding both.
    public func union(_ o: GEOSEnvelope) -> GEOSEnvelope {
        GEOSEnvelope(minX: min(minX, o.minX), minY: min(minY, o.minY), maxX: max(maxX, o.maxX), maxY: max(maxY, o.maxY))
    }
}
