import RegionSearchCore
import RegionSearchStages

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `regionsearch run`: brings every stage of a manifest up to date, resumably and crash-safely.
///
/// For each stage in order the runner computes its key (``StageKey``) from the content hashes of
/// its inputs and its parameters. A stage whose record has that key and whose outputs still hash
/// to the recorded values is skipped. Otherwise the stage runs into a staging directory, its
/// inputs are hashed again (a run whose input changed meanwhile is not recorded), and the staging
/// directory is renamed to `objects/<stage>-<key>` before the record is written — so a crash at
/// any moment leaves either the previous complete state or the new one, and the next run resumes
/// from the first stage without a valid record. Finally the outputs are published (``Publisher``):
/// the GeoJSON copied atomically to the manifest's `output`, or converted to its format, and the
/// scored POI layer written when `poi_output` asks for it; the maps are written beside it
/// (``MapPublisher``).
public final class Runner {
    public let manifest: Manifest
    public let work: WorkDirectory
    /// Directory holding the `regionsearch-<stage>` executables.
    public let toolDirectory: String
    var launcher: StageLauncher
    /// Shared with the other pipelines of the same invocation (an experiment's combinations).
    let session: RunSession
    private let planner: StagePlanner
    /// Wall time this runner spent hashing inputs and outputs and verifying recorded outputs:
    /// the price of content keys, reported at the end of a run and in run.json.
    public private(set) var hashingSeconds = 0.0

    private func timed<T>(_ body: () throws -> T) rethrows -> T {
        let t0 = monotonicSeconds()
        defer { hashingSeconds += monotonicSeconds() - t0 }
        return try body()
    }

    /// What one run did.
    public struct Outcome {
        /// Per stage, in order: what happened to it.
        public var stages: [(stage: String, status: RunState.Status, key: ContentHash?)]
        /// Whether the manifest output was (re)written by this run.
        var outputWritten: Bool
        /// The record of every completed stage (ran or up to date), by stage name.
        public var records: [String: StageRecord] = [:]
    }

    public init(
        manifest: Manifest, toolDirectory: String, launcher: StageLauncher = ProcessStageLauncher(),
        session: RunSession = RunSession()
    ) {
        self.manifest = manifest
        work = WorkDirectory(path: manifest.workDirectory)
        self.toolDirectory = toolDirectory
        self.launcher = launcher
        self.session = session
        planner = StagePlanner(manifest: manifest, work: work)
    }

    /// Runs the pipeline. Throws ``RunnerError`` (stage failures: exit status 7) or ``UsageError``.
    @discardableResult
    public func run(_ options: RunOptions) throws -> Outcome {
        _ = try options.window()
        let lock = try Self.lock(work, wait: options.wait)
        defer { lock.release() }
        let files = manifest.outputTargets.flatMap(\.files) + mapPaths
        try Self.prepare(
            work,
            outputs: files + files.compactMap { try? AtomicFile.Target($0).path }
                + files.map(PublishedSet.publishedPath)
                + LineageStep.publishedPaths(manifest),
            set: PublishedSet.root(of: manifest).map { PublishedSet(root: $0) })
        defer { work.keepManifestState() }
        // Found now, not after the stages: an output that cannot be written.
        if try options.window().until == Pipeline.stages.count - 1 {
            try OutputPreflight.check(manifest.outputTargets)
            try OutputPreflight.checkNames(LineageStep.publishedPaths(manifest))
            try OutputPreflight.checkSetMembers(setMemberPaths)
            _ = try LineageStep.previousState(manifest, fresh: options.freshLineage, adopt: options.adoptLineage)
        }
        return try runLocked(options, statePath: work.runState)
    }

    /// Takes the work directory's lock for a run, saying so when it waits or resumes.
    public static func lock(_ work: WorkDirectory, wait: Bool) throws -> WorkLock {
        let lock = try WorkLock.acquire(work, wait: wait) { holder in
            Log.info(
                "\(work.path) is in use by \(holder.map { "another run (\($0))" } ?? "another run"); waiting for it "
                    + "to finish"
            )
        }
        if let previous = lock.interruptedHolder {
            Log.info("the previous run on this work directory (pid \(previous.pid)) was interrupted; resuming")
        }
        return lock
    }

    /// Creates the work directory and removes what interrupted runs left there and beside the
    /// output files. Only call this holding the lock.
    public static func prepare(_ work: WorkDirectory, outputs: [String], set: PublishedSet? = nil) throws {
        do {
            try work.create()
            var removed = try work.removeTemporaries()
            func sweep() throws(FileSystem.Failure) -> [String] {
                var found: [String] = []
                for output in outputs { found += try WorkDirectory.removeTemporaries(besides: output) }
                return found + (try set?.removeLeftovers() ?? [])
            }
            // Temporaries beside the outputs and in their set folder are made under the folder's
            // lock: while another run (a manifest with the same output) holds it, they are its.
            if let set {
                if let found = try set.whenIdle(sweep) {
                    removed += found
                } else {
                    Log.info("another run is publishing these outputs; the files beside them are left as they are")
                }
            } else {
                removed += try sweep()
            }
            if !removed.isEmpty {
                Log.info("removed \(removed.count) temporary file(s) left by an interrupted run")
            }
        } catch {
            throw RunnerError.fileSystem(error)
        }
    }

    /// Runs the pipeline while the caller holds the work directory's lock, recording its state
    /// in `statePath` (`run.json`, or an experiment combination's state file; nil: not recorded,
    /// where a user's file has the state file's name).
    public func runLocked(_ options: RunOptions, statePath: String?) throws -> Outcome {
        let window = try options.window()
        var state = RunState(
            manifest: PathResolver.absolute(manifest.file, relativeTo: PathResolver.currentDirectory()),
            name: manifest.name, options: options.json)
        // The state is informative only (records decide what is up to date): without a path, none.
        func save() throws(RunnerError) { if let statePath { try state.write(to: statePath) } }
        try save()
        var completed: [String: StagePlanner.Completed] = [:]
        let stages = Pipeline.stages
        var outcome = Outcome(stages: [], outputWritten: false)

        func fail(_ stage: String, _ error: Error) -> Error {
            state[stage].status = .failed
            state[stage].error = "\(error)"
            state.status = "failed"
            state.finished = Timestamp.now()
            try? save()
            return error
        }

        for (i, stage) in stages.enumerated() {
            let label = "[\(i + 1)/\(stages.count)] \(stage.name)"
            guard i <= window.until else {
                state[stage.name].status = .notSelected
                outcome.stages.append((stage.name, .notSelected, nil))
                continue
            }
            let inputs: [StageKey.Input]
            if stage.inputs.isEmpty {
                do {
                    inputs = try timed { try planner.rawInputs(session: session) }
                } catch {
                    throw fail(stage.name, error)
                }
            } else {
                guard let found = planner.artifactInputs(of: stage, completed: completed) else {
                    throw fail(
                        stage.name,
                        ToolFailure("internal error: inputs of \(stage.name) are not complete", status: .internalError))
                }
                inputs = found
            }
            let build = timed { session.build(toolDirectory: toolDirectory, store: work.builds).of(stage) }
            let key = StageKey(
                stage: stage, parameters: manifest.parameters(for: stage.name), inputs: inputs, build: build)
            let hash = key.hash
            state[stage.name].key = hash
            let entry = WorkDirectory.entryName(stage: stage.name, key: hash)
            // A forced stage runs once per session, however many pipelines use it.
            let forced = (window.forcedFrom.map { i >= $0 } ?? false) && !session.executed.contains(entry)
            if !forced {
                let check =
                    session.completed[entry].map { StagePlanner.Check.upToDate($0) }
                    ?? timed({ planner.check(stage, key: hash, digests: session.digests) })
                switch check {
                case .upToDate(let record):
                    // A result made with warnings about the data is not good enough for --strict.
                    if options.strict, let warnings = record.summary.detail("warnings")?.arrayValue, !warnings.isEmpty {
                        let text = warnings.compactMap(\.stringValue).joined(separator: "; ")
                        throw fail(
                            stage.name,
                            ToolFailure(
                                "\(stage.name) is up to date, but its run warned: \(text) (an error because of --strict)",
                                status: .inputData))
                    }
                    session.completed[entry] = record
                    completed[stage.name] = .init(
                        key: hash, objectPath: StagePlanner.objectPath(stage: stage.name, key: hash), record: record)
                    outcome.records[stage.name] = record
                    state[stage.name].status = .upToDate
                    outcome.stages.append((stage.name, .upToDate, hash))
                    Log.event("\(label): up to date, skipped", stage: stage.name, phase: "skipped")
                    continue
                case .damaged(let reason):
                    Log.warning("\(reason)")
                    Log.info("\(label): output damaged, rerunning")
                case .absent:
                    break
                }
            }
            state[stage.name].status = .running
            try save()
            Log.event("\(label) …", stage: stage.name, phase: "start")
            let record: StageRecord
            do {
                record = try execute(stage, key: key, hash: hash, options: options)
            } catch {
                throw fail(stage.name, error)
            }
            session.executed.insert(entry)
            session.completed[entry] = record
            completed[stage.name] = .init(
                key: hash, objectPath: StagePlanner.objectPath(stage: stage.name, key: hash), record: record)
            outcome.records[stage.name] = record
            state[stage.name].status = .ran
            state[stage.name].seconds = record.seconds
            outcome.stages.append((stage.name, .ran, hash))
            let counts = Self.countsText(record.summary)
            Log.event(
                "\(label): done in \(Self.seconds(record.seconds))\(counts.isEmpty ? "" : " — " + counts)",
                stage: stage.name, phase: "done", counts: record.summary.counts.map { ($0.0.rawValue, $0.1) },
                seconds: record.seconds)
            // The stage named its rejects file in the staging folder, gone once promoted.
            if let rejected = record.summary.count(.rejected), rejected > 0,
                let port = stage.outputs.first(where: { $0.option == "rejects" })
            {
                let path = work.objectDirectory(stage: stage.name, key: hash) + "/" + port.fileName
                Log.info("\(label): the rejected records are in \(path)")
            }
            try save()
        }

        if let last = stages.last, window.until == stages.count - 1, completed[last.name] != nil {
            var identified: LineageStep.Outcome?
            // The set folder's lock from reading the published lineage file to the flip: a second
            // manifest with the same output goes on from this night's lineage, not the one before.
            var setLock: PublishedSet.Lock?
            defer { setLock?.release() }
            do {
                var publisher = Publisher(manifest: manifest, work: work, planner: planner)
                if manifest.lineage.enabled, let root = PublishedSet.root(of: manifest) {
                    do {
                        setLock = try PublishedSet(root: root).lock(wait: true)
                    } catch {
                        throw RunnerError.fileSystem(error)
                    }
                    publisher.holdsSetLock = true
                }
                // Stable ids, labels and the change report (the previous result is an input).
                let build = session.build(toolDirectory: toolDirectory, store: work.builds).of(
                    executable: "regionsearch")
                identified = try LineageStep(manifest: manifest, work: work, planner: planner, build: build).run(
                    completed, fresh: options.freshLineage, adopt: options.adoptLineage)
                publisher.identified = identified?.regions
                // The change reports and the lineage file are published with the regions, as one
                // set, where every output is a file of the set; a lineage file kept in another
                // folder is written in place just before the set is made current. Otherwise
                // (standard output, a database, written after the set) they are written in place
                // after every output.
                if let identified, manifest.lineage.enabled {
                    try OutputSafety.check(
                        writing: LineageStep.publishedPaths(manifest),
                        protected: OutputSafety.protectedFiles(of: manifest))
                    publisher.lineageFiles = identified.files.filter {
                        LineageStep.isPublishedWithSet($0.path, manifest)
                    }
                    if LineageStep.isPublishedAsSet(manifest) {
                        let inSet = publisher.lineageFiles.map(\.path)
                        publisher.beforeFlip = { _ = try identified.publish(skipping: inSet) }
                    }
                }
                let results = try publisher.publish(completed)
                outcome.outputWritten = results.contains { $0.written && (!$0.targets.isEmpty || $0.isLineage) }
                if let digest = results.first?.digest, results.first?.targets.first?.role == .regions {
                    state.output = (manifest.outputTarget.display, digest)
                }
                for r in results where !r.isLineage { Log.info(r.message) }
                if let identified, manifest.lineage.enabled {
                    let inSet = publisher.lineageFiles.map(\.path)
                    let written =
                        (results.contains { $0.isLineage && $0.written } ? inSet : [])
                        + (try identified.publish(skipping: inSet))
                    outcome.outputWritten = outcome.outputWritten || !written.isEmpty
                    // Published: the lineage file now carries the ids; a kept floor is done with.
                    publisher.saveLineageFloor(nil)
                    Log.info(
                        "lineage: \(identified.summary)"
                            + (written.isEmpty
                                ? "" : "; wrote " + written.map { AtomicFile.baseName(of: $0) }.joined(separator: ", "))
                    )
                }
            } catch {
                // The stages succeeded: the failure is the publishing's, not the last stage's.
                state.publishError = "\(error)"
                state.status = "failed"
                state.finished = Timestamp.now()
                try? save()
                throw error
            }
        }
        state.status = "ok"
        state.hashingSeconds = hashingSeconds
        state.finished = Timestamp.now()
        do {
            try save()
        } catch {
            // Tonight's result is published: the exit status says so, whatever became of the
            // record of the run (a disk that filled up just after the flip).
            guard window.until == stages.count - 1 else { throw error }
            Log.warning(
                "the run's results are published, but its record could not be updated: \(error); "
                    + "'regionsearch status' shows this run as interrupted until the next run")
        }
        return outcome
    }

    /// Runs one stage into its staging directory, checks it, promotes it and writes its record.
    private func execute(_ stage: StageDefinition, key: StageKey, hash: ContentHash, options: RunOptions) throws
        -> StageRecord
    {
        let pid = getpid()
        let staging = work.stagingDirectory(stage: stage.name, key: hash, pid: pid)
        do {
            try FileSystem.removeTree(staging)
            try FileSystem.createDirectories(staging)
        } catch {
            throw RunnerError.fileSystem(error)
        }
        defer { try? FileSystem.removeTree(staging) }
        let executable = toolDirectory + "/" + stage.executable
        guard FileSystem.isExecutable(executable) else { throw RunnerError.executableMissing(path: executable) }
        let rawSpecs = stage.inputs.isEmpty ? manifest.inputs.map { $0.spec } : []
        let arguments = StageCommand.arguments(
            stage: stage, parameters: manifest.parameters(for: stage.name),
            inputPaths: key.inputs.map { planner.absolute($0.path) }, rawInputs: rawSpecs,
            outputDirectory: staging, threads: options.threads, quiet: options.quiet, logFormat: options.logFormat,
            strict: options.strict)

        CrashPoint.reached("spawn")
        let started = Timestamp.now()
        let t0 = monotonicSeconds()
        let launch = try launcher.launch(stage: stage, executable: executable, arguments: arguments)
        let seconds = monotonicSeconds() - t0

        let summaryPath = staging + "/" + StageCommand.summaryFileName
        func readSummary() -> StageSummary {
            guard let bytes = try? FileSystem.read(summaryPath),
                let json = try? bytes.withUnsafeBufferPointer({ (b) throws(JSONParseError) -> JSONValue in
                    try JSONParser.parse(bytes: b)
                })
            else { return StageSummary(stage: stage.name) }
            return StageSummary(json: json)
        }

        func failed(_ detail: String?) throws -> Never {
            // What the stage wrote before failing (the rejects of an ingest that stopped on too
            // many of them) is kept: the staging directory its message names is about to go.
            let kept = keepFailedOutputs(stage: stage, hash: hash, staging: staging)
            let text =
                launch.termination.description
                + (launch.errorLines.isEmpty ? "" : ": " + launch.errorLines.joined(separator: " | "))
                + (kept.map { "; its files so far are kept in \($0)" } ?? "")
            let failure = StageRecord(
                key: key, succeeded: false, outputs: [], started: started, finished: Timestamp.now(), seconds: seconds,
                threads: options.threads, summary: readSummary(), failure: detail ?? text)
            try? failure.write(to: work.failurePath(stage: stage.name, key: hash))
            // A warning, so --quiet keeps it: the stage's own message names its staging folder, gone now.
            if let kept {
                Log.warning(
                    "\(stage.name): what the stage wrote before failing is kept in \(kept) (its messages name the "
                        + "folder it wrote in, \(staging), which is gone: read the files there under \(kept))")
            }
            throw RunnerError.stageFailed(stage: stage.name, exit: launch.termination, detail: detail)
        }
        guard launch.termination.succeeded else { try failed(nil) }
        CrashPoint.reached("stage-done")

        // The outputs are only as good as the inputs the stage read: check that they are unchanged
        // (by their signatures, rehashing only a file whose signature changed or was not settled).
        for (i, input) in key.inputs.enumerated() {
            let path = planner.absolute(input.path)
            if input.producer == nil && InputDigest.isVolatile(path) { continue }
            let artifact = i < stage.inputs.count && stage.inputs[i].kind != nil
            let unchanged = timed {
                input.producer == nil
                    ? (try? InputDigest.of(path: path, hashing: session.digests.current(path:))) == input.digest
                    : session.digests.hasDigest(path: path, input.digest, artifact: artifact)
            }
            if !unchanged {
                throw RunnerError.inputChanged(stage: stage.name, input: input.name, path: path)
            }
        }
        let summary = readSummary()
        unlink(summaryPath)
        var outputs: [StageRecord.Output] = []
        for port in stage.outputs {
            do {
                outputs.append(
                    .init(
                        name: port.option, file: port.fileName,
                        // An artifact by its identity (its columns were checksummed as written).
                        digest: try timed {
                            try session.digests.digest(
                                path: staging + "/" + port.fileName, artifact: port.kind != nil,
                                verifyingColumns: false)
                        }))
            } catch {
                try failed(
                    "\(stage.executable) exited successfully but did not "
                        + "write its output \(port.fileName) (\((error as? FileDigest.Failure)?.reason ?? "\(error)"))"
                )
            }
        }
        let record = StageRecord(
            key: key, succeeded: true, outputs: outputs, started: started, finished: Timestamp.now(), seconds: seconds,
            threads: options.threads, summary: summary)

        // Promote: the object directory only ever appears complete.
        CrashPoint.reached("promote")
        let object = work.objectDirectory(stage: stage.name, key: hash)
        do {
            var retired: String?
            if FileSystem.exists(object) {
                retired = work.retiredDirectory(stage: stage.name, key: hash, pid: pid)
                try FileSystem.rename(object, to: retired!)
            }
            // Not synced: the record written next only counts if the object verifies (see
            // StageRecord.write), so a rename a power cut undid means a rerun.
            try FileSystem.rename(staging, to: object)
            if let retired { try FileSystem.removeTree(retired) }
        } catch {
            throw RunnerError.fileSystem(error)
        }
        CrashPoint.reached("promoted")
        try record.write(to: work.recordPath(stage: stage.name, key: hash))
        unlink(work.failurePath(stage: stage.name, key: hash))
        try? FileSystem.removeTree(work.failedDirectory(stage: stage.name, key: hash))
        return record
    }

    /// Moves the files a failed stage wrote (its summary aside) to `WORK/failed/<stage>-<key>/`,
    /// replacing an earlier failure's; nil when it wrote none.
    private func keepFailedOutputs(stage: StageDefinition, hash: ContentHash, staging: String) -> String? {
        let files = FileSystem.list(staging).filter {
            $0 != StageCommand.summaryFileName && WorkDirectory.temporaryBase($0) == nil
        }
        guard !files.isEmpty else { return nil }
        let target = work.failedDirectory(stage: stage.name, key: hash)
        do {
            try FileSystem.removeTree(target)
            try FileSystem.createDirectories(target)
            for name in files { try FileSystem.rename(staging + "/" + name, to: target + "/" + name) }
        } catch {
            return nil
        }
        return target
    }

    /// "0.42 s", "12.3 s".
    public static func seconds(_ s: Double) -> String { String(format: s < 10 ? "%.2f s" : "%.1f s", s) }

    /// "12,345 POIs, 40,000 edges" from a stage summary (the counts it has).
    static func countsText(_ summary: StageSummary) -> String {
        let labels: [(StageSummary.Count, String)] = [
            (.accepted, "POIs"), (.rejected, "rejected"), (.projectedPoints, "points"),
            (.edges, "edges"), (.iterations, "iterations"), (.candidates, "candidates"), (.regions, "regions"),
        ]
        var parts: [String] = []
        for (count, label) in labels {
            if let n = summary.count(count) { parts.append("\(groupedCount(n)) \(label)") }
        }
        return parts.joined(separator: ", ")
    }
}
