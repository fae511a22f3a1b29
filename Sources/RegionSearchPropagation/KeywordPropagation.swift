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
        /// Every propagated column's: the keywords in query order, then the all-ones column,
        /// then the probe.
        public var columnStatus: [LabelPropagation.ColumnStatus]

        /// One per keyword, in query order.
        public var status: ArraySlice<LabelPropagation.ColumnStatus> { columnStatus.prefix(labels.count) }
        /// The all-ones column's.
        public var onesStatus: LabelPropagation.ColumnStatus { columnStatus[labels.count] }
        /// Seconds spent building S from the graph, and iterating the solver (with its set-up and
        /// the columns' extraction): the benchmark compares the second with memory bandwidth.
        public var matrixSeconds = 0.0
        public var solveSeconds = 0.0
    }

    /// Y for `query` over the projected points: point `i` is the POI at row `rows[i]` of the
    /// keyword text column (`offsets`, UTF-8 `bytes`); `keys` is the pois artifact's key table
    /// (``POITable/keywordKeys``), which `key=value` queries need.
    public static func labels(
        query: String, keywordText: (offsets: Column<UInt64>, bytes: Column<UInt8>), rows: Column<UInt32>,
        keys: [String] = []
    ) -> Labels {
        let matcher = KeywordMatcher(query, keys: keys)
        let bytes = keywordText.bytes.buffer
        let offsets = keywordText.offsets.buffer
        // Match in row order, reading the keyword text front to back, then gather in point
        // order: the points are in Hilbert order, and visiting the text in that order costs a
        // cache miss per POI (it was most of the matching time at 1M POIs).
        var byRow = [UInt8](repeating: 0, count: max(offsets.count - 1, 0))
        byRow.withUnsafeMutableBufferPointer { mb in
            Parallel.forRanges(mb.count, minChunk: 16_384) { range in
                for r in range {
                    let text = UnsafeBufferPointer(rebasing: bytes[Int(offsets[r])..<Int(offsets[r + 1])])
                    mb[r] = matcher.matches(text) ? 1 : 0
                }
            }
        }
        let rowIndex = rows.buffer
        let y = [UInt8](unsafeUninitializedCapacity: rows.count) { yb, initialized in
            byRow.withUnsafeBufferPointer { mb in
                for i in 0..<rowIndex.count { yb[i] = mb[Int(rowIndex[i])] }
            }
            initialized = rowIndex.count
        }
        return Labels(
            query: query, normalized: matcher.canonical, keyKnown: matcher.isKeyKnown, match: y,
            count: y.reduce(0) { $0 + Int($1) })
    }

    /// Propagates labelled keywords plus the all-ones and probe columns over `graph`.
    ///
    /// - Parameter nodeIndex: for a tile, each node's index in the whole data set (the probe's
    ///   labels are drawn by it); nil when `graph` is the whole graph.
    /// - Parameter residualRows: the rows whose last change is reported (a tile's own rows).
    public static func run(
        labels: [Labels], graph: AdjacencyGraph, options: LabelPropagation.Options, nodeIndex: [UInt32]? = nil,
        residualRows: Range<Int>? = nil, progress: ((Int, Double) -> Void)? = nil
    ) -> Result {
        let n = graph.nodeCount
        precondition(nodeIndex.map { $0.count == n } ?? true)
        var columns = labels.map { l in l.match.map { Double($0) } }
        columns.append([Double](repeating: 1, count: n))
        columns.append(nodeIndex.map { NoiseProbe.labels(indices: $0) } ?? NoiseProbe.labels(count: n))
        let t0 = monotonicSeconds()
        let propagation = LabelPropagation(graph: graph)
        let t1 = monotonicSeconds()
        let (scores, status) = propagation.run(
            labels: columns, options: options, residualRows: residualRows, progress: progress)
        let t2 = monotonicSeconds()
        let k = labels.count
        let table = ScoreTable(
            keywords: labels.map(\.query), scores: Array(scores.prefix(k)), matches: labels.map(\.match),
            ones: scores[k], probe: scores[k + 1])
        var result = Result(labels: labels, table: table, columnStatus: status)
        result.matrixSeconds = t1 - t0
        result.solveSeconds = t2 - t1
        return result
    }
}
