import RegionSearchCore
import RegionSearchGraph
import RegionSearchModel

/// The `graph` stage: joins the projected points into a neighbourhood graph (Delaunay or kNN),
/// measures each point's local spacing and prunes edges that jump across empty space.
public enum GraphStage {
    public static let definition = StageDefinition(
        name: "graph",
        abstract: "join projected points into a neighbourhood graph (Delaunay or kNN) and prune long jumps",
        version: 5,
        inputs: [ProjectStage.definition.provides("output", as: "input")],
        outputs: [.init(option: "output", fileName: "graph.rsa", kind: .graph)],
        options: GraphOptions.self)

    static let discussion = """
        Every point becomes a node. Points at exactly the same coordinates (several POIs in one
        building) are collapsed to one location: the lowest-numbered point represents it, and each
        other point gets a single zero-length edge to that representative. The distinct locations
        are then joined by one of two methods:

          delaunay  the Delaunay triangulation (exact predicates). Each point is joined to its
                    natural neighbours on all sides, whatever the density, with about 3 edges per
                    point. No parameter. Recommended. From 65,536 locations on, with two or
                    more threads, the two halves of the data are triangulated at once and
                    stitched along the cut: the same triangulation, in less time.
          knn       each location is joined to its k nearest other locations (ties by index);
                    the union is kept, so an edge exists if either end chose the other.

        Local spacing: for each point, the distance to its scale_k-th nearest other location
        (exact; coincident points count once), the same for both methods. In a dense old town
        this is a few metres, in a suburb a few hundred. It is stored in the graph for the
        propagate stage. (It is not taken from the Delaunay edges: a point on the bank of a river
        has half of its Delaunay edges crossing the water, which would make the water look normal.)

        Pruning: an edge is dropped when it is longer than --max-edge-m (if given) or than
        --far-factor times the median local spacing of the data (a POI far from everything is
        isolated); when it is longer than --prune-factor times the local spacing at BOTH of its ends
        (so an edge from a dense centre into a sparse suburb survives, being normal for the suburb
        end); or when it crosses a void. Voids come from the Delaunay triangulation (also for knn):
        a triangle is empty when its circumradius exceeds --void-radius times the largest smoothed
        spacing of its corners (the median spacing over two edges around a point, at least its own
        spacing / sqrt 2); empty triangles connected in groups of at least --void-min-triangles are a
        void — a river, park, lake or rail yard, wide for the POIs on both sides — and the edges
        across it (longer than the spacing of their ends) are dropped. A gap in a line of POIs that
        runs along a void stays: the shortest side of the triangles on both its sides, at most 1.5
        times the smoothed spacing and no more than the own spacing of its ends, the line going on
        past both ends — a street of POIs through a park with nothing on either side. An edge
        across a river is longer than the bank's own edges beside it. A chance gap between evenly
        spread POIs is a lone empty triangle; a river is a chain of them. Zero-length edges between
        coincident points are never dropped. Points may end up isolated; their number is reported.

        The output is byte-identical for any --threads value. Counts and per-phase timings are
        printed on stderr and, with --summary, written as JSON.
        """

    /// Entry point of `regionsearch-graph`.
    public static func main() -> Never {
        ToolMain.run(commandSpec()) { parsed in try run(parsed) }
    }

    /// The executable's command line: the stage's ports and parameters plus the tiled-run options.
    static func commandSpec() -> CommandSpec {
        definition.commandSpec(
            discussion: discussion + tiledDiscussion,
            extraOptions: [
                TileArtifacts.tileOption, TileArtifacts.tilesOption, TileArtifacts.fromTilesOption,
                TileArtifacts.haloOption, TileArtifacts.pointsPerCellOption,
            ])
    }

    static let tiledDiscussion = """


        Tiled runs (docs/TILES.md; 'regionsearch plan' writes the commands): --tile I --tiles N
        computes only the rows of tile I (an equal share of the points in their Hilbert order) from a
        window of grid cells around it, certifies every row against the points it did not load
        (exact in-circle and hull tests) and grows the window where it cannot; --from-tiles DIR
        --tiles N gathers the parts into the graph a single run writes, byte for byte.
        """

    private static func dir(_ parsed: ParsedCommandLine) -> String { parsed.value(TileArtifacts.fromTilesOption) ?? "" }

    /// Runs the stage for a parsed command line (also used by tests).
    public static func run(_ parsed: ParsedCommandLine) throws {
        var stage = try StageInvocation<GraphOptions>(parsed, definition)
        let options = stage.options
        let output = try stage.outputPath()
        let artifact = try stage.input("input")
        let input = artifact.path
        let x = try artifact.column("x", as: Double.self)
        let y = try artifact.column("y", as: Double.self)
        guard x.count == artifact.rowCount, y.count == artifact.rowCount else {
            throw ArtifactError.malformed(
                path: input,
                detail: "columns x and y have \(x.count) and \(y.count) entries, expected \(artifact.rowCount)")
        }
        guard artifact.rowCount < Int(UInt32.max) else {
            throw ArtifactError.malformed(
                path: input, detail: "\(artifact.rowCount) points exceed the graph's 32-bit node indices")
        }
        Log.info("\(groupedCount(artifact.rowCount)) points from \(input); method \(options.method.rawValue)")

        let canonical = stage.parameters.canonical
        func identity(tile: Int, tiles: Int) -> TileArtifacts.Identity {
            .init(
                stage: "graph", tile: tile, tiles: tiles, nodes: artifact.rowCount, input: hex64(artifact.checksum),
                parameters: canonical)
        }
        if parsed.isGiven(TileArtifacts.tileOption) {
            let (tile, tiles) = try TileArtifacts.tileNumbers(parsed, needTile: true)
            let halo = parsed.integer(TileArtifacts.haloOption)
            let density = parsed.integer(TileArtifacts.pointsPerCellOption)
            let core = TileArtifacts.core(tile: tile, tiles: tiles, count: artifact.rowCount)
            let part: GraphTilePart
            do {
                let grid = TileGrid(x: x, y: y, pointsPerCell: density)
                part = try stage.summary.time(.triangulate) {
                    try GraphTile.build(
                        x: x, y: y, core: core, grid: grid, options: options, haloCells: halo)
                }
            } catch let error as GraphError {
                throw ArtifactError.malformed(path: input, detail: error.description)
            }
            try stage.summary.time(.write) {
                try TileArtifacts.write(
                    part, identity: identity(tile: tile, tiles: tiles),
                    extra: [("halo_cells", .number(Double(halo))), ("points_per_cell", .number(Double(density)))],
                    to: output)
            }
            let loaded = part.loadedPerRound.last ?? 0
            Log.info(
                "tile \(tile) of \(tiles): \(groupedCount(core.count)) points owned, \(groupedCount(loaded)) loaded "
                    + "(\(part.loadedPerRound.count) round\(part.loadedPerRound.count == 1 ? "" : "s")); "
                    + "wrote \(output)"
            )
            stage.summary.set(.nodes, core.count)
            stage.summary.setDetail("tile", .number(Double(tile)))
            stage.summary.setDetail("loaded_per_round", .array(part.loadedPerRound.map { .number(Double($0)) }))
            try stage.finish()
            return
        }

        let built: (graph: AdjacencyGraph, statistics: GraphStatistics)
        do {
            if let dir = parsed.optionalString(TileArtifacts.fromTilesOption) {
                let (_, tiles) = try TileArtifacts.tileNumbers(parsed, needTile: false)
                var parts: [GraphTilePart] = []
                try stage.summary.time(.load) {
                    for t in 0..<tiles {
                        parts.append(
                            try TileArtifacts.readGraphPart(
                                TileArtifacts.graphPart(dir, t), expected: identity(tile: t, tiles: tiles)))
                    }
                }
                built = try GraphTile.gather(parts: parts, nodeCount: artifact.rowCount, options: options)
                let rounds = parts.map { $0.loadedPerRound.count }
                let loaded = parts.map { $0.loadedPerRound.last ?? 0 }.reduce(0, +)
                Log.info(
                    "gathered \(tiles) tile parts from \(dir): \(groupedCount(loaded)) points loaded in all "
                        + "(\(String(format: "%.2f", Double(loaded) / Double(max(1, artifact.rowCount))))"
                        + "× the points), "
                        + "at most \(rounds.max() ?? 0) rounds")
                stage.summary.setDetail("tiles", .number(Double(tiles)))
                stage.summary.setDetail("tile_points_loaded", .number(Double(loaded)))
            } else {
                built = try GraphBuilder.build(x: x, y: y, options: options)
            }
        } catch let error as GraphError {
            throw ArtifactError.malformed(path: input, detail: error.description)
        } catch let error as GraphTileError {
            throw ArtifactError.malformed(path: dir(parsed), detail: error.description)
        }
        let stats = built.statistics
        Log.info(
            "\(groupedCount(stats.nodes)) nodes at \(groupedCount(stats.locations)) locations, "
                + "\(groupedCount(stats.duplicatesLinked)) duplicates linked")
        Log.info(
            "\(groupedCount(stats.edgesBeforePruning)) edges before pruning; dropped "
                + "\(groupedCount(stats.droppedByMaxEdge)) "
                + "by max edge, \(groupedCount(stats.droppedByLocalScale)) by local scale, "
                + "\(groupedCount(stats.droppedByEmptyBand)) across empty bands; "
                + "\(groupedCount(stats.edges)) edges kept, \(groupedCount(stats.isolatedNodes)) isolated nodes")
        if let seam = stats.seamPoints {
            Log.info("triangulated in two halves on two threads, stitched along \(groupedCount(seam)) points")
        }
        if stats.lateInsertions > 0 {
            Log.info("\(groupedCount(stats.lateInsertions)) near-degenerate points inserted after the sweep")
        }

        let counts: [(StageSummary.Count, Int)] = [
            (.nodes, stats.nodes),
            (.locations, stats.locations),
            (.duplicatesLinked, stats.duplicatesLinked),
            (.edgesBeforePruning, stats.edgesBeforePruning),
            (.droppedMaxEdge, stats.droppedByMaxEdge),
            (.droppedLocalScale, stats.droppedByLocalScale),
            (.droppedEmptyBand, stats.droppedByEmptyBand),
            (.edges, stats.edges),
            (.isolatedNodes, stats.isolatedNodes),
            (.lateInsertions, stats.lateInsertions),
        ]
        // Timings vary from run to run, so they go to the summary only: the artifact stays
        // byte-identical for the same input and parameters.
        var metadata: [(String, JSONValue)] = [
            ("stage", .string("graph")),
            ("stage_version", .number(Double(definition.version))),
            ("method", .string(options.method.rawValue)),
            ("parameters", stage.parameters.canonical),
            ("input_checksum", .string(hex64(artifact.checksum))),
            ("scale_fallback_m", .number(Double(LocalScale.fallbackMetres))),
            ("scale_k", .number(Double(options.scaleK))),
            ("median_scale_m", .number(stats.medianScale)),
        ]
        if let crs = artifact.metadata["crs"] { metadata.append(("crs", crs)) }
        metadata.append(("provenance", stage.provenance(inputs: [artifact])))
        for (count, value) in counts {
            // How many points the sweep inserted late depends on the sweep over the whole point
            // set, not on the graph: a tiled run cannot reproduce it, so it stays out of the artifact.
            if count != .lateInsertions { metadata.append((count.rawValue, .number(Double(value)))) }
            stage.summary.set(count, value)
        }
        stage.summary.setDetail("method", .string(options.method.rawValue))
        for (phase, seconds) in stats.phaseSeconds { stage.summary.add(phase, seconds: seconds) }

        let writeSeconds = try stage.summary.time(.write) {
            let clock = monotonicSeconds()
            try built.graph.writer(metadata: .object(metadata)).write(to: output)
            return monotonicSeconds() - clock
        }
        Log.info("wrote \(output) (\(String(format: "%.3f", writeSeconds)) s)")
        try stage.finish()
    }
}
