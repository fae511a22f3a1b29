/// One keyword a map shows: its query text and its place in the run's keyword order, which
/// picks its ColorBrewer ramp (``RegionSearchOutput/ColorScale``), as in the GeoJSON.
public struct MapKeyword: Sendable, Equatable {
    public var name: String
    /// Index into the run's keyword list (the ramp is `colorIndex mod 6`).
    public var colorIndex: Int

    public init(name: String, colorIndex: Int) {
        self.name = name
        self.colorIndex = colorIndex
    }
}
