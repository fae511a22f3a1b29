import RegionSearchCore

/// The hulls stage's settings: the polygon builder's options (``RegionPolygonBuilder/Options``)
/// read from parameters.
extension RegionPolygonBuilder.Options: StageOptions {
    /// The defaults, declared once by `init`'s default arguments (see ``GraphOptions`` in the
    /// graph target).
    public static let defaults = RegionPolygonBuilder.Options()

    static let hullSpec = ParameterSpec(
        "hull", .choice(["convex", "concave"]), default: .string(defaults.concave ? "concave" : "convex"),
        help:
            "Regions without a skeleton (the DBSCAN baseline): \"convex\" hull of their POIs, or GEOS \"concave\" "
            + "hull; other regions are their skeleton grown by the margin, and \"concave\" draws them as the concave "
            + "hull of their POIs instead."
    )
    static let concaveRatioSpec = ParameterSpec(
        "concave_ratio", .number(min: 0, max: 1), default: .number(defaults.concaveRatio),
        help: "Concave hull tightness: 1 = convex hull, smaller = follows the POIs more closely.")
    static let marginSpec = ParameterSpec(
        "margin_m", .number(min: 0, max: 1_000_000), default: defaults.margin.map { .number($0) } ?? .null,
        help:
            "Metres the skeleton (or hull) is grown by, so the polygon covers the ground around its POIs; default: "
            + "margin_spacing times the region's spacing, at least a quarter of min_extent_m."
    )
    static let marginSpacingSpec = ParameterSpec(
        "margin_spacing", .number(min: 0, max: 10), default: .number(defaults.marginSpacing),
        help:
            "The automatic margin in spacings (the region's median distance from a keyword POI to its 5th nearest "
            + "keyword location): how far beyond its POIs a region reaches.")
    static let minExtentSpec = ParameterSpec(
        "min_extent_m", .number(min: 0, max: 1_000_000), default: .number(defaults.minExtent),
        help:
            "Smallest polygon size in metres: a region whose POIs are stacked at one address or lie on a line "
            + "becomes a disc or band this wide."
    )

    public static let specs = [hullSpec, concaveRatioSpec, marginSpec, marginSpacingSpec, minExtentSpec]

    public init(_ p: Parameters) throws(ParameterError) {
        self.init(
            concave: p.string(Self.hullSpec) == "concave", concaveRatio: p.double(Self.concaveRatioSpec),
            margin: p.optionalDouble(Self.marginSpec), marginSpacing: p.double(Self.marginSpacingSpec),
            minExtent: p.double(Self.minExtentSpec))
    }
}
