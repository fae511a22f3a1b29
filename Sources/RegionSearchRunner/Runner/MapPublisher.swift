import RegionSearchCore
import RegionSearchMaps

/// Writes a run's map files beside its output — `<output stem>.png`, `.svg`, `.pdf`, `.html` as
/// the manifest's `maps` asks — from the verified objects of the run: the hulls GeoJSON and
/// ingest's `pois.rsa`.
///
/// The maps are derived outputs, keyed like a stage: by the content of those two files, the map
/// settings, title, attribution, keywords, the tool version and ``MapProducts/version``.
/// `WORK/maps/<id>.json` records the key and each file's digest; a run whose key matches and
/// whose files still hash to the recorded values renders nothing. Otherwise every file is rendered and written atomically,
/// and only where its bytes changed, then the record is written.
public struct MapPublisher {
    let manifest: Manifest
    let work: WorkDirectory

    public init(manifest: Manifest, work: WorkDirectory) {
        self.manifest = manifest
        self.work = work
    }

    /// What a publication did.
    struct Result {
        var paths: [String]
        var written: [String]
        /// The record matched and every file verified: nothing was rendered.
        var upToDate: Bool
    }

    var stem: String { MapProducts.stem(of: manifest.output) }

    /// The files the settings ask for; none when the output is not a file replaced by rename
    /// (standard output, a device such as `/dev/stdout`, a pipe, a PostGIS table), since there is
    /// no "beside" to write them to.
    public var paths: [String] {
        guard PublishedSet.isPublished(manifest.outputTarget) else { return [] }
        return manifest.maps.options.formats.map { MapProducts.path(stem: stem, $0) }
    }

    /// `WORK/maps/<hash of the output path>.json`: one record per output the work directory serves.
    var recordPath: String {
        var h = ContentHasher()
        h.update(manifest.output)
        return work.maps + "/" + h.finalize().description + ".json"
    }

    func key(regions: FileDigest, pois: FileDigest?) -> ContentHash {
        let canonical = JSONValue.object([
            ("tool_version", .string(RegionSearchVersion.current)),
            ("maps_version", .number(Double(MapProducts.version))),
            ("regions", .object(regions.jsonMembers)),
            ("pois", pois.map { .object($0.jsonMembers) } ?? .null),
            ("options", manifest.maps.options.json),
            ("keywords", .array(manifest.keywords.map { .string($0) })),
            ("title", .string(manifest.name)),
            ("attribution", .string(manifest.mapAttribution)),
        ]).serialized(sortedKeys: true)
        var h = ContentHasher()
        h.update(canonical)
        return h.finalize()
    }

    /// Renders the maps' files (in ``MapOptions/formats`` order), warning about what the data
    /// lacks (missing glyphs, …).
    func render(regions: String, pois: String?) throws -> [MapProducts.File] {
        let data = try MapData.load(
            regions: regions, pois: pois, keywords: manifest.keywords, title: manifest.name,
            attribution: manifest.mapAttribution)
        let (files, notes) = try MapProducts.render(data, options: manifest.maps.options)
        for note in notes { Log.warning("map: \(note)") }
        return files
    }

    /// Renders and writes the maps beside the output unless they are up to date (an experiment
    /// combination's maps; a pipeline's are part of its ``PublishedSet``).
    func publish(regions: (path: String, digest: FileDigest), pois: (path: String, digest: FileDigest)?) throws
        -> Result
    {
        let paths = self.paths
        guard !paths.isEmpty else { return Result(paths: [], written: [], upToDate: true) }
        let key = key(regions: regions.digest, pois: pois?.digest)
        if isCurrent(key: key) { return Result(paths: paths, written: [], upToDate: true) }
        let files = try render(regions: regions.path, pois: pois?.path)
        do {
            try FileSystem.createDirectories(AtomicFile.directory(of: manifest.output))
            try FileSystem.createDirectories(work.maps)
        } catch {
            throw RunnerError.fileSystem(error)
        }
        let written = try MapProducts.write(files, stem: stem)
        var entries: [JSONValue] = []
        for (file, (path, _)) in zip(files, written) {
            var h = ContentHasher()
            file.bytes.withUnsafeBytes { h.update($0) }
            let digest = FileDigest(hash: h.finalize(), size: file.bytes.count)
            entries.append(.object([("path", .string(path))] + digest.jsonMembers))
        }
        let record = JSONValue.object([
            ("key", .string(key.description)), ("output", .string(manifest.output)), ("files", .array(entries)),
        ])
        // A user's file under the record's name stays: the maps are then rendered on every run.
        do {
            if work.mayWrite(recordPath) {
                try AtomicFile.write(record.serialized(pretty: true) + "\n", to: recordPath)
            }
        } catch {
            throw RunnerError.fileSystem(.init(path: recordPath, operation: "write", reason: "\(error)"))
        }
        return Result(paths: paths, written: written.filter(\.written).map(\.path), upToDate: false)
    }

    /// Whether the record has this key and every file it lists still has its recorded digest.
    func isCurrent(key: ContentHash) -> Bool {
        guard let bytes = try? FileSystem.read(recordPath),
            let json = try? bytes.withUnsafeBufferPointer({ (b) throws(JSONParseError) -> JSONValue in
                try JSONParser.parse(bytes: b)
            }),
            json["key"]?.stringValue == key.description, let files = json["files"]?.arrayValue
        else { return false }
        let recorded = files.compactMap { f in f["path"]?.stringValue.map { ($0, FileDigest(json: f)) } }
        guard recorded.map(\.0) == paths else { return false }
        return recorded.allSatisfy { path, digest in digest != nil && (try? FileDigest.of(path: path)) == digest }
    }
}
