import Foundation
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
        help:
            "Run the fixed number of iterations at which the solver's error bound (relative to the start) falls to a "
            + "tenth of this; the largest change in the last one is recorded, and a keyword whose change is larger is "
            + "reported as not converged.")
    static let maxIterationsSpec = ParameterSpec(
        "max_iterations", .integer(min: 1, max: 100_000), default: .number(1000),
        help: "Cap on the fixed iteration count (see tolerance).")
    static let solverSpec = ParameterSpec(
        "solver", .choice(LabelPropagation.Solver.allCases.map { $0.rawValue }), default: .string("chebyshev"),
        help:
            "How the fixed point F* = (1−α)(I−αS)⁻¹Y is reached: \"jacobi\" is Zhou's iteration as written; "
            + "\"chebyshev\" accelerates it with the known spectrum of S (same F*, about a third of the iterations)."
    )

    public static let specs = [keywordsSpec, alphaSpec, toleranceSpec, maxIterationsSpec, solverSpec]

    /// The longest keyword, in UTF-8 bytes: keywords are words or short category names, and
    /// they travel on the stage's command line, where one argument holds at most 128 KiB.
    public static let maxKeywordBytes = 1_000
    /// All keywords together (one command-line argument).
    public static let maxTotalKeywordBytes = 100_000

    /// Rejects a keyword that cannot mean what it says: control characters (a NUL cut the
    /// keyword short and turned it into a prefix), over-long text, nothing but a wildcard, or
    /// nothing left after normalisation.
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
        var core = Substring(q).trimmingCharacters(in: .whitespaces)
        if core.hasSuffix("*") { core = String(core.dropLast()).trimmingCharacters(in: .whitespaces) }
        if core.isEmpty && q.contains("*") {
            throw ParameterError(
                Self.keywordsSpec, index: i,
                "\"\(q)\" is only a wildcard; give the text to match, e.g. \"cafe*\" for words starting with cafe")
        }
        if KeywordMatcher(q).normalized.isEmpty {
            throw ParameterError(Self.keywordsSpec, index: i, "\"\(q)\" is empty after normalisation")
        }
    }

    public init(_ p: Parameters) throws(ParameterError) {
        keywords = p.strings(Self.keywordsSpec)
        guard !keywords.isEmpty else { throw ParameterError(Self.keywordsSpec, "give at least one keyword") }
        var totalBytes = 0
        for (i, q) in keywords.enumerated() {
            try Self.check(q, index: i)
            totalBytes += q.utf8.count + 1
        }
        if totalBytes > Self.maxTotalKeywordBytes {
            throw ParameterError(
                Self.keywordsSpec,
                "the keywords hold \(totalBytes) bytes together; at most \(Self.maxTotalKeywordBytes) "
                    + "(they travel on one stage command line): query fewer keywords per manifest")
        }
        solver = LabelPropagation.Options(
            alpha: p.double(Self.alphaSpec), tolerance: p.double(Self.toleranceSpec),
            maxIterations: p.int(Self.maxIterationsSpec),
            solver: p.choice(Self.solverSpec, as: LabelPropagation.Solver.self))
    }
}
