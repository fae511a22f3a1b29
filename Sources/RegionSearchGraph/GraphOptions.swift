import RegionSearchCore

/// The graph stage's settings (parameters of ``GraphBuilder``).
public struct GraphOptions: StageOptions, Equatable {
    public var method: GraphMethod
    /// Neighbours per point for ``GraphMethod/knn``.
    public var k: Int
    /// Which neighbour's distance defines the local scale σ (see ``LocalScale``).
    public var scaleK: Int
    /// Absolute edge-length cap in metres, or nil for none.
    var maxEdgeMetres: Double?
    /// Local-scale pruning factor; 0 disables (see ``EdgePruning``).
    var pruneFactor: Double
    /// Void pruning on Delaunay graphs (see ``VoidEdges``): a triangle is empty when its
    /// circumradius exceeds this many local spacings; 0 disables.
    var voidRadius: Double
    /// Empty triangles connected in groups of at least this many form a void.
    var voidMinTriangles: Int
    /// Edges longer than this many times the data's median local spacing are dropped; 0 disables.
    var farFactor: Double

    public init(
        method: GraphMethod = .delaunay, k: Int = 8, scaleK: Int = 5, maxEdgeMetres: Double? = nil,
        pruneFactor: Double = 2, voidRadius: Double = 0.8, voidMinTriangles: Int = 16,
        farFactor: Double = 50
    ) {
        self.voidRadius = voidRadius
        self.voidMinTriangles = voidMinTriangles
        self.method = method
        self.k = k
        self.scaleK = scaleK
        self.maxEdgeMetres = maxEdgeMetres
        self.pruneFactor = pruneFactor
        self.farFactor = farFactor
    }

    /// The defaults, declared once by `init`'s default arguments: each spec's default is read
    /// from here, and a test checks that the specs' defaults build these options.
    public static let defaults = GraphOptions()

    public static let methodSpec = ParameterSpec(
        "method", .choice(GraphMethod.allCases.map { $0.rawValue }), default: .string(defaults.method.rawValue),
        help:
            "How points are joined: 'delaunay' (natural neighbours in every direction) "
            + "or 'knn' (each point to its k nearest)."
    )
    static let kSpec = ParameterSpec(
        "k", .integer(min: 1, max: 64), default: .number(Double(defaults.k)),
        help:
            "knn only: how many nearest other locations each point is joined to (the graph keeps the union, so a "
            + "point can have more)."
    )
    static let scaleKSpec = ParameterSpec(
        "scale_k", .integer(min: 1, max: 64), default: .number(Double(defaults.scaleK)),
        help:
            "The local spacing of a point is the distance to its scale_k-th nearest other location (coincident "
            + "points count once)."
    )
    static let maxEdgeSpec = ParameterSpec(
        "max_edge_m", .number(min: 0, max: nil, minExclusive: true),
        default: defaults.maxEdgeMetres.map { .number($0) } ?? .null,
        help: "Drop every edge longer than this many metres, whatever the neighbourhood.")
    static let pruneFactorSpec = ParameterSpec(
        "prune_factor", .number(min: 0, max: nil), default: .number(defaults.pruneFactor),
        help: "Drop an edge longer than prune_factor times the local spacing at both of its ends; 0 keeps all edges.")

    public static let voidRadiusSpec = ParameterSpec(
        "void_radius", .number(min: 0, max: 100), default: .number(defaults.voidRadius),
        help:
            "A triangle of the Delaunay triangulation is empty when its circumcircle's radius exceeds void_radius times the mean local "
            + "spacing of its corners (smoothed over two edges); groups of void_min_triangles empty triangles form a "
            + "void (a river, park, lake "
            + "or rail yard wide for its neighbourhood), and the edges across it are dropped. 0 keeps them.")
    public static let voidMinTrianglesSpec = ParameterSpec(
        "void_min_triangles", .integer(min: 1, max: 1_000_000), default: .number(Double(defaults.voidMinTriangles)),
        help: "How many empty triangles, connected across shared edges, make a void rather than a chance "
            + "gap between POIs.")
    public static let farFactorSpec = ParameterSpec(
        "far_factor", .number(min: 0, max: nil), default: .number(defaults.farFactor),
        help: "Drop every edge longer than far_factor times the median local spacing of all POIs, so POIs far from "
            + "everything else are isolated; 0 disables.")

    public static let specs = [
        methodSpec, kSpec, scaleKSpec, maxEdgeSpec, pruneFactorSpec, voidRadiusSpec, voidMinTrianglesSpec,
        farFactorSpec,
    ]

    public init(_ p: Parameters) throws(ParameterError) {
        self.init(
            method: p.choice(Self.methodSpec, as: GraphMethod.self), k: p.int(Self.kSpec),
            scaleK: p.int(Self.scaleKSpec),
            maxEdgeMetres: p.optionalDouble(Self.maxEdgeSpec), pruneFactor: p.double(Self.pruneFactorSpec),
            voidRadius: p.double(Self.voidRadiusSpec), voidMinTriangles: p.int(Self.voidMinTrianglesSpec),
            farFactor: p.double(Self.farFactorSpec))
    }
}
