import RegionSearchCore

/// `regionsearch clean`: empties a work directory, or with `--unused` removes only the stage
/// runs the latest run did not use (the object store otherwise keeps every parameter setting
/// ever run; for an experiment, the latest run is every combination of it, and their run states
/// and scores are kept too). Leftover `*.tmp-*` files of interrupted runs go either way. The manifest's
/// outputs are the product and are never removed (a full clean forgets `published.json`, so the
/// next run writes them again); the lock file stays, because deleting a lock file
/// that another process may have open would let two runs hold "the" lock at once. Only names the
/// runner makes are removed (``WorkDirectory/isOwn(_:in:)``): a user's file in the work directory
/// stays, with a warning, and so does a folder that still holds one.
public enum Cleaner {
    public struct Result {
        /// Object directories removed.
        public var objects = 0
        /// Record files removed (and, for experiments, combination run states and cached scores).
        public var records = 0
        /// Temporary files and staging directories removed.
        public var temporaries = 0
    }

    public static func clean(_ manifest: Manifest, unusedOnly: Bool, wait: Bool) throws(RunnerError) -> Result {
        let work = WorkDirectory(path: manifest.workDirectory)
        guard FileSystem.isDirectory(work.path) else { return Result() }
        let lock = try WorkLock.acquire(work, wait: wait) { holder in
            Log.info(
                "\(work.path) is in use by \(holder.map { "another run (\($0))" } ?? "another run"); waiting for it "
                    + "to finish"
            )
        }
        defer { lock.release() }
        var result = Result()
        do {
            result.temporaries = try work.removeTemporaries().count
            // An experiment's outputs are files in its output directory.
            var outputs: [String] = manifest.outputTargets.flatMap(\.files)
            if let e = manifest.experiment {
                outputs = e.combinations.map { manifest.output + "/" + $0.fileName }
                outputs += ["results.csv", "results.md"].map { manifest.output + "/" + $0 }
            }
            // Not while a run of another manifest with the same output publishes (its set folder's
            // lock): the files beside the outputs are then its own.
            func sweep() throws(FileSystem.Failure) -> Int {
                var count = 0
                for output in outputs { count += try WorkDirectory.removeTemporaries(besides: output).count }
                return count
            }
            if let root = PublishedSet.root(of: manifest) {
                result.temporaries += try PublishedSet(root: root).whenIdle(sweep) ?? 0
            } else {
                result.temporaries += try sweep()
            }
            var keep: Set<String> = []
            // What a user put in the work directory's folders: left, and named once at the end.
            var foreign: [String] = []
            if unusedOnly {
                // The latest run of every manifest that ran here (the work directory may be shared),
                // not only run.json's. An experiment's state lists its combinations; each one's
                // stages are in its own state.
                var latest: [RunState] = RunState.load(work).map { [$0] } ?? []
                for name in FileSystem.list(work.manifestStates) where work.isOwn(name, in: work.manifestStates) {
                    if let s = RunState.load(path: work.manifestStates + "/" + name) { latest.append(s) }
                }
                var states = latest
                var keepRuns: Set<String> = []
                var keepScores: Set<String> = []
                for c in latest.flatMap({ $0.combinations ?? [] }) {
                    let path = work.combinationState(c.name)
                    keepRuns.insert(AtomicFile.baseName(of: path))
                    if let key = c.scoreKey { keepScores.insert(AtomicFile.baseName(of: work.scorePath(key))) }
                    if let s = RunState.load(path: path) { states.append(s) }
                }
                for s in states.flatMap(\.stages) {
                    if let key = s.key { keep.insert(WorkDirectory.entryName(stage: s.stage, key: key)) }
                }
                for (dir, kept) in [(work.runs, keepRuns), (work.scores, keepScores)] {
                    let swept = try work.removeOwn(in: dir, keeping: kept.contains)
                    result.records += swept.removed
                    foreign += swept.foreign
                }
            }
            // A record's entry is its name without `.json` or `.failed.json`.
            func kept(_ name: String) -> Bool {
                guard unusedOnly, let entry = WorkDirectory.parseEntry(name) else { return false }
                return keep.contains(WorkDirectory.entryName(stage: entry.stage, key: entry.key))
            }
            let objects = try work.removeOwn(in: work.objects, keeping: kept)
            let records = try work.removeOwn(in: work.records, keeping: kept)
            // Files of failed stage runs are for reading the failure, never inputs of a run.
            let failed = try work.removeOwn(in: work.failed, emptied: true)
            result.objects += objects.removed
            result.records += records.removed + failed.removed
            foreign += objects.foreign + records.foreign + failed.foreign
            if !unusedOnly {
                // WORK/lineage/ holds the lineage step's cached results (remade on the next run); a
                // lineage file in the work directory (WORK/lineage.json) is state and stays.
                for dir in [work.runs, work.scores, work.maps, work.manifestStates, work.lineage] {
                    let swept = try work.removeOwn(in: dir, emptied: true)
                    result.records += swept.removed
                    foreign += swept.foreign
                }
                for name in WorkDirectory.ownTopFiles where FileSystem.exists(work.path + "/" + name) {
                    let path = work.path + "/" + name
                    if WorkDirectory.isOwnTopFile(path) {
                        try FileSystem.removeTree(path)
                    } else {
                        foreign.append(path)
                    }
                }
                for dir in [work.objects, work.records] where FileSystem.list(dir).isEmpty {
                    try FileSystem.removeTree(dir)
                }
            }
            WorkDirectory.warnLeft(foreign)
        } catch {
            throw RunnerError.fileSystem(error)
        }
        return result
    }
}
