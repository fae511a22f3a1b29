import RegionSearchCore
import RegionSearchGDAL
import RegionSearchIngest
import RegionSearchLineage
import RegionSearchMaps
import RegionSearchModel
import RegionSearchOutput
import RegionSearchStages
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The runner's step between the stages and publishing: the hulls stage's regions get their
/// stable ids, `change`, `label` and `label_rule` (``RegionIdentity``), against the lineage file
/// of the previous published result.
///
/// The previous result is an input like any other: the step's key is the content hash of its
/// inputs — the hulls GeoJSON, the regions, projected, POI and score artifacts (by their
/// digests), the step's version — and of the lineage file it reads (or "fresh"). Its outputs,
/// `WORK/lineage/<key>/regions.geojson`, `changes.json` and `lineage.json`, are written once per
/// key and checked against their recorded digests when reused (`digests.json`), like a stage's.
/// Publishing then takes the regions from here (``Publisher/identified``) and writes
/// `<output stem>.changes.json` beside every file output and the lineage file
/// (``LineageStep/Outcome/publish()``).
struct LineageStep {
    /// Bumped when the step's output can change for the same inputs (the matching rule, labels;
    /// 2: POI keys name their input under `id_scope: input`).
    static let version = 2

    /// Whether an id names a POI within its own input only (`ingest.id_scope: input`; parameters
    /// ingest has checked already, as its stage ran with them).
    static func idsPerInput(_ manifest: Manifest) -> Bool {
        (try? IngestSettings(manifest.parameters(for: IngestStage.definition.name)))?.idScope == .input
    }

    let manifest: Manifest
    let work: WorkDirectory
    let planner: StagePlanner
    /// The build of the executable running the step (``BuildIdentity``): a rebuilt regionsearch
    /// redoes the step once, as a rebuilt stage executable reruns its stage.
    let build: String

    /// The work directory's folder of step results.
    var folder: String { work.lineage }

    /// Where the lineage file is read and published: the manifest's `lineage` path, else beside
    /// the regions output when it is a file, else beside the POI layer, else `WORK/lineage.json`.
    static func lineagePath(_ manifest: Manifest) -> String {
        if let p = manifest.lineage.path { return p }
        if let t = fileTargets(manifest).first { return MapProducts.stem(of: t.path) + ".lineage.json" }
        return manifest.workDirectory + "/lineage.json"
    }

    /// How the lineage file at `path` records `manifest` as its owner: relative to the folder the
    /// file is published in (``ManifestOwner/path(relativeTo:)``), so the file's bytes do not
    /// depend on where the tree lies.
    static func owner(_ manifest: Manifest, lineage path: String) -> String {
        ManifestOwner(manifest).path(relativeTo: ownerDirectory(path))
    }

    /// The folder a lineage file's owner is relative to: that of the path it is published at.
    static func ownerDirectory(_ path: String) -> String {
        AtomicFile.directory(of: PublishedSet.publishedPath(path))
    }

    /// The outputs that are files replaced on publishing (not a database, a stream, a pipe or a
    /// device, beside which nothing can be written).
    static func fileTargets(_ manifest: Manifest) -> [OutputTarget] {
        manifest.outputTargets.filter { t in
            guard !t.files.isEmpty else { return false }
            // A set's own link is a published file also when what it shows is gone (a damaged
            // set, a `current` link removed): the lineage file's name, and so the ids, must not
            // move with what is on disk.
            if PublishedSet.isSetLink(PublishedSet.publishedPath(t.path)) { return true }
            return (try? AtomicFile.Target(t.path))?.isReplaced ?? false
        }
    }

    /// `<stem>.changes.json` beside every file output (one per file: a GeoPackage holding both
    /// layers has one).
    static func changesPaths(_ manifest: Manifest) -> [String] {
        guard manifest.lineage.enabled else { return [] }
        var out: [String] = []
        for t in fileTargets(manifest) {
            let p = MapProducts.stem(of: t.path) + ".changes.json"
            if !out.contains(p) { out.append(p) }
        }
        return out
    }

    /// Whether the step's file at `path` is published in the run's set: every output is a file of
    /// the set (standard output and databases are written after it, and the report must not
    /// change before them), and `path` is beside one of them (a lineage file the manifest keeps
    /// in another folder is written there, in place, not made a link into the set).
    static func isPublishedWithSet(_ path: String, _ manifest: Manifest) -> Bool {
        guard isPublishedAsSet(manifest) else { return false }
        let dir = AtomicFile.directory(of: path)
        return fileTargets(manifest).contains { AtomicFile.directory(of: PublishedSet.publishedPath($0.path)) == dir }
    }

    /// Whether every output of `manifest` is a file of its published set (none goes to standard
    /// output, a pipe or a database, which are written after the set).
    static func isPublishedAsSet(_ manifest: Manifest) -> Bool {
        PublishedSet.root(of: manifest) != nil && manifest.outputTargets.allSatisfy(PublishedSet.isPublished)
    }

    /// Every file the step publishes (for the output checks and the leftovers sweep).
    static func publishedPaths(_ manifest: Manifest) -> [String] {
        manifest.lineage.enabled ? changesPaths(manifest) + [lineagePath(manifest)] : []
    }

    /// What the step made, and how to publish it.
    struct Outcome {
        var regions: Publisher.Artifact
        var changesText: [UInt8]
        var lineageText: [UInt8]
        var summary: String
        var continued: Bool
        var changesPaths: [String]
        var lineagePath: String?

        /// The change report beside every output and the lineage file: the paths readers open,
        /// and the bytes. Where the outputs are published as a set, they are its `lineage` member
        /// (``Publisher/lineageFiles``).
        var files: [(path: String, bytes: [UInt8])] {
            changesPaths.map { ($0, changesText) } + (lineagePath.map { [($0, lineageText)] } ?? [])
        }

        /// Writes ``files`` but those at `skipping` (published with the set) in place,
        /// atomically and only where the bytes differ; the paths written.
        func publish(skipping: [String] = []) throws -> [String] {
            CrashPoint.reached("lineage-files")
            var written: [String] = []
            for (path, bytes) in files where !skipping.contains(path) {
                if (try? FileSystem.read(path)) == bytes { continue }
                do {
                    try FileSystem.createDirectories(AtomicFile.directory(of: path))
                    try AtomicFile.write(bytes, to: path)
                } catch let e as FileSystem.Failure {
                    throw RunnerError.fileSystem(e)
                } catch {
                    throw ToolFailure("\(path): cannot write: \(error)", status: .output)
                }
                written.append(path)
            }
            return written
        }
    }

    /// What the step would read and where its result is kept.
    struct Plan {
        var hulls: Publisher.Artifact
        var kinds: [ArtifactKind]
        var artifacts: [Publisher.Artifact]
        /// Identifies the inputs except the lineage.
        var result: String
        var previous: LineageState?
        /// The step's key: the result and the previous result it is matched against.
        var key: String
        var directory: String
    }

    static let names = ["regions.geojson", "changes.json", "lineage.json"]

    /// The inputs, the previous lineage and the key. `fresh`: ignore the lineage file.
    ///
    /// `readTables`: a lineage that starts anew may read the largest `region_id` of the PostGIS
    /// tables it appends to (the run; `status` does not connect).
    func plan(_ completed: [String: StagePlanner.Completed], fresh: Bool, adopt: Bool = false, readTables: Bool = false)
        throws -> Plan
    {
        let publisher = Publisher(manifest: manifest, work: work, planner: planner)
        func artifact(_ kind: ArtifactKind?) throws -> Publisher.Artifact {
            guard let a = publisher.artifact(kind, completed) else {
                throw ToolFailure(
                    "internal error: no \(kind?.description ?? "hulls") output for the lineage step",
                    status: .internalError)
            }
            return a
        }
        let hulls = try artifact(nil)
        let kinds: [ArtifactKind] = [.regions, .projected, .pois, .scores]
        let artifacts = try kinds.map { try artifact($0) }
        // The result: everything the ids depend on except the lineage.
        var members: [(String, JSONValue)] = [
            ("step", .string("lineage")), ("version", .number(Double(Self.version))), ("build", .string(build)),
            ("hulls", .string("\(hulls.digest.hash)")),
        ]
        for (k, a) in zip(kinds, artifacts) { members.append((k.description, .string("\(a.digest.hash)"))) }
        if Self.idsPerInput(manifest) { members.append(("ids_per_input", .bool(true))) }
        var hasher = ContentHasher()
        hasher.update(JSONValue.object(members).serialized())
        let result = hasher.finalize().description

        let tracking = manifest.lineage.enabled
        var previous = try Self.previousState(manifest, fresh: fresh, adopt: adopt)
        // A lineage that starts anew (the first night, --fresh-lineage, a lost work directory)
        // issues its ids above those a PostGIS table it appends to holds already: the table's
        // history keeps one place per region_id. They had restarted at 1, and region 3's rows
        // were three places.
        // The floor is read from the tables once, before the night writes to them, and kept in
        // published.json until the night has published: a retry after a failed publish (the
        // regions table written, the lineage file not) numbers as the first attempt did, instead
        // of above its own rows. `status` never connects: it uses the kept floor, if any.
        if tracking && previous == nil {
            var floor = publisher.savedLineageFloor()
            if floor == nil && readTables, let found = try Self.idsInAppendedTables(manifest) {
                publisher.saveLineageFloor(found)
                floor = found
            }
            if let floor, floor > 0 {
                previous = LineageState(
                    highWaterMark: floor, result: "region ids up to \(floor) in the appended PostGIS tables",
                    regions: [],
                    previous: nil)
            }
        }
        // Keyed by the previous result the regions are matched against (not the file's bytes): a
        // rerun over its own published lineage file finds the same key.
        var keyHasher = ContentHasher()
        keyHasher.update(result)
        if tracking {
            // The owner is written into the lineage file: another manifest sharing the work
            // directory must not reuse a result that names this one.
            keyHasher.update("manifest")
            keyHasher.update(Self.owner(manifest, lineage: Self.lineagePath(manifest)))
        }
        if !tracking {
            keyHasher.update("untracked")
        } else if let base = Lineage.base(of: previous, result: result) {
            keyHasher.update("base")
            keyHasher.update(base.json.serialized())
        } else {
            keyHasher.update("fresh")
        }
        let key = keyHasher.finalize().description
        return Plan(
            hulls: hulls, kinds: kinds, artifacts: artifacts, result: result, previous: previous, key: key,
            directory: folder + "/" + key)
    }

    /// The largest region id the PostGIS tables appended to hold: `region_id` in a regions table,
    /// the `region_<k>` columns of every keyword a POI table was written with (0 when they hold
    /// none, or do not exist yet); nil when neither is appended to. A POI table's history names
    /// regions by id too: a new lineage numbering from 1 gave its old rows' ids to other places.
    static func idsInAppendedTables(_ manifest: Manifest) throws -> Int? {
        let appended = manifest.outputTargets.filter {
            $0.format == .postgis && $0.mode == .append && ($0.role == .regions || $0.role == .pois)
        }
        var largest: Int? = appended.isEmpty ? nil : 0
        for target in appended {
            do {
                let writer = PostGISTableWriter(connection: target.path)
                let n =
                    target.role == .regions
                    ? try writer.largestValue(of: "region_id", in: target.layer)
                    : try writer.largestValue(inColumns: Self.isRegionColumn, of: target.layer)
                if let n {
                    largest = max(largest ?? 0, n)
                }
            } catch {
                throw ToolFailure(
                    "\(target.display): cannot read the region ids the table holds, above which a new lineage "
                        + "numbers its regions: \(error)", status: .output)
            }
        }
        return largest
    }

    /// Whether a POI table's column is one keyword's finest region id, `region_<k>`.
    static func isRegionColumn(_ name: String) -> Bool {
        guard name.hasPrefix("region_") else { return false }
        let k = name.dropFirst("region_".count)
        return !k.isEmpty && k.allSatisfy { $0.isASCII && $0.isNumber }
    }

    /// The published lineage file's state, which tonight's regions are matched against: nil
    /// without lineage, with `fresh`, or before the first night. Throws (exit status 3) when the
    /// file cannot be read or is damaged, and (exit status 2, ``RunnerError/lineageOfAnotherManifest(path:owner:manifest:)``)
    /// when it is another manifest's; the runner calls this before any stage runs too, so such a
    /// file stops the night before an hour of computing, not after.
    static func previousState(_ manifest: Manifest, fresh: Bool, adopt: Bool = false) throws -> LineageState? {
        let named = lineagePath(manifest)
        var path = named
        guard manifest.lineage.enabled && !fresh else { return nil }
        // The set's own link showing nothing: its set's `current` link or file was removed.
        // (Through a user's link too: the set's link is where that link leads.)
        let dangling = PublishedSet.isSetLink(PublishedSet.publishedPath(path)) && !FileSystem.targetExists(path)
        if !FileSystem.exists(path) || dangling {
            // The link was removed, but the current published set still holds the lineage: a
            // fresh lineage now would call every region new and give retired ids out again.
            guard let kept = publishedLineage(manifest, path: path) else {
                if dangling {
                    throw ToolFailure(
                        "\(path) links to \(PublishedSet.linkText(path) ?? "?"), which is gone, and no published set "
                            + "beside it holds the lineage; restore the set folder from a backup, or start a fresh "
                            + "lineage with --fresh-lineage (every region then gets a new id)", status: .inputData)
                }
                // The outputs and their set were removed (`rm -rf out`), but this work directory
                // published a set there: a fresh lineage now would give other places the ids
                // consumers know and retired ids out again, without a word.
                if let set = publishedSetGone(manifest) {
                    throw ToolFailure(
                        "\(path) is missing, and so is the set this work directory published its outputs in "
                            + "(\(set)); restore that folder from a backup to go on with the regions' ids, or start a "
                            + "fresh lineage with --fresh-lineage (every region then gets a new id, and ids consumers "
                            + "know may name other places)", status: .inputData)
                }
                return nil
            }
            // Said once, though the runner reads the file before the stages and again after them.
            if warnedMissing.withLock({ $0.insert(path).inserted }) {
                Log.warning(
                    "\(path) \(dangling ? "shows nothing" : "is missing"); the lineage is read from the current "
                        + "published set (\(kept)), and publishing puts the file back (to start a fresh lineage "
                        + "instead, run with --fresh-lineage)")
            }
            path = kept
        }
        let bytes: [UInt8]
        do {
            bytes = try FileSystem.read(path)
        } catch {
            throw ToolFailure(
                "\(path): cannot read the lineage file (\(error)); fix it, or start a fresh lineage with "
                    + "--fresh-lineage", status: .inputData)
        }
        let state: LineageState
        do {
            state = try LineageState(bytes: bytes, path: path)
        } catch {
            throw ToolFailure(error.lineageDescription, status: .inputData)
        }
        // The same comparison as a published set's (``ManifestOwner``). A file without an owner
        // (written before owners were recorded) or whose owner is gone is taken over: the run
        // records itself when it writes the file.
        let owner = ManifestOwner(manifest)
        let directory = ownerDirectory(named)
        // `adopt` (--adopt-lineage): the run goes on from it and records itself, keeping the ids.
        if !adopt, let recorded = state.manifest, owner.relation(to: recorded, relativeTo: directory) == .other {
            throw RunnerError.lineageOfAnotherManifest(
                path: named, owner: ManifestOwner.resolve(recorded, relativeTo: directory), manifest: owner.path)
        }
        return state
    }

    private static let warnedMissing = Mutex<Set<String>>([])

    /// The set folder this manifest's work directory last published in (`published.json`), when
    /// that set held a lineage file and the folder or its current set is gone; nil otherwise (a
    /// set published without a lineage gave no ids out).
    static func publishedSetGone(_ manifest: Manifest) -> String? {
        let memo = Publisher.memoPath(WorkDirectory(path: manifest.workDirectory))
        guard let root = PublishedSet.root(of: manifest), let bytes = try? FileSystem.read(memo),
            let json = try? bytes.withUnsafeBufferPointer({ (b) throws(JSONParseError) -> JSONValue in
                try JSONParser.parse(bytes: b)
            }),
            let recorded = json["set"]?["root"]?.stringValue, json["set"]?["lineage"] == .bool(true),
            PathResolver.absolute(recorded, relativeTo: PathResolver.currentDirectory())
                == PathResolver.absolute(root, relativeTo: PathResolver.currentDirectory())
        else { return nil }
        return PublishedSet(root: root).current() == nil ? recorded : nil
    }

    /// The lineage file `path` as the current published set holds it, when the outputs are
    /// published as a set and it has one.
    static func publishedLineage(_ manifest: Manifest, path: String) -> String? {
        guard let root = PublishedSet.root(of: manifest), let current = PublishedSet(root: root).current(),
            let file = current.record.members.flatMap(\.files).first(where: {
                $0.path == path || $0.path == PublishedSet.publishedPath(path)
            })
        else { return nil }
        let kept = PublishedSet(root: root).directory(current.generation) + "/" + file.name
        return FileSystem.exists(kept) ? kept : nil
    }

    /// Why the lineage file stops the next run (unreadable, damaged, from a newer version, another
    /// manifest's) and the run's exit status then, or nil (for `status`, which runs nothing).
    static func lineageProblem(_ manifest: Manifest) -> (reason: String, status: ExitStatus)? {
        do {
            _ = try previousState(manifest, fresh: false)
            return nil
        } catch {
            return ("\(error)", (error as? ExitCoded)?.exitStatus ?? .internalError)
        }
    }

    /// The regions of a stored result for these inputs and lineage file, when one verifies (for
    /// `status`, which runs nothing).
    func stored(_ completed: [String: StagePlanner.Completed]) -> Publisher.Artifact? {
        guard let plan = try? plan(completed, fresh: false), let reused = reuse(plan.directory, names: Self.names)
        else { return nil }
        return Publisher.Artifact(path: plan.directory + "/" + Self.names[0], digest: reused.digest)
    }

    /// Runs the step (or reuses its verified result). `fresh`: ignore the lineage file.
    func run(_ completed: [String: StagePlanner.Completed], fresh: Bool, adopt: Bool = false) throws -> Outcome {
        let plan = try plan(completed, fresh: fresh, adopt: adopt, readTables: true)
        let (hulls, kinds, artifacts, result, previous) = (
            plan.hulls, plan.kinds, plan.artifacts, plan.result, plan.previous
        )
        let tracking = manifest.lineage.enabled
        let key = plan.key
        let directory = plan.directory
        let names = Self.names
        let changesPaths = tracking ? Self.changesPaths(manifest) : []
        let lineagePath = tracking ? Self.lineagePath(manifest) : nil

        defer { prune(keeping: key) }
        if let reused = reuse(directory, names: names) {
            return Outcome(
                regions: Publisher.Artifact(path: directory + "/" + names[0], digest: reused.digest),
                changesText: reused.changes, lineageText: reused.lineage, summary: reused.summary,
                continued: reused.continued, changesPaths: changesPaths, lineagePath: lineagePath)
        }

        let staging = folder + "/." + key + AtomicFile.temporaryMarker + String(getpid())
        let hullsBytes = try FileSystem.read(hulls.path)
        guard FileDigest(hash: Self.hash(hullsBytes), size: hullsBytes.count) == hulls.digest else {
            throw RunnerError.inputChanged(stage: "lineage", input: "regions.geojson", path: hulls.path)
        }
        let files = try zip(kinds, artifacts).map { try ArtifactFile(path: $0.1.path, expected: $0.0) }
        let regionsFile = files[0]
        let keywords = (try regionsFile.meta("keywords").arrayValue ?? []).map { $0["query"]?.stringValue ?? "" }
        let pois = try POITable(artifact: files[2])
        let scores = try ScoreTable(artifact: files[3])
        var inputs = RegionIdentity.Inputs(
            hulls: hullsBytes, regions: try RegionTable(artifact: regionsFile), keywords: keywords,
            projected: try ProjectedPoints(artifact: files[1]), pois: pois, matches: scores.matches,
            labeler: RegionLabeler(
                places: pois.places.map { RegionLabeler.Place(name: $0.name, kind: $0.kind, lon: $0.lon, lat: $0.lat) }),
            streets: pois.streets)
        inputs.idsPerInput = Self.idsPerInput(manifest)
        let output: RegionIdentity.Output
        do {
            output = try RegionIdentity.identify(inputs, previous: previous, result: result, tracking: tracking)
        } catch let e as LineageError {
            throw ToolFailure(e.lineageDescription, status: .inputData)
        } catch {
            throw ToolFailure("lineage: \(error)", status: .artifact)
        }
        let regionsBytes = Array(output.geoJSON.utf8)
        let changes = Array(output.changes.jsonText.utf8)
        var state = output.lineage
        if tracking { state.manifest = Self.owner(manifest, lineage: Self.lineagePath(manifest)) }
        let lineage = Array(state.text.utf8)
        let summary = tracking ? output.changes.summary : "no lineage (\"lineage\": false)"
        // Built in a staging folder and renamed into place: WORK/lineage/<key>/ only ever appears
        // complete (an interrupted run's staging folder is removed by the next run).
        do {
            try FileSystem.removeTree(staging)
            try FileSystem.createDirectories(staging)
            for (name, bytes) in zip(names, [regionsBytes, changes, lineage]) {
                try AtomicFile.write(bytes, to: staging + "/" + name, durable: false)
            }
            let record = JSONValue.object(
                [("summary", .string(summary)), ("continued", .bool(output.continued))]
                    + zip(names, [regionsBytes, changes, lineage]).map { name, bytes in
                        (name, .object(FileDigest(hash: Self.hash(bytes), size: bytes.count).jsonMembers))
                    })
            try AtomicFile.write(record.serialized(pretty: true) + "\n", to: staging + "/digests.json", durable: false)
            try FileSystem.removeTree(directory)
            try FileSystem.rename(staging, to: directory)
        } catch let e as FileSystem.Failure {
            try? FileSystem.removeTree(staging)
            throw RunnerError.fileSystem(e)
        } catch {
            try? FileSystem.removeTree(staging)
            throw error
        }
        return Outcome(
            regions: Publisher.Artifact(
                path: directory + "/" + names[0],
                digest: FileDigest(hash: Self.hash(regionsBytes), size: regionsBytes.count)),
            changesText: changes, lineageText: lineage, summary: summary, continued: output.continued,
            changesPaths: changesPaths, lineagePath: lineagePath)
    }

    /// How the last published result changed things, for `status`: its change report's summary
    /// and counts (read from the published `changes.json`, else from the step's own copy when
    /// no output is a file); nil without a lineage or before the first run.
    static func lastChanges(_ manifest: Manifest) -> (summary: String, json: JSONValue)? {
        guard manifest.lineage.enabled else { return nil }
        let folder = manifest.workDirectory + "/lineage"
        let candidates =
            changesPaths(manifest)
            + FileSystem.list(folder).filter { !$0.hasPrefix(".") }.map { folder + "/" + $0 + "/changes.json" }
        for path in candidates {
            guard let bytes = try? FileSystem.read(path),
                let json = try? bytes.withUnsafeBufferPointer({ (b) throws(JSONParseError) -> JSONValue in
                    try JSONParser.parse(bytes: b)
                }),
                let summary = json["summary"]?.stringValue
            else { continue }
            return (
                summary,
                .object([
                    ("summary", .string(summary)), ("counts", json["counts"] ?? .null),
                    ("kept_ids", json["kept_ids"] ?? .null), ("report", .string(path)),
                ])
            )
        }
        return nil
    }

    /// Removes the step's results other than `keep` (an older night's result is never reused:
    /// its lineage file is no longer the published one). Only the step's own `<key>` folders go;
    /// anything else a user put in the folder stays, with a warning.
    func prune(keeping keep: String) {
        var foreign: [String] = []
        // Dot names are staging folders, which the start of a run sweeps (and a user's hidden files).
        for name in FileSystem.list(folder) where name != keep && !name.hasPrefix(".") {
            guard work.isOwn(name, in: folder) else {
                foreign.append(folder + "/" + name)
                continue
            }
            try? FileSystem.removeTree(folder + "/" + name)
        }
        WorkDirectory.warnLeft(foreign)
    }

    static func hash(_ bytes: [UInt8]) -> ContentHash {
        var h = ContentHasher()
        bytes.withUnsafeBytes { h.update($0) }
        return h.finalize()
    }

    /// A stored result whose files all still have their recorded digests.
    private func reuse(_ directory: String, names: [String]) -> (
        digest: FileDigest, changes: [UInt8], lineage: [UInt8], summary: String, continued: Bool
    )? {
        guard let bytes = try? FileSystem.read(directory + "/digests.json"),
            let record = try? bytes.withUnsafeBufferPointer({ (b) throws(JSONParseError) -> JSONValue in
                try JSONParser.parse(bytes: b)
            })
        else { return nil }
        var contents: [[UInt8]] = []
        for name in names {
            guard let expected = record[name].flatMap(FileDigest.init(json:)),
                let file = try? FileSystem.read(directory + "/" + name),
                FileDigest(hash: Self.hash(file), size: file.count) == expected
            else { return nil }
            contents.append(file)
        }
        guard let regions = record[names[0]].flatMap(FileDigest.init(json:)) else { return nil }
        return (
            regions, contents[1], contents[2], record["summary"]?.stringValue ?? "",
            record["continued"]?.boolValue ?? false
        )
    }
}
