import RegionSearchCore
import RegionSearchStages

/// What `run` and `status` share: turning a manifest and a work directory into stage keys,
/// finding and verifying records, and explaining why a stage is not up to date.
public struct StagePlanner {
    public let manifest: Manifest
    public let work: WorkDirectory

    public init(manifest: Manifest, work: WorkDirectory) {
        self.manifest = manifest
        self.work = work
    }

    /// A stage whose outputs are complete and verified in the object store.
    struct Completed {
        public var key: ContentHash
        /// Object directory relative to the work directory (`objects/<stage>-<key>`).
        var objectPath: String
        public var record: StageRecord

        /// The verified output of a port, by file name.
        public func output(_ file: String) -> StageRecord.Output? { record.outputs.first { $0.file == file } }
    }

    /// Whether a stage can be skipped.
    enum Check {
        /// A record with this key exists and every output it lists still hashes to its value.
        case upToDate(StageRecord)
        /// A record exists but its object is damaged or missing (the reason names the file).
        case damaged(String)
        /// No usable record with this key.
        case absent
    }

    /// Absolute path of a work-directory-relative path.
    func absolute(_ relative: String) -> String {
        relative.hasPrefix("/") || InputDigest.isVolatile(relative) ? relative : work.path + "/" + relative
    }

    /// The object directory of a stage run, relative to the work directory.
    public static func objectPath(stage: String, key: ContentHash) -> String {
        "objects/" + WorkDirectory.entryName(stage: stage, key: key)
    }

    /// Hashes the manifest's raw inputs (ingest's key inputs); a file already hashed in
    /// `session` is not hashed again.
    func rawInputs(session: RunSession? = nil) throws(RunnerError) -> [StageKey.Input] {
        var out: [StageKey.Input] = []
        for input in manifest.inputs {
            let digest: FileDigest
            if let known = session?.rawDigests[input.path] {
                digest = known
            } else {
                do {
                    if let session {
                        digest = try InputDigest.of(path: input.path) { p throws(FileDigest.Failure) in
                            try session.digests.digest(path: p)
                        }
                    } else {
                        digest = try InputDigest.of(path: input.path)
                    }
                } catch {
                    throw RunnerError.inputUnreadable(manifest: manifest.file, key: input.key, failure: error)
                }
                session?.rawDigests[input.path] = digest
            }
            out.append(
                .init(
                    name: "inputs[\(input.index)]", producer: nil, path: input.path, digest: digest,
                    options: StageKey.inputOptions(input.spec)))
        }
        return out
    }

    /// The key inputs of a non-ingest stage from its producers' verified outputs; nil when a
    /// producer is not complete.
    func artifactInputs(of stage: StageDefinition, completed: [String: Completed]) -> [StageKey.Input]? {
        var out: [StageKey.Input] = []
        for port in stage.inputs {
            guard let producer = port.producer, let done = completed[producer], let output = done.output(port.fileName)
            else { return nil }
            out.append(
                .init(
                    name: port.option, producer: producer, path: done.objectPath + "/" + port.fileName,
                    digest: output.digest))
        }
        return out
    }

    /// Looks up the record of `key` and verifies its outputs by rehashing them (remembering the
    /// digests in `digests`, when given, for the rest of the run).
    func check(_ stage: StageDefinition, key: ContentHash, digests: DigestCache? = nil) -> Check {
        let path = work.recordPath(stage: stage.name, key: key)
        let record: StageRecord?
        do {
            record = try StageRecord.load(path)
        } catch {
            return .damaged(error.description)
        }
        guard let record, record.succeeded, record.keyHash == key else { return .absent }
        if let problem = verify(stage, record: record, digests: digests) { return .damaged(problem) }
        return .upToDate(record)
    }

    /// Nil when every output of the record is present with its recorded digest; otherwise what is
    /// wrong, naming the file. An artifact is checked by its identity with every column verified
    /// against its checksum (a failure says how: truncated, checksum of which column); other
    /// files are rehashed.
    func verify(_ stage: StageDefinition, record: StageRecord, digests: DigestCache? = nil) -> String? {
        let dir = absolute(Self.objectPath(stage: stage.name, key: record.keyHash))
        for port in stage.outputs where !record.outputs.contains(where: { $0.file == port.fileName }) {
            return "\(dir)/\(port.fileName): not listed in the run record"
        }
        for output in record.outputs {
            let path = dir + "/" + output.file
            // Artifacts by their identity with every column verified, other files by content.
            let artifact = stage.outputs.first(where: { $0.fileName == output.file })?.kind != nil
            if artifact && FileSystem.exists(path) {
                do {
                    let (hash, size) = try ArtifactFile.identity(path: path, verifyingColumns: true)
                    if FileDigest(hash: hash, size: size) == output.digest { continue }
                } catch {
                    return error.description
                }
                return "\(path): content differs from its run record (recorded \(output.digest)): the file was altered"
            }
            let digest: FileDigest
            do {
                if let digests {
                    digest = try digests.digest(path: path)
                } else {
                    digest = try FileDigest.of(path: path)
                }
            } catch {
                return error.isMissing
                    ? "\(path): output is missing" : "\(path): output cannot be read: \(error.reason)"
            }
            if digest == output.digest { continue }
            return
                "\(path): content differs from its run record (\(digest), "
                + "recorded \(output.digest)): the file was altered"
        }
        return nil
    }

    /// The most recent successful record of a stage (by finish time), for explaining changes.
    public func lastRecord(of stage: String) -> StageRecord? {
        var best: StageRecord?
        for name in FileSystem.list(work.records) where name.hasSuffix(".json") && !name.hasSuffix(".failed.json") {
            guard let entry = WorkDirectory.parseEntry(name), entry.stage == stage,
                let record = try? StageRecord.load(work.records + "/" + name), record.succeeded
            else { continue }
            if best == nil || record.finished > best!.finished { best = record }
        }
        return best
    }

    /// The successful record of `stage` at `key`, when there is one.
    func record(_ stage: String, _ key: ContentHash) -> StageRecord? {
        guard let record = try? StageRecord.load(work.recordPath(stage: stage, key: key)), record.succeeded else {
            return nil
        }
        return record
    }

    /// The failed attempt at `key`, when the last attempt failed.
    public func failure(of stage: String, key: ContentHash) -> StageRecord? {
        try? StageRecord.load(work.failurePath(stage: stage, key: key))
    }

    /// Why `current` differs from `previous`, one line per difference.
    static func differences(from previous: StageKey, to current: StageKey) -> [String] {
        var out: [String] = []
        if previous.stageVersion != current.stageVersion {
            out.append("stage version \(previous.stageVersion) → \(current.stageVersion)")
        }
        if previous.formatVersion != current.formatVersion {
            out.append("artifact format version \(previous.formatVersion) → \(current.formatVersion)")
        }
        if previous.build != current.build {
            out.append(
                "another build of \(Pipeline.stage(named: current.stage)?.executable ?? current.stage) (executable changed)"
            )
        }
        out += parameterDifferences(stage: current.stage, from: previous.parameters, to: current.parameters)
        for input in current.inputs {
            guard let old = previous.inputs.first(where: { $0.name == input.name }) else {
                out.append("input \(input.name) added (\(ConnectionSecrets.redacted(input.path)))")
                continue
            }
            if old.digest != input.digest {
                if let producer = input.producer {
                    out.append("input \(input.name) (\(AtomicFile.baseName(of: input.path)) from \(producer)) changed")
                } else if ConnectionSecrets.redacted(old.path) != ConnectionSecrets.redacted(input.path) {
                    out.append(
                        "input \(input.name) is now \(ConnectionSecrets.redacted(input.path)) (was "
                            + "\(ConnectionSecrets.redacted(old.path))) with different content")
                } else {
                    out.append(
                        "input file \(input.name) (\(ConnectionSecrets.redacted(input.path))) changed: \(old.digest) → "
                            + "\(input.digest)")
                }
            }
            if input.producer == nil, old.digest == input.digest, old.fileName != input.fileName {
                out.append(
                    "input \(input.name) is named \(input.fileName) (was \(old.fileName)); the name is recorded in the outputs"
                )
            }
            if (old.options ?? .null) != (input.options ?? .null) {
                out.append(
                    "options of \(input.name) changed: \((old.options ?? .null).serialized(sortedKeys: true)) "
                        + "→ \((input.options ?? .null).serialized(sortedKeys: true))"
                )
            }
        }
        for old in previous.inputs where !current.inputs.contains(where: { $0.name == old.name }) {
            out.append("input \(old.name) removed (was \(ConnectionSecrets.redacted(old.path)))")
        }
        return out
    }

    /// Parameter changes as `graph.k: 8 → 10`.
    static func parameterDifferences(stage: String, from previous: JSONValue, to current: JSONValue) -> [String] {
        let old = previous.objectValue ?? []
        let new = current.objectValue ?? []
        var keys: [String] = []
        for (k, _) in old + new where !keys.contains(k) { keys.append(k) }
        var out: [String] = []
        for k in keys.sorted() {
            let a = previous[k]
            let b = current[k]
            if a != b {
                out.append("parameter \(stage).\(k): \(a?.serialized() ?? "(none)") → \(b?.serialized() ?? "(none)")")
            }
        }
        return out
    }
}
