import Foundation
import RegionSearchCore
import RegionSearchStages

/// The layout of a work directory:
///
/// ```
/// WORK/lock                          flock'ed by the running `regionsearch run` (holds its pid)
/// WORK/run.json                      the latest run: per stage its key and status
/// WORK/objects/<stage>-<key>/        one completed stage run's outputs (content-addressed)
/// WORK/records/<stage>-<key>.json    that run's record: hashes, sizes, parameters, times, counts
/// WORK/records/<stage>-<key>.failed.json   the last failed attempt at that key
/// WORK/runs/<combination>.json       experiments: the latest run of each combination
/// WORK/scores/<key>.json             experiments: a combination's scores, keyed by content
/// WORK/maps/<output>.json            the map files last written beside an output, with their key
/// WORK/builds.json                   the stage executables' build identities, by file signature
/// ```
/// A stage runs into `objects/.<stage>-<key>.tmp-<pid>/`, which is renamed into place once the
/// stage has succeeded, so `objects/<stage>-<key>/` only ever holds complete outputs. Because the
/// key is a hash of the stage's input contents and parameters, runs that share upstream stages
/// share their objects, and a copied work directory stays valid.
public struct WorkDirectory {
    /// Absolute path of the work directory.
    public let path: String

    public init(path: String) { self.path = path }

    public var objects: String { path + "/objects" }
    public var records: String { path + "/records" }
    var runState: String { path + "/run.json" }
    var lockFile: String { path + "/lock" }
    /// Experiments: one run state per combination (`run.json` lists the combinations).
    public var runs: String { path + "/runs" }
    /// Experiments: evaluation results, content-keyed.
    public var scores: String { path + "/scores" }
    /// Records of the map files written beside outputs (``MapPublisher``).
    public var maps: String { path + "/maps" }
    /// The executables' build identities remembered between runs (``BuildIdentity``).
    var builds: String { path + "/" + BuildIdentity.storeName }
    /// The lineage step's results (``LineageStep``): `lineage/<key>/`.
    public var lineage: String { path + "/lineage" }

    /// The latest run state of each manifest that ran in this work directory: `run.json` holds
    /// only the latest run of any of them, and `clean --unused` must keep what every one uses.
    var manifestStates: String { path + "/manifests" }

    /// Where the latest run state of `manifest` (its absolute path) is kept.
    func manifestState(for manifest: String) -> String {
        var h = ContentHasher()
        h.update(manifest)
        return manifestStates + "/\(h.finalize()).json"
    }

    /// Copies `run.json` to its manifest's state file (after a run, successful or not).
    public func keepManifestState() {
        guard let state = RunState.load(self), let bytes = try? FileSystem.read(runState) else { return }
        try? FileSystem.createDirectories(manifestStates)
        try? AtomicFile.write(bytes, to: manifestState(for: state.manifest))
    }

    /// The run state of one experiment combination.
    public func combinationState(_ name: String) -> String { runs + "/" + name + ".json" }

    /// The cached scores with this key.
    public func scorePath(_ key: ContentHash) -> String { scores + "/\(key).json" }

    /// The directory name of one stage run: `<stage>-<key>`.
    static func entryName(stage: String, key: ContentHash) -> String { "\(stage)-\(key)" }

    public func objectDirectory(stage: String, key: ContentHash) -> String {
        objects + "/" + Self.entryName(stage: stage, key: key)
    }

    func recordPath(stage: String, key: ContentHash) -> String {
        records + "/" + Self.entryName(stage: stage, key: key) + ".json"
    }

    func failurePath(stage: String, key: ContentHash) -> String {
        records + "/" + Self.entryName(stage: stage, key: key) + ".failed.json"
    }

    /// Where the files of a failed stage run are kept (an ingest's rejects), until the same
    /// key succeeds or `clean` runs.
    var failed: String { path + "/failed" }

    func failedDirectory(stage: String, key: ContentHash) -> String {
        failed + "/" + Self.entryName(stage: stage, key: key)
    }

    /// Where a stage runs before its outputs are complete.
    func stagingDirectory(stage: String, key: ContentHash, pid: Int32) -> String {
        objects + "/." + Self.entryName(stage: stage, key: key) + AtomicFile.temporaryMarker + String(pid)
    }

    /// Where a damaged object is moved while its replacement is renamed into place.
    func retiredDirectory(stage: String, key: ContentHash, pid: Int32) -> String {
        objects + "/." + Self.entryName(stage: stage, key: key) + AtomicFile.temporaryMarker + "old-" + String(pid)
    }

    /// Creates the directory and its `objects` and `records` folders.
    public func create() throws(FileSystem.Failure) {
        try FileSystem.createDirectories(objects)
        try FileSystem.createDirectories(records)
    }

    /// Removes what interrupted runs left behind: `*.tmp-*` files and staging directories in the
    /// work directory, `objects/`, `records/`, `runs/`, `scores/` and `maps/`. Only call this while holding the lock: the
    /// files of a live run look the same. Returns the removed paths.
    ///
    /// Only names the runner itself makes are taken, so a user's `notes.tmp-1` survives:
    /// `.run.json.tmp-<pid>-<n>` (and `published.json`'s, `builds.json`'s) at the top,
    /// `.<entry>.tmp-<pid>` (and `.tmp-old-<pid>`) staging directories in `objects/`,
    /// `.<record>.json.tmp-<pid>-<n>` in the other folders.
    @discardableResult
    func removeTemporaries() throws(FileSystem.Failure) -> [String] {
        var removed: [String] = []
        for dir in [path, objects, records, runs, scores, maps, manifestStates, lineage] {
            for name in FileSystem.list(dir) where isLeftover(name, in: dir) {
                try FileSystem.removeTree(dir + "/" + name)
                removed.append(dir + "/" + name)
            }
        }
        return removed
    }

    /// Whether `name` in `dir` (one of the work directory's folders) is a temporary the runner
    /// or a stage writing through it left behind.
    private func isLeftover(_ name: String, in dir: String) -> Bool {
        guard let base = Self.temporaryBase(name) else { return false }
        switch dir {
        case path: return base == "run.json" || base == "published.json" || base == BuildIdentity.storeName
        case objects, lineage: return true
        default: return base.hasSuffix(".json")
        }
    }

    /// `X` for a temporary name `.X.tmp-<pid>-<n>`, `.X.tmp-<pid>` or `.X.tmp-old-<pid>` (the
    /// forms ``AtomicFile`` and the runner's staging make); nil for any other name.
    static func temporaryBase(_ name: String) -> String? {
        guard name.hasPrefix("."), let marker = name.range(of: AtomicFile.temporaryMarker, options: .backwards) else {
            return nil
        }
        var suffix = Substring(name[marker.upperBound...])
        if suffix.hasPrefix("old-") { suffix = suffix.dropFirst(4) }
        let parts = suffix.split(separator: "-", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCIIDigitChar) })
        else { return nil }
        let base = String(name[name.index(after: name.startIndex)..<marker.lowerBound])
        return base.isEmpty ? nil : base
    }

    /// Removes leftover temporary copies of `file` (`.<name>.tmp-*` beside it), as an
    /// interrupted atomic write of the final output leaves them.
    @discardableResult
    static func removeTemporaries(besides file: String) throws(FileSystem.Failure) -> [String] {
        let dir = AtomicFile.directory(of: file)
        let prefix = "." + PathResolver.baseName(file) + AtomicFile.temporaryMarker
        var removed: [String] = []
        for name in FileSystem.list(dir) where name.hasPrefix(prefix) && temporaryBase(name) != nil {
            try FileSystem.removeTree(dir + "/" + name)
            removed.append(dir + "/" + name)
        }
        return removed
    }

    /// Stage name and key of an object directory or record file name, nil for anything else.
    static func parseEntry(_ name: String) -> (stage: String, key: ContentHash)? {
        var base = Substring(name)
        for suffix in [".failed.json", ".json"] where base.hasSuffix(suffix) {
            base = base.dropLast(suffix.count)
            break
        }
        guard let dash = base.lastIndex(of: "-"), let key = ContentHash(hex: String(base[base.index(after: dash)...]))
        else { return nil }
        let stage = String(base[..<dash])
        guard Pipeline.stage(named: stage) != nil else { return nil }
        return (stage, key)
    }
}

extension Character {
    fileprivate var isASCIIDigitChar: Bool { isASCII && isNumber }
}
