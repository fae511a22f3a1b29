import Foundation
import RegionSearchCore
import RegionSearchModel
import RegionSearchPropagation
import RegionSearchRegions

/// The `propagate` stage: keyword labels spread over the graph by label propagation.
public enum PropagateStage {
    public static let definition = StageDefinition(
        name: "propagate",
        abstract: "spread keyword labels over the POI graph by label propagation (Zhou et al. 2004)",
        // 2 (tiles): a fixed iteration count, probe labels by global index. 2 (main): token matching
        // (`_` joins tokens), key=value queries, repeated keywords run once. 3: both.
        // 4: the keyword densities (density.c, density_alpha), which the density measure cuts.
        // 5: the densities only when asked for (`densities`, which regions.nested turns on).
        // 6: the scores, ones and probe only when asked for (`scores`, which a manifest derives).
        // 7: the densities' propagation keeps its state in Float32 where its tolerance allows.
        version: 7,
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
        from F = Y. Every keyword runs the same fixed number of iterations: the first at which the
        solver's error bound (alpha^k for jacobi; 2 rho^k / (1 + rho^2k) with
        rho = (sqrt(kappa) - 1)/(sqrt(kappa) + 1), kappa = (1 + alpha)/(1 - alpha), for chebyshev)
        falls below tolerance, capped by max_iterations — a function of alpha, tolerance and the
        solver only, so a score depends on the graph within iterations + 2 hops of its POI and a
        tiled run computes the same bytes. The largest change in the last iteration is recorded
        as the residual; a keyword whose residual exceeds tolerance is reported as not converged.
        All keywords run in one pass over the graph, plus one column with Y = 1 whose result
        normalises F into a local keyword share and one with random +-1 labels (by the POI's
        index) that measures how noisy that share is. These scores (--scores, on by default here)
        are what the lift measure, the dbscan method and the scored POI layer read; the density
        measure reads none, so a manifest turns them on only for those and otherwise propagates
        the densities alone (the scores artifact then holds no score.c, ones or probe).

        Keyword density (--densities, on by default; what the nested regions cut their finer levels
        from): the keywords' labels and each POI's area of ground (pi s_i^2 / scale_k, shared
        between the POIs of one location; none for an isolated POI) are propagated once more with
        density_alpha (to density_tolerance), and
        density = (F_keyword - (1 - density_alpha) Y) / (F_area - (1 - density_alpha) area): the
        keyword's POIs per km² of ground within about 1/(1 - density_alpha) hops, the POI's own
        term left out. Rivers and parks, which the graph does not cross, hold no ground and pass
        no weight.

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
        ToolMain.run(commandSpec()) { try run($0) }
    }

    /// The executable's command line: the stage's ports and parameters plus the tiled-run options.
    static func commandSpec() -> CommandSpec {
        definition.commandSpec(
            discussion: discussion + tiledDiscussion,
            extraOptions: [
                TileArtifacts.writeWindowsOption, TileArtifacts.tilesOption, TileArtifacts.windowOption,
                TileArtifacts.fromTilesOption,
            ])
    }

    static let tiledDiscussion = """


        Tiled runs (docs/TILES.md; 'regionsearch plan' writes the commands): --write-windows DIR
        --tiles N cuts, for each tile (an equal share of the points in their Hilbert order), its
        nodes and every node within iterations + 2 hops, with their keyword labels (no --output);
        --window PATH --output PART propagates one window (no other input); --from-tiles DIR
        --tiles N gathers the parts into the scores a single run writes, byte for byte.
        """

    static func run(_ cl: ParsedCommandLine) throws {
        var stage = try StageInvocation<PropagationOptions>(cl, definition)
        let options = stage.options
        if let window = cl.value(TileArtifacts.windowOption) {
            try runTile(&stage, window: window)
            return
        }
        let writeWindows = cl.value(TileArtifacts.writeWindowsOption)
        let output = writeWindows == nil ? try stage.outputPath() : ""
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
            KeywordPropagation.labels(queries: options.keywords, keywordText: keywordText, rows: rows, keys: keys)
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
        let iterations = options.solvers.iterations
        // The graph records the neighbour its local spacings are measured to (an area needs it);
        // graphs written before it was recorded used the default, 5.
        let scaleK = graphFile.metadata["scale_k"]?.intValue ?? 5
        let canonical = stage.parameters.canonical
        func identity(tile: Int, tiles: Int) -> TileArtifacts.Identity {
            .init(
                stage: "propagate", tile: tile, tiles: tiles, nodes: rows.count, input: hex64(graphFile.checksum),
                parameters: canonical)
        }
        if let dir = writeWindows {
            let (_, tiles) = try TileArtifacts.tileNumbers(cl, needTile: false)
            let reach = LabelPropagation.reach(iterations: iterations)
            var visited = [UInt32](repeating: 0, count: rows.count)
            var loaded = 0
            do {
                try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            } catch {
                throw ToolFailure("\(dir): cannot create the windows directory: \(error)", status: .output)
            }
            for t in 0..<tiles {
                let core = TileArtifacts.core(tile: t, tiles: tiles, count: rows.count)
                let window = PropagationWindow.cut(
                    graph: graph, core: core, reach: reach, visited: &visited, stamp: UInt32(t + 1))
                let matches = labels.map { l in window.nodes.map { l.match[Int($0)] } }
                try TileArtifacts.write(
                    window, matches: matches, identity: identity(tile: t, tiles: tiles),
                    extra: [
                        ("keywords", .array(options.keywords.map { .string($0) })),
                        ("iterations", .number(Double(iterations))), ("reach", .number(Double(reach))),
                        ("scale_k", .number(Double(scaleK))),
                    ], to: TileArtifacts.window(dir, t))
                loaded += window.nodes.count
                Log.info(
                    "window \(t) of \(tiles): \(groupedCount(core.count)) nodes owned, "
                        + "\(groupedCount(window.nodes.count)) within \(reach) hops")
            }
            Log.info(
                "wrote \(tiles) propagation windows into \(dir): \(groupedCount(loaded)) nodes in all "
                    + "(\(String(format: "%.2f", Double(loaded) / Double(max(1, rows.count))))× the points)")
            stage.summary.set(.nodes, rows.count)
            stage.summary.setDetail("tile_points_loaded", .number(Double(loaded)))
            try stage.finish()
            return
        }
        var result: KeywordPropagation.Result
        if let dir = cl.value(TileArtifacts.fromTilesOption) {
            let (_, tiles) = try TileArtifacts.tileNumbers(cl, needTile: false)
            var parts: [PropagationTilePart] = []
            try stage.summary.time(.load) {
                for t in 0..<tiles {
                    parts.append(
                        try TileArtifacts.readScoresPart(
                            TileArtifacts.scoresPart(dir, t), expected: identity(tile: t, tiles: tiles),
                            columns: options.solvers.columnCount(keywords: labels.count)))
                }
            }
            guard
                let gathered = KeywordPropagation.gather(
                    labels: labels, parts: parts, nodeCount: rows.count, tolerance: options.solver.tolerance,
                    scores: options.scores, densities: options.densities)
            else {
                throw ArtifactError.malformed(
                    path: dir, detail: "the \(tiles) score parts do not cover the \(rows.count) points in order")
            }
            result = gathered
            let densityIterations = LabelPropagation.iterationCount(options.densitySolver)
            for c in result.densityStatus.indices { result.densityStatus[c].iterations = densityIterations }
            Log.info("gathered \(tiles) score parts from \(dir)")
            stage.summary.setDetail("tiles", .number(Double(tiles)))
        } else {
            var progress = ProgressReporter("propagate")
            result = stage.summary.time(.propagate) {
                KeywordPropagation.run(labels: labels, graph: graph, options: options.solvers, scaleK: scaleK) {
                    it, residual in
                    progress.tick(
                        "iteration \(it) of \(iterations), largest change \(String(format: "%.2e", residual))",
                        fraction: Double(it) / Double(iterations))
                }
            }
            progress.finish()
        }

        var keywordMeta: [JSONValue] = []
        for (c, l) in labels.enumerated() {
            var fields: [(String, JSONValue)] = [
                ("query", .string(l.query)),
                ("normalized", .string(l.normalized)),
                ("matches", .number(Double(l.count))),
            ]
            var said = "\"\(l.query)\": \(groupedCount(l.count)) matching POIs"
            if c < result.status.count {
                let s = result.status[c]
                fields += [
                    ("iterations", .number(Double(s.iterations))), ("residual", .number(s.residual)),
                    ("converged", .bool(s.converged)),
                ]
                said +=
                    ", \(s.iterations) iterations, residual \(String(format: "%.2e", s.residual))"
                    + (s.converged ? "" : " — NOT converged: raise max_iterations or lower alpha or tolerance")
                if !s.converged {
                    Log.warning(
                        "keyword \"\(l.query)\": its largest change in the last of \(s.iterations) iterations, "
                            + "\(String(format: "%.2e", s.residual)), exceeds tolerance \(options.solver.tolerance)"
                    )
                }
            }
            if c < result.densityStatus.count {
                let d = result.densityStatus[c]
                fields += [
                    ("density_iterations", .number(Double(d.iterations))), ("density_residual", .number(d.residual)),
                ]
                said += ", densities \(d.iterations) iterations, residual \(String(format: "%.2e", d.residual))"
            }
            keywordMeta.append(.object(fields))
            Log.info(said)
        }
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
        if let onesStatus = result.onesStatus {
            members.append(
                (
                    "ones",
                    .object([
                        ("iterations", .number(Double(onesStatus.iterations))),
                        ("residual", .number(onesStatus.residual)),
                        ("converged", .bool(onesStatus.converged)),
                    ])
                ))
        }
        members += [
            ("iterations", .number(Double(iterations))),
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
        stage.summary.setDetail(
            "row_width", .number(Double(LabelPropagation.rowWidth(columns: result.columnStatus.count))))
        stage.summary.set(.iterations, iterations)
        Log.info(
            "propagated \(options.keywords.count) keyword(s) over \(groupedCount(rows.count)) POIs in "
                + "\(String(format: "%.3f", stage.summary.seconds(.propagate) ?? 0)) s"
        )
        try stage.finish()
    }

    /// `--window`: one tile of a tiled propagation.
    private static func runTile(_ stage: inout StageInvocation<PropagationOptions>, window path: String) throws {
        let output = try stage.outputPath()
        let options = stage.options
        let w = try stage.summary.time(.load) { try TileArtifacts.readWindow(path) }
        var identity = w.identity
        identity.parameters = stage.parameters.canonical
        if identity != w.identity {
            throw ToolFailure(
                "\(path): the window was cut with other propagate parameters "
                    + "(\(w.identity.parameters.serialized(sortedKeys: true))); rerun --write-windows",
                status: .usage)
        }
        let iterations = LabelPropagation.iterationCount(options.solver)
        guard let scaleK = w.metadata["scale_k"]?.intValue else {
            throw ArtifactError.malformed(
                path: path, detail: "propagation window without scale_k; rerun --write-windows")
        }
        var progress = ProgressReporter("propagate")
        let part = stage.summary.time(.propagate) {
            KeywordPropagation.runTile(window: w.window, matches: w.matches, options: options.solvers, scaleK: scaleK) {
                it, residual in
                progress.tick(
                    "iteration \(it) of \(iterations), largest change \(String(format: "%.2e", residual))",
                    fraction: Double(it) / Double(iterations))
            }
        }
        progress.finish()
        try stage.summary.time(.write) {
            try TileArtifacts.write(part, identity: w.identity, keywords: w.keywords, to: output)
        }
        Log.info(
            "tile \(w.identity.tile) of \(w.identity.tiles): \(groupedCount(part.count)) nodes owned, "
                + "\(groupedCount(w.window.nodes.count)) propagated; wrote \(output)")
        stage.summary.set(.nodes, part.count)
        stage.summary.set(.iterations, iterations)
        try stage.finish()
    }
}

extension PropagateStage {
    /// The propagate parameters a pipeline runs with, so that a manifest says once what it wants:
    /// - `densities` turned on when the regions stage cuts nested levels from them
    ///   (`regions.nested`, the default); otherwise as given (a one-level, lift or DBSCAN manifest
    ///   may turn them off);
    /// - `scores` on exactly when something reads them: the regions stage's lift or DBSCAN
    ///   measure, or the scored POI layer (`poiLayer`, the manifest's `poi_output`). The density
    ///   measure reads only the densities, and scores nothing reads would be a propagation of
    ///   four columns for nothing.
    public static func parameters(_ propagate: Parameters, regions: Parameters, poiLayer: Bool) -> Parameters {
        // Only resolved regions parameters make options (a missing one would stop the process).
        guard RegionOptions.specs.allSatisfy({ regions[$0.key] != nil }), let options = try? RegionOptions(regions)
        else { return propagate }
        var p = propagate
        if options.cutsNestedLevels { p.set(PropagationOptions.densitiesSpec.key, .bool(true)) }
        p.set(PropagationOptions.scoresSpec.key, .bool(options.readsScores || poiLayer))
        return p
    }
}
