import Foundation
import RegionSearchCore
import RegionSearchModel
import RegionSearchPropagation

/// The `propagate` stage: keyword labels spread over the graph by label propagation.
public enum PropagateStage {
    public static let parameters: [ParameterSpec] = [
        ParameterSpec(
            "keywords", .stringList, default: nil,
            help: "Query keywords, one score column each. Matching: NFKC + case-folded substring, with word boundaries for scripts that have them (\"bank\" does not match \"embankment\"; \"咖啡\" matches \"瑞幸咖啡\"); a trailing * asks for a prefix match."),
        ParameterSpec(
            "alpha", .number(min: 0, max: 1, minExclusive: true), default: .number(0.9),
            help: "Propagation strength α in F ← αSF + (1−α)Y: a POI's label reaches about 1/(1−α) graph hops (0.9 ≈ 10 hops: a street-block cluster; higher finds broader districts, lower tighter cores)."),
        ParameterSpec(
            "tolerance", .number(min: 0, max: 1, minExclusive: true), default: .number(1e-6),
            help: "Stop a keyword when no score changes by more than this between iterations."),
        ParameterSpec(
            "max_iterations", .integer(min: 1, max: 100_000), default: .number(1000),
            help: "Iteration cap per keyword; a keyword that hits it is reported as not converged."),
        ParameterSpec(
            "solver", .choice(LabelPropagation.Solver.allCases.map { $0.rawValue }), default: .string("chebyshev"),
            help: "How the fixed point F* = (1−α)(I−αS)⁻¹Y is reached: \"jacobi\" is Zhou's iteration as written; \"chebyshev\" accelerates it with the known spectrum of S (same F*, about a third of the iterations)."),
    ]

    public static let definition = StageDefinition(
        name: "propagate",
        abstract: "spread keyword labels over the POI graph by label propagation (Zhou et al. 2004)",
        version: 1,
        inputs: [
            .init(option: "pois", fileName: "pois.rsa", kind: .pois, producer: "ingest"),
            .init(option: "projected", fileName: "projected.rsa", kind: .projected, producer: "project"),
            .init(option: "graph", fileName: "graph.rsa", kind: .graph, producer: "graph"),
        ],
        outputs: [.init(option: "output", fileName: "scores.rsa", kind: .scores)],
        parameters: parameters)

    static let discussion = """
        Y = 1 on POIs whose keyword text matches a query keyword. Edge weights are Gaussian with a
        self-tuning local scale, w_ij = exp(-d_ij^2 / (s_i s_j)) with s_i the graph's local spacing
        (distance to the k-th nearest neighbour); S = D^-1/2 W D^-1/2; F <- alpha S F + (1 - alpha) Y
        from F = Y until max |change| < tolerance or max_iterations. All keywords run in one pass over
        the graph, plus one column with Y = 1 whose result normalises F into a local keyword share.
        Iterations and the final residual of every keyword are recorded.
        """

    public static func main() -> Never {
        ToolMain.run(definition.commandSpec(discussion: discussion)) { try run($0) }
    }

    static func run(_ cl: ParsedCommandLine) throws {
        var stage = try StageInvocation(cl, definition)
        let params = stage.parameters, output = stage.output, t0 = stage.start
        let files = try stage.inputs(["pois", "projected", "graph"])
        let (poisFile, projectedFile, graphFile) = (files[0], files[1], files[2])
        let keywordText = try poisFile.stringView("keywords", count: poisFile.rowCount)
        let rows = try projectedFile.view("row", as: UInt32.self, count: projectedFile.rowCount)
        let graph = try AdjacencyGraph(artifact: graphFile)
        guard graph.nodeCount == rows.count else {
            throw ArtifactError.malformed(
                path: graphFile.path,
                detail: "graph has \(graph.nodeCount) nodes but the projected artifact has \(rows.count) points; rerun graph")
        }
        for r in rows where Int(r) >= poisFile.rowCount {
            throw ArtifactError.malformed(path: projectedFile.path, detail: "row \(r) out of range of the pois artifact; rerun project")
        }
        let tLoad = monotonicSeconds()

        let queries = params.strings("keywords")
        guard !queries.isEmpty else { throw UsageError("keywords: give at least one keyword") }
        var labelColumns: [[Double]] = []
        var matchColumns: [[UInt8]] = []
        var keywordMeta: [JSONValue] = []
        for q in queries {
            let matcher = KeywordMatcher(q)
            guard !matcher.normalized.isEmpty else { throw UsageError("keywords: \"\(q)\" is empty after normalisation") }
            var y = [UInt8](repeating: 0, count: rows.count)
            y.withUnsafeMutableBufferPointer { yb in
                let bytes = keywordText.bytes.buffer, offsets = keywordText.offsets.buffer, rows = rows.buffer
                Parallel.forRanges(rows.count, minChunk: 16_384) { range in
                    for i in range {
                        let r = Int(rows[i])
                        let text = UnsafeBufferPointer(rebasing: bytes[Int(offsets[r])..<Int(offsets[r + 1])])
                        if matcher.matches(text) { yb[i] = 1 }
                    }
                }
            }
            let count = y.reduce(0) { $0 + Int($1) }
            if count == 0 {
                Log.warning("keyword \"\(q)\" matches no POI; its scores are all 0 and it will have no regions")
            }
            matchColumns.append(y)
            labelColumns.append(y.map { Double($0) })
            keywordMeta.append(.object([
                ("query", .string(q)),
                ("normalized", .string(String(decoding: matcher.normalized, as: UTF8.self))),
                ("matches", .number(Double(count))),
            ]))
        }
        labelColumns.append([Double](repeating: 1, count: rows.count))
        labelColumns.append(NoiseProbe.labels(count: rows.count))
        let tMatch = monotonicSeconds()

        let propagation = LabelPropagation(graph: graph)
        let options = LabelPropagation.Options(
            alpha: params.double("alpha"), tolerance: params.double("tolerance"),
            maxIterations: params.int("max_iterations"),
            solver: LabelPropagation.Solver(rawValue: params.string("solver")) ?? .chebyshev)
        var progress = ProgressReporter("propagate")
        let (scores, status) = propagation.run(labels: labelColumns, options: options) { it, residual in
            progress.tick("iteration \(it), largest change \(String(format: "%.2e", residual))")
        }
        let tRun = monotonicSeconds()

        for c in 0..<queries.count {
            if case let .object(members) = keywordMeta[c] {
                keywordMeta[c] = .object(members + [
                    ("iterations", .number(Double(status[c].iterations))),
                    ("residual", .number(status[c].residual)),
                    ("converged", .bool(status[c].converged)),
                ])
            }
            let s = status[c]
            Log.info("\"\(queries[c])\": \(groupedCount(matchColumns[c].reduce(0) { $0 + Int($1) })) matching POIs, \(s.iterations) iterations, residual \(String(format: "%.2e", s.residual))\(s.converged ? "" : " — NOT converged: raise max_iterations or lower alpha")")
            if !s.converged {
                Log.warning("keyword \"\(queries[c])\" did not reach tolerance \(options.tolerance) in \(options.maxIterations) iterations")
            }
        }
        let onesStatus = status[queries.count]
        let table = ScoreTable(
            keywords: queries, scores: Array(scores.prefix(queries.count)), matches: matchColumns,
            ones: scores[queries.count], probe: scores[queries.count + 1])
        let meta: JSONValue = .object([
            ("stage", .string("propagate")),
            ("parameters", params.canonical),
            ("keywords", .array(keywordMeta)),
            ("ones", .object([
                ("iterations", .number(Double(onesStatus.iterations))),
                ("residual", .number(onesStatus.residual)),
                ("converged", .bool(onesStatus.converged)),
            ])),
            ("nodes", .number(Double(rows.count))),
            ("edges", .number(Double(graph.edgeCount))),
            ("provenance", Provenance.chain(
                inputs: [poisFile, projectedFile, graphFile], stage: "propagate", entry: Provenance.entry(definition, params))),
        ])
        try table.writer(metadata: meta).write(to: output)
        let tWrite = monotonicSeconds()
        stage.report.set("nodes", rows.count)
        stage.report.set("keywords", .array(keywordMeta))
        stage.report.set("iterations", status.map { $0.iterations }.max() ?? 0)
        stage.report.set("load_seconds", tLoad - t0)
        stage.report.set("match_seconds", tMatch - tLoad)
        stage.report.set("propagate_seconds", tRun - tMatch)
        stage.report.set("write_seconds", tWrite - tRun)
        Log.info("propagated \(queries.count) keyword(s) over \(groupedCount(rows.count)) POIs in \(String(format: "%.3f", tRun - tMatch)) s")
        try stage.finish()
    }
}
