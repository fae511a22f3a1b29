import RegionSearchCore

/// The hulls stage's settings: the polygon builder's options (``RegionPolygonBuilder/Options``)
/// read from parameters.
extension RegionPolygonBuilder.Options: StageOptions {
    static let hullSpec = ParameterSpec(
        "hull", .choice(["convex", "concave"]), default: .string("convex"),
        help:
            "Polygon of a region's matching POIs: \"convex\" hull, or GEOS \"concave\" hull (street-shaped clusters "
            + "stay streets)."
    )
    static let concaveRatioSpec = ParameterSpec(
        "concave_ratio", .number(min: 0, max: 1), default: .number(0.3),
        help: "Concave hull tightness: 1 = convex hull, smaller = follows the POIs more closely.")
    static let marginSpec = ParameterSpec(
        "margin_m", .number(min: 0, max: 1_000_000), default: .null,
        help:
            "Metres added around the hull so it covers its edge POIs' surroundings; default: half the region's "
            + "median POI spacing."
    )
    static let minExtentSpec = ParameterSpec(
        "min_extent_m", .number(min: 0, max: 1_000_000), default: .number(20),
        help:
            "Smallest polygon size in metres: a region whose POIs are stacked at one address or lie on a line "
            + "becomes a disc or band this wide."
    )

    public static let specs = [hullSpec, concaveRatioSpec, marginSpec, minExtentSpec]

    public init(_ p: Parameters) throws(ParameterError) {
        self.init(
            concave: p.string(Self.hullSpec) == "concave", concaveRatio: p.double(Self.concaveRatioSpec),
            margin: p.optionalDouble(Self.marginSpec), minExtent: p.double(Self.minExtentSpec))
    }
}
