import Foundation
import RegionSearchCore
import RegionSearchGraph
import RegionSearchIngest
import RegionSearchPropagation
import RegionSearchRunner
import RegionSearchStages

/// `regionsearch plan`: a ``TilePlan`` for a manifest and its engine files.
public enum TilePlanner {
    /// What to plan.
    public struct Request {
        public var manifest: String
        /// nil: `auto` (``TileEstimate/automaticTiles(points:)``).
        public var tiles: Int?
        public var directory: String
        public var engine: WorkflowWriter.Engine
        public var partition = Self.defaultPartition
        public var haloCells = GraphTile.defaultHaloCells
        public var pointsPerCell = TileGrid.defaultPointsPerCell
        /// The number of POIs to size the jobs for, instead of the estimate.
        public var points: Int?
        /// The Slurm partition of every job unless told otherwise.
        public static let defaultPartition = "local"

        public init(manifest: String, tiles: Int?, directory: String, engine: WorkflowWriter.Engine) {
            self.manifest = manifest
            self.tiles = tiles
            self.directory = directory
            self.engine = engine
        }
    }

    /// Writes `DIR/plan.json` and the engine's files; returns the plan and the files written.
    public static func plan(_ request: Request) throws -> (plan: TilePlan, files: [String]) {
        let cwd = PathResolver.currentDirectory()
        let manifestPath = PathResolver.absolute(request.manifest, relativeTo: cwd)
        let manifest = try Manifest.load(path: manifestPath)
        if manifest.experiment != nil {
            throw UsageError(
                "\(request.manifest): an experiment manifest runs many pipelines; plan a tiled run of a single "
                    + "pipeline manifest (copy one combination's settings into its own manifest)")
        }
        let (points, source) = estimatePoints(manifest, given: request.points)
        let tiles = request.tiles ?? TileEstimate.automaticTiles(points: points)
        let propagate = try PropagationOptions(manifest.parameters(for: PropagateStage.definition.name))
        // The reach the stage cuts its windows with: the longer of the two propagations it runs.
        let reach = LabelPropagation.reach(iterations: propagate.solvers.iterations)
        let estimate = TileEstimate(
            points: points, source: source, keywords: manifest.keywords.count, tiles: tiles, reach: reach)
        // A PostGIS input is no file the engine can wait for or date; prepare reads it every run.
        let inputs = manifest.inputs.map(\.path).filter { !InputSpec.isConnectionString($0) }
        let plan = TilePlan(
            manifest: manifestPath, directory: PathResolver.absolute(request.directory, relativeTo: cwd),
            toolDirectory: CurrentExecutable.directory, tiles: tiles, haloCells: request.haloCells,
            pointsPerCell: request.pointsPerCell, estimate: estimate, partition: request.partition,
            inputs: [manifestPath] + inputs)
        try WorkflowWriter.check(plan, engine: request.engine)
        // The work directory is the runner's (a folder of other files is refused as work_dir):
        // a plan inside it would be swept, or — when the work directory does not exist yet — make
        // it a folder of other files that the first run refuses. Compared as spelt and with links
        // resolved (the deepest existing part of each path), since neither folder need exist.
        let work = PathResolver.absolute(manifest.workDirectory, relativeTo: cwd)
        func isInside(_ path: String, _ folder: String) -> Bool {
            path == folder || path.hasPrefix(folder.hasSuffix("/") ? folder : folder + "/")
        }
        if isInside(plan.directory, work)
            || isInside(PathResolver.resolvingLinks(plan.directory), PathResolver.resolvingLinks(work))
        {
            let resolved = PathResolver.resolvingLinks(work)
            let notes =
                (resolved == work ? [] : ["\(resolved) with links resolved"])
                + (FileSystem.isDirectory(work) ? [] : ["not made yet"])
            let note = notes.isEmpty ? "" : " (" + notes.joined(separator: "; ") + ")"
            throw UsageError(
                "the plan folder \(plan.directory) is inside the work directory \(work)\(note), which is "
                    + "the runner's; choose another directory for the plan, outside it (e.g. beside the output: "
                    + "out/wf)")
        }
        // `submit.sh --fresh` removes the steps' files from state, graph and propagate: a folder
        // whose step folders hold anything else is the user's.
        let foreign = WorkflowWriter.foreignFiles(in: plan.directory)
        guard foreign.isEmpty else {
            let shown = foreign.prefix(3).joined(separator: ", ") + (foreign.count > 3 ? ", …" : "")
            throw UsageError(
                "the plan folder \(plan.directory) holds files a plan's steps do not write (\(shown)), in the folders "
                    + "they write to; choose a new or empty folder for the plan")
        }
        // The workflow files never replace what the run reads, writes or keeps (a manifest named
        // plan.json planned into its own folder, an input there, a folder inside WORK/objects).
        let workflowFiles = [plan.planPath] + WorkflowWriter.paths(plan, engine: request.engine)
        do {
            try RunInventory(manifest).check(
                alsoWriting: workflowFiles.map { RunInventory.Entry(path: $0, role: "the workflow file") })
        } catch {
            let what = error.relation == "inside" ? "is inside" : "would overwrite"
            throw UsageError(
                "\(error.role) \(error.path) \(what) \(error.other.role) (\(error.other.path)); choose another "
                    + "directory for the plan")
        }
        // A file of those names that a plan did not write (a user's own submit.sh or Snakefile)
        // was replaced without a word: only a plan's own files are written over.
        for path in workflowFiles where FileSystem.exists(path) && !WorkflowWriter.isPlanFile(path) {
            throw UsageError(
                "\(path) is not a file 'regionsearch plan' wrote, and planning writes a file of that name; choose "
                    + "a new or empty folder for the plan, or move that file away")
        }
        try plan.write()
        let files = try WorkflowWriter.write(plan, engine: request.engine)
        return (plan, [plan.planPath] + files)
    }

    /// POIs to size the jobs for: the last projected point count of this work directory's runs,
    /// else the input files' sizes over a typical size per POI of their format.
    static func estimatePoints(_ manifest: Manifest, given: Int?) -> (Int, String) {
        if let given { return (given, "given with --points") }
        let planner = StagePlanner(manifest: manifest, work: WorkDirectory(path: manifest.workDirectory))
        if let record = planner.lastRecord(of: ProjectStage.definition.name),
            let n = record.summary.count(.projectedPoints), n > 0
        {
            return (n, "the last project run in \(manifest.workDirectory)")
        }
        var total = 0.0
        for input in manifest.inputs {
            let size = (try? FileManager.default.attributesOfItem(atPath: input.path)[.size] as? Int) ?? 0
            total += Double(size) / TileEstimate.bytesPerPOI(path: input.path)
        }
        return (max(1, Int(total.rounded(.up))), "estimated from the input files' sizes")
    }
}
