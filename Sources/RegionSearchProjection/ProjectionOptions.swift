import RegionSearchCore

/// The project stage's settings.
public struct ProjectionOptions: StageOptions, Equatable {
    /// `auto`, or anything PROJ accepts (`EPSG:3067`, a PROJ string, WKT).
    public var crs: String

    /// The defaults, declared once by `init`'s default argument (see ``GraphOptions/defaults``).
    public static let defaults = ProjectionOptions()

    static let crsSpec = ParameterSpec(
        "crs", .string, default: .string(defaults.crs),
        help:
            "Target CRS in metres: \"auto\" picks the UTM zone of the data when it fits one zone, an equal-area "
            + "continental or polar projection when it does not, and Equal Earth for worldwide data (the choice "
            + "and its reason are recorded); or anything PROJ accepts, e.g. \"EPSG:3067\"."
    )

    public static let specs = [crsSpec]

    public init(crs: String = "auto") { self.crs = crs }

    public init(_ p: Parameters) throws(ParameterError) {
        crs = p.string(Self.crsSpec)
        if crs.isEmpty {
            throw ParameterError(Self.crsSpec, "expected \"auto\" or a CRS PROJ knows, got an empty string")
        }
    }
}
