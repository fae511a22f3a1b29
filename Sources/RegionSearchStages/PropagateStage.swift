import Foundation
import RegionSearchCore
import RegionSearchModel
import RegionSearchPropagation

/// The `propagate` stage: keyword labels spread over the graph by label propagation.
public enum PropagateStage {
    public static let definition = StageDefinition(
        name: "propagate",
        abstract: "spread keyword labels over the POI graph by label propagation (Zhou et al. 2004)",
        // 2: token matching (`_` joins tokens), key=value queries, repeated keywords run once.
        version: 2,
        inputs: [
            IngestStage.definition.provides("output", as: "pois"),
            ProjectStage.definition.provides("output", as: "projected"),
            GraphStage.definition.provides("output", as: "graph"),
        ],
        outputs: [.init(option: "output", fileName: "scores.rsa", kind: .scores)],
        options: PropagationOptions.self)

    static let discussion = """
        Y = 1 on POIs whose keyword text matches a query keyword. Edge weights are Gaussian with a
        self-tuning local scale, w_ij = exp(-d_ij^2 / (s_i s_j)) with s_i the graph's local spacing
        (distance to the k-th nearest neighbour); S = D^-1/2 W D^-1/2; F <- alpha S F + (1 - alpha) Y
        from F = Y until max |change| < tolerance or max_iterations. All keywords run in one pass over
        the graph, plus one column with Y = 1 whose result normalises F into a local keyword share.
        Iterations and the final residual of every keyword are recorded.

        Keyword matching. Query and keyword text are NFKC + case-folded (ＣＡＦＥ = cafe, ⽕锅 = 火锅).
        A POI's keyword text is a list of values (tag values, category levels, rubrics; the name
        only with ingest's name_as_keyword):
          parking            a value holding the token "parking": "parking", "Parking garage";
                             not "bicycle_parking", "parking_entrance" (_ joins a token), not
                             "parkings"
          bank of china      the tokens in this order inside one value
          cafe*              a token starting with cafe: "cafe", "cafeteria", "cafe_bar"
          *_parking          a token ending in _parking: "bicycle_parking", "motorcycle_parking"
          咖啡               scripts without spaces match inside words: "瑞幸咖啡", "咖啡馆"
          amenity=parking    a value that came from the OSM tag key, GeoJSON property or CSV
                             column "amenity" and is exactly "parking" (not "bicycle_parking")
          fclass=parking     the same for a CSV column named fclass
          cuisine=coffee*    a cuisine value starting with coffee; shop=* any shop value
        Keywords that are the same after normalisation (bank, BANK, ｂａｎｋ) are one keyword:
        the first spelling is run, the others are reported and listed in the metadata under
        duplicate_keywords.
        """

    public static func main() -> Never {
        ToolMain.run(definition.commandSpec(discussion: discussion)) { try run($0) }
    }

    static func run(_ cl: ParsedCommandLine) throws {
        var stage = try StageInvocation<PropagationOptions>(cl, definition)
        let options = stage.options
        let output = try stage.outputPath()
        let files = try stage.inputs(["pois", "projected", "graph"])
        let (poisFile, projectedFile, graphFile) = (files[0], files[1], files[2])
        let keywordText = try poisFile.stringView("keywords", count: poisFile.rowCount)
        let keys = try POITable.keywordKeys(poisFile)
        let rows = try projectedFile.view("row", as: UInt32.self, count: projectedFile.rowCount)
        let graph = try AdjacencyGraph(artifact: graphFile)
        guard graph.nodeCount == rows.count else {
            throw ArtifactError.malformed(
                path: graphFile.path,
                detail:
                    "graph has \(graph.nodeCount) nodes but the projected artifact "
                    + "has \(rows.count) points; rerun graph"
            )
        }
        for r in rows where Int(r) >= poisFile.rowCount {
            throw ArtifactError.malformed(
                path: projectedFile.path, detail: "row \(r) out of range of the pois artifact; rerun project")
        }

        for d in options.duplicates {
            Log.warning(
                "keyword \"\(d.given)\" (keywords[\(d.index)]) is the same keyword as \"\(d.sameAs)\" after "
                    + "normalisation; it is run once, as \"\(d.sameAs)\"")
        }
        let labels = stage.summary.time(.match) {
            options.keywords.map {
                KeywordPropagation.labels(query: $0, keywordText: keywordText, rows: rows, keys: keys)
            }
        }
        for l in labels where !l.keyKnown {
            let known = keys.isEmpty ? "none (the pois artifact records no keys)" : keys.joined(separator: ", ")
            let key = l.normalized.prefix { $0 != "=" }
            try Log.strictWarning(
                "keyword \"\(l.query)\" matches no POI (it will have no regions): no keyword field of the input is "
                    + "named \"\(key)\"; keys recorded at ingest: \(known) (name the column or property as a keyword "
                    + "field, or for OSM add the tag key to osm.keyword_keys)")
        }
        for l in labels where l.count == 0 && l.keyKnown {
            try Log.strictWarning(
                "keyword \"\(l.query)\" matches no POI; its scores are all 0 and it will have no regions")
        }
        var progress = ProgressReporter("propagate")
        var firstResidual: Double?
        let tolerance = options.solver.tolerance
        let result = stage.summary.time(.propagate) {
            KeywordPropagation.run(labels: labels, graph: graph, options: options.solver) { it, residual in
                // The residual falls about geometrically: the share done is how far its
                // logarithm has come from the first residual towards the tolerance.
                if firstResidual == nil || it <= 1 { firstResidual = residual }
                var fraction: Double?
                if let r0 = firstResidual, r0 > tolerance, residual > 0 {
                    fraction = max(0, min(1, log(r0 / residual) / log(r0 / tolerance)))
                }
                progress.tick(
                    "iteration \(it), largest change \(String(format: "%.2e", residual))", fraction: fraction)
            }
        }
        progress.finish()

        var keywordMeta: [JSONValue] = []
        for (l, s) in zip(labels, result.status) {
            keywordMeta.append(
                .object([
                    ("query", .string(l.query)),
                    ("normalized", .string(l.normalized)),
                    ("matches", .number(Double(l.count))),
                    ("iterations", .number(Double(s.iterations))),
                    ("residual", .number(s.residual)),
                    ("converged", .bool(s.converged)),
                ]))
            Log.info(
                "\"\(l.query)\": \(groupedCount(l.count)) matching POIs, "
                    + "\(s.iterations) iterations, "
                    + "residual \(String(format: "%.2e", s.residual))\(s.converged ? "" : " — NOT converged: raise max_iterations or lower alpha")"
            )
            if !s.converged {
                Log.warning(
                    "keyword \"\(l.query)\" did not reach tolerance \(options.solver.tolerance) in "
                        + "\(options.solver.maxIterations) iterations"
                )
            }
        }
        let onesStatus = result.onesStatus
        var members: [(String, JSONValue)] = [
            ("stage", .string("propagate")),
            ("parameters", stage.parameters.canonical),
            ("keywords", .array(keywordMeta)),
        ]
        if !options.duplicates.isEmpty {
            members.append(
                (
                    "duplicate_keywords",
                    .array(
                        options.duplicates.map { d in
                            .object([
                                ("given", .string(d.given)), ("index", .number(Double(d.index))),
                                ("same_as", .string(d.sameAs)),
                            ])
                        })
                ))
        }
        members += [
            (
                "ones",
                .object([
                    ("iterations", .number(Double(onesStatus.iterations))),
                    ("residual", .number(onesStatus.residual)),
                    ("converged", .bool(onesStatus.converged)),
                ])
            ),
            ("nodes", .number(Double(rows.count))),
            ("edges", .number(Double(graph.edgeCount))),
            ("provenance", stage.provenance(inputs: [poisFile, projectedFile, graphFile])),
        ]
        let meta: JSONValue = .object(members)
        try stage.summary.time(.write) { try result.table.writer(metadata: meta).write(to: output) }
        stage.summary.set(.nodes, rows.count)
        stage.summary.setDetail("keywords", .array(keywordMeta))
        stage.summary.setDetail("matrix_seconds", .number(result.matrixSeconds))
        stage.summary.setDetail("solve_seconds", .number(result.solveSeconds))
        stage.summary.setDetail("columns", .number(Double(result.columnStatus.count)))
        stage.summary.set(.iterations, result.columnStatus.map { $0.iterations }.max() ?? 0)
        Log.info(
            "propagated \(options.keywords.count) keyword(s) over \(groupedCount(rows.count)) POIs in "
                + "\(String(format: "%.3f", stage.summary.seconds(.propagate) ?? 0)) s"
        )
        try stage.finish()
    }
}
