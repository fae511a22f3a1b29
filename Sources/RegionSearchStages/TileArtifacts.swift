import RegionSearchCore
import RegionSearchGraph
import RegionSearchModel
import RegionSearchPropagation

/// The files of a tiled run between its jobs (docs/TILES.md): graph tile parts, propagation
/// windows and score tile parts, with the options of the stage executables that write and read
/// them. They are ordinary artifacts (checksummed, atomic) of kind `graph` or `scores`, marked by a
/// `tile_part` / `tile_window` metadata object that says which tile of which input they belong
/// to, so a gather refuses parts made from another input or with other parameters.
public enum TileArtifacts {
    public static let tileOption = CommandSpec.Option(
        "tile", .integer(0...(maxTiles - 1)), placeholder: "I",
        help: "Tiled runs: compute only tile I (0-based) of --tiles, into a tile part at --output.")
    public static let tilesOption = CommandSpec.Option(
        "tiles", .integer(1...maxTiles),
        help:
            "Tiled runs: the number of tiles (with the stage's tile option: --tile or --from-tiles for graph, --window or --write-windows for propagate)."
    )
    public static let fromTilesOption = CommandSpec.Option(
        "from-tiles", .path, placeholder: "DIR",
        help: "Tiled runs: gather the --tiles parts in DIR into the stage's usual output (the same bytes as one run).")
    /// Also `regionsearch plan --halo-cells`, which passes it to every graph tile job.
    public static let haloOption = CommandSpec.Option(
        "halo-cells", .integer(0...1000), default: .value(.number(Double(GraphTile.defaultHaloCells))),
        placeholder: "H",
        help: "Tiled runs: rings of grid cells a graph tile loads around its own at first (tiles grow as needed).")
    /// Also `regionsearch plan --points-per-cell`.
    public static let pointsPerCellOption = CommandSpec.Option(
        "points-per-cell", .integer(1...1_000_000), default: .value(.number(Double(TileGrid.defaultPointsPerCell))),
        placeholder: "P", help: "Tiled runs: the density of the graph tiles' grid, points per cell on average.")
    public static let writeWindowsOption = CommandSpec.Option(
        "write-windows", .path, placeholder: "DIR",
        help: "propagate: write the --tiles propagation windows (each tile's nodes and their reach) into DIR.")
    public static let windowOption = CommandSpec.Option(
        "window", .path,
        help: "propagate: propagate one tile's window (written by --write-windows) into a tile part at --output.")

    /// The most tiles a run is cut into.
    public static let maxTiles = 100_000

    /// `DIR/graph-part-0003.rsa` and the like.
    public static func graphPart(_ dir: String, _ tile: Int) -> String { dir + "/graph-part-\(number(tile)).rsa" }
    public static func window(_ dir: String, _ tile: Int) -> String { dir + "/window-\(number(tile)).rsa" }
    public static func scoresPart(_ dir: String, _ tile: Int) -> String { dir + "/scores-part-\(number(tile)).rsa" }

    public static func number(_ i: Int) -> String {
        let s = String(i)
        return String(repeating: "0", count: max(0, 4 - s.count)) + s
    }

    /// The core of tile `tile` of `tiles` over `n` points: an equal share of the Hilbert order.
    public static func core(tile: Int, tiles: Int, count n: Int) -> Range<Int> {
        (tile * n / tiles)..<((tile + 1) * n / tiles)
    }

    /// `--tiles` (and `--tile` when `needTile`) from a command line.
    static func tileNumbers(_ cl: ParsedCommandLine, needTile: Bool) throws(UsageError) -> (tile: Int, tiles: Int) {
        guard let tiles = cl.optionalInteger(tilesOption) else { throw UsageError("--tiles: give the number of tiles") }
        guard needTile else { return (0, tiles) }
        guard let tile = cl.optionalInteger(tileOption), tile < tiles else {
            throw UsageError("--tile: give a tile number from 0 to \(tiles - 1)")
        }
        return (tile, tiles)
    }

    /// The identity a part records and a gather checks.
    struct Identity: Equatable {
        var stage: String
        var tile: Int
        var tiles: Int
        var nodes: Int
        /// Hex XXH64 of the input artifact the part was computed from.
        var input: String
        var parameters: JSONValue

        var json: [(String, JSONValue)] {
            [
                ("stage", .string(stage)), ("tile", .number(Double(tile))), ("tiles", .number(Double(tiles))),
                ("nodes", .number(Double(nodes))), ("input_checksum", .string(input)), ("parameters", parameters),
            ]
        }

        init(stage: String, tile: Int, tiles: Int, nodes: Int, input: String, parameters: JSONValue) {
            self.stage = stage
            self.tile = tile
            self.tiles = tiles
            self.nodes = nodes
            self.input = input
            self.parameters = parameters
        }

        init(_ meta: JSONValue?, path: String) throws(ArtifactError) {
            guard let meta, let stage = meta["stage"]?.stringValue, let tile = meta["tile"]?.intValue,
                let tiles = meta["tiles"]?.intValue, let nodes = meta["nodes"]?.intValue,
                let input = meta["input_checksum"]?.stringValue, let parameters = meta["parameters"]
            else {
                throw ArtifactError.malformed(
                    path: path, detail: "not a tile part of a tiled run (no complete tile_part metadata)")
            }
            self.init(stage: stage, tile: tile, tiles: tiles, nodes: nodes, input: input, parameters: parameters)
        }
    }

    /// Checks a part against what the gather expects; the error says what to rerun.
    static func check(_ found: Identity, expected: Identity, path: String) throws(ToolFailure) {
        func fail(_ what: String, rerun: String? = nil) -> ToolFailure {
            ToolFailure(
                "\(path): this tile part was made \(what); "
                    + (rerun ?? "rerun the tile jobs of this plan (snakemake reruns them when their inputs change; or "
                        + "delete the parts)"),
                status: .artifact)
        }
        if found.stage != expected.stage { throw fail("by the \(found.stage) stage, not \(expected.stage)") }
        if found.tiles != expected.tiles || found.tile != expected.tile {
            // A propagate part is made from its tile's window: a part of another tile's number
            // means that window is another tile's, which only gather-graph writes again.
            throw fail(
                "as tile \(found.tile) of \(found.tiles), expected tile \(expected.tile) of \(expected.tiles)",
                rerun: expected.stage == "propagate" && found.tiles == expected.tiles
                    ? "its window may be another tile's: rerun gather-graph (it writes the windows), then the "
                        + "propagate tiles" : nil)
        }
        if found.nodes != expected.nodes || found.input != expected.input {
            throw fail(
                "from another input (\(found.nodes) points, checksum \(found.input)"
                    + (expected.stage == "propagate" ? "; a graph made with other parameters is another input" : "")
                    + ")")
        }
        if found.parameters != expected.parameters {
            throw fail(
                "with other parameters (\(found.parameters.serialized(sortedKeys: true)), now "
                    + "\(expected.parameters.serialized(sortedKeys: true)))")
        }
    }

    // MARK: graph parts

    static func write(_ part: GraphTilePart, identity: Identity, extra: [(String, JSONValue)], to path: String) throws {
        var w = ArtifactWriter(
            kind: .graph, rowCount: part.count,
            metadata: .object([
                (
                    "tile_part",
                    .object(
                        identity.json + [
                            ("first", .number(Double(part.first))), ("count", .number(Double(part.count))),
                            ("loaded_per_round", .array(part.loadedPerRound.map { .number(Double($0)) })),
                            ("late_insertions", .number(Double(part.lateInsertions))),
                        ] + extra)
                )
            ]))
        w.add("offsets", part.offsets)
        w.add("neighbors", part.neighbors)
        w.add("length", part.length)
        w.add("verdict", part.verdict)
        w.add("scale", part.scale)
        w.add("representative", part.representative)
        try w.write(to: path)
    }

    /// A part that is truncated or fails its checksums, said for a tiled run: the artifact error's
    /// own advice ("rerun the stage that writes it") is wrong there, as the workflow reruns the
    /// gather, not the tile job whose part exists; the part is to be deleted.
    static func damaged(_ path: String, _ error: ArtifactError) -> ToolFailure {
        let generic = "; rerun the stage that writes it (regionsearch run redoes it automatically)"
        return ToolFailure(
            "\(error)".replacingOccurrences(of: generic, with: "")
                + "; this tile part is damaged: delete it and rerun the workflow, which then runs its tile job again",
            status: .artifact)
    }

    /// Reads a graph part, checked against `expected`; the file stays mapped by the part's columns.
    static func readGraphPart(_ path: String, expected: Identity) throws -> GraphTilePart {
        do {
            return try readGraphPartUnchecked(path, expected: expected)
        } catch let error as ArtifactError {
            throw damaged(path, error)
        }
    }

    private static func readGraphPartUnchecked(_ path: String, expected: Identity) throws -> GraphTilePart {
        let file = try ArtifactFile(path: path, expected: .graph)
        let meta = file.metadata["tile_part"]
        try check(try Identity(meta, path: path), expected: expected, path: path)
        guard let first = meta?["first"]?.intValue, let count = meta?["count"]?.intValue, count == file.rowCount else {
            throw ArtifactError.malformed(path: path, detail: "tile part without its first and count")
        }
        let entries: Column<UInt32> = try file.view("neighbors")
        return GraphTilePart(
            first: first, count: count, offsets: try file.view("offsets", count: count + 1), neighbors: entries,
            length: try file.view("length", count: entries.count),
            verdict: try file.view("verdict", count: entries.count),
            scale: try file.view("scale", count: count), representative: try file.view("representative", count: count),
            loadedPerRound: (meta?["loaded_per_round"]?.arrayValue ?? []).compactMap(\.intValue),
            lateInsertions: meta?["late_insertions"]?.intValue ?? 0)
    }

    // MARK: propagation windows

    static func write(
        _ window: PropagationWindow, matches: [[UInt8]], identity: Identity, extra: [(String, JSONValue)],
        to path: String
    ) throws {
        var w = ArtifactWriter(
            kind: .graph, rowCount: window.nodes.count,
            metadata: .object([
                (
                    "tile_window",
                    .object(
                        identity.json + [
                            ("owned_start", .number(Double(window.owned.lowerBound))),
                            ("owned_count", .number(Double(window.owned.count))),
                        ] + extra)
                )
            ]))
        w.add("node", window.nodes)
        w.add("offsets", window.graph.offsets)
        w.add("neighbors", window.graph.neighbors)
        w.add("length", window.graph.length)
        w.add("scale", window.graph.scale)
        for (c, m) in matches.enumerated() { w.add("match.\(c)", m) }
        try w.write(to: path)
    }

    struct Window {
        var window: PropagationWindow
        var matches: [[UInt8]]
        var identity: Identity
        var keywords: [String]
        var metadata: JSONValue
    }

    static func readWindow(_ path: String) throws -> Window {
        let file = try ArtifactFile(path: path, expected: .graph)
        guard let meta = file.metadata["tile_window"] else {
            throw ArtifactError.malformed(path: path, detail: "not a propagation window (no tile_window metadata)")
        }
        let identity = try Identity(meta, path: path)
        guard let start = meta["owned_start"]?.intValue, let count = meta["owned_count"]?.intValue,
            let keywords = meta["keywords"]?.arrayValue?.compactMap(\.stringValue)
        else { throw ArtifactError.malformed(path: path, detail: "propagation window without its owned range") }
        let n = file.rowCount
        let nodes: Column<UInt32> = try file.view("node", count: n)
        let neighbors: Column<UInt32> = try file.view("neighbors")
        let graph = AdjacencyGraph(
            offsets: try file.view("offsets", count: n + 1), neighbors: neighbors,
            length: try file.view("length", count: neighbors.count), scale: try file.view("scale", count: n))
        var matches: [[UInt8]] = []
        for c in 0..<keywords.count { matches.append(Array(try file.view("match.\(c)", as: UInt8.self, count: n))) }
        guard start >= 0, start + count <= n else {
            throw ArtifactError.malformed(path: path, detail: "owned range outside the window")
        }
        return Window(
            window: PropagationWindow(nodes: Array(nodes), owned: start..<(start + count), graph: graph),
            matches: matches, identity: identity, keywords: keywords, metadata: meta)
    }

    // MARK: score parts

    static func write(_ part: PropagationTilePart, identity: Identity, keywords: [String], to path: String) throws {
        var w = ArtifactWriter(
            kind: .scores, rowCount: part.count,
            metadata: .object([
                (
                    "tile_part",
                    .object(
                        identity.json + [
                            ("first", .number(Double(part.first))), ("count", .number(Double(part.count))),
                            ("keywords", .array(keywords.map { .string($0) })),
                            ("iterations", .number(Double(part.status.first?.iterations ?? 0))),
                        ])
                )
            ]))
        for (c, column) in part.columns.enumerated() { w.add("column.\(c)", column) }
        // Bit-exact residuals (the gather's maximum goes into the scores' metadata).
        w.add("residual", part.status.map(\.residual))
        try w.write(to: path)
    }

    static func readScoresPart(_ path: String, expected: Identity, columns k: Int) throws -> PropagationTilePart {
        do {
            return try readScoresPartUnchecked(path, expected: expected, columns: k)
        } catch let error as ArtifactError {
            throw damaged(path, error)
        }
    }

    private static func readScoresPartUnchecked(_ path: String, expected: Identity, columns k: Int) throws
        -> PropagationTilePart
    {
        let file = try ArtifactFile(path: path, expected: .scores)
        let meta = file.metadata["tile_part"]
        try check(try Identity(meta, path: path), expected: expected, path: path)
        guard let first = meta?["first"]?.intValue, let count = meta?["count"]?.intValue, count == file.rowCount,
            let iterations = meta?["iterations"]?.intValue
        else { throw ArtifactError.malformed(path: path, detail: "tile part without its first, count and iterations") }
        var columns: [[Double]] = []
        for c in 0..<k { columns.append(Array(try file.view("column.\(c)", as: Double.self, count: count))) }
        let residuals: Column<Double> = try file.view("residual", count: k)
        return PropagationTilePart(
            first: first, count: count, columns: columns,
            status: residuals.map { .init(iterations: iterations, residual: $0, converged: false) })
    }
}
