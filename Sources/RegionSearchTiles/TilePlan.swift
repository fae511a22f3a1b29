import RegionSearchCore
import RegionSearchRunner
import RegionSearchStages

/// A tiled run of one manifest, as `regionsearch plan` writes it (`DIR/plan.json`) and every
/// workflow step (`regionsearch tile STEP --plan DIR/plan.json`) reads it.
///
/// The steps (docs/TILES.md): `prepare` (ingest and project the whole data once, through the
/// runner) → `graph` per tile → `gather-graph` (the graph object, exactly the single run's, and
/// the propagation windows) → `propagate` per tile → `finish` (the scores object, then regions,
/// hulls and maps on the whole data, through the runner). Every object the global steps write
/// lands in the manifest's work directory under the key a single run computes, so `regionsearch
/// run MANIFEST` afterwards finds everything up to date.
public struct TilePlan: Equatable {
    /// Bumped when the plan's layout changes.
    public static let formatVersion = 1
    /// The most tiles a plan cuts a run into (`regionsearch plan --tiles`), also when its file
    /// is read back.
    public static let maximumTiles = 4096

    /// The manifest, absolute.
    public var manifest: String
    /// The workflow directory (absolute): plan.json, the engine files, `state/`, `graph/`,
    /// `propagate/`, `logs/`.
    public var directory: String
    /// Directory of the `regionsearch` executables used by every step (absolute).
    public var toolDirectory: String
    public var tiles: Int
    /// Rings of grid cells a graph tile loads around its own at first.
    public var haloCells: Int
    /// Density of the graph tiles' grid.
    public var pointsPerCell: Int
    /// The size the resources were estimated for.
    public var estimate: TileEstimate
    /// Slurm partition of every job.
    public var partition: String
    /// The files the prepare step reads (absolute): the manifest, then its file inputs (a `PG:`
    /// input has no file). The Snakefile's prepare rule lists them as its input, read from here.
    public var inputs: [String]

    public init(
        manifest: String, directory: String, toolDirectory: String, tiles: Int, haloCells: Int,
        pointsPerCell: Int, estimate: TileEstimate, partition: String, inputs: [String] = []
    ) {
        self.manifest = manifest
        self.directory = directory
        self.toolDirectory = toolDirectory
        self.tiles = tiles
        self.haloCells = haloCells
        self.pointsPerCell = pointsPerCell
        self.estimate = estimate
        self.partition = partition
        self.inputs = inputs
    }

    public var planPath: String { directory + "/plan.json" }
    var stateDirectory: String { directory + "/state" }
    var graphParts: String { directory + "/graph" }
    var propagateDirectory: String { directory + "/propagate" }
    /// Written by `prepare`: where the projected and pois objects are.
    var preparedPath: String { stateDirectory + "/prepared.json" }
    /// Written by `gather-graph` when the graph object and the windows are complete.
    var graphDonePath: String { stateDirectory + "/graph.json" }
    /// Written by `finish`: the output and its digest.
    var finishedPath: String { stateDirectory + "/finished.json" }

    /// Tile numbers as the files spell them (0003).
    public func tileName(_ t: Int) -> String { TileArtifacts.number(t) }

    public var json: JSONValue {
        .object([
            ("format", .number(Double(Self.formatVersion))),
            ("written_by", .string("regionsearch \(RegionSearchVersion.current)")),
            ("manifest", .string(manifest)),
            ("directory", .string(directory)),
            ("tool_directory", .string(toolDirectory)),
            ("tiles", .number(Double(tiles))),
            ("halo_cells", .number(Double(haloCells))),
            ("points_per_cell", .number(Double(pointsPerCell))),
            ("partition", .string(partition)),
            ("inputs", .array(inputs.map { .string($0) })),
            ("estimate", estimate.json),
        ])
    }

    public func write() throws {
        try FileSystem.createDirectories(directory)
        try AtomicFile.write(json.serialized(pretty: true) + "\n", to: planPath)
    }

    public static func load(_ path: String) throws -> TilePlan {
        let bytes: [UInt8]
        do {
            bytes = try FileSystem.read(path)
        } catch {
            throw UsageError("\(path): cannot read the plan (\(error)); write it with 'regionsearch plan'")
        }
        let json: JSONValue
        do {
            json = try bytes.withUnsafeBufferPointer { (b) throws(JSONParseError) -> JSONValue in
                try JSONParser.parse(bytes: b)
            }
        } catch {
            throw UsageError("\(path): not a plan written by 'regionsearch plan' (\(error))")
        }
        // A manifest given for the plan (both are JSON): said as such.
        if json["format"] == nil && (json["inputs"] != nil || json["output"] != nil || json["keywords"] != nil) {
            throw UsageError(
                "\(path): is a manifest, not a plan; give the plan.json that 'regionsearch plan \(path) DIR' writes "
                    + "in DIR")
        }
        guard json["format"]?.intValue == formatVersion, let manifest = json["manifest"]?.stringValue,
            let directory = json["directory"]?.stringValue, let tools = json["tool_directory"]?.stringValue,
            let tiles = json["tiles"]?.intValue, let halo = json["halo_cells"]?.intValue,
            let density = json["points_per_cell"]?.intValue, let partition = json["partition"]?.stringValue,
            let estimate = TileEstimate(json: json["estimate"])
        else {
            throw UsageError(
                "\(path): not a plan of this version of regionsearch (format \(formatVersion)); "
                    + "write it again with 'regionsearch plan'")
        }
        // A plan edited by hand: the values `regionsearch plan` accepts, no others.
        guard (1...maximumTiles).contains(tiles), halo >= 0, density >= 1 else {
            throw UsageError(
                "\(path): tiles \(tiles), halo_cells \(halo), points_per_cell \(density): expected tiles in "
                    + "[1, \(maximumTiles)], halo_cells ≥ 0 and points_per_cell ≥ 1; write the plan again with "
                    + "'regionsearch plan' instead of editing it")
        }
        return TilePlan(
            manifest: manifest, directory: directory, toolDirectory: tools, tiles: tiles, haloCells: halo,
            pointsPerCell: density, estimate: estimate, partition: partition,
            inputs: json["inputs"]?.arrayValue?.compactMap(\.stringValue) ?? [manifest])
    }
}
