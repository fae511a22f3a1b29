import RegionSearchCore

/// The regions stage's settings.
public struct RegionOptions: StageOptions, Equatable {
    /// How candidate regions are found.
    public enum Method: String, CaseIterable, Sendable {
        /// The measure's own method over the keyword graph (``Measure``).
        case propagation
        /// DBSCAN over the keyword's POIs only (a baseline for experiments).
        case dbscan
    }

    /// The question a region answers.
    public enum Measure: String, CaseIterable, Sendable {
        /// Where the keyword's POIs are close together — far closer than the keyword's typical
        /// spacing in the data — however dense everything else is there.
        case density
        /// Where the keyword's share of all POIs stands out from its base rate.
        case lift
    }

    /// Over which regions the false discovery rate is controlled.
    public enum FDRScope: String, CaseIterable, Sendable {
        /// Each keyword on its own: adding a keyword to a run never changes another's regions.
        case keyword
        /// All regions of all keywords of the run together.
        case run
    }

    public var method: Method
    public var measure: Measure
    var finder: RegionFinder.Options
    var density: DensityRegionFinder.Options
    /// The density measure's levels (``DensityHierarchy``).
    var hierarchy: DensityHierarchy.Options
    /// density: nested levels (``DensityHierarchy``: level 0 as `hierarchy.levelZero` says, finer
    /// levels cut from propagate's keyword densities; the default) instead of one level from each
    /// keyword POI's own density alone (``DensityRegionFinder``).
    public var nested: Bool
    var keywordGraph: KeywordGraph.Rules
    /// lift: a region's keyword POIs are at least this many times as dense as typical.
    var liftDensityRatio: Double
    /// Benjamini–Hochberg false discovery rate; 1 keeps every candidate.
    public var fdr: Double
    public var fdrScope: FDRScope
    var dbscanEps: Double
    var dbscanMinSamples: Int
    /// density, level 0 from own densities: the mean POIs of the window a POI's ground is measured
    /// in (``GroundDensity``); 0 judges every keyword POI against the keyword's λ over the data.
    var referenceWindow: Double

    public init(
        method: Method = .propagation, measure: Measure = .density, finder: RegionFinder.Options? = nil,
        density: DensityRegionFinder.Options = .init(), hierarchy: DensityHierarchy.Options = .init(),
        nested: Bool = true, keywordGraph: KeywordGraph.Rules = .init(),
        liftDensityRatio: Double = 4, fdr: Double = 0.05, fdrScope: FDRScope = .keyword, dbscanEps: Double = 200,
        dbscanMinSamples: Int = 10, referenceWindow: Double = 300
    ) {
        self.referenceWindow = referenceWindow
        self.method = method
        self.measure = measure
        // One min_keyword_pois for both measures: by default the lift finder takes the density finder's.
        self.finder = finder ?? RegionFinder.Options(minKeywordPOIs: density.minKeywordPOIs)
        self.density = density
        self.hierarchy = hierarchy
        self.nested = nested
        self.keywordGraph = keywordGraph
        self.liftDensityRatio = liftDensityRatio
        self.fdr = fdr
        self.fdrScope = fdrScope
        self.dbscanEps = dbscanEps
        self.dbscanMinSamples = dbscanMinSamples
    }

    /// The defaults, declared once by `init`'s default arguments and the finders' own (see
    /// ``GraphOptions`` in the graph target).
    public static let defaults = RegionOptions()

    public static let methodSpec = ParameterSpec(
        "method", .choice(Method.allCases.map { $0.rawValue }), default: .string(defaults.method.rawValue),
        help: "\"propagation\": the measure's regions over the keyword's POIs, tested for significance; \"dbscan\": "
            + "DBSCAN over the keyword's POIs only, a baseline for experiments.")
    public static let measureSpec = ParameterSpec(
        "measure", .choice(Measure.allCases.map { $0.rawValue }), default: .string(defaults.measure.rawValue),
        help: "\"density\": where the keyword's POIs are close together, many times closer than the keyword's "
            + "typical spacing in the data, however dense everything else is (where to go to compare restaurants); "
            + "\"lift\": where the keyword's share of all POIs stands out from its base rate (where restaurants are "
            + "over-represented).")
    /// Whether these options cut nested levels from propagate's keyword densities (method
    /// `propagation`, measure `density`, `nested`): the scores artifact must then hold them.
    public var cutsNestedLevels: Bool { method == .propagation && measure == .density && nested }
    /// Whether these options read propagate's scores (``PropagationOptions/scores``): the lift
    /// measure's shares, and the DBSCAN baseline's member scores. The density measure reads none.
    public var readsScores: Bool { method == .dbscan || measure == .lift }

    public static let nestedSpec = ParameterSpec(
        "nested", .boolean, default: .bool(defaults.nested),
        help: "density: true (the default) finds nested levels: level 0 (see level0), and inside each of its "
            + "regions finer ones (a city's dense core, its districts, its strips: level, parent_id) cut from the "
            + "keyword densities the propagate stage spreads over the POI graph (child_* parameters and below); "
            + "false finds level 0 alone, where each keyword POI's own density (its neighbours keyword POIs within "
            + "its neighbours-th nearest distance, smoothed over the keyword graph) is core_ratio / extend_ratio "
            + "times typical.")
    static let neighboursSpec = ParameterSpec(
        "neighbours", .integer(min: 1, max: 64), default: .number(Double(defaults.keywordGraph.neighbours)),
        help: "A keyword POI's local spacing is the distance to its neighbours-th nearest other keyword POI (the "
            + "density around it is neighbours POIs within that distance).")
    static let coreRatioSpec = ParameterSpec(
        "core_ratio", .number(min: 1, max: 1e6), default: .number(defaults.density.coreRatio),
        help: "density: a region's core POIs have keyword POIs at least core_ratio times as dense around them as "
            + "the keyword's typical density (its POIs over the area the city's POIs occupy).")
    static let extendRatioSpec = ParameterSpec(
        "extend_ratio", .number(min: 1, max: 1e6), default: .number(defaults.density.extendRatio),
        help: "density: a region extends from its core through keyword POIs at least extend_ratio times as dense "
            + "as typical, so a dining street is kept whole down to its quieter ends.")
    static let childCoreRatioSpec = ParameterSpec(
        "child_core_ratio", .number(min: 1, max: 1e6), default: .number(defaults.hierarchy.childCoreRatio),
        help: "density: a region one level finer has POIs at least child_core_ratio times as dense as the region "
            + "holding it (its POIs over the ground they stand for): each level is a denser band than the one above.")
    static let childExtendRatioSpec = ParameterSpec(
        "child_extend_ratio", .number(min: 1, max: 1e6), default: .number(defaults.hierarchy.childExtendRatio),
        help: "density: ...and extends from them through POIs at least child_extend_ratio times as dense as the "
            + "region holding it.")
    static let maxLevelsSpec = ParameterSpec(
        "max_levels", .integer(min: 1, max: 16), default: .number(Double(defaults.hierarchy.maxLevels)),
        help: "density: at most this many nested levels (1 = one flat level: the coarsest dense regions).")
    static let sameRegionShareSpec = ParameterSpec(
        "same_region_share", .number(min: 0, max: 1, minExclusive: true),
        default: .number(defaults.hierarchy.sameRegionShare),
        help: "density: a finer candidate holding more than this share of the POIs of the region around it is the "
            + "same place drawn tighter, not a finer region: no level is added for it.")
    static let ownReferencePOIsSpec = ParameterSpec(
        "own_reference_pois", .integer(min: 1, max: 1_000_000_000),
        default: .number(Double(defaults.hierarchy.ownReferencePOIs)),
        help: "density, level0 propagated: a piece of the POI graph that no edge joins to the rest (a town across "
            + "open country) with at least this many keyword POIs is measured against its own keyword density, not the "
            + "whole data's.")
    static let levelRatioSpec = ParameterSpec(
        "level_ratio", .number(min: 0, max: 1e6), default: .number(defaults.hierarchy.levelRatio),
        help: "density: > 0 makes the levels fixed density bands, each floor this many times the one above; 0 judges "
            + "each level against the density of the region holding it.")
    static let ownDensityShareSpec = ParameterSpec(
        "own_density_share", .number(min: 0, max: 100), default: .number(defaults.hierarchy.ownDensityShare),
        help: "density: below level 0, a keyword POI joins a region only when its own density (neighbours keyword "
            + "POIs within its neighbours-th nearest distance) is at least this share of the region's floor, so "
            + "two clusters a street apart are two regions even where the propagated density runs between them; "
            + "0 disables.")
    static let levelZeroSpec = ParameterSpec(
        "level0", .choice(DensityHierarchy.LevelZero.allCases.map { $0.rawValue }),
        default: .string(defaults.hierarchy.levelZero.rawValue),
        help: "density, nested: what the coarsest level is cut from: \"own\", each keyword POI's own density (its "
            + "neighbours keyword POIs within its neighbours-th nearest distance, smoothed over the keyword graph); "
            + "\"propagated\", the keyword density the propagate stage spread over the POI graph. Finer levels are "
            + "always cut from the propagated density.")
    static let streetHalfWidthSpec = ParameterSpec(
        "street_half_width_m", .number(min: 0, max: 1e6), default: .number(defaults.hierarchy.streetHalfWidth),
        help: "density, level0 own: streets inside each level-0 region, its finest level: straight runs of its "
            + "keyword POIs in a band this many metres either side of a line, significantly and at least twice as "
            + "dense as the bands of the same width beside it (a dining street through a downtown's blocks), two that "
            + "continue each other round a corner of at most 60 degrees joined into one; none in a "
            + "region that is its streets (nine in ten of its POIs in them); 0: none, else at least 1.")
    static let streetWidthsSpec = ParameterSpec(
        "street_widths", .integer(min: 1, max: 4), default: .number(Double(defaults.hierarchy.streetWidths)),
        help: "density, level0 own: how many band widths the street search tries: street_half_width_m, then each "
            + "sqrt(2) times the one before (3: 50, 71 and 100 m either side), all counted in the test's bound. A "
            + "wide avenue with restaurants on both frontages fills a wider band; a run in a wider band is a street "
            + "only when it is at least 2^(-1/4) as dense as the densest narrower band over its POIs and what it adds "
            + "to that band is a line along it (a narrow street is drawn narrow), and half of its POIs span half a "
            + "street's least length in that band (a round cluster is no street). 1: one width.")
    static let smoothingSpec = ParameterSpec(
        "smoothing", .number(min: 0, max: 0.99), default: .number(defaults.density.smoothing),
        help: "density: α of the label propagation that spreads each keyword POI's density over the keyword graph "
            + "(F ← αPF + (1−α)Y on log density): about 1/(1−α) hops; 0 uses each POI's own, noisier density.")
    static let referenceWindowSpec = ParameterSpec(
        "reference_window", .number(min: 0, max: 1e9), default: .number(defaults.referenceWindow),
        help:
            "density, level 0 from own densities (level0 \"own\", and nested false): where POIs of any kind stand "
            + "sparser than over the whole data (a town, a thin borough), the keyword's typical density is scaled "
            + "down by as much, measured in a window of 3 x 3 grid cells around each POI that holds this many POIs "
            + "on average: a town's dining street is judged against its town; never scaled up, so a downtown is "
            + "judged against the city; 0 judges everything against the city.")
    static let contrastRingSpec = ParameterSpec(
        "contrast_ring", .number(min: 0, max: 100), default: .number(defaults.density.contrastRing),
        help:
            "density, level 0 from own densities: > 0 also tests each candidate's keyword POIs inside the convex "
            + "hull of its POIs against the keyword's density in the ring around it, this many of its radii wide, "
            + "where the ring is denser than the candidate's reference (everywhere with hull_corners \"whole\"): a "
            + "piece of an evenly dense downtown is no denser than the downtown around it; 0 does not.")
    static let hullCornersSpec = ParameterSpec(
        "hull_corners", .choice(DensityRegionFinder.HullCorners.allCases.map { $0.rawValue }),
        default: .string(defaults.density.hullCorners.rawValue),
        help:
            "density, contrast_ring: how the ring test counts the keyword POIs at the corners of a candidate's hull: "
            + "\"angle\", one at each corner for the share of a full turn the hull's angle there takes in (v corners "
            + "count (v - 2) / 2 together, the count rounded down): the hull is drawn through them, so they are inside "
            + "it whatever chance put them there; and the ring test only where the ring is denser than the "
            + "candidate's reference; \"whole\", each as one and the ring test everywhere (regions stage version 10 "
            + "and before).")
    static let outlierSpacingSpec = ParameterSpec(
        "outlier_spacing", .number(min: 0, max: 100), default: .number(defaults.density.outlierSpacing),
        help:
            "density, level 0 from own densities (level0 \"own\", and nested false): a keyword POI whose nearest other member of its region is more than this many "
            + "times the region's median spacing (the distance to the neighbours-th nearest keyword POI) away is "
            + "left out, and the region splits where that leaves it in pieces: a POI beside a dense street is dense "
            + "by its neighbours, which are the street, but a person would draw neither an arm out to it nor a "
            + "corridor through one POI between two clusters; 0 keeps every member.")
    static let offStreetSpec = ParameterSpec(
        "off_street", .number(min: 0, max: 100), default: .number(defaults.density.offStreet),
        help:
            "density, level 0 from own densities (level0 \"own\", and nested false): where a member's fellow "
            + "members among its 2·neighbours nearest keyword locations (at least four of them) form a street "
            + "(their band is street_aspect times as long as wide), a member farther than this many half-widths of that "
            + "band from its centre line is left out (and the region splits where that leaves it in pieces): a "
            + "restaurant around the corner from a dining street is dense by its neighbours, which are the street, "
            + "but a person draws the street without it. A set at least 70 % on a street is parted into the street "
            + "and the rest when the street is one piece, a candidate, a street by its spine and significant on its "
            + "own (Bonferroni over the candidate sets at fdr), and so is every piece of the rest that is a candidate. "
            + "0 keeps every member and parts nothing.")
    static let besideStreetSpec = ParameterSpec(
        "beside_street", .number(min: 0, max: 1000), default: .number(defaults.density.besideStreet),
        help:
            "density, level 0 from own densities, off_street: a member whose own fellow members form no street, "
            + "but which stands more than off_street half-widths off the street of its nearest member on a street, "
            + "is left out unless it is dense without that street: its own (unsmoothed) density ratio from its "
            + "neighbours-th nearest keyword POI that is not a member on the street, among its 2·neighbours nearest "
            + "keyword locations, must reach beside_street times extend_ratio (a few "
            + "of the city's restaurants just off a dining street are dense only by the street, and a person "
            + "draws the street without them; a cluster beside it is dense on its own and stays); 0: not.")
    static let persistenceSpec = ParameterSpec(
        "persistence", .number(min: 0, max: 100), default: .number(defaults.density.persistence),
        help:
            "density, level 0 from own densities: > 1 joins two candidates that are one place. The keyword graph "
            + "joins them through POIs whose density ratio is at least s (their saddle, looked for down to "
            + "extend_ratio / persistence), and neither stands persistence times above it (the median density ratio "
            + "of its members is below persistence * s): the pieces a keyword barely dense enough over a downtown "
            + "breaks into along the dips of its density's noise. The joined region holds both and the POIs of one "
            + "path between them. A district twice as dense as the ground between it and its neighbour stays apart; "
            + "0 or 1: not.")
    static let splitPersistenceSpec = ParameterSpec(
        "split_persistence", .number(min: 0, max: 100), default: .number(defaults.density.splitPersistence),
        help:
            "density, level 0 from own densities, where the keyword's propagated density is there (nested levels, "
            + "or propagate.densities): > 1 splits a set of dense POIs that is two places. The set's keyword-graph "
            + "edges, densest first by the lower propagated density of their ends, join its POIs; the last join of "
            + "two sides of at least min_keyword_pois POIs is its saddle s, and when the median density of each side "
            + "is at least split_persistence * s the two sides (the POIs joined above s) are two sets. Not when a "
            + "side is no candidate (a POI at core_ratio, min_keyword_pois POIs), nor when a side lies along a line "
            + "(its principal axes street_aspect times as long as wide) or along a street that bends (its spine "
            + "street_aspect times as long as wide, not turning back): a street whose restaurants thin out for a "
            + "stretch stays one; nor when a side would split again (a city's dense core holding districts stays one "
            + "region; its districts are the finer levels). Two café districts joined by a thinner line of cafés "
            + "along a river are two places; 0 or 1: not.")
    static let streetRunOnSpec = ParameterSpec(
        "street_run_on", .number(min: 0, max: 100), default: .number(defaults.density.streetRunOn),
        help:
            "density, level 0 from own densities: > 0 lets a candidate that is a street run on from its ends "
            + "along its street. It is a street when its spine (the longest path of its POIs' minimum spanning "
            + "tree, smoothed over five nodes) is at least street_aspect times twice its half-width long (twice "
            + "the members' median distance from the spine), and an end counts when the members near it are a "
            + "band too. From each end a step looks 1.5 typical spacings ahead (1/sqrt of the reference density "
            + "there), turning by up to 60 degrees, for the street-wide band that holds the most POIs of any kind; "
            + "when that count is significant (Poisson, p <= 0.001, against all POIs within that reach, the "
            + "directions counted), the keyword POIs along it join while each is at most this many times the "
            + "candidate's spacing (and one typical spacing) from the previous one, or up to twice that within the band "
            + "when POIs of any kind stand all along the way (no stretch empty for more than 1.5 typical spacings of "
            + "all POIs around, nor beyond one spacing for more than 150 m, unless at most 50 m: a side street), "
            + "at least two from an end, and the next step starts from the last. The candidate is tested "
            + "as found; the street it runs on through is drawn with it. A run that reaches another candidate the "
            + "same way (the hop within that candidate's gap too) joins it when the two and the run are one street "
            + "together, no wider than the street the run came from (nine in ten of their POIs within two of its half-widths of its centre line continued "
            + "through the run and across the other, a line street_aspect times as long as that band is wide): a "
            + "street whose restaurants thin out along one stretch is one region, tested as one. Two candidates "
            + "that each lie along a line, whose spines' ends face each other within two typical spacings (within "
            + "60 degrees), of spacings within a factor of two, one street together as above, with no empty stretch "
            + "between them (1.5 spacings of all POIs, at most 150 m), are joined too, with the keyword POIs between "
            + "(a street with no restaurant for 300 m). 0: not.")
    static let streetEndsSpec = ParameterSpec(
        "street_ends", .number(min: 0, max: 100), default: .number(defaults.density.streetEnds),
        help:
            "density, level 0 from own densities: > 0 lets a street of dense keyword POIs run on through POIs at "
            + "least street_extend_ratio times the reference: a POI within a member's neighbours-th nearest "
            + "distance, on that member's street (its fellow members among its 2·neighbours nearest, at least four, form a band "
            + "street_aspect times as long as wide) and within this many half-widths of the street's centre line "
            + "joins, and so on from it: a street's last POIs have their neighbours on one side only and read "
            + "about a third of the street's density, those beside a gap less than its middle; 0: off.")
    static let streetExtendRatioSpec = ParameterSpec(
        "street_extend_ratio", .number(min: 0, max: 1e6), default: .number(defaults.density.streetExtendRatio),
        help: "density, street_ends: the density ratio a POI needs to continue a street.")
    static let streetAspectSpec = ParameterSpec(
        "street_aspect", .number(min: 1, max: 1000), default: .number(defaults.density.streetAspect),
        help: "density, off_street: how many times longer than wide the band of a member's fellow members must be "
            + "to count as a street (its half-width twice their median distance from their principal axis).")
    static let edgeFactorSpec = ParameterSpec(
        "edge_factor", .number(min: 0, max: 100, minExclusive: true),
        default: .number(defaults.keywordGraph.edgeFactor),
        help: "Two keyword POIs of a region are joined only when they are at most edge_factor times the local "
            + "keyword spacing apart (at the sparser end), so a region never bridges empty space much wider than "
            + "the gaps between its own POIs.")
    static let detourSpec = ParameterSpec(
        "detour", .number(min: 1, max: 100), default: .number(defaults.keywordGraph.detour),
        help: "…and only when the POI graph joins them by a path at most detour times their distance: POIs on "
            + "two banks of a river, or on two sides of a park, are not joined.")
    static let wideDetourSpec = ParameterSpec(
        "wide_detour", .number(min: 0, max: 100), default: .number(defaults.keywordGraph.wideDetour),
        help: "…except a gap the keyword spans (at most the distance to the 2·neighbours-th nearest keyword POI "
            + "at both ends), which is bridged when the POI graph goes round it within wide_detour times its "
            + "length: a block's empty interior or a plaza inside a cluster, but never a river or any other empty "
            + "band, whose way round is long. 0 bridges every gap the keyword spans (regions stage version 15 and "
            + "before).")
    static let minSpacingSpec = ParameterSpec(
        "min_spacing_m", .number(min: 0, max: 1_000), default: .number(defaults.keywordGraph.minSpacing),
        help: "A keyword spacing below this many metres counts as this much: the units and entrances of one "
            + "building, or geocoding noise, are one place, so they are neither split into several regions nor "
            + "made denser than a place can be.")
    static let zCoreSpec = ParameterSpec(
        "z_core", .number(min: 0, max: 50), default: .number(defaults.finder.zCore),
        help: "lift: a region's core POIs have a local keyword share at least this many standard deviations above "
            + "the keyword's base rate (the deviation chance alone would give the share there).")
    static let zExtendSpec = ParameterSpec(
        "z_extend", .number(min: 0, max: 50), default: .number(defaults.finder.zExtend),
        help: "lift: a region extends from its core through POIs whose share is at least this many standard "
            + "deviations above the base rate, so a hot spot is kept whole down to its fringe.")
    static let liftDensityRatioSpec = ParameterSpec(
        "lift_density_ratio", .number(min: 0, max: 1e6), default: .number(defaults.liftDensityRatio),
        help: "lift: a region's keyword POIs are also packed at least this many times as densely as the keyword's "
            + "typical density, so a keyword over-represented across a sparse suburb is no region; 0 disables.")
    public static let minKeywordPOIsSpec = ParameterSpec(
        "min_keyword_pois", .integer(min: 1, max: 1_000_000), default: .number(Double(defaults.density.minKeywordPOIs)),
        help: "A region needs at least this many POIs matching the keyword.")
    static let fdrSpec = ParameterSpec(
        "fdr", .number(min: 0, max: 1, minExclusive: true), default: .number(defaults.fdr),
        help: "False discovery rate (Benjamini–Hochberg): at most this share of reported regions is expected to be "
            + "chance clumps. 1 disables the test.")
    static let fdrScopeSpec = ParameterSpec(
        "fdr_scope", .choice(FDRScope.allCases.map { $0.rawValue }), default: .string(defaults.fdrScope.rawValue),
        help: "\"keyword\": the false discovery rate is controlled per keyword, so adding or removing a keyword never "
            + "changes another keyword's regions; \"run\": over all regions of all keywords together (nested "
            + "levels: level 0 of every keyword together, then the finer levels below the significant ones together; "
            + "with level0 \"propagated\" every level of every keyword at once).")
    static let mergeDistanceSpec = ParameterSpec(
        "merge_distance_m", .number(min: 0, max: nil),
        default: defaults.finder.mergeDistance.map { .number($0) } ?? .null,
        help: "lift: candidate hot spots of one keyword whose matching POIs come within this many metres are "
            + "merged before they are split along the keyword graph; default: twice the median POI spacing inside "
            + "them.")
    static let dbscanEpsSpec = ParameterSpec(
        "dbscan_eps_m", .number(min: 0, max: nil, minExclusive: true), default: .number(defaults.dbscanEps),
        help: "DBSCAN neighbourhood radius in metres (method dbscan only).")
    static let dbscanMinSamplesSpec = ParameterSpec(
        "dbscan_min_samples", .integer(min: 1, max: 1_000_000), default: .number(Double(defaults.dbscanMinSamples)),
        help: "DBSCAN core-point threshold: POIs within eps, itself included (method dbscan only).")

    public static let specs = [
        methodSpec, measureSpec, nestedSpec, neighboursSpec, coreRatioSpec, extendRatioSpec, childCoreRatioSpec,
        childExtendRatioSpec, maxLevelsSpec, sameRegionShareSpec, ownReferencePOIsSpec, levelRatioSpec,
        ownDensityShareSpec, levelZeroSpec, streetHalfWidthSpec, streetWidthsSpec, smoothingSpec, outlierSpacingSpec,
        offStreetSpec,
        streetAspectSpec,
        besideStreetSpec, streetRunOnSpec, streetEndsSpec, persistenceSpec, splitPersistenceSpec,
        streetExtendRatioSpec,
        referenceWindowSpec, contrastRingSpec, hullCornersSpec,
        edgeFactorSpec,
        detourSpec, wideDetourSpec, minSpacingSpec,
        zCoreSpec, zExtendSpec, liftDensityRatioSpec, minKeywordPOIsSpec, fdrSpec, fdrScopeSpec, mergeDistanceSpec,
        dbscanEpsSpec,
        dbscanMinSamplesSpec,
    ]

    public init(_ p: Parameters) throws(ParameterError) {
        let minimum = p.int(Self.minKeywordPOIsSpec)
        let core = p.double(Self.coreRatioSpec)
        let extend = p.double(Self.extendRatioSpec)
        guard extend <= core else {
            throw ParameterError(
                Self.extendRatioSpec,
                "must not exceed core_ratio (\(JSONValue.formatNumber(core))), got "
                    + JSONValue.formatNumber(extend))
        }
        let childCore = p.double(Self.childCoreRatioSpec)
        let childExtend = p.double(Self.childExtendRatioSpec)
        guard childExtend <= childCore else {
            throw ParameterError(
                Self.childExtendRatioSpec,
                "must not exceed child_core_ratio (\(JSONValue.formatNumber(childCore))), got "
                    + JSONValue.formatNumber(childExtend))
        }
        guard p.double(Self.zExtendSpec) <= p.double(Self.zCoreSpec) else {
            throw ParameterError(Self.zExtendSpec, "must not exceed z_core")
        }
        // A street's band is bins of a quarter of its width across the region: below a metre
        // there would be billions of them (and a band 1e-300 m wide has no bins at all).
        let streetHalfWidth = p.double(Self.streetHalfWidthSpec)
        guard streetHalfWidth == 0 || streetHalfWidth >= 1 else {
            throw ParameterError(
                Self.streetHalfWidthSpec,
                "must be 0 (no streets) or at least 1 m, got " + JSONValue.formatNumber(streetHalfWidth))
        }
        let density = DensityRegionFinder.Options(
            coreRatio: core, extendRatio: extend, minKeywordPOIs: minimum, smoothing: p.double(Self.smoothingSpec),
            outlierSpacing: p.double(Self.outlierSpacingSpec), contrastRing: p.double(Self.contrastRingSpec),
            offStreet: p.double(Self.offStreetSpec), streetAspect: p.double(Self.streetAspectSpec),
            streetEnds: p.double(Self.streetEndsSpec), streetExtendRatio: p.double(Self.streetExtendRatioSpec),
            hullCorners: p.choice(Self.hullCornersSpec, as: DensityRegionFinder.HullCorners.self),
            besideStreet: p.double(Self.besideStreetSpec), streetRunOn: p.double(Self.streetRunOnSpec),
            persistence: p.double(Self.persistenceSpec), splitPersistence: p.double(Self.splitPersistenceSpec),
            fdr: p.double(Self.fdrSpec))
        self.init(
            method: p.choice(Self.methodSpec, as: Method.self),
            measure: p.choice(Self.measureSpec, as: Measure.self),
            finder: RegionFinder.Options(
                zCore: p.double(Self.zCoreSpec), zExtend: p.double(Self.zExtendSpec), minKeywordPOIs: minimum,
                mergeDistance: p.optionalDouble(Self.mergeDistanceSpec)),
            density: density,
            hierarchy: DensityHierarchy.Options(
                coarsest: density, childCoreRatio: childCore, childExtendRatio: childExtend,
                maxLevels: p.int(Self.maxLevelsSpec), sameRegionShare: p.double(Self.sameRegionShareSpec),
                ownReferencePOIs: p.int(Self.ownReferencePOIsSpec), levelRatio: p.double(Self.levelRatioSpec),
                ownDensityShare: p.double(Self.ownDensityShareSpec),
                levelZero: p.choice(Self.levelZeroSpec, as: DensityHierarchy.LevelZero.self),
                streetHalfWidth: streetHalfWidth, streetWidths: p.int(Self.streetWidthsSpec)),
            nested: p.bool(Self.nestedSpec),
            keywordGraph: KeywordGraph.Rules(
                neighbours: p.int(Self.neighboursSpec), edgeFactor: p.double(Self.edgeFactorSpec),
                detour: p.double(Self.detourSpec), wideDetour: p.double(Self.wideDetourSpec),
                minSpacing: p.double(Self.minSpacingSpec)),
            liftDensityRatio: p.double(Self.liftDensityRatioSpec), fdr: p.double(Self.fdrSpec),
            fdrScope: p.choice(Self.fdrScopeSpec, as: FDRScope.self),
            dbscanEps: p.double(Self.dbscanEpsSpec), dbscanMinSamples: p.int(Self.dbscanMinSamplesSpec),
            referenceWindow: p.double(Self.referenceWindowSpec))
    }
}
