import RegionSearchCore
import RegionSearchModel

/// The propagate stage's work over its inputs: label the POIs that match each query keyword, add
/// the all-ones and random-probe columns, propagate them all in one pass, and gather the scores.
public enum KeywordPropagation {
    /// The POIs one keyword labels.
    public struct Labels: Sendable {
        public var query: String
        /// The query as matched: NFKC + case fold (``KeywordMatcher/canonical``).
        public var normalized: String
        /// False for a `key=value` query whose key the pois artifact does not record.
        public var keyKnown: Bool = true
        /// Y: 1 where the point's POI matches, per projected point.
        public var match: [UInt8]
        public var count: Int
    }

    /// The scores and how every column converged.
    public struct Result: Sendable {
        public var labels: [Labels]
        public var table: ScoreTable
        /// Every column propagated for the scores: the keywords in query order, then the all-ones
        /// column, then the probe; empty when the scores were not asked for.
        public var columnStatus: [LabelPropagation.ColumnStatus]

        /// One per keyword, in query order (none without the scores).
        public var status: ArraySlice<LabelPropagation.ColumnStatus> { columnStatus.prefix(labels.count) }
        /// The all-ones column's (nil without the scores).
        public var onesStatus: LabelPropagation.ColumnStatus? {
            columnStatus.count > labels.count ? columnStatus[labels.count] : nil
        }
        /// Seconds spent building S from the graph, and iterating the solver (with its set-up and
        /// the columns' extraction): the benchmark compares the second with memory bandwidth.
        public var matrixSeconds = 0.0
        public var solveSeconds = 0.0
        /// Per keyword: how its labels' propagation at `density_alpha` ended.
        public var densityStatus: [LabelPropagation.ColumnStatus] = []
    }

    /// Y for `query` over the projected points: point `i` is the POI at row `rows[i]` of the
    /// keyword text column (`offsets`, UTF-8 `bytes`); `keys` is the pois artifact's key table
    /// (``POITable/keywordKeys``), which `key=value` queries need.
    public static func labels(
        query: String, keywordText: (offsets: Column<UInt64>, bytes: Column<UInt8>), rows: Column<UInt32>,
        keys: [String] = []
    ) -> Labels {
        labels(queries: [query], keywordText: keywordText, rows: rows, keys: keys)[0]
    }

    /// ``labels(query:keywordText:rows:keys:)`` for each of `queries`, in their order: each
    /// keyword is matched once per distinct text (``DistinctTexts``), not once per row.
    public static func labels(
        queries: [String], keywordText: (offsets: Column<UInt64>, bytes: Column<UInt8>), rows: Column<UInt32>,
        keys: [String] = []
    ) -> [Labels] {
        let bytes = keywordText.bytes.buffer
        let offsets = keywordText.offsets.buffer
        let texts = DistinctTexts(offsets: offsets, bytes: bytes)
        // Each point's text, gathered once: the points are in Hilbert order, so this visits the
        // rows' text indices at random; each keyword then reads it front to back.
        let rowIndex = rows.buffer
        let textOfPoint = [UInt32](unsafeUninitializedCapacity: rowIndex.count) { pb, initialized in
            texts.textOf.withUnsafeBufferPointer { tb in
                for i in 0..<rowIndex.count { pb[i] = tb[Int(rowIndex[i])] }
            }
            initialized = rowIndex.count
        }
        return queries.map { query in
            let matcher = KeywordMatcher(query, keys: keys)
            // On both threads: where most texts are distinct (names or addresses in the keyword
            // fields) this is as much matching as every row was.
            var matchesText = [UInt8](repeating: 0, count: texts.firstRow.count)
            matchesText.withUnsafeMutableBufferPointer { mb in
                texts.firstRow.withUnsafeBufferPointer { fb in
                    Parallel.forRanges(fb.count, minChunk: 16_384) { range in
                        for t in range {
                            let r = fb[t]
                            let text = UnsafeBufferPointer(rebasing: bytes[Int(offsets[r])..<Int(offsets[r + 1])])
                            mb[t] = matcher.matches(text) ? 1 : 0
                        }
                    }
                }
            }
            var count = 0
            let y = [UInt8](unsafeUninitializedCapacity: textOfPoint.count) { yb, initialized in
                textOfPoint.withUnsafeBufferPointer { pb in
                    matchesText.withUnsafeBufferPointer { mb in
                        for i in 0..<pb.count {
                            let v = mb[Int(pb[i])]
                            yb[i] = v
                            count &+= Int(v)
                        }
                    }
                }
                initialized = textOfPoint.count
            }
            return Labels(
                query: query, normalized: matcher.canonical, keyKnown: matcher.isKeyKnown, match: y, count: count)
        }
    }

    /// Propagates labelled keywords plus the all-ones and probe columns over `graph` (when
    /// `options` asks for the scores), and the keywords and each node's area once more for the
    /// keyword densities (when it asks for them; ``Solution``).
    ///
    /// - Parameter scaleK: the neighbour the graph's local spacings are measured to (its
    ///   `scale_k`), which a node's area needs (``AdjacencyGraph/ownedArea(_:scaleK:)``).
    /// - Parameter residualRows: the rows whose last change is reported (a tile's own rows).
    public static func run(
        labels: [Labels], graph: AdjacencyGraph, options: PropagationOptions.Solvers, scaleK: Int,
        residualRows: Range<Int>? = nil, progress: ((Int, Double) -> Void)? = nil
    ) -> Result {
        let n = graph.nodeCount
        let solution = solve(
            matches: labels.map(\.match), probe: NoiseProbe.labels(count: n), graph: graph, options: options,
            scaleK: scaleK, residualRows: residualRows, progress: progress)
        let k = labels.count
        let scored = !solution.scores.isEmpty
        let table = ScoreTable(
            keywords: labels.map(\.query), scores: Array(solution.scores.prefix(k)), matches: labels.map(\.match),
            ones: scored ? solution.scores[k] : [], probe: scored ? solution.scores[k + 1] : [],
            density: solution.density.map(Self.stored))
        var result = Result(labels: labels, table: table, columnStatus: solution.status)
        result.densityStatus = solution.densityStatus
        result.matrixSeconds = solution.matrixSeconds
        result.solveSeconds = solution.solveSeconds
        return result
    }

    /// Every column the scores artifact derives from the propagation, for the nodes of `graph`.
    struct Solution {
        /// The keywords' F in query order, then the all-ones column's, then the probe's (Zhou's
        /// propagation at `alpha`), and their status; empty when not asked for.
        var scores: [[Double]]
        var status: [LabelPropagation.ColumnStatus]
        /// Per keyword: keyword POIs per km² around each node (``density(keyword:area:match:alpha:)``);
        /// empty when not asked for.
        var density: [[Double]]
        /// Per keyword: the status of its labels' propagation at `density_alpha`.
        var densityStatus: [LabelPropagation.ColumnStatus]
        var matrixSeconds = 0.0
        var solveSeconds = 0.0
    }

    /// The two propagations over one matrix S: the keywords, all-ones and probe at `alpha` (only
    /// when `options.scores` asks for them: otherwise `scores` is empty); the keywords and the
    /// nodes' areas at `density_alpha`, whose ratio is the keyword density (only when
    /// `options.density` asks for it: otherwise `density` is empty). `progress` follows the first.
    static func solve(
        matches: [[UInt8]], probe: [Double], graph: AdjacencyGraph, options: PropagationOptions.Solvers,
        scaleK: Int, residualRows: Range<Int>?, progress: ((Int, Double) -> Void)?
    ) -> Solution {
        let n = graph.nodeCount
        precondition(probe.count == n && matches.allSatisfy { $0.count == n })
        guard options.scores != nil || options.density != nil else {
            return Solution(scores: [], status: [], density: [], densityStatus: [])
        }
        var columns = matches.map { m in m.map { Double($0) } }
        let t0 = monotonicSeconds()
        let propagation = LabelPropagation(graph: graph)
        let t1 = monotonicSeconds()
        var scores: [[Double]] = []
        var status: [LabelPropagation.ColumnStatus] = []
        var progress = progress
        if let scoresSolver = options.scores {
            (scores, status) = propagation.run(
                labels: columns + [[Double](repeating: 1, count: n), probe], options: scoresSolver,
                residualRows: residualRows, progress: progress)
            progress = nil
        }
        guard let densitySolver = options.density else {
            return Solution(
                scores: scores, status: status, density: [], densityStatus: [], matrixSeconds: t1 - t0,
                solveSeconds: monotonicSeconds() - t1)
        }
        let area = (0..<n).map { graph.ownedArea($0, scaleK: scaleK) }
        columns.append(area)
        let (spread, spreadStatus) = propagation.run(
            labels: columns, options: densitySolver, residualRows: residualRows, progress: progress)
        let t2 = monotonicSeconds()
        let alpha = densitySolver.alpha
        let density = matches.indices.map { c in
            Self.density(
                keyword: spread[c], area: spread[matches.count], match: matches[c], ownArea: area, alpha: alpha)
        }
        return Solution(
            scores: scores, status: status, density: density, densityStatus: Array(spreadStatus.prefix(matches.count)),
            matrixSeconds: t1 - t0, solveSeconds: t2 - t1)
    }

    /// The keyword's density around each node, keyword POIs per km²: its spread labels over the
    /// spread areas — the same kernel weights both, so the ratio is the keyword's count per area of
    /// ground in the node's neighbourhood (about 1 / (1 − α) hops) — with the node's own term
    /// (1 − α)·Y and (1 − α)·area taken out of both. Without that, a keyword POI would count itself
    /// at a weight no neighbour has and every keyword POI would look dense. 0 where the
    /// neighbourhood holds no ground (an isolated node).
    static func density(keyword f: [Double], area g: [Double], match: [UInt8], ownArea: [Double], alpha: Double)
        -> [Double]
    {
        let own = 1 - alpha
        return (0..<f.count).map { i in
            let ground = g[i] - own * ownArea[i]
            let count = f[i] - own * Double(match[i])
            return ground > 0 ? max(count, 0) / ground * 1e6 : 0
        }
    }

    /// The stored form of a density column (f32: the regions stage compares it with thresholds a
    /// few per cent apart; the rounding is the same wherever it runs).
    static func stored(_ density: [Double]) -> [Float] { density.map { Float($0) } }
}
