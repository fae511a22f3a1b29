import RegionSearchCore

/// The graph stage's settings (parameters of ``GraphBuilder``).
public struct GraphOptions: StageOptions, Equatable {
    public var method: GraphMethod
    /// Neighbours per point for ``GraphMethod/knn``.
    public var k: Int
    /// Which neighbour's distance defines the local scale σ (see ``LocalScale``).
    var scaleK: Int
    /// Absolute edge-length cap in metres, or nil for none.
    var maxEdgeMetres: Double?
    /// Local-scale pruning factor; 0 disables (see ``EdgePruning``).
    var pruneFactor: Double

    public init(
        method: GraphMethod = .delaunay, k: Int = 8, scaleK: Int = 5, maxEdgeMetres: Double? = nil,
        pruneFactor: Double = 2
    ) {
        self.method = method
        self.k = k
        self.scaleK = scaleK
        self.maxEdgeMetres = maxEdgeMetres
        self.pruneFactor = pruneFactor
    }

    public static let methodSpec = ParameterSpec(
        "method", .choice(GraphMethod.allCases.map { $0.rawValue }), default: .string("delaunay"),
        help:
            "How points are joined: 'delaunay' (natural neighbours in every direction) or 'knn' (each point to its k nearest)."
    )
    static let kSpec = ParameterSpec(
        "k", .integer(min: 1, max: 64), default: .number(8),
        help:
            "knn only: how many nearest other locations each point is joined to (the graph keeps the union, so a point can have more)."
    )
    static let scaleKSpec = ParameterSpec(
        "scale_k", .integer(min: 1, max: 64), default: .number(5),
        help:
            "The local spacing of a point is the distance to its scale_k-th nearest other location (coincident points count once)."
    )
    static let maxEdgeSpec = ParameterSpec(
        "max_edge_m", .number(min: 0, max: nil, minExclusive: true), default: .null,
        help: "Drop every edge longer than this many metres, whatever the neighbourhood.")
    static let pruneFactorSpec = ParameterSpec(
        "prune_factor", .number(min: 0, max: nil), default: .number(2),
        help: "Drop an edge longer than prune_factor times the local spacing at both of its ends; 0 keeps all edges.")

    public static let specs = [methodSpec, kSpec, scaleKSpec, maxEdgeSpec, pruneFactorSpec]

    public init(_ p: Parameters) throws(ParameterError) {
        self.init(
            method: p.choice(Self.methodSpec, as: GraphMethod.self), k: p.int(Self.kSpec),
            scaleK: p.int(Self.scaleKSpec),
            maxEdgeMetres: p.optionalDouble(Self.maxEdgeSpec), pruneFactor: p.double(Self.pruneFactorSpec))
    }
}
