import RegionSearchCore
import RegionSearchStages

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `WORK/run.json`: the latest `regionsearch run` on this work directory — per stage its key
/// and what happened to it — rewritten atomically after every stage, so that after a crash or
/// a failure it still says how far the run got.
public struct RunState {
    /// What happened to a stage in the run.
    public enum Status: String {
        /// Not reached yet (or the run stopped before it).
        case pending
        /// Running now (or the run was killed while it ran).
        case running
        /// Its record matched and its outputs verified; it was skipped.
        case upToDate = "up_to_date"
        /// It ran and succeeded.
        case ran
        /// It ran and failed.
        case failed
        /// Outside the `--from`/`--until` window of the run.
        case notSelected = "not_selected"
    }

    public struct Stage {
        public var stage: String
        public var status: Status
        public var key: ContentHash?
        public var seconds: Double?
        public var error: String?
    }

    /// One combination of an experiment run (`run.json` of an experiment lists them; each one's
    /// stages are in its own state file, ``WorkDirectory/combinationState(_:)``).
    public struct Combination {
        public var name: String
        /// `pending`, `running`, `ok` or `failed`.
        public var status: String
        /// The key of its cached scores, when it was scored.
        public var scoreKey: ContentHash?
        public var error: String?

        public init(name: String, status: String, scoreKey: ContentHash? = nil, error: String? = nil) {
            self.name = name
            self.status = status
            self.scoreKey = scoreKey
            self.error = error
        }
    }

    public var manifest: String
    public var name: String
    public var pid: Int32
    public var started: String
    public var finished: String?
    /// `running`, `ok` or `failed`.
    public var status: String
    public var options: JSONValue
    public var stages: [Stage]
    /// Time the runner spent hashing and verifying files.
    public var hashingSeconds: Double?
    /// The manifest output written by the run, with its digest.
    public var output: (path: String, digest: FileDigest)?
    /// The error of a run whose stages all succeeded and whose publishing (the lineage step, the
    /// outputs, the maps) failed.
    public var publishError: String?
    /// Experiments: the combinations in order (``stages`` is then empty).
    public var combinations: [Combination]?

    public init(manifest: String, name: String, options: JSONValue) {
        self.manifest = manifest
        self.name = name
        pid = getpid()
        started = Timestamp.now()
        status = "running"
        self.options = options
        stages = Pipeline.stages.map { Stage(stage: $0.name, status: .pending) }
    }

    public subscript(stage: String) -> Stage {
        get { stages.first { $0.stage == stage } ?? Stage(stage: stage, status: .pending) }
        set {
            if let i = stages.firstIndex(where: { $0.stage == stage }) {
                stages[i] = newValue
            } else {
                stages.append(newValue)
            }
        }
    }

    public var json: JSONValue {
        var members: [(String, JSONValue)] = [
            ("manifest", .string(manifest)),
            ("name", .string(name)),
            ("tool_version", .string(RegionSearchVersion.current)),
            ("pid", .number(Double(pid))),
            ("started", .string(started)),
            ("finished", finished.map { .string($0) } ?? .null),
            ("status", .string(status)),
            ("options", options),
            (
                "stages",
                .array(
                    stages.map { s in
                        var m: [(String, JSONValue)] = [
                            ("stage", .string(s.stage)), ("status", .string(s.status.rawValue)),
                        ]
                        m.append(("key", s.key.map { .string($0.description) } ?? .null))
                        if let seconds = s.seconds { m.append(("seconds", .number((seconds * 1000).rounded() / 1000))) }
                        if let e = s.error { m.append(("error", .string(e))) }
                        return .object(m)
                    })
            ),
        ]
        if let hashingSeconds { members.append(("hashing_seconds", .number((hashingSeconds * 1000).rounded() / 1000))) }
        if let output {
            members.append(("output", .object([("path", .string(output.path))] + output.digest.jsonMembers)))
        }
        if let publishError { members.append(("publish_error", .string(publishError))) }
        if let combinations {
            members.append(
                (
                    "combinations",
                    .array(
                        combinations.map { c in
                            var m: [(String, JSONValue)] = [("name", .string(c.name)), ("status", .string(c.status))]
                            if let k = c.scoreKey { m.append(("score_key", .string(k.description))) }
                            if let e = c.error { m.append(("error", .string(e))) }
                            return .object(m)
                        })
                ))
        }
        return .object(members)
    }

    public init?(json: JSONValue) {
        guard let manifest = json["manifest"]?.stringValue, let stageList = json["stages"]?.arrayValue else {
            return nil
        }
        self.manifest = manifest
        name = json["name"]?.stringValue ?? ""
        pid = Int32(json["pid"]?.intValue ?? 0)
        started = json["started"]?.stringValue ?? ""
        finished = json["finished"]?.stringValue
        status = json["status"]?.stringValue ?? ""
        options = json["options"] ?? .object([])
        stages = stageList.compactMap { item in
            guard let stage = item["stage"]?.stringValue,
                let s = item["status"]?.stringValue.flatMap(Status.init(rawValue:))
            else { return nil }
            return Stage(
                stage: stage, status: s, key: item["key"]?.stringValue.flatMap(ContentHash.init(hex:)),
                seconds: item["seconds"]?.doubleValue, error: item["error"]?.stringValue)
        }
        hashingSeconds = json["hashing_seconds"]?.doubleValue
        if let out = json["output"], let p = out["path"]?.stringValue, let d = FileDigest(json: out) {
            output = (p, d)
        }
        publishError = json["publish_error"]?.stringValue
        combinations = json["combinations"]?.arrayValue?.compactMap { item in
            guard let name = item["name"]?.stringValue, let status = item["status"]?.stringValue else { return nil }
            return Combination(
                name: name, status: status, scoreKey: item["score_key"]?.stringValue.flatMap(ContentHash.init(hex:)),
                error: item["error"]?.stringValue)
        }
    }

    /// Reads `run.json`; nil when absent or unreadable (it is informative only: keys and records
    /// decide what is up to date).
    public static func load(_ work: WorkDirectory) -> RunState? { load(path: work.runState) }

    /// Reads a run state file; nil when it is missing or unreadable.
    public static func load(path: String) -> RunState? {
        guard let bytes = try? FileSystem.read(path),
            let json = try? bytes.withUnsafeBufferPointer({ (b) throws(JSONParseError) -> JSONValue in
                try JSONParser.parse(bytes: b)
            })
        else { return nil }
        return RunState(json: json)
    }

    /// Writes `run.json` atomically.
    public func write(_ work: WorkDirectory) throws(RunnerError) { try write(to: work.runState) }

    /// Writes the state atomically to `path` (`run.json`, or a combination's state file); synced
    /// only once the run has finished (it is rewritten around every stage; a power cut during a
    /// run can lose at most what it says about that run, while the records and objects, verified
    /// by content, decide what is up to date).
    public func write(to path: String) throws(RunnerError) {
        do {
            try AtomicFile.write(json.serialized(pretty: true) + "\n", to: path, durable: finished != nil)
        } catch {
            // The writer's own reason, not its message: that names the path and advises already.
            var reason = "\(error)"
            if case .writeFailed(_, let why)? = error as? ArtifactError { reason = why }
            throw RunnerError.fileSystem(.init(path: path, operation: "write", reason: reason))
        }
    }
}
