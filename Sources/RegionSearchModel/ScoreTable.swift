import RegionSearchCore

/// Label-propagation scores, the output of `propagate` and the `scores` artifact.
///
/// Rows are the projected points (Hilbert order). Per keyword `c` (in the order of
/// `metadata.keywords`): `score.c` (f64, Zhou's F), `match.c` (u8, Y: 1 when the POI's keyword
/// text matches). `ones` (f64) is F for Y = 1 everywhere: dividing `score.c` by it gives the
/// keyword's smoothed local *share* around each POI (a weighted average of Y with the same
/// kernel), which the regions stage compares with the keyword's base rate. `probe` (f64) is F
/// for random ±1 labels (``NoiseProbe``): it measures how noisy those shares are on this graph.
/// `score.c`, `ones` and `probe` are written only when asked (`propagate.scores`: the lift and
/// DBSCAN measures and the scored POI layer read them, the density measure does not).
/// `density.c` (f32) is the keyword's density around each POI, in keyword POIs per km² of the
/// ground the POIs occupy: the keyword's labels and each POI's own area spread by one propagation
/// (`density_alpha`), one over the other, the POI's own term left out. The density measure's
/// nested levels are cut from it; the stage writes it only when asked (`propagate.densities`).
///
/// Read from an artifact, the columns are used in place (see ``Column``).
public struct ScoreTable: Sendable {
    public var keywords: [String]
    /// Per keyword its F; empty when the scores were not propagated (``hasScores``).
    public var scores: [Column<Double>]
    public var matches: [Column<UInt8>]
    /// F of the all-ones labels and of the probe; empty when the scores were not propagated.
    public var ones: Column<Double>
    public var probe: Column<Double>
    /// Rows: the projected points.
    public let count: Int
    /// Per keyword: its density around each POI, keyword POIs per km² (see above); empty when the
    /// densities were not propagated.
    public var density: [Column<Float>]

    public init(
        keywords: [String], scores: [Column<Double>], matches: [Column<UInt8>], ones: Column<Double>,
        probe: Column<Double>, density: [Column<Float>]
    ) {
        precondition(
            scores.isEmpty ? ones.isEmpty && probe.isEmpty : scores.count == keywords.count,
            "every keyword's score with the all-ones column and the probe, or none of them")
        self.keywords = keywords
        self.scores = scores
        self.matches = matches
        self.ones = ones
        self.probe = probe
        self.density = density
        count = matches.first?.count ?? ones.count
    }

    /// Whether the scores, the all-ones column and the probe were propagated (`propagate.scores`).
    public var hasScores: Bool { !scores.isEmpty }

    public init(
        keywords: [String], scores: [[Double]], matches: [[UInt8]], ones: [Double], probe: [Double],
        density: [[Float]]? = nil
    ) {
        self.init(
            keywords: keywords, scores: scores.map { Column($0) }, matches: matches.map { Column($0) },
            ones: Column(ones), probe: Column(probe), density: (density ?? []).map { Column($0) })
    }

    public init(artifact: ArtifactFile) throws(ArtifactError) {
        let n = artifact.rowCount
        guard let list = try artifact.meta("keywords").arrayValue else {
            throw ArtifactError.malformed(path: artifact.path, detail: "metadata 'keywords' is not a list")
        }
        var kws: [String] = []
        for item in list {
            guard let q = item["query"]?.stringValue else {
                throw ArtifactError.malformed(path: artifact.path, detail: "a keyword entry has no 'query'")
            }
            kws.append(q)
        }
        keywords = kws
        scores = []
        matches = []
        density = []
        count = n
        // All keywords' scores (with ones and probe) or none, all densities or none: a column
        // missing among them is malformed.
        let hasScores = artifact.hasColumn("ones")
        for c in 0..<kws.count {
            if hasScores { scores.append(try artifact.view("score.\(c)", count: n)) }
            matches.append(try artifact.view("match.\(c)", count: n))
            if artifact.hasColumn("density.0") { density.append(try artifact.view("density.\(c)", count: n)) }
        }
        ones = hasScores ? try artifact.view("ones", count: n) : Column([])
        probe = hasScores ? try artifact.view("probe", count: n) : Column([])
    }

    public func writer(metadata: JSONValue) -> ArtifactWriter {
        precondition(density.isEmpty || density.count == keywords.count, "every keyword's density or none")
        var w = ArtifactWriter(kind: .scores, rowCount: count, metadata: metadata)
        for c in 0..<keywords.count {
            if hasScores { w.add("score.\(c)", scores[c]) }
            w.add("match.\(c)", matches[c])
            if c < density.count { w.add("density.\(c)", density[c]) }
        }
        if hasScores {
            w.add("ones", ones)
            w.add("probe", probe)
        }
        return w
    }
}
