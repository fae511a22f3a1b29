import RegionSearchCore
import RegionSearchModel

/// The propagate stage's settings: the query keywords and the solver's options.
public struct PropagationOptions: StageOptions {
    /// The query keywords as given, one score column each, in order.
    public var keywords: [String]
    public var solver: LabelPropagation.Options

    public init(keywords: [String], solver: LabelPropagation.Options = .init()) {
        self.keywords = keywords
        self.solver = solver
    }

    public static let keywordsSpec = ParameterSpec(
        "keywords", .stringList, default: nil,
        help:
            "Query keywords, one score column each. Matching: NFKC + case-folded substring, with word boundaries for "
            + "scripts that have them (\"bank\" does not match \"embankment\"; \"咖啡\" matches \"瑞幸咖啡\"); a "
            + "trailing * asks for a prefix match."
    )
    static let alphaSpec = ParameterSpec(
        "alpha", .number(min: 0, max: 1, minExclusive: true), default: .number(0.9),
        help:
            "Propagation strength α in F ← αSF + (1−α)Y: a POI's label reaches about 1/(1−α) graph hops (0.9 ≈ 10 "
            + "hops: a street-block cluster; higher finds broader districts, lower tighter cores)."
    )
    static let toleranceSpec = ParameterSpec(
        "tolerance", .number(min: 0, max: 1, minExclusive: true), default: .number(1e-6),
        help: "Stop a keyword when no score changes by more than this between iterations.")
    static let maxIterationsSpec = ParameterSpec(
        "max_iterations", .integer(min: 1, max: 100_000), default: .number(1000),
        help: "Iteration cap per keyword; a keyword that hits it is reported as not converged.")
    static let solverSpec = ParameterSpec(
        "solver", .choice(LabelPropagation.Solver.allCases.map { $0.rawValue }), default: .string("chebyshev"),
        help:
            "How the fixed point F* = (1−α)(I−αS)⁻¹Y is reached: \"jacobi\" is Zhou's iteration as written; "
            + "\"chebyshev\" accelerates it with the known spectrum of S (same F*, about a third of the iterations)."
    )

    public static let specs = [keywordsSpec, alphaSpec, toleranceSpec, maxIterationsSpec, solverSpec]

    public init(_ p: Parameters) throws(ParameterError) {
        keywords = p.strings(Self.keywordsSpec)
        guard !keywords.isEmpty else { throw ParameterError(Self.keywordsSpec, "give at least one keyword") }
        for (i, q) in keywords.enumerated() where KeywordMatcher(q).normalized.isEmpty {
            throw ParameterError(Self.keywordsSpec, index: i, "\"\(q)\" is empty after normalisation")
        }
        solver = LabelPropagation.Options(
            alpha: p.double(Self.alphaSpec), tolerance: p.double(Self.toleranceSpec),
            maxIterations: p.int(Self.maxIterationsSpec),
            solver: p.choice(Self.solverSpec, as: LabelPropagation.Solver.self))
    }
}
