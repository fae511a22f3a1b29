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

    /// The run state of one experiment combination.
    func combinationState(_ name: String) -> String { runs + "/" + name + ".json" }

    /// The cached scores with this key.
    func scorePath(_ key: ContentHash) -> String { scores + "/\(key).json" }

    /// The directory name of one stage run: `<stage>-<key>`.
    static func entryName(stage: String, key: ContentHash) -> String { "\(stage)-\(key)" }

    func objectDirectory(stage: String, key: ContentHash) -> String {
        objects + "/" + Self.entryName(stage: stage, key: key)
    }

    func recordPath(stage: String, key: ContentHash) -> String {
        records + "/" + Self.entryName(stage: stage, key: key) + ".json"
    }

    func failurePath(stage: String, key: ContentHash) -> String {
        records + "/" + Self.entryName(stage: stage, key: key) + ".failed.json"
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
    @discardableResult
    func removeTemporaries() throws(FileSystem.Failure) -> [String] {
        var removed: [String] = []
        for dir in [path, objects, records, runs, scores, maps] {
            for name in FileSystem.list(dir) where name.contains(AtomicFile.temporaryMarker) {
                try FileSystem.removeTree(dir + "/" + name)
                removed.append(dir + "/" + name)
            }
        }
        return removed
    }

    /// Removes leftover temporary copies of `file` (`.<name>.tmp-*` beside it), as an
    /// interrupted atomic write of the final output leaves them.
    @discardableResult
    static func removeTemporaries(besides file: String) throws(FileSystem.Failure) -> [String] {
        let dir = AtomicFile.directory(of: file)
        let prefix = "." + PathResolver.baseName(file) + AtomicFile.temporaryMarker
        var removed: [String] = []
        for name in FileSystem.list(dir) where name.hasPrefix(prefix) {
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
