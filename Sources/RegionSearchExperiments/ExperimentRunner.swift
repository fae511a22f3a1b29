import RegionSearchCore
import RegionSearchEvaluation
import RegionSearchMaps
import RegionSearchRunner
import RegionSearchStages

/// `regionsearch run` on an experiment manifest: every combination (input set × grid point) runs
/// as an ordinary pipeline through ``Runner``, under one lock and one ``RunSession``, so a stage
/// run that several combinations share (same inputs and parameters, hence the same key) is
/// computed once and only verified once. Each combination's GeoJSON goes to
/// `OUTPUT/<combination>.geojson`; then the combination is scored against its input set's truth
/// (``ExperimentScorer``) and `OUTPUT/results.csv`, `OUTPUT/results.md` and its plots
/// (``ExperimentPlots``, `OUTPUT/plot-<key>.png` and `.svg`) are written.
///
/// State: `WORK/run.json` lists the combinations and their status; `WORK/runs/<combination>.json`
/// is each combination's run state in the format of a single run's `run.json`.
public final class ExperimentRunner {
    public let manifest: Manifest
    public let experiment: Experiment
    public let work: WorkDirectory
    public let toolDirectory: String
    var launcher: StageLauncher
    /// Time spent hashing and verifying, over all combinations.
    public private(set) var hashingSeconds = 0.0

    /// What one experiment run did.
    public struct Outcome {
        /// Per combination, in order: its name and what the pipeline run did.
        public var combinations: [(name: String, outcome: Runner.Outcome)] = []
        /// Whether results.csv or results.md was (re)written.
        var resultsWritten = false
        /// The table, when the runs reached the last stage.
        public var results: ExperimentResults?
    }

    var csvPath: String { manifest.output + "/results.csv" }
    public var markdownPath: String { manifest.output + "/results.md" }

    /// - Precondition: `manifest.experiment` is not nil.
    public init(manifest: Manifest, toolDirectory: String, launcher: StageLauncher = ProcessStageLauncher()) {
        precondition(manifest.experiment != nil, "ExperimentRunner needs an experiment manifest")
        self.manifest = manifest
        experiment = manifest.experiment!
        work = WorkDirectory(path: manifest.workDirectory)
        self.toolDirectory = toolDirectory
        self.launcher = launcher
    }

    /// Runs every combination, then scores them and writes the results tables.
    @discardableResult
    public func run(_ options: RunOptions) throws -> Outcome {
        let window = try options.window()
        if FileSystem.exists(manifest.output) && !FileSystem.isDirectory(manifest.output) {
            throw ExperimentError.outputNotDirectory(path: manifest.output)
        }
        let lock = try Runner.lock(work, wait: options.wait)
        defer { lock.release() }
        let combinations = experiment.combinations
        let plotFiles = experiment.plotNames.flatMap { name in
            [MapFormat.png, .svg].map { manifest.output + "/" + name + "." + $0.rawValue }
        }
        let combinationMaps = combinations.flatMap {
            MapPublisher(manifest: manifest.variant(for: $0), work: work).paths
        }
        try Runner.prepare(
            work,
            outputs: combinations.map { manifest.output + "/" + $0.fileName } + [csvPath, markdownPath] + plotFiles
                + combinationMaps)
        do {
            try FileSystem.createDirectories(work.runs)
        } catch {
            throw RunnerError.fileSystem(error)
        }
        defer { work.keepManifestState() }

        var state = RunState(
            manifest: PathResolver.absolute(manifest.file, relativeTo: PathResolver.currentDirectory()),
            name: manifest.name,
            options: options.json)
        state.stages = []
        state.combinations = combinations.map { RunState.Combination(name: $0.name, status: "pending") }
        try state.write(work)

        let session = RunSession()
        let scorer = ExperimentScorer(work: work, manifestFile: manifest.file)
        let reachesEnd = window.until == Pipeline.stages.count - 1
        var outcome = Outcome()
        var rows: [ExperimentResults.Row] = []
        for combination in combinations {
            let i = combination.index
            Log.info("combination \(i + 1)/\(combinations.count): \(combination.name)")
            state.combinations![i].status = "running"
            try state.write(work)
            do {
                let runner = Runner(
                    manifest: manifest.variant(for: combination), toolDirectory: toolDirectory, launcher: launcher,
                    session: session)
                defer { hashingSeconds += runner.hashingSeconds }
                let statePath = work.combinationState(combination.name)
                let result = try runner.runLocked(options, statePath: work.mayWrite(statePath) ? statePath : nil)
                outcome.combinations.append((combination.name, result))
                if reachesEnd {
                    let (row, scoreKey) = try self.row(combination, result, scorer: scorer)
                    rows.append(row)
                    state.combinations![i].scoreKey = scoreKey
                }
            } catch {
                state.combinations![i].status = "failed"
                state.combinations![i].error = "\(error)"
                state.status = "failed"
                state.finished = Timestamp.now()
                try? state.write(work)
                throw error
            }
            state.combinations![i].status = "ok"
            try state.write(work)
        }

        if reachesEnd {
            var results = ExperimentResults(manifest: manifest, experiment: experiment, rows: rows)
            let plots = ExperimentPlots.plots(results, experiment: experiment)
            results.plots = plots.map { ($0.axis, $0.name) }
            outcome.results = results
            do {
                try RunInventory(manifest).check()
            } catch {
                throw UsageError(error.description)
            }
            var wrotePlots = false
            for plot in plots {
                for (format, bytes) in try PlotRenderer().render(plot.figure).sorted(by: { $0.key < $1.key }) {
                    let path = manifest.output + "/" + plot.name + "." + format.rawValue
                    if try Self.writeIfChanged(bytes, to: path) { wrotePlots = true }
                }
            }
            let wroteCSV = try Self.writeIfChanged(results.csv, to: csvPath)
            let wroteMarkdown = try Self.writeIfChanged(results.markdown, to: markdownPath)
            outcome.resultsWritten = wroteCSV || wroteMarkdown || wrotePlots
            Log.info(
                outcome.resultsWritten
                    ? "wrote \(csvPath) and \(markdownPath)" : "\(csvPath) and \(markdownPath) are up to date")
            let current = Set(combinations.map(\.fileName))
            let others = FileSystem.list(manifest.output).filter { $0.hasSuffix(".geojson") && !current.contains($0) }
            if !others.isEmpty {
                Log.info(
                    "\(others.count) other GeoJSON file(s) in \(manifest.output) are not combinations of this "
                        + "experiment (an earlier grid?); they are left as they are"
                )
            }
        }
        state.status = "ok"
        state.hashingSeconds = hashingSeconds
        state.finished = Timestamp.now()
        try state.write(work)
        return outcome
    }

    /// Counts from the stage records and the GeoJSON, scores when the input set has truth.
    private func row(_ combination: ExperimentCombination, _ result: Runner.Outcome, scorer: ExperimentScorer) throws
        -> (ExperimentResults.Row, ContentHash?)
    {
        let records = result.records
        func objectFile(_ stage: String, _ file: String) -> (path: String, digest: FileDigest)? {
            guard let record = records[stage], let output = record.outputs.first(where: { $0.file == file }) else {
                return nil
            }
            return (work.objectDirectory(stage: stage, key: record.keyHash) + "/" + file, output.digest)
        }
        guard let hulls = Pipeline.stages.last, let port = hulls.outputs.first,
            let geojson = objectFile(hulls.name, port.fileName)
        else {
            throw ToolFailure("internal error: combination \(combination.name) has no GeoJSON", status: .internalError)
        }
        let features: RegionFeatureFile
        do {
            features = try RegionFeatureFile.read(path: geojson.path)
        } catch {
            throw ExperimentError.scoring(combination: combination.name, underlying: error)
        }
        let keywords = manifest.keywords
        var perKeyword = [Int](repeating: 0, count: keywords.count)
        for f in features.features {
            if let k = keywords.firstIndex(where: { $0 == f.keyword }) { perKeyword[k] += 1 }
        }
        var score: ExperimentScore?
        var scoreKey: ContentHash?
        if let truth = experiment.truth(for: combination.inputSet) {
            let ingest = IngestStage.definition
            let pois = ingest.outputs.first(where: { $0.kind == .pois }).flatMap {
                objectFile(ingest.name, $0.fileName)
            }
            let scored = try scorer.score(
                combination: combination.name, regions: geojson, truth: truth,
                truthKey: "experiment.truth.\(combination.inputSet)", pois: pois)
            score = scored.score
            scoreKey = scored.key
        }
        let row = ExperimentResults.Row(
            combination: combination,
            pois: records[IngestStage.definition.name]?.summary.count(.accepted),
            edges: records[GraphStage.definition.name]?.summary.count(.edges),
            iterations: records[PropagateStage.definition.name]?.summary.count(.iterations),
            regionsPerKeyword: perKeyword, regions: features.features.count, score: score,
            // Milliseconds, as records store them: a fresh run and a rerun that reads the records agree.
            seconds: Pipeline.stages.map { records[$0.name].map { ($0.seconds * 1000).rounded() / 1000 } })
        return (row, scoreKey)
    }

    /// Writes `text` atomically unless the file already holds exactly it; true when written.
    static func writeIfChanged(_ text: String, to path: String) throws -> Bool {
        try writeIfChanged(Array(text.utf8), to: path)
    }

    /// Writes `bytes` atomically unless the file already holds exactly them; true when written.
    static func writeIfChanged(_ bytes: [UInt8], to path: String) throws -> Bool {
        if let existing = try? FileSystem.read(path), existing == bytes { return false }
        do {
            try FileSystem.createDirectories(AtomicFile.directory(of: path))
            try AtomicFile.write(bytes, to: path)
        } catch let e as FileSystem.Failure {
            throw RunnerError.fileSystem(e)
        } catch {
            throw RunnerError.fileSystem(.init(path: path, operation: "write", reason: "\(error)"))
        }
        return true
    }
}
