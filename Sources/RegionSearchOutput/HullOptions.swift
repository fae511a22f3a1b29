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
            + "by margin_rule, at least a quarter of min_extent_m."
    )
    static let marginSpacingSpec = ParameterSpec(
        "margin_spacing", .number(min: 0, max: 10), default: .number(defaults.marginSpacing),
        help:
            "The automatic margin in spacings (the region's median distance from a keyword POI to its 5th nearest "
            + "keyword location): how far beyond its POIs a region reaches.")
    static let marginRuleSpec = ParameterSpec(
        "margin_rule", .choice(RegionPolygonBuilder.MarginRule.allCases.map(\.rawValue)),
        default: .string(defaults.marginRule.rawValue),
        help:
            "How the automatic margin is measured: \"spacing\" (margin_spacing times the region's spacing) or "
            + "\"support\" (the larger of that and the band beyond its POIs' convex hull their number implies: n POIs "
            + "with V on the hull stand for about n / (n - V) times the hull's area; at most one spacing), so a "
            + "region of few POIs reaches as far as the ground they were drawn from.")
    static let childMarginFloorSpec = ParameterSpec(
        "child_margin_floor", .number(min: 0, max: 10), default: .number(defaults.childMarginFloor),
        help:
            "A region of a finer level (level > 0) reaches at least this many spacings of its band floor (1/sqrt "
            + "of the keyword density it was cut at) beyond its POIs, at most one of its own spacings: 0.5 draws its "
            + "edge midway between its outer POIs and its parent's POIs at that density; 0 draws it as level 0. Part "
            + "of the automatic margin: margin_m, when given, is used for every region.")
    static let edgeSpacingSpec = ParameterSpec(
        "edge_spacing", .number(min: 0, max: 100), default: .number(4),
        help:
            "Edges of the skeleton at most this many spacings long are drawn; a longer one still joins the region "
            + "but leaves its gap open (the polygon becomes parts instead of a corridor across empty ground).")
    static let triangleSpacingSpec = ParameterSpec(
        "triangle_spacing", .number(min: 0, max: 100), default: .number(2),
        help:
            "Triangles of three skeleton edges are filled when their circumcircle is at most this many spacings "
            + "wide; larger ones (a square, a park between blocks) stay open.")
    static let closeSpacingSpec = ParameterSpec(
        "close_spacing", .number(min: 0, max: 100), default: .number(defaults.closeSpacing),
        help:
            "The grown skeleton is closed (grown and shrunk back) by this many spacings: notches and holes narrower "
            + "than about twice that between the region's POIs are filled, nothing is added outside them.")
    static let streetAspectSpec = ParameterSpec(
        "street_aspect", .number(min: 0, max: 100), default: .number(defaults.streetAspect),
        help:
            "A region whose centre line (the longest path of its skeleton's minimum spanning tree, smoothed) is at "
            + "least this many times as long as the band nine in ten of its POIs lie in is wide is drawn as a street: "
            + "the band of twice the POIs' median distance from the line, grown by margin_spacing spacings, from its "
            + "first POI to its last, when it holds nine in ten of them, the region has 12 POIs or more, the line does "
            + "not turn back and the band holds no more empty ground than the grown skeleton; 0 draws every region as "
            + "its grown skeleton.")
    static let minExtentSpec = ParameterSpec(
        "min_extent_m", .number(min: 0, max: 1_000_000), default: .number(defaults.minExtent),
        help:
            "Smallest polygon size in metres: a region whose POIs are stacked at one address or lie on a line "
            + "becomes a disc or band this wide."
    )

    static let levelsSpec = ParameterSpec(
        "levels", .string, default: .string("all"),
        help:
            "What a flat consumer gets of the nested levels: \"all\" (every level; a region lies inside its parent, one "
            + "level up, a street inside its level-0 region, so a keyword's regions overlap where they nest), "
            + "\"finest\" (the finest region "
            + "at each place: each region less the finer ones on it, a non-overlapping cut; a parent keeps the ground "
            + "around its children where one of its POIs stands), \"coarsest\" (level 0 only) or one level as a "
            + "string (\"1\"). Every output "
            + "format, the POI layer and the maps show what is written.")

    public static let specs = [
        hullSpec, concaveRatioSpec, marginSpec, marginSpacingSpec, marginRuleSpec, childMarginFloorSpec,
        edgeSpacingSpec, triangleSpacingSpec,
        closeSpacingSpec, streetAspectSpec, minExtentSpec, levelsSpec,
    ]

    public init(_ p: Parameters) throws(ParameterError) {
        let text = p.string(Self.levelsSpec)
        guard let levels = RegionLevelSelection(text) else {
            throw ParameterError(
                Self.levelsSpec,
                "expected \"all\", \"finest\", \"coarsest\" or a level number such as \"1\", got \"\(text)\"")
        }
        self.init(
            concave: p.string(Self.hullSpec) == "concave", concaveRatio: p.double(Self.concaveRatioSpec),
            margin: p.optionalDouble(Self.marginSpec), marginSpacing: p.double(Self.marginSpacingSpec),
            edgeSpacing: p.double(Self.edgeSpacingSpec), triangleSpacing: p.double(Self.triangleSpacingSpec),
            closeSpacing: p.double(Self.closeSpacingSpec), minExtent: p.double(Self.minExtentSpec), levels: levels)
        marginRule = p.choice(Self.marginRuleSpec, as: RegionPolygonBuilder.MarginRule.self)
        childMarginFloor = p.double(Self.childMarginFloorSpec)
        streetAspect = p.double(Self.streetAspectSpec)
    }
}
