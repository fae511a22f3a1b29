import Foundation
import RegionSearchCore
import RegionSearchStages
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

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
///
/// The runner and `clean` remove and replace only the names they make there (``isOwn(_:in:)``,
/// ``isLeftover(_:in:)``): a user's file in the work directory is left where it is, with a
/// warning. A folder that holds files but was never a work directory is refused before anything
/// is written in it (``checkOwnership()``).
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
        guard let state = RunState.load(self), let bytes = try? FileSystem.read(runState),
            mayWrite(manifestState(for: state.manifest))
        else { return }
        do {
            try FileSystem.createDirectories(manifestStates)
            try AtomicFile.write(bytes, to: manifestState(for: state.manifest))
        } catch {
            // Not silent: `clean --unused` keeps the objects each manifest's state names, so a
            // state not kept can cost this manifest's current objects in a shared work directory.
            Log.warning(
                "\(manifestState(for: state.manifest)): cannot keep this manifest's run state (\(error)); "
                    + "'regionsearch clean --unused' by another manifest sharing this work directory may remove this "
                    + "run's objects until a run keeps it")
        }
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
    /// work directory, `objects/`, `records/`, `runs/`, `scores/`, `maps/`, `manifests/` and
    /// `lineage/`. Only call this while holding the lock: the files of a live run look the same.
    /// Returns the removed paths.
    ///
    /// Only names the runner itself makes are taken, so a user's `notes.tmp-1` survives:
    /// `.run.json.tmp-<pid>-<n>` (and `published.json`'s, `builds.json`'s) at the top,
    /// `.<stage>-<key>.tmp-<pid>` (and `.tmp-old-<pid>`) staging directories in `objects/`,
    /// `.<key>.tmp-<pid>` in `lineage/`, and the temporary copies of the runner's own files in the
    /// other folders (`.<stage>-<key>.json.tmp-<pid>-<n>` in `records/`, …).
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
    /// or a stage writing through it left behind: the temporary form of a name the runner makes
    /// there.
    func isLeftover(_ name: String, in dir: String) -> Bool {
        guard let base = Self.temporaryBase(name) else { return false }
        switch dir {
        case path: return Self.ownTopFiles.contains(base)
        // A combination's name is the experiment's; its state file is told by its content, which
        // a half-written temporary does not have yet.
        case runs: return base.hasSuffix(".json")
        default: return isOwn(base, in: dir)
        }
    }

    /// The files at the top of the work directory that the runner rewrites atomically (the
    /// `lock` is written in place, ``WorkLock``).
    static let ownTopFiles = ["run.json", "published.json", BuildIdentity.storeName]

    /// Whether `name` in `dir`, one of the work directory's folders, is a name the runner makes
    /// there (temporaries aside, ``isLeftover(_:in:)``): `<stage>-<key>` in `objects/` and
    /// `failed/`, `<stage>-<key>.json` and `.failed.json` in `records/`, `<key>` in `lineage/`,
    /// `<key>.json` in `scores/`, `maps/` and `manifests/` unless it is JSON of another shape than
    /// the runner writes there (``holdsOwnJSON(_:)``), and in `runs/` a `.json` file that holds a
    /// run state (a combination's name is the experiment's, not the runner's). Anything else there
    /// is a user's: the sweeps and `clean` leave it.
    func isOwn(_ name: String, in dir: String) -> Bool {
        switch dir {
        case objects, failed: return Self.isEntry(name, suffix: "")
        case records: return Self.isEntry(name, suffix: ".json") || Self.isEntry(name, suffix: ".failed.json")
        case lineage: return Self.isKey(name)
        case scores, maps, manifestStates:
            return name.hasSuffix(".json") && Self.isKey(String(name.dropLast(5))) && holdsOwnJSON(dir + "/" + name)
        case runs: return name.hasSuffix(".json") && RunState.load(path: dir + "/" + name) != nil
        default: return false
        }
    }

    /// Whether the file at `path` in `runs/`, `scores/`, `maps/` or `manifests/` holds what the
    /// runner writes there: a run state (`runs/`, `manifests/`), a truth report (`thresholds` and
    /// `truths`, `scores/`), a map record (`key` and `files`, `maps/`). A file that cannot be read
    /// or is not JSON at all counts as the runner's: these are written without a sync, and one a
    /// power cut left empty or cut short is the runner's to rewrite (as for `run.json`,
    /// ``isOwnTopFile(_:)``); a user's JSON of another shape is not.
    func holdsOwnJSON(_ path: String) -> Bool {
        guard let bytes = try? FileSystem.read(path),
            let json = try? bytes.withUnsafeBufferPointer({ (b) throws(JSONParseError) -> JSONValue in
                try JSONParser.parse(bytes: b)
            })
        else { return true }
        switch AtomicFile.directory(of: path) {
        case runs, manifestStates: return RunState(json: json) != nil
        case scores: return json["thresholds"]?.arrayValue != nil && json["truths"]?.arrayValue != nil
        case maps: return json["key"]?.stringValue != nil && json["files"]?.arrayValue != nil
        default: return false
        }
    }

    /// Whether the runner may write its file at `path` in `runs/`, `scores/`, `maps/` or
    /// `manifests/` — names a user's file can carry too (a combination's name, a file copied in):
    /// nothing is there, or the runner's own (``holdsOwnJSON(_:)``). A user's file is left as it
    /// is, said once per run; what the runner would have kept there (a combination's run state, a
    /// cached score) is not kept, and is made again when needed.
    public func mayWrite(_ path: String) -> Bool {
        guard FileSystem.exists(path), !holdsOwnJSON(path) else { return true }
        if Self.warnedForeign.withLock({ $0.insert(path).inserted }) {
            Log.warning(
                "\(path) has the name of a file RegionSearch writes in the work directory but is not one of its "
                    + "files; it is left as it is, and what RegionSearch would keep there is not kept: move it out of "
                    + "the work directory")
        }
        return false
    }

    private static let warnedForeign = Mutex<Set<String>>([])

    /// Whether `name` is a key as the runner spells it (32 lower-case hex digits).
    static func isKey(_ name: String) -> Bool { ContentHash(hex: name)?.description == name }

    /// Whether `name` is exactly `<stage>-<key>` followed by `suffix`, as ``entryName(stage:key:)``
    /// spells it.
    static func isEntry(_ name: String, suffix: String) -> Bool {
        guard name.hasSuffix(suffix), let entry = parseEntry(name) else { return false }
        return entryName(stage: entry.stage, key: entry.key) + suffix == name
    }

    /// Removes the runner's own entries of `dir` (``isOwn(_:in:)``) but those `keep` accepts, and
    /// with `emptied` the folder itself when nothing else is left in it. Returns how many were
    /// removed and the paths of the entries that are not the runner's, which stay.
    func removeOwn(in dir: String, keeping keep: (String) -> Bool = { _ in false }, emptied: Bool = false)
        throws(FileSystem.Failure) -> (removed: Int, foreign: [String])
    {
        var removed = 0
        var foreign: [String] = []
        for name in FileSystem.list(dir) {
            guard isOwn(name, in: dir) else {
                foreign.append(dir + "/" + name)
                continue
            }
            if keep(name) { continue }
            try FileSystem.removeTree(dir + "/" + name)
            removed += 1
        }
        if emptied && FileSystem.isDirectory(dir) && FileSystem.list(dir).isEmpty { try FileSystem.removeTree(dir) }
        return (removed, foreign)
    }

    /// Says once, on stderr, which files a sweep left because the runner did not make them.
    static func warnLeft(_ paths: [String]) {
        guard !paths.isEmpty else { return }
        let shown = paths.prefix(5).joined(separator: ", ") + (paths.count > 5 ? " and \(paths.count - 5) more" : "")
        Log.warning(
            "left \(paths.count) file(s) in the work directory that RegionSearch did not make: \(shown); they are "
                + "never removed, but keep your own files outside the work directory")
    }

    /// Whether the file at `path` at the top of the work directory (one of ``ownTopFiles``) is
    /// what the runner writes there: `run.json` a run state, `published.json` the record of the
    /// published outputs, `builds.json` the build identities. A file that is not JSON at all (empty,
    /// or cut short) counts as the runner's: it writes these without a sync, and a power cut can
    /// leave one damaged, which the next run rewrites; a user's JSON of another shape does not.
    static func isOwnTopFile(_ path: String) -> Bool {
        guard let bytes = try? FileSystem.read(path) else { return false }
        guard
            let json = try? bytes.withUnsafeBufferPointer({ (b) throws(JSONParseError) -> JSONValue in
                try JSONParser.parse(bytes: b)
            })
        else { return true }
        switch AtomicFile.baseName(of: path) {
        case "run.json": return RunState(json: json) != nil
        case "published.json":
            return json["outputs"]?.objectValue != nil || json["set"]?.objectValue != nil
                || json["databases"]?.objectValue != nil || json["lineage_floor"]?.intValue != nil
        default: return json["version"] != nil && json["executables"]?.objectValue != nil
        }
    }

    /// Whether `lock` is the runner's lock file, as a run leaves it (empty) or writes it (`pid N`,
    /// its start time); nil when there is none. A link or a special file is left to ``WorkLock``,
    /// which refuses it without reading through it.
    func lockIsOwn() -> Bool? {
        var st = stat()
        guard lstat(lockFile, &st) == 0 else { return nil }
        guard (st.st_mode & S_IFMT) == S_IFREG && st.st_nlink == 1 else { return true }
        let fd = open(lockFile, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return true }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 16)
        let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { return n == 0 }
        let head = String(decoding: buffer[0..<n], as: UTF8.self)
        return head.hasPrefix("pid ") && head.dropFirst(4).first.map { $0.isASCII && $0.isNumber } ?? false
    }

    /// Refuses a folder the runner must not write in, before anything is written in it: a path
    /// that is a file or lies under one (``RunnerError/notAFolder(path:file:)``), one that
    /// holds files but was never a work directory (``RunnerError/notAWorkDirectory(path:names:)``),
    /// or a work directory whose `lock`, `run.json`, `published.json` or `builds.json` — files the
    /// runner rewrites — holds something the runner did not write
    /// (``RunnerError/foreignFile(path:workDirectory:what:)``). A folder that does not exist yet, or
    /// is empty, becomes a work directory.
    ///
    /// A work directory is told by what every version's first run made in it: the `lock` file,
    /// which `clean` never removes either, or the `objects/` and `records/` folders.
    func checkOwnership() throws(RunnerError) {
        guard FileSystem.isDirectory(path) else {
            // The deepest part of the path that exists must be a folder, or no folder can be made
            // there; `run --dry-run` asks this too, so it refuses what `run` would.
            // (Followed through links: a link to nowhere is left to the folder's creation to report.)
            func exists(_ p: String) -> Bool {
                var st = stat()
                return stat(p, &st) == 0
            }
            var existing = path
            while !exists(existing) && existing != "/" && existing != "." {
                existing = AtomicFile.directory(of: existing)
            }
            if exists(existing) && !FileSystem.isDirectory(existing) { throw .notAFolder(path: path, file: existing) }
            return
        }
        // What a file system or a desktop puts in any folder (`lost+found` on a fresh volume,
        // `.DS_Store`) does not make it someone else's.
        let names = FileSystem.list(path).filter { !$0.hasPrefix(".") && $0 != "lost+found" }
        guard !names.isEmpty else { return }
        let lock = lockIsOwn()
        guard lock == true || (FileSystem.isDirectory(objects) && FileSystem.isDirectory(records)) else {
            throw .notAWorkDirectory(path: path, names: names)
        }
        if lock == false { throw .foreignFile(path: lockFile, workDirectory: path, what: "lock file") }
        let what = ["run.json": "run record", "published.json": "record of the published outputs"]
        for name in Self.ownTopFiles where FileSystem.exists(path + "/" + name) {
            guard !Self.isOwnTopFile(path + "/" + name) else { continue }
            throw .foreignFile(
                path: path + "/" + name, workDirectory: path, what: what[name] ?? "record of the stage builds")
        }
    }

    /// `X` for a temporary name `.X.tmp-<pid>-<n>`, `.X.tmp-<pid>` or `.X.tmp-old-<pid>` (the
    /// forms ``AtomicFile`` and the runner's staging make); nil for any other name.
    static func temporaryBase(_ name: String) -> String? { temporary(name)?.base }

    /// The base name and the writer's pid of a temporary name (``temporaryBase(_:)``).
    static func temporary(_ name: String) -> (base: String, pid: Int32)? {
        guard name.hasPrefix("."), let marker = name.range(of: AtomicFile.temporaryMarker, options: .backwards) else {
            return nil
        }
        var suffix = Substring(name[marker.upperBound...])
        if suffix.hasPrefix("old-") { suffix = suffix.dropFirst(4) }
        let parts = suffix.split(separator: "-", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCIIDigitChar) }),
            let pid = Int32(parts[0])
        else { return nil }
        let base = String(name[name.index(after: name.startIndex)..<marker.lowerBound])
        return base.isEmpty ? nil : (base, pid)
    }

    /// Removes leftover temporary copies of `file` (`.<name>.tmp-*` beside it), as an
    /// interrupted atomic write of the final output leaves them. `sparingLiveWriters`: leave one
    /// whose process still runs on this machine (a tile job started twice writes outside any
    /// lock); one of another machine's running job cannot be told apart, and that job then fails
    /// at its rename, never leaving a wrong file.
    @discardableResult
    public static func removeTemporaries(besides file: String, sparingLiveWriters: Bool = false)
        throws(FileSystem.Failure) -> [String]
    {
        let dir = AtomicFile.directory(of: file)
        let prefix = "." + AtomicFile.baseName(of: file) + AtomicFile.temporaryMarker
        var removed: [String] = []
        for name in FileSystem.list(dir) where name.hasPrefix(prefix) {
            guard let (_, pid) = temporary(name) else { continue }
            // Alive: signalled, or there but another user's (EPERM).
            if sparingLiveWriters && pid > 0 && pid != getpid() && (kill(pid, 0) == 0 || errno == EPERM) { continue }
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
