import RegionSearchCore
import RegionSearchGDAL
import RegionSearchModel
import RegionSearchOutput
import RegionSearchStages

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The runner's last step: writes the manifest's outputs (`output`, `poi_output`) from the
/// verified results in the object store, in the formats they ask for.
///
/// - The hulls stage's GeoJSON artifact (content-keyed, hashed, the cached result) is the
///   source of every regions output: a GeoJSON output is a byte copy of it; other formats
///   read it back into a ``FeatureLayer`` with ``RegionFeatureSchema/fields`` and write that, so
///   every format carries the same features and values. The copy is checked against the
///   recorded digest first: the output is the verified object, not whatever the file became.
/// - The scored POI layer is built from the ingest, project, propagate and regions artifacts
///   and the regions as written (``POIFeatureSchema``).
/// - Outputs sharing a GeoPackage or a database are written together: one file, or one
///   transaction.
/// - The files — the outputs, their sidecars and styles, the maps, and the lineage step's change
///   reports and lineage file (``lineageFiles``) — are published as one
///   ``PublishedSet``: built beside the current set, then made current in one rename, so no
///   reader sees today's regions with yesterday's maps or POI layer. A member of the set (an
///   output with its sidecars, or the maps) is up to date when the current set holds it with the
///   same key (artifact digests, format, layers, keywords, paths, tool version) and its files
///   still have their recorded digests; a run where every member is up to date writes nothing,
///   and an unchanged member of a new set is a hard link to the current one's files.
/// - A pipe, a device, standard output and PostGIS are written on every run, after the files
///   (a database destination is its own transaction). An experiment combination's GeoJSON is
///   written in place (``publishDirect(_:_:_:_:)``).
struct Publisher {
    let manifest: Manifest
    let work: WorkDirectory
    let planner: StagePlanner
    /// The regions as the lineage step wrote them (stable ids, labels, change): published instead
    /// of the hulls stage's GeoJSON when set (``LineageStep``).
    var identified: Artifact? = nil
    /// The lineage step's change reports and lineage file (the paths readers open, and their
    /// bytes), published as the set's `lineage` member: they change with the regions, at the
    /// flip, so a failed or killed night never shows tonight's regions with yesterday's report
    /// and lineage (``LineageStep/Outcome/files``). Empty without lineage, or without a set.
    var lineageFiles: [(path: String, bytes: [UInt8])] = []
    /// Called when the new set is complete, just before it is made current (not when nothing
    /// changed): the runner writes a lineage file kept in another folder here, so that a night
    /// that cannot write it fails before its regions are published.
    var beforeFlip: (() throws -> Void)? = nil
    /// Whether the caller holds the set folder's lock already (the runner takes it before the
    /// lineage step, so that two manifests with one output never start from one lineage file).
    var holdsSetLock = false

    /// What publishing did to one destination.
    struct Result {
        var targets: [OutputTarget]
        var written: Bool
        /// The digest of the main file, for a file output.
        var digest: FileDigest?
        /// "wrote …" / "… is up to date", for the log.
        var message: String
        /// The set's `lineage` member (``lineageFiles``): written says whether its files changed.
        var isLineage = false
    }

    /// `WORK/published.json`: per destination, the publish key and the files written.
    static func memoPath(_ work: WorkDirectory) -> String { work.path + "/published.json" }
    var memoPath: String { Self.memoPath(work) }

    /// Destinations in manifest order: targets that share a file or database together.
    static func destinations(_ targets: [OutputTarget]) -> [[OutputTarget]] {
        var groups: [[OutputTarget]] = []
        for t in targets {
            if let i = groups.firstIndex(where: { $0[0].sharesDestination(with: t) }) {
                groups[i].append(t)
            } else {
                groups.append([t])
            }
        }
        return groups
    }

    /// A verified artifact of the run: its absolute path and recorded digest.
    struct Artifact {
        var path: String
        var digest: FileDigest
    }

    /// The output of kind `kind` (or, for nil, the regions GeoJSON: the lineage step's, else the
    /// hulls stage's) among `completed`.
    func artifact(_ kind: ArtifactKind?, _ completed: [String: StagePlanner.Completed]) -> Artifact? {
        if kind == nil, let identified { return identified }
        for stage in Pipeline.stages {
            guard
                let port = kind == nil
                    ? (stage.name == Pipeline.stages.last?.name ? stage.outputs.first : nil)
                    : stage.outputs.first(where: { $0.kind == kind }),
                let done = completed[stage.name], let output = done.output(port.fileName)
            else { continue }
            return Artifact(path: planner.absolute(done.objectPath + "/" + port.fileName), digest: output.digest)
        }
        return nil
    }

    /// The publish key of a destination: what its content depends on.
    func key(_ group: [OutputTarget], _ completed: [String: StagePlanner.Completed]) -> ContentHash {
        var members: [(String, JSONValue)] = [
            ("tool", .string(RegionSearchVersion.current)),
            ("format", .string(group[0].format.rawValue)),
            ("keywords", .array(manifest.keywords.map { .string($0) })),
            (
                "targets",
                .array(
                    group.map {
                        .object([
                            ("role", .string($0.role.rawValue)), ("layer", .string($0.layer)),
                            ("select", .string($0.selection.rawValue)),
                        ])
                    })
            ),
        ]
        var kinds: [ArtifactKind?] = [nil]
        if group.contains(where: { $0.role == .pois }) {
            kinds += [.pois, .projected, .scores, .regions]
            members.append(("poi_layer_version", .number(Double(POIFeatureSchema.version))))
        }
        for kind in kinds {
            let a = artifact(kind, completed)
            members.append((kind?.description ?? "hulls", .string(a.map { "\($0.digest.hash)" } ?? "")))
        }
        var hasher = ContentHasher()
        let bytes = Array(JSONValue.object(members).serialized().utf8)
        bytes.withUnsafeBytes { hasher.update($0) }
        return hasher.finalize()
    }

    /// Publishes every destination of the manifest, and its maps.
    func publish(_ completed: [String: StagePlanner.Completed]) throws -> [Result] {
        guard let regions = artifact(nil, completed) else {
            throw ToolFailure("internal error: the hulls stage has no output to publish", status: .internalError)
        }
        // Checked at load too; again here, because a link may have appeared since.
        do {
            try RunInventory(manifest).check()
        } catch {
            throw UsageError(error.description)
        }
        var cache = Layers(publisher: self, completed: completed, regions: regions)
        var results: [Result] = []
        let groups = Self.destinations(manifest.outputTargets)
        guard let root = PublishedSet.root(of: manifest) else {
            let loaded = loadMemo()
            var memo = loaded
            for group in groups { results.append(try publishDirect(group, completed, &cache, &memo)) }
            if memo.keys != loaded.keys || memo.contains(where: { loaded[$0.key] != $0.value }) { saveMemo(memo) }
            if let maps = try publishMapsDirect(completed) { results.append(maps) }
            return results
        }
        let files = groups.filter { PublishedSet.isPublished($0[0]) }
        results += try publishSet(PublishedSet(root: root), files, completed, &cache)
        var memo: [String: JSONValue] = [:]
        for group in groups.filter({ !PublishedSet.isPublished($0[0]) }) {
            results.append(try publishDirect(group, completed, &cache, &memo))
        }
        return results
    }

    // MARK: The published set

    /// One member of the set to publish: an output destination, the maps, or files whose bytes
    /// are known beforehand (`prepared`: the lineage step's).
    struct Plan {
        var role: String
        var key: String
        var group: [OutputTarget]?
        /// The path readers open for the member's main file (a user's link followed).
        var main: String
        var prepared: [(path: String, bytes: [UInt8])]? = nil
    }

    /// The set's role of the lineage step's files.
    static let lineageRole = "lineage"

    /// Each prepared file's name in its member's folder: its base name, numbered where two share
    /// one (change reports beside outputs of one stem in two folders).
    static func preparedNames(_ paths: [String]) -> [String] {
        let names = paths.map { AtomicFile.baseName(of: $0) }
        return names.enumerated().map { k, name in
            names.filter { $0 == name }.count > 1 ? "\(k + 1)-\(name)" : name
        }
    }

    /// The maps' inputs: the hulls GeoJSON and ingest's POIs, with their digests.
    func mapSources(_ completed: [String: StagePlanner.Completed]) -> (
        regions: (path: String, digest: FileDigest), pois: (path: String, digest: FileDigest)?
    )? {
        guard let regions = artifact(nil, completed) else { return nil }
        let pois = artifact(.pois, completed).map { (path: $0.path, digest: $0.digest) }
        return ((regions.path, regions.digest), pois)
    }

    /// The key of a file member: the publish key with the paths readers use and the style
    /// choice (a renamed output is another member).
    func memberKey(_ plan: Plan, _ completed: [String: StagePlanner.Completed]) -> String {
        var h = ContentHasher()
        if let prepared = plan.prepared {
            for (path, bytes) in prepared {
                h.update(PublishedSet.publishedPath(path))
                bytes.withUnsafeBytes { h.update($0) }
            }
        } else if let group = plan.group {
            h.update(key(group, completed).description)
            h.update(group.allSatisfy(\.styleSidecar) ? "style" : "no style")
            h.update(plan.main)
        } else {
            let maps = MapPublisher(manifest: manifest, work: work)
            if let sources = mapSources(completed) {
                h.update(maps.key(regions: sources.regions.digest, pois: sources.pois?.digest).description)
            }
            for p in maps.paths { h.update(PublishedSet.publishedPath(p)) }
        }
        return h.finalize().description
    }

    /// The history of appended tables: the regions table's `run_id` is the content hash of the
    /// published regions; a POI table's is the hash of what its layer is made from (the regions,
    /// its artifacts and its selection), so a night whose POI layer alone changed (`select`
    /// "in_regions" → "all", a renamed POI) appends to the POI table only. With the regions' hash
    /// for both it appended nothing to the POI table.
    func history(
        _ group: [OutputTarget], regions digest: FileDigest, _ completed: [String: StagePlanner.Completed]
    ) -> PostGISTableWriter.History {
        let regions = "\(digest.hash)"
        var perTable: [String: String] = [:]
        for t in group where t.role == .pois {
            var h = ContentHasher()
            h.update(regions)
            h.update(t.selection.rawValue)
            h.update("poi_layer_version \(POIFeatureSchema.version)")
            for keyword in manifest.keywords { h.update(keyword + "\n") }
            for kind in [ArtifactKind.pois, .projected, .scores, .regions] {
                h.update(artifact(kind, completed).map { "\($0.digest.hash)" } ?? "")
            }
            perTable[t.layer] = h.finalize().description
        }
        return PostGISTableWriter.History(runID: regions, time: Timestamp.now(), tableRunIDs: perTable)
    }

    /// Whether every file of `member` in generation `g` still has its recorded digest.
    func verify(_ member: PublishedSet.Member, in set: PublishedSet, generation g: Int) -> Bool {
        member.files.allSatisfy { (try? FileDigest.of(path: set.directory(g) + "/" + $0.name)) == $0.digest }
    }

    /// Publishes the file destinations and the maps as one set.
    private func publishSet(
        _ set: PublishedSet, _ groups: [[OutputTarget]], _ completed: [String: StagePlanner.Completed],
        _ cache: inout Layers
    ) throws -> [Result] {
        var plans = groups.map {
            Plan(role: $0[0].role.rawValue, key: "", group: $0, main: PublishedSet.publishedPath($0[0].path))
        }
        let maps = MapPublisher(manifest: manifest, work: work)
        if !maps.paths.isEmpty { plans.append(Plan(role: "maps", key: "", group: nil, main: "")) }
        // With lineage turned off, the lineage file of the nights before stays (it is state:
        // turned on again, the lineage goes on from it); their change reports go.
        var lineage = lineageFiles
        if lineage.isEmpty, !manifest.lineage.enabled, let current = set.current(),
            let kept = current.record.member(Self.lineageRole)
        {
            let state = PublishedSet.publishedPath(LineageStep.lineagePath(manifest))
            lineage = kept.files.filter { $0.path == state }.compactMap { f in
                (try? FileSystem.read(set.directory(current.generation) + "/" + f.name)).map { (f.path, $0) }
            }
        }
        if !lineage.isEmpty {
            plans.append(Plan(role: Self.lineageRole, key: "", group: nil, main: "", prepared: lineage))
        }
        guard !plans.isEmpty else { return [] }
        for i in plans.indices { plans[i].key = memberKey(plans[i], completed) }
        // One publication at a time per set folder (``PublishedSet/lock(wait:)``); the runner
        // takes the lock before the lineage step, which reads the published lineage file.
        var setLock: PublishedSet.Lock?
        if !holdsSetLock {
            do {
                setLock = try set.lock(wait: true)
            } catch {
                throw RunnerError.fileSystem(error)
            }
        }
        defer { setLock?.release() }
        do {
            try FileSystem.createDirectories(set.root)
            if set.current() == nil { try adopt(set, plans) }
        } catch let e as FileSystem.Failure {
            throw RunnerError.fileSystem(e)
        }
        let current = set.current()
        if let published = current?.record.manifest,
            [.other, .gone].contains(ManifestOwner(manifest).relation(to: published))
        {
            Log.warning(
                "\(set.root): the current set was published by another manifest, \(published); this run of "
                    + "\(manifestPath) replaces it (give each manifest its own output to keep both)")
        }
        // Sets still on disk that may hold a part unchanged: the current one first, then the
        // previous (a night that goes back to yesterday's parameters needs no new space).
        var kept: [(generation: Int, record: PublishedSet.Record)] = current.map { [$0] } ?? []
        for g in set.generations.reversed() where g != current?.generation {
            if let r = PublishedSet.Record.load(set.directory(g) + "/" + PublishedSet.recordName) {
                kept.append((g, r))
            }
        }
        func unchanged(_ plan: Plan) -> (member: PublishedSet.Member, generation: Int)? {
            for (g, record) in kept {
                if let m = record.member(plan.role), m.key == plan.key, verify(m, in: set, generation: g) {
                    return (m, g)
                }
            }
            return nil
        }
        let carried = plans.map(unchanged)
        if let current, carried.allSatisfy({ $0?.generation == current.generation }),
            current.record.members.count == plans.count
        {
            // Nothing to publish; a link a user removed is made again, and a record of the set
            // that a failed write left behind (a full disk after the flip) is mended.
            try set.restoreCurrentLink(current.generation)
            try set.linkPaths(current.record)
            saveSetRecord(set, mendingOnly: true)
            return plans.map { plan in
                let m = current.record.member(plan.role)!
                return Result(
                    targets: plan.group ?? [], written: false, digest: m.files.last?.digest,
                    message: plan.group.map { "\($0[0].path) is up to date\(Self.names($0))" }
                        ?? "\(plan.role) \(m.files.map { AtomicFile.baseName(of: $0.path) }.joined(separator: ", ")) "
                        + "are up to date", isLineage: plan.prepared != nil)
            }
        }
        CrashPoint.reached("output")
        var staging: PublishedSet.Staging
        do {
            staging = try set.begin(roles: plans.map(\.role))
        } catch {
            throw RunnerError.fileSystem(error)
        }
        var results: [Result] = []
        do {
            for (plan, found) in zip(plans, carried) {
                if let (old, generation) = found {
                    for f in old.files { try set.carry(f, from: generation, into: staging) }
                    staging.members.append(old)
                    let names = old.files.map { AtomicFile.baseName(of: $0.path) }.joined(separator: ", ")
                    let again = generation != current?.generation
                    let state =
                        again
                        ? "the same as in set \(PublishedSet.generationName(generation)), published again"
                        : "up to date"
                    results.append(
                        Result(
                            targets: plan.group ?? [], written: again, digest: old.files.last?.digest,
                            message: plan.group.map { "\($0[0].path) is \(state)\(Self.names($0))" }
                                ?? "\(plan.role) \(names) are \(state)", isLineage: plan.prepared != nil))
                    continue
                }
                let t0 = monotonicSeconds()
                let member = try write(plan, into: staging, completed, &cache)
                staging.members.append(member)
                let names = member.files.map { AtomicFile.baseName(of: $0.path) }
                if let group = plan.group {
                    results.append(
                        Result(
                            targets: group, written: true, digest: member.files.last?.digest,
                            message: "wrote \(group[0].path)\(Self.names(group))"))
                } else if plan.prepared != nil {
                    results.append(
                        Result(
                            targets: [], written: true, digest: nil,
                            message: "wrote \(names.joined(separator: ", "))", isLineage: true))
                } else {
                    results.append(
                        Result(
                            targets: [], written: true, digest: nil,
                            message: "wrote maps \(names.joined(separator: ", ")) in "
                                + "\(AtomicFile.directory(of: manifest.output)) (\(Runner.seconds(monotonicSeconds() - t0)))"
                        ))
                }
            }
            try beforeFlip?()
            try set.commit(staging, manifest: manifestPath)
        } catch {
            try? FileSystem.removeTree(staging.directory)
            if let e = error as? FileSystem.Failure { throw RunnerError.fileSystem(e) }
            throw error
        }
        saveSetRecord(set)
        return results
    }

    /// " (regions and POIs)" for the log, none for a GeoJSON of the regions alone.
    static func names(_ group: [OutputTarget]) -> String {
        if group.count == 1, group[0].role == .regions, group[0].format == .geojson { return "" }
        return " (" + group.map { $0.role == .regions ? "regions" : "POIs" }.joined(separator: " and ") + ")"
    }

    /// The manifest's absolute path, for the set's record.
    var manifestPath: String { ManifestOwner(manifest).path }

    /// Writes one member's files into the set being built.
    private func write(
        _ plan: Plan, into staging: PublishedSet.Staging, _ completed: [String: StagePlanner.Completed],
        _ cache: inout Layers
    ) throws -> PublishedSet.Member {
        let folder = staging.directory + "/" + plan.role
        if let prepared = plan.prepared {
            var files: [PublishedSet.File] = []
            for ((path, bytes), name) in zip(prepared, Self.preparedNames(prepared.map(\.path))) {
                let inSet = folder + "/" + name
                do {
                    try AtomicFile.write(bytes, to: inSet)
                    files.append(
                        PublishedSet.File(
                            name: plan.role + "/" + name, path: PublishedSet.publishedPath(path),
                            digest: try FileDigest.of(path: inSet)))
                } catch let e as FileSystem.Failure {
                    throw RunnerError.fileSystem(e)
                } catch {
                    throw ToolFailure("\(path): cannot write: \(error)", status: .output)
                }
            }
            return PublishedSet.Member(role: plan.role, key: plan.key, files: files)
        }
        var produced: [String] = []
        if let group = plan.group {
            let first = group[0]
            let inSet = folder + "/" + AtomicFile.baseName(of: plan.main)
            if group.count == 1, first.role == .regions, first.format == .geojson {
                // GeoJSON regions: the artifact's bytes, and the style beside them.
                let bytes = try cache.regionBytes()
                do {
                    if first.styleSidecar {
                        let sidecar = VectorOutput.styleSidecar(of: inSet)
                        try AtomicFile.write(QGISStyle.regions(keywords: manifest.keywords), to: sidecar)
                        produced.append(sidecar)
                    }
                    try AtomicFile.write(bytes, to: inSet)
                    produced.append(inSet)
                } catch {
                    throw VectorOutput.Failure("\(first.path): cannot write: \(error)")
                }
            } else {
                var layers: [FeatureLayer] = []
                for t in group { layers.append(try cache.layer(for: t)) }
                do {
                    produced = try VectorOutput.writeFile(
                        layers, format: first.format, to: inSet, styleSidecar: group.allSatisfy(\.styleSidecar))
                } catch let failure as VectorOutput.Failure {
                    throw VectorOutput.Failure(failure.message.replacingOccurrences(of: inSet, with: first.path))
                }
            }
        } else {
            let maps = MapPublisher(manifest: manifest, work: work)
            guard let sources = mapSources(completed) else {
                throw ToolFailure("internal error: no hulls output to draw", status: .internalError)
            }
            let files = try maps.render(regions: sources.regions.path, pois: sources.pois?.path)
            for (file, userPath) in zip(files, maps.paths) {
                let inSet = folder + "/" + AtomicFile.baseName(of: userPath)
                do {
                    try AtomicFile.write(file.bytes, to: inSet)
                } catch {
                    throw ToolFailure("map \(userPath): cannot write: \(error)", status: .output)
                }
                produced.append(inSet)
            }
        }
        // Readers' paths: beside the member's main path (a map beside its own).
        let mapPaths = plan.group == nil ? MapPublisher(manifest: manifest, work: work).paths : []
        var files: [PublishedSet.File] = []
        for (i, path) in produced.enumerated() {
            let name = plan.role + "/" + AtomicFile.baseName(of: path)
            let user =
                plan.group == nil
                ? PublishedSet.publishedPath(mapPaths[i])
                : AtomicFile.directory(of: plan.main) + "/" + AtomicFile.baseName(of: path)
            let digest: FileDigest
            do {
                digest = try FileDigest.of(path: path)
            } catch {
                throw RunnerError.fileSystem(.init(path: path, operation: "read back", reason: error.reason))
            }
            files.append(PublishedSet.File(name: name, path: user, digest: digest))
        }
        return PublishedSet.Member(role: plan.role, key: plan.key, files: files)
    }

    /// The first publication over outputs that are plain files (an earlier version's, or a
    /// user's): they become a set of their own — hard links, the same bytes — and the paths links
    /// to it, so the switch to today's set is one flip like every later one.
    private func adopt(_ set: PublishedSet, _ plans: [Plan]) throws {
        var candidates: [(role: String, path: String, name: String)] = []
        for plan in plans {
            if let prepared = plan.prepared {
                let paths = prepared.map { PublishedSet.publishedPath($0.path) }
                for (path, name) in zip(paths, Self.preparedNames(paths)) { candidates.append((plan.role, path, name)) }
            } else if let group = plan.group {
                let dir = AtomicFile.directory(of: plan.main)
                for file in group.flatMap(\.files) {
                    let path = dir + "/" + AtomicFile.baseName(of: file)
                    candidates.append((plan.role, path, AtomicFile.baseName(of: path)))
                }
            } else {
                for p in MapPublisher(manifest: manifest, work: work).paths {
                    let path = PublishedSet.publishedPath(p)
                    candidates.append((plan.role, path, AtomicFile.baseName(of: path)))
                }
            }
        }
        var seen: Set<String> = []
        let existing = candidates.filter { c in
            var st = stat()
            return lstat(c.path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFREG && seen.insert(c.path).inserted
        }
        guard !existing.isEmpty else { return }
        var staging = try set.begin(roles: Array(Swift.Set(existing.map(\.role))).sorted())
        do {
            var members: [String: [PublishedSet.File]] = [:]
            for c in existing {
                let name = c.role + "/" + c.name
                let target = staging.directory + "/" + name
                if link(c.path, target) != 0 {
                    try AtomicFile.write(try FileSystem.read(c.path), to: target)
                }
                members[c.role, default: []].append(
                    PublishedSet.File(name: name, path: c.path, digest: try FileDigest.of(path: target)))
            }
            // No key: an adopted member is rewritten by the next publication.
            staging.members = members.keys.sorted().map { PublishedSet.Member(role: $0, key: "", files: members[$0]!) }
            try set.commit(staging, manifest: manifestPath)
        } catch {
            try? FileSystem.removeTree(staging.directory)
            throw error
        }
        Log.info(
            "adopted \(existing.count) file(s) published before as set \(PublishedSet.generationName(staging.generation))"
        )
    }

    /// `published.json`: which set is current, for `status` and people.
    /// Written only where it differs, so that a run with nothing to do writes nothing; with
    /// `mendingOnly` (a run that published nothing), only a record of this same set is mended,
    /// not one another manifest sharing the work directory wrote. `lineage`: whether the set holds
    /// a lineage file (``LineageStep/publishedSetGone(_:)``).
    private func saveSetRecord(_ set: PublishedSet, mendingOnly: Bool = false) {
        guard let current = set.current() else { return }
        let value = JSONValue.object([
            ("root", .string(set.root)), ("generation", .number(Double(current.generation))),
            ("directory", .string(set.directory(current.generation))),
            ("published", .string(current.record.published)),
            ("lineage", .bool(current.record.member(Self.lineageRole) != nil)),
        ])
        let recorded = loadRecord().first(where: { $0.0 == "set" })?.1
        if recorded == value { return }
        if mendingOnly, let root = recorded?["root"]?.stringValue, root != set.root { return }
        saveRecord("set", value)
    }

    /// An experiment combination's maps, written beside its GeoJSON.
    private func publishMapsDirect(_ completed: [String: StagePlanner.Completed]) throws -> Result? {
        let publisher = MapPublisher(manifest: manifest, work: work)
        guard !publisher.paths.isEmpty, let sources = mapSources(completed) else { return nil }
        let t0 = monotonicSeconds()
        let result = try publisher.publish(regions: sources.regions, pois: sources.pois)
        let names = result.paths.map { AtomicFile.baseName(of: $0) }.joined(separator: ", ")
        let message: String
        if result.upToDate {
            message = "maps \(names) are up to date"
        } else if result.written.isEmpty {
            message = "maps \(names) rendered, unchanged (\(Runner.seconds(monotonicSeconds() - t0)))"
        } else {
            let written = result.written.map { AtomicFile.baseName(of: $0) }.joined(separator: ", ")
            message =
                "wrote maps \(written) in \(AtomicFile.directory(of: manifest.output)) "
                + "(\(Runner.seconds(monotonicSeconds() - t0)))"
        }
        return Result(targets: [], written: !result.written.isEmpty, digest: nil, message: message)
    }

    // MARK: In place

    /// Writes one destination in place: a database (one transaction), a stream, or an
    /// experiment combination's file.
    private func publishDirect(
        _ group: [OutputTarget], _ completed: [String: StagePlanner.Completed], _ cache: inout Layers,
        _ memo: inout [String: JSONValue]
    ) throws -> Result {
        let first = group[0]
        let names = group.map { $0.role == .regions ? "regions" : "POIs" }.joined(separator: " and ")
        if first.format == .postgis {
            CrashPoint.reached("output")
            var tables: [(String, FeatureLayer, PostGISTableWriter.Mode)] = []
            for t in group {
                var layer = try cache.layer(for: t)
                // An appended POI table's `score_k`, `match_k` and `region_k` follow each night's
                // keyword order: every row names what its k columns are, so its history reads
                // right after keywords are added, dropped or reordered.
                if t.role == .pois && t.mode == .append {
                    layer = layer.withConstant(
                        .init(
                            "keyword_columns", .string,
                            "the keywords of this row's numbered columns, in order, as a JSON array (score_1, "
                                + "match_1 and region_1 are its first): the query order of the run that wrote it"),
                        JSONValue.array(manifest.keywords.map { .string($0) }).serialized())
                }
                tables.append((t.layer, layer, t.mode))
            }
            // Appended tables keep history rows: this run's id (the content it publishes, so a
            // rerun appends nothing) and when it published.
            let history = history(group, regions: cache.regions.digest, completed)
            let counts = try VectorOutput.writePostGIS(tables, connection: first.path, history: history)
            recordDatabase(group, key: key(group, completed).description)
            let what = zip(zip(group, counts), tables).map { pair, table in
                let (target, count) = pair
                if target.mode == .append && count == 0 && table.1.count > 0 {
                    return "table \(target.layer) holds this run's rows already (run_id "
                        + "\(history.forTable(target.layer).runID))"
                }
                return "\(target.mode == .append ? "appended to" : "replaced") table "
                    + "\(target.layer) (\(groupedCount(count)) features)"
            }
            return Result(
                targets: group, written: true, digest: nil,
                message: "\(GDALLibrary.redacted(first.path)): " + what.joined(separator: ", "))
        }
        let target = try AtomicFile.Target(first.path)
        let path = target.path
        // GeoJSON regions: the artifact's bytes.
        if group.count == 1, first.role == .regions, first.format == .geojson {
            // The style has a rule per level the regions have: made from the layer as written.
            let qml = target.isReplaced && first.styleSidecar ? try cache.regionsLayer().qgisStyle : nil
            let sidecar = VectorOutput.styleSidecar(of: path)
            if target.isReplaced, (try? FileDigest.of(path: path)) == cache.regions.digest,
                qml.map({ (try? FileSystem.read(sidecar)) == Array($0.utf8) }) ?? true
            {
                return Result(
                    targets: group, written: false, digest: cache.regions.digest, message: "\(first.path) is up to date"
                )
            }
            CrashPoint.reached("output")
            let bytes = try cache.regionBytes()
            do {
                try FileSystem.createDirectories(AtomicFile.directory(of: path))
                if let qml { try AtomicFile.write(qml, to: sidecar) }
                try AtomicFile.write(bytes, to: first.path)
            } catch let e as FileSystem.Failure {
                throw RunnerError.fileSystem(e)
            } catch let e as ArtifactError {
                throw VectorOutput.Failure(e.description)  // it names the path and says what failed
            } catch {
                throw VectorOutput.Failure("\(first.path): cannot write: \(error)")
            }
            return Result(targets: group, written: true, digest: cache.regions.digest, message: "wrote \(first.path)")
        }
        let key = key(group, completed).description
        if target.isReplaced, let entry = memo[path], entry["key"]?.stringValue == key,
            let files = entry["files"]?.arrayValue, !files.isEmpty,
            files.allSatisfy({ f in
                guard let p = f["path"]?.stringValue, let d = FileDigest(json: f) else { return false }
                return (try? FileDigest.of(path: p)) == d
            })
        {
            return Result(
                targets: group, written: false, digest: FileDigest(json: files.last!),
                message: "\(first.path) is up to date (\(names))")
        }
        CrashPoint.reached("output")
        var layers: [FeatureLayer] = []
        for t in group { layers.append(try cache.layer(for: t)) }
        if target.isReplaced {
            do {
                try FileSystem.createDirectories(AtomicFile.directory(of: path))
            } catch {
                throw RunnerError.fileSystem(error)
            }
        }
        let written = try VectorOutput.writeFile(
            layers, format: first.format, to: first.path, styleSidecar: group.allSatisfy(\.styleSidecar))
        var digest: FileDigest?
        if target.isReplaced {
            var files: [JSONValue] = []
            for file in written {
                guard let d = try? FileDigest.of(path: file) else { continue }
                files.append(.object([("path", .string(file))] + d.jsonMembers))
                digest = d
            }
            memo[path] = .object([("key", .string(key)), ("files", .array(files))])
        }
        return Result(targets: group, written: true, digest: digest, message: "wrote \(first.path) (\(names))")
    }

    /// Whether `group` would be written by a run now (for `status`); nil for a destination
    /// written on every run (a stream). A database is current when its last write that committed
    /// was of this result.
    func isUpToDate(_ group: [OutputTarget], _ completed: [String: StagePlanner.Completed]) -> Bool? {
        let first = group[0]
        if first.format == .postgis {
            return databaseKeys()[Self.databaseName(group)] == key(group, completed).description
        }
        guard let root = PublishedSet.root(of: manifest) else {
            guard first.format != .postgis, let target = try? AtomicFile.Target(first.path), target.isReplaced else {
                return nil
            }
            guard let regions = artifact(nil, completed) else { return false }
            return (try? FileDigest.of(path: target.path)) == regions.digest
        }
        guard PublishedSet.isPublished(group[0]) else { return nil }
        let plan = Plan(role: first.role.rawValue, key: "", group: group, main: PublishedSet.publishedPath(first.path))
        return isCurrent(plan, in: PublishedSet(root: root), completed)
    }

    /// Whether the current set holds `plan`'s member as a run now would publish it, every file
    /// as recorded, and each path the set's link showing its file (not with `current` gone).
    private func isCurrent(_ plan: Plan, in set: PublishedSet, _ completed: [String: StagePlanner.Completed]) -> Bool {
        guard let current = set.current(), let member = current.record.member(plan.role),
            member.key == memberKey(plan, completed), verify(member, in: set, generation: current.generation)
        else { return false }
        return member.files.allSatisfy { set.isLink($0.path, to: $0.name) && FileSystem.targetExists($0.path) }
    }

    /// Whether the maps a run would publish now are the current set's, each path its link and
    /// each file as published (for `status`); nil when the run publishes no maps with a set.
    /// A map written over by hand (through its link) differs: `run` draws the maps again.
    func areMapsUpToDate(_ completed: [String: StagePlanner.Completed]) -> Bool? {
        let maps = MapPublisher(manifest: manifest, work: work)
        guard !maps.paths.isEmpty, let root = PublishedSet.root(of: manifest) else { return nil }
        return isCurrent(Plan(role: "maps", key: "", group: nil, main: ""), in: PublishedSet(root: root), completed)
    }

    /// `published.json` as it is (empty when missing or damaged).
    private func loadRecord() -> [(String, JSONValue)] {
        guard let bytes = try? FileSystem.read(memoPath),
            let json = try? bytes.withUnsafeBufferPointer({ (b) throws(JSONParseError) -> JSONValue in
                try JSONParser.parse(bytes: b)
            }),
            let members = json.objectValue
        else { return [] }
        return members
    }

    /// `published.json` with its member `name` replaced (removed when `value` is nil), the others
    /// as they were.
    private func saveRecord(_ name: String, _ value: JSONValue?) {
        var members = loadRecord().filter { $0.0 != name }
        if let value { members.append((name, value)) }
        members.sort { $0.0 < $1.0 }
        do {
            try AtomicFile.write(JSONValue.object(members).serialized(pretty: true) + "\n", to: memoPath)
        } catch {
            // The outputs are published; this record only tells `status` and people about them.
            Log.warning(
                "\(memoPath): cannot update the record of what was published (\(error)); the outputs are "
                    + "published, and the next run that can write it mends it")
        }
    }

    private func loadMemo() -> [String: JSONValue] {
        guard let outputs = loadRecord().first(where: { $0.0 == "outputs" })?.1.objectValue else { return [:] }
        var out: [String: JSONValue] = [:]
        for (k, v) in outputs { out[k] = v }
        return out
    }

    private func saveMemo(_ memo: [String: JSONValue]) {
        saveRecord("outputs", .object(memo.keys.sorted().map { ($0, memo[$0]!) }))
    }

    /// A database destination's name in `published.json`'s `databases`: the connection as
    /// ``OutputTarget`` compares them (no password) and its tables.
    static func databaseName(_ group: [OutputTarget]) -> String {
        // The password is never stored in the work directory: its parameter is left out (a URI,
        // compared as written, is masked).
        let path = group[0].path
        let text = path.hasPrefix("PG:") ? path.dropFirst(3) : Substring(path)
        let items = ConnectionParameters(text).items.filter { $0.key.lowercased() != "password" }
        let connection =
            items.isEmpty || text.contains("://")
            ? GDALLibrary.redacted(path) : items.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: " ")
        return connection + " " + group.map(\.layer).joined(separator: ",")
    }

    /// The publish key each database destination was last written with, in full (its
    /// transaction committed): a table is current when the result it would get has that key. A
    /// failed or killed write leaves the key before, so `status --check` sends the next run.
    private func databaseKeys() -> [String: String] {
        var out: [String: String] = [:]
        for (k, v) in loadRecord().first(where: { $0.0 == "databases" })?.1.objectValue ?? [] {
            if let key = v.stringValue { out[k] = key }
        }
        return out
    }

    /// The region id a lineage that starts anew numbers above, kept from the tables between the
    /// lineage step and the end of a successful publish (``LineageStep``); nil when none is kept.
    func savedLineageFloor() -> Int? {
        loadRecord().first(where: { $0.0 == "lineage_floor" })?.1.intValue
    }

    /// Keeps (or, nil, forgets) the floor of a lineage that starts anew.
    func saveLineageFloor(_ floor: Int?) {
        guard floor != savedLineageFloor() else { return }
        saveRecord("lineage_floor", floor.map { .number(Double($0)) })
    }

    private func recordDatabase(_ group: [OutputTarget], key: String) {
        var keys = databaseKeys()
        keys[Self.databaseName(group)] = key
        saveRecord("databases", .object(keys.keys.sorted().map { ($0, .string(keys[$0]!)) }))
    }

    /// The layers of one publish, each made at most once.
    struct Layers {
        let publisher: Publisher
        let completed: [String: StagePlanner.Completed]
        let regions: Artifact
        private var bytes: [UInt8]?
        private var regionLayer: FeatureLayer?
        private var poiLayers: [POIFeatureSchema.Selection: FeatureLayer] = [:]

        init(publisher: Publisher, completed: [String: StagePlanner.Completed], regions: Artifact) {
            self.publisher = publisher
            self.completed = completed
            self.regions = regions
        }

        /// The hulls artifact's bytes, checked against the recorded digest.
        mutating func regionBytes() throws -> [UInt8] {
            if let bytes { return bytes }
            let read: [UInt8]
            do {
                read = try FileSystem.read(regions.path)
            } catch {
                throw RunnerError.fileSystem(error)
            }
            var hasher = ContentHasher()
            read.withUnsafeBytes { hasher.update($0) }
            guard FileDigest(hash: hasher.finalize(), size: read.count) == regions.digest else {
                throw RunnerError.inputChanged(stage: "hulls", input: "regions.geojson", path: regions.path)
            }
            bytes = read
            return read
        }

        mutating func regionsLayer() throws -> FeatureLayer {
            if let regionLayer { return regionLayer }
            let layer: FeatureLayer
            do {
                layer = try FeatureLayerReader.read(
                    geoJSON: try regionBytes(), name: RegionFeatureSchema.layerName, geometryType: .multiPolygon,
                    fields: RegionFeatureSchema.fields)
            } catch let e as FeatureLayerReader.Failure {
                throw ArtifactError.malformed(path: regions.path, detail: "\(e); rerun hulls (--from hulls)")
            }
            let styled = RegionStyle.apply(to: layer, keywords: publisher.manifest.keywords)
            regionLayer = styled
            return styled
        }

        mutating func layer(for target: OutputTarget) throws -> FeatureLayer {
            switch target.role {
            case .regions:
                return try regionsLayer().renamed(target.layer)
            case .pois:
                if let made = poiLayers[target.selection] { return made.renamed(target.layer) }
                func open(_ kind: ArtifactKind) throws -> ArtifactFile {
                    guard let a = publisher.artifact(kind, completed) else {
                        throw ToolFailure("internal error: no \(kind) artifact to publish", status: .internalError)
                    }
                    return try ArtifactFile(path: a.path, expected: kind)
                }
                let inputs = POIFeatureSchema.Inputs(
                    pois: try POITable(artifact: try open(.pois)),
                    projected: try ProjectedPoints(artifact: try open(.projected)),
                    scores: try ScoreTable(artifact: try open(.scores)),
                    regions: try RegionTable(artifact: try open(.regions)), regionLayer: try regionsLayer())
                let made: FeatureLayer
                do {
                    made = try POIFeatureSchema.layer(
                        inputs, keywords: publisher.manifest.keywords, selection: target.selection)
                } catch {
                    throw ToolFailure("cannot build the POI layer: \(error)", status: .artifact)
                }
                poiLayers[target.selection] = made
                return made.renamed(target.layer)
            }
        }
    }
}
