import RegionSearchCore
import RegionSearchGDAL
import RegionSearchModel
import RegionSearchOutput
import RegionSearchStages

#if canImport(Glibc)
    import Glibc
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
/// - A file output is up to date when it holds what this run would write: a GeoJSON copy when
///   its bytes are the artifact's (and its `.qml` the style's); another format when
///   `published.json` in the work directory records the same publish key (artifact digests,
///   format, layers, keywords, tool version) and its files still have the recorded digests. A
///   pipe, a device, standard output and PostGIS are written on every run.
struct Publisher {
    let manifest: Manifest
    let work: WorkDirectory
    let planner: StagePlanner
    /// The regions as the lineage step wrote them (stable ids, labels, change): published instead
    /// of the hulls stage's GeoJSON when set (``LineageStep``).
    var identified: Artifact? = nil

    /// What publishing did to one destination.
    struct Result {
        var targets: [OutputTarget]
        var written: Bool
        /// The digest of the main file, for a file output.
        var digest: FileDigest?
        /// "wrote …" / "… is up to date", for the log.
        var message: String
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
        if group.contains(where: { $0.role == .pois }) { kinds += [.pois, .projected, .scores, .regions] }
        for kind in kinds {
            let a = artifact(kind, completed)
            members.append((kind?.description ?? "hulls", .string(a.map { "\($0.digest.hash)" } ?? "")))
        }
        var hasher = ContentHasher()
        let bytes = Array(JSONValue.object(members).serialized().utf8)
        bytes.withUnsafeBytes { hasher.update($0) }
        return hasher.finalize()
    }

    /// Publishes every destination of the manifest.
    func publish(_ completed: [String: StagePlanner.Completed]) throws -> [Result] {
        guard let regions = artifact(nil, completed) else {
            throw ToolFailure("internal error: the hulls stage has no output to publish", status: .internalError)
        }
        let loaded = loadMemo()
        var memo = loaded
        var cache = Layers(publisher: self, completed: completed, regions: regions)
        var results: [Result] = []
        for group in Self.destinations(manifest.outputTargets) {
            results.append(try publish(group, completed, &cache, &memo))
        }
        if memo.keys != loaded.keys || memo.contains(where: { loaded[$0.key] != $0.value }) { saveMemo(memo) }
        return results
    }

    private func publish(
        _ group: [OutputTarget], _ completed: [String: StagePlanner.Completed], _ cache: inout Layers,
        _ memo: inout [String: JSONValue]
    ) throws -> Result {
        let first = group[0]
        let names = group.map { $0.role == .regions ? "regions" : "POIs" }.joined(separator: " and ")
        // Checked at load too; again here, because a link may have appeared since.
        try OutputSafety.check(writing: group.flatMap(\.files), protected: OutputSafety.protectedFiles(of: manifest))
        if first.format == .postgis {
            CrashPoint.reached("output")
            var tables: [(String, FeatureLayer, PostGISTableWriter.Mode)] = []
            for t in group { tables.append((t.layer, try cache.layer(for: t), t.mode)) }
            // Appended tables keep history rows: this run's id (the content of the regions it
            // publishes, so a rerun appends nothing) and when it published.
            let history = PostGISTableWriter.History(runID: "\(cache.regions.digest.hash)", time: Timestamp.now())
            let counts = try VectorOutput.writePostGIS(tables, connection: first.path, history: history)
            let what = zip(zip(group, counts), tables).map { pair, table in
                let (target, count) = pair
                if target.mode == .append && count == 0 && table.1.count > 0 {
                    return "table \(target.layer) holds this run's rows already (run_id \(history.runID))"
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
            let qml = target.isReplaced && first.styleSidecar ? QGISStyle.regions(keywords: manifest.keywords) : nil
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

    /// Whether `group` would be written by a run now (for `status`).
    func isUpToDate(_ group: [OutputTarget], _ completed: [String: StagePlanner.Completed]) -> Bool? {
        let first = group[0]
        guard first.format != .postgis, let target = try? AtomicFile.Target(first.path), target.isReplaced else {
            return nil
        }
        if group.count == 1, first.role == .regions, first.format == .geojson {
            guard let regions = artifact(nil, completed) else { return false }
            return (try? FileDigest.of(path: target.path)) == regions.digest
        }
        guard let entry = loadMemo()[target.path], entry["key"]?.stringValue == key(group, completed).description,
            let files = entry["files"]?.arrayValue, !files.isEmpty
        else { return false }
        return files.allSatisfy { f in
            guard let p = f["path"]?.stringValue, let d = FileDigest(json: f) else { return false }
            return (try? FileDigest.of(path: p)) == d
        }
    }

    private func loadMemo() -> [String: JSONValue] {
        guard let bytes = try? FileSystem.read(memoPath),
            let json = try? bytes.withUnsafeBufferPointer({ (b) throws(JSONParseError) -> JSONValue in
                try JSONParser.parse(bytes: b)
            }),
            let outputs = json["outputs"]?.objectValue
        else { return [:] }
        var out: [String: JSONValue] = [:]
        for (k, v) in outputs { out[k] = v }
        return out
    }

    private func saveMemo(_ memo: [String: JSONValue]) {
        let sorted = memo.keys.sorted().map { ($0, memo[$0]!) }
        try? AtomicFile.write(
            JSONValue.object([("outputs", .object(sorted))]).serialized(pretty: true) + "\n", to: memoPath)
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
