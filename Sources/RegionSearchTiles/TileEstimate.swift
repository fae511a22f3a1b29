import RegionSearchCore
import RegionSearchStages

/// The memory and time each step of a tiled run needs, from the number of POIs, the keywords and
/// the tile count: what the workflow asks the scheduler for (Slurm `--mem`, `--time`).
///
/// The model (docs/TILES.md, "Cost model") takes the bytes per point and the seconds per point of
/// each stage from BENCHMARKS.md (10M POIs, release build, this project's 2-core machine) and adds
/// what tiling adds: a tile's window is its share of the points grown by its halo (graph: the
/// certified rings of cells; propagation: iterations + 2 hops), and every tile job maps the
/// projected artifact whole. Memory is rounded up with 64 MB of process overhead and a factor
/// 1.25; time is asked for 4× the estimate and at least 10 minutes.
public struct TileEstimate: Equatable {
    /// Estimated POIs (from a previous run of the manifest when there is one, else from the
    /// input files' sizes).
    public var points: Int
    /// Where `points` came from.
    public var source: String
    public var keywords: Int
    public var tiles: Int
    /// Graph hops of the propagation windows (iterations + 2).
    public var reach: Int

    public init(points: Int, source: String, keywords: Int, tiles: Int, reach: Int) {
        self.points = points
        self.source = source
        self.keywords = keywords
        self.tiles = tiles
        self.reach = reach
    }

    /// One step's resources.
    public struct Resources: Equatable {
        public var memoryMB: Int
        public var runtimeMinutes: Int
        public var threads: Int
        /// The estimate before the safety factors, in seconds on one 2-core node.
        public var seconds: Double
    }

    /// The steps, in run order.
    public static let steps = ["prepare", "graph", "gather-graph", "propagate", "finish"]

    /// A tile's points with its halo: a square core of side √(n/T) spacings grown by `halo`
    /// spacings on every side, at most all points.
    static func window(points n: Int, tiles: Int, halo: Double) -> Double {
        let core = Double(n) / Double(max(tiles, 1))
        guard tiles > 1 else { return core }
        let side = core.squareRoot()
        let grown = (side + 2 * halo) * (side + 2 * halo)
        return min(Double(n), grown)
    }

    public func resources(_ step: String) -> Resources {
        let n = Double(points)
        let columns = Double(keywords + 2)
        // A graph tile certifies its rows about 16–40 spacings in (one ring of 256-point cells, a
        // second round where sparse areas need it); propagation reaches `reach` hops.
        let graphWindow = Self.window(points: points, tiles: tiles, halo: 40)
        let propagateWindow = Self.window(points: points, tiles: tiles, halo: Double(reach))
        let bytes: Double
        let seconds: Double
        switch step {
        case "prepare":
            bytes = 150 * n
            seconds = 0.65e-6 * n
        case "graph":
            // Fitted to the graph tile jobs' peaks at 10M and 50M POIs (docs/TILES.md): the whole
            // projected artifact and its grid buckets, plus the loaded window's triangulation.
            bytes = 50 * n + 236 * graphWindow
            seconds = 2 * 1.1e-6 * graphWindow
        case "gather-graph":
            bytes = 200 * n
            seconds = 0.5e-6 * n
        case "propagate":
            bytes = (200 + 40 * columns) * propagateWindow
            seconds = 0.17e-6 * columns * propagateWindow
        default:
            bytes = (180 + 17 * columns) * n
            seconds = 0.4e-6 * n + 0.1e-6 * Double(keywords) * n
        }
        // A graph tile that cannot certify its rows grows its window (five rounds for one tile of
        // the 10M city: 1.2 × the estimate's memory), so it gets more headroom than the others.
        let headroom = step == "graph" ? 1.5 : 1.25
        let memory = max(256, Int((headroom * bytes / 1_048_576).rounded(.up)) + 64)
        let minutes = max(10, Int((4 * seconds / 60).rounded(.up)))
        return Resources(memoryMB: memory, runtimeMinutes: minutes, threads: 2, seconds: seconds)
    }

    /// POIs per tile that keep the largest tile job near 3 GB with a few keywords.
    public static let pointsPerTile = 5_000_000

    /// The tile count for `--tiles auto`.
    public static func automaticTiles(points: Int) -> Int {
        max(1, min(4096, (points + pointsPerTile - 1) / pointsPerTile))
    }

    /// Bytes of an input file per POI, by format (a rough guide for the estimate only).
    static func bytesPerPOI(path: String) -> Double {
        var name = path.lowercased()
        var factor = 1.0
        if name.hasSuffix(".gz") {
            name.removeLast(3)
            factor = 5
        }
        let perPOI: Double
        if name.hasSuffix(".csv") || name.hasSuffix(".tsv") || name.hasSuffix(".txt") {
            perPOI = 60
        } else if name.hasSuffix(".pbf") {
            perPOI = 300
        } else if name.hasSuffix(".osm") || name.hasSuffix(".xml") {
            perPOI = 3000
        } else {
            perPOI = 300
        }
        return perPOI / factor
    }

    var json: JSONValue {
        var steps: [(String, JSONValue)] = []
        for s in Self.steps {
            let r = resources(s)
            steps.append(
                (
                    s,
                    .object([
                        ("mem_mb", .number(Double(r.memoryMB))), ("runtime_min", .number(Double(r.runtimeMinutes))),
                        ("threads", .number(Double(r.threads))),
                        ("estimated_seconds", .number((r.seconds * 100).rounded() / 100)),
                    ])
                ))
        }
        return .object([
            ("points", .number(Double(points))), ("source", .string(source)),
            ("keywords", .number(Double(keywords))), ("tiles", .number(Double(tiles))),
            ("reach", .number(Double(reach))), ("steps", .object(steps)),
        ])
    }

    init?(json: JSONValue?) {
        guard let json, let points = json["points"]?.intValue, let source = json["source"]?.stringValue,
            let keywords = json["keywords"]?.intValue, let tiles = json["tiles"]?.intValue,
            let reach = json["reach"]?.intValue
        else { return nil }
        self.init(points: points, source: source, keywords: keywords, tiles: tiles, reach: reach)
    }
}
