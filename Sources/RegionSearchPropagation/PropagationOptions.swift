import Foundation
import RegionSearchCore
import RegionSearchModel

/// The propagate stage's settings: the query keywords and the solver's options.
public struct PropagationOptions: StageOptions, Equatable {
    /// The query keywords as given, one score column each, in order; a keyword that repeats an
    /// earlier one after normalisation (`BANK` after `bank`) is left out and listed in
    /// ``duplicates``.
    public var keywords: [String]
    /// Keywords left out because they mean the same as an earlier one.
    public var duplicates: [Duplicate] = []
    public var solver: LabelPropagation.Options
    /// The propagation the keyword densities come from: the same solver at `density_alpha`.
    public var densitySolver: LabelPropagation.Options
    /// Whether the stage propagates the keyword densities too (`densities`): only the nested
    /// levels (`regions.nested`) are cut from them, and they cost a second propagation.
    public var densities: Bool
    /// Whether the stage propagates Zhou's scores, the all-ones column and the probe (`scores`):
    /// the lift and DBSCAN measures and the scored POI layer read them, the density measure does
    /// not (a manifest derives it, ``PropagateStage``'s `parameters(_:regions:poiLayer:)`).
    public var scores: Bool

    /// The two propagations the stage runs over one matrix.
    public struct Solvers: Sendable {
        /// Zhou's scores of the keywords, the all-ones column and the probe (`alpha`); nil when the
        /// scores are not asked for (``PropagationOptions/scores``).
        public var scores: LabelPropagation.Options?
        /// The keywords and the nodes' areas, whose ratio is the keyword density (`density_alpha`);
        /// nil when the densities are not asked for (``PropagationOptions/densities``).
        public var density: LabelPropagation.Options?

        public init(scores: LabelPropagation.Options?, density: LabelPropagation.Options?) {
            self.scores = scores
            self.density = density
        }

        /// Iterations of the longer of the two: a tile's window must hold this many hops (and two).
        public var iterations: Int {
            max(
                scores.map(LabelPropagation.iterationCount) ?? 0,
                density.map(LabelPropagation.iterationCount) ?? 0)
        }

        /// Columns a tile part carries: per keyword its score, then the all-ones column and the
        /// probe (when the scores are asked for); then per keyword its density (when asked for).
        public func columnCount(keywords k: Int) -> Int { (scores == nil ? 0 : k + 2) + (density == nil ? 0 : k) }
    }

    public var solvers: Solvers {
        Solvers(scores: scores ? solver : nil, density: densities ? densitySolver : nil)
    }

    /// A keyword given again: its spelling and position in the list given, and the kept
    /// spelling it repeats.
    public struct Duplicate: Sendable, Equatable {
        public var given: String
        public var index: Int
        public var sameAs: String
    }

    public init(
        keywords: [String], solver: LabelPropagation.Options = .init(),
        densitySolver: LabelPropagation.Options = PropagationOptions.defaultDensitySolver,
        densities: Bool = true, scores: Bool = true
    ) {
        self.keywords = keywords
        self.solver = solver
        self.densitySolver = densitySolver
        self.densities = densities
        self.scores = scores
    }

    /// The solver's defaults, declared once by its `init`'s default arguments (see
    /// ``GraphOptions/defaults``); the keywords have none.
    static let defaultSolver = LabelPropagation.Options()
    /// `density_alpha`'s default.
    public static let defaultDensityAlpha = 0.8
    /// The densities' tolerance: they are compared with the levels' floors (a POI changes band only
    /// where its density lies within the error of one) and stored as Float32, so an error bound of
    /// 1e-5 of the labels (a tenth of this) decides nothing the scores' 1e-6 would, at 18 Chebyshev
    /// steps instead of 25 (at `density_alpha` 0.8).
    public static let defaultDensityTolerance = 1e-4

    /// The densities' solver at its defaults (`density_alpha`, `density_tolerance`, and the
    /// precision those give).
    public static let defaultDensitySolver: LabelPropagation.Options = {
        var solver = LabelPropagation.Options(alpha: defaultDensityAlpha, tolerance: defaultDensityTolerance)
        solver.precision = densityPrecision(solver)
        return solver
    }()

    /// What the densities' propagation stores its iterate and residual in: Float32 (half their
    /// memory traffic) when the rounding of all its steps, Float32's 6e-8 of a value per step,
    /// stays within a tenth of its tolerance (the defaults: 18 steps, 1.1e-6 against 1e-5);
    /// Float64 otherwise (`density_tolerance` 1e-5 at `density_alpha` 0.8: 21 steps, 1.3e-6
    /// against 1e-6; the default tolerance at `density_alpha` 0.999: 272 steps).
    public static func densityPrecision(_ solver: LabelPropagation.Options) -> LabelPropagation.Precision {
        let rounding = Double(LabelPropagation.iterationCount(solver)) * Double(Float.ulpOfOne) / 2
        return rounding <= solver.tolerance / 10 ? .single : .double
    }

    public static let keywordsSpec = ParameterSpec(
        "keywords", .stringList, default: nil,
        help:
            "Query keywords, one score column each (a repeat after normalisation, e.g. BANK after bank, is run once). "
            + "NFKC + case-folded; a keyword matches a keyword value holding it as whole tokens, where _ joins "
            + "tokens (\"parking\" matches \"Parking garage\", not \"bicycle_parking\"; \"bank\" not "
            + "\"embankment\"); scripts without spaces match inside words (\"咖啡\" matches \"瑞幸咖啡\"); "
            + "cafe* is a prefix match, *_parking a suffix match; key=value (amenity=parking, fclass=parking, "
            + "shop=*) matches values of that tag key, column or property exactly."
    )
    static let alphaSpec = ParameterSpec(
        "alpha", .number(min: 0, max: 1, minExclusive: true), default: .number(defaultSolver.alpha),
        help:
            "Propagation strength α in F ← αSF + (1−α)Y: a POI's label reaches about 1/(1−α) graph hops (0.9 ≈ 10 "
            + "hops: a street-block cluster; higher finds broader districts, lower tighter cores)."
    )
    static let densityAlphaSpec = ParameterSpec(
        "density_alpha", .number(min: 0, max: 1, minExclusive: true), default: .number(defaultDensityAlpha),
        help:
            "Propagation strength of the keyword densities the density measure's regions are cut from: each "
            + "keyword's labels and each POI's area of ground are spread over the POI graph with this α (about "
            + "1/(1−α) hops: 0.8 ≈ 5), and their ratio, without the POI's own term, is the keyword's POIs per km² "
            + "around it.")
    static let densityToleranceSpec = ParameterSpec(
        "density_tolerance", .number(min: 0, max: 1, minExclusive: true), default: .number(defaultDensityTolerance),
        help:
            "tolerance of the keyword densities' propagation (see tolerance): they are only compared with the "
            + "levels' floors and stored as 32-bit floats, so they need less than the scores. The propagation keeps "
            + "its state in 32-bit floats (it computes in 64 bits) when their rounding over all its steps stays "
            + "within a tenth of this (the default at density_alpha 0.8: 18 steps), in 64 bits otherwise.")
    static let toleranceSpec = ParameterSpec(
        "tolerance", .number(min: 0, max: 1, minExclusive: true), default: .number(defaultSolver.tolerance),
        help:
            "Run the fixed number of iterations at which the solver's error bound (relative to the start) falls to a "
            + "tenth of this; the largest change in the last one is recorded, and a keyword whose change is larger is "
            + "reported as not converged.")
    static let maxIterationsSpec = ParameterSpec(
        "max_iterations", .integer(min: 1, max: 100_000), default: .number(Double(defaultSolver.maxIterations)),
        help: "Cap on the fixed iteration count (see tolerance).")
    static let solverSpec = ParameterSpec(
        "solver", .choice(LabelPropagation.Solver.allCases.map { $0.rawValue }),
        default: .string(defaultSolver.solver.rawValue),
        help:
            "How the fixed point F* = (1−α)(I−αS)⁻¹Y is reached: \"jacobi\" is Zhou's iteration as written; "
            + "\"chebyshev\" accelerates it with the known spectrum of S (same F*, about a third of the iterations)."
    )

    public static let densitiesSpec = ParameterSpec(
        "densities", .boolean, default: .bool(PropagationOptions(keywords: []).densities),
        help: "Also propagate the keyword densities (density.c: keyword POIs per km² of ground around each POI, "
            + "at density_alpha), which the nested regions (regions.nested, the default) cut their finer levels "
            + "from: a second propagation. A manifest with regions.nested true turns it on whatever is given; one "
            + "with one level, lift or DBSCAN may set false to skip it.")

    public static let scoresSpec = ParameterSpec(
        "scores", .boolean, default: .bool(PropagationOptions(keywords: []).scores),
        help: "Propagate Zhou's scores (score.c at alpha), the all-ones column that turns them into local shares "
            + "and the probe that measures their noise: what the lift and dbscan measures and the scored POI "
            + "layer (poi_output) read. The density measure reads only the densities, so a manifest sets this "
            + "itself: on with regions.measure lift or dbscan or with poi_output, off otherwise, whatever is given.")

    public static let specs = [
        keywordsSpec, alphaSpec, densityAlphaSpec, densitiesSpec, densityToleranceSpec, toleranceSpec,
        maxIterationsSpec, solverSpec, scoresSpec,
    ]

    /// The longest keyword, in UTF-8 bytes: keywords are words or short category names, and
    /// they travel on the stage's command line, where one argument holds at most 128 KiB.
    public static let maxKeywordBytes = 1_000
    /// All keywords together (one command-line argument).
    public static let maxTotalKeywordBytes = 100_000

    /// Rejects a keyword that cannot mean what it says: control characters (a NUL cut the
    /// keyword short and turned it into a prefix) or over-long text (``KeywordQuery`` rejects
    /// the rest: nothing but a wildcard, nothing left after normalisation, `=x`, `x=`).
    static func check(_ q: String, index i: Int) throws(ParameterError) {
        if let c = q.unicodeScalars.first(where: { $0.properties.generalCategory == .control }) {
            let code = "U+" + String(format: "%04X", c.value)
            throw ParameterError(
                Self.keywordsSpec, index: i,
                "holds the control character \(code); keywords are plain text (remove it)")
        }
        if q.utf8.count > maxKeywordBytes {
            throw ParameterError(
                Self.keywordsSpec, index: i,
                "is \(q.utf8.count) bytes long; at most \(maxKeywordBytes): give a word or a category name")
        }
    }

    public init(_ p: Parameters) throws(ParameterError) {
        let given = p.strings(Self.keywordsSpec)
        guard !given.isEmpty else { throw ParameterError(Self.keywordsSpec, "give at least one keyword") }
        var queries: [KeywordQuery] = []
        var totalBytes = 0
        for (i, q) in given.enumerated() {
            try Self.check(q, index: i)
            totalBytes += q.utf8.count + 1
            do {
                queries.append(try KeywordQuery(q))
            } catch {
                throw ParameterError(Self.keywordsSpec, index: i, error.description)
            }
        }
        if totalBytes > Self.maxTotalKeywordBytes {
            throw ParameterError(
                Self.keywordsSpec,
                "the keywords hold \(totalBytes) bytes together; at most \(Self.maxTotalKeywordBytes) "
                    + "(they travel on one stage command line): query fewer keywords per manifest")
        }
        let (kept, repeats) = KeywordQuery.distinct(queries)
        keywords = kept.map(\.given)
        duplicates = repeats.map { Duplicate(given: given[$0.index], index: $0.index, sameAs: given[$0.sameAs]) }
        solver = LabelPropagation.Options(
            alpha: p.double(Self.alphaSpec), tolerance: p.double(Self.toleranceSpec),
            maxIterations: p.int(Self.maxIterationsSpec),
            solver: p.choice(Self.solverSpec, as: LabelPropagation.Solver.self))
        densitySolver = solver
        densitySolver.alpha = p.double(Self.densityAlphaSpec)
        densitySolver.tolerance = p.double(Self.densityToleranceSpec)
        densitySolver.precision = Self.densityPrecision(densitySolver)
        densities = p.bool(Self.densitiesSpec)
        scores = p.bool(Self.scoresSpec)
    }

    /// `keywords` without the ones that repeat an earlier keyword after normalisation (the
    /// score columns a list gives); keywords that are not valid queries are kept as they are.
    public static func distinct(_ keywords: [String]) -> [String] {
        var seen = Set<KeywordQuery>()
        return keywords.filter { k in
            guard let q = try? KeywordQuery(k) else { return true }
            return seen.insert(q).inserted
        }
    }
}
