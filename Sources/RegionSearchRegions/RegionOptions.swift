import RegionSearchCore

/// The regions stage's settings.
public struct RegionOptions: StageOptions {
    /// How candidate regions are found.
    public enum Method: String, CaseIterable, Sendable {
        /// Connected POIs whose propagated keyword share stands out from the base rate.
        case propagation
        /// DBSCAN over the keyword's POIs only (a baseline for experiments).
        case dbscan
    }

    public var method: Method
    var finder: RegionFinder.Options
    /// Benjamini–Hochberg false discovery rate; 1 keeps every candidate.
    public var fdr: Double
    var dbscanEps: Double
    var dbscanMinSamples: Int

    public init(
        method: Method = .propagation, finder: RegionFinder.Options = .init(), fdr: Double = 0.05,
        dbscanEps: Double = 200,
        dbscanMinSamples: Int = 10
    ) {
        self.method = method
        self.finder = finder
        self.fdr = fdr
        self.dbscanEps = dbscanEps
        self.dbscanMinSamples = dbscanMinSamples
    }

    public static let methodSpec = ParameterSpec(
        "method", .choice(Method.allCases.map { $0.rawValue }), default: .string("propagation"),
        help:
            "\"propagation\": regions where the keyword's local share (from propagate) stands out from its base rate, tested for significance; \"dbscan\": DBSCAN over the keyword's POIs only, a baseline for experiments."
    )
    static let zCoreSpec = ParameterSpec(
        "z_core", .number(min: 0, max: 50), default: .number(2.5),
        help:
            "A region's core POIs have a local keyword share at least this many standard deviations above the keyword's base rate (the deviation chance alone would give the share there)."
    )
    static let zExtendSpec = ParameterSpec(
        "z_extend", .number(min: 0, max: 50), default: .number(1.5),
        help:
            "A region extends from its core through connected POIs whose share is at least this many standard deviations above the base rate, so a hot spot is kept whole down to its fringe."
    )
    static let minKeywordPOIsSpec = ParameterSpec(
        "min_keyword_pois", .integer(min: 1, max: 1_000_000), default: .number(5),
        help: "A region needs at least this many POIs matching the keyword.")
    static let fdrSpec = ParameterSpec(
        "fdr", .number(min: 0, max: 1, minExclusive: true), default: .number(0.05),
        help:
            "False discovery rate over all regions of all keywords (Benjamini–Hochberg): at most this share of reported regions is expected to be chance clumps. 1 disables the test."
    )
    static let mergeDistanceSpec = ParameterSpec(
        "merge_distance_m", .number(min: 0, max: nil), default: .null,
        help:
            "Regions of one keyword whose matching POIs come within this many metres are merged into one hot spot; default: twice the median POI spacing inside the regions."
    )
    static let dbscanEpsSpec = ParameterSpec(
        "dbscan_eps_m", .number(min: 0, max: nil, minExclusive: true), default: .number(200),
        help: "DBSCAN neighbourhood radius in metres (method dbscan only).")
    static let dbscanMinSamplesSpec = ParameterSpec(
        "dbscan_min_samples", .integer(min: 1, max: 1_000_000), default: .number(10),
        help: "DBSCAN core-point threshold: POIs within eps, itself included (method dbscan only).")

    public static let specs = [
        methodSpec, zCoreSpec, zExtendSpec, minKeywordPOIsSpec, fdrSpec, mergeDistanceSpec, dbscanEpsSpec,
        dbscanMinSamplesSpec,
    ]

    public init(_ p: Parameters) throws(ParameterError) {
        self.init(
            method: p.choice(Self.methodSpec, as: Method.self),
            finder: RegionFinder.Options(
                zCore: p.double(Self.zCoreSpec), zExtend: p.double(Self.zExtendSpec),
                minKeywordPOIs: p.int(Self.minKeywordPOIsSpec), mergeDistance: p.optionalDouble(Self.mergeDistanceSpec)),
            fdr: p.double(Self.fdrSpec), dbscanEps: p.double(Self.dbscanEpsSpec),
            dbscanMinSamples: p.int(Self.dbscanMinSamplesSpec))
    }
}
