import RegionSearchCore

/// The record of one stage run, `WORK/records/<stage>-<key>.json` (or `….failed.json` for a
/// failed attempt): what went in, what came out, with content hashes and sizes, parameters,
/// versions, wall-clock times and the stage's counts. Timestamps live here and in `run.json`
/// only, never in artifacts or GeoJSON.
public struct StageRecord {
    /// One output file of the run, inside its object directory.
    public struct Output: Equatable {
        /// The port option (`output`, `rejects`).
        public var name: String
        /// File name inside the object directory.
        public var file: String
        public var digest: FileDigest
    }

    public var key: StageKey
    public var keyHash: ContentHash
    /// `ok` or `failed`.
    public var succeeded: Bool
    public var outputs: [Output]
    var toolVersion: String
    public var started: String
    public var finished: String
    public var seconds: Double
    public var threads: Int?
    /// The stage's `--summary`: counts (POIs, edges, iterations, regions) and phase timings.
    public var summary: StageSummary
    /// For a failed run: how the stage ended and its error lines.
    public var failure: String?

    public init(
        key: StageKey, succeeded: Bool, outputs: [Output], started: String, finished: String, seconds: Double,
        threads: Int?, summary: StageSummary, failure: String? = nil
    ) {
        self.key = key
        keyHash = key.hash
        self.succeeded = succeeded
        self.outputs = outputs
        toolVersion = RegionSearchVersion.current
        self.started = started
        self.finished = finished
        self.seconds = seconds
        self.threads = threads
        self.summary = summary
        self.failure = failure
    }

    public var json: JSONValue {
        var members: [(String, JSONValue)] = [
            ("stage", .string(key.stage)),
            ("key", .string(keyHash.description)),
            ("status", .string(succeeded ? "ok" : "failed")),
            ("tool_version", .string(toolVersion)),
            ("stage_version", .number(Double(key.stageVersion))),
            ("format_version", .number(Double(key.formatVersion))),
            ("build", .string(key.build)),
            ("parameters", key.parameters),
            (
                "inputs",
                .array(
                    key.inputs.map { input in
                        var m: [(String, JSONValue)] = [("name", .string(input.name))]
                        if let p = input.producer { m.append(("producer", .string(p))) }
                        // A PG: input's password never reaches the work directory.
                        m.append(("path", .string(ConnectionSecrets.redacted(input.path))))
                        m += input.digest.jsonMembers
                        if let o = input.options { m.append(("options", o)) }
                        return .object(m)
                    })
            ),
            (
                "outputs",
                .array(
                    outputs.map { out in
                        .object([("name", .string(out.name)), ("file", .string(out.file))] + out.digest.jsonMembers)
                    })
            ),
            ("started", .string(started)),
            ("finished", .string(finished)),
            ("seconds", .number((seconds * 1000).rounded() / 1000)),
            ("threads", threads.map { .number(Double($0)) } ?? .null),
            ("summary", summary.json),
        ]
        if let failure { members.append(("failure", .string(failure))) }
        return .object(members)
    }

    /// Why a record file cannot be used (it is then treated as absent: the stage reruns).
    public struct Unreadable: Error, CustomStringConvertible {
        public var path: String
        public var reason: String
        public var description: String { "\(path): unusable run record (\(reason))" }
    }

    /// Parses a record written by ``json``.
    public init(json: JSONValue, path: String) throws(Unreadable) {
        func fail(_ reason: String) -> Unreadable { Unreadable(path: path, reason: reason) }
        guard let stage = json["stage"]?.stringValue, let keyText = json["key"]?.stringValue,
            let keyHash = ContentHash(hex: keyText), let status = json["status"]?.stringValue,
            let stageVersion = json["stage_version"]?.intValue, let formatVersion = json["format_version"]?.intValue,
            let parameters = json["parameters"], let inputs = json["inputs"]?.arrayValue,
            let outputs = json["outputs"]?.arrayValue
        else { throw fail("missing or malformed members") }
        var keyInputs: [StageKey.Input] = []
        for item in inputs {
            guard let name = item["name"]?.stringValue, let p = item["path"]?.stringValue,
                let digest = FileDigest(json: item)
            else { throw fail("malformed input entry") }
            keyInputs.append(
                .init(
                    name: name, producer: item["producer"]?.stringValue, path: p, digest: digest,
                    options: item["options"]))
        }
        var outs: [Output] = []
        for item in outputs {
            guard let name = item["name"]?.stringValue, let file = item["file"]?.stringValue,
                let digest = FileDigest(json: item)
            else { throw fail("malformed output entry") }
            outs.append(Output(name: name, file: file, digest: digest))
        }
        key = StageKey(
            stageName: stage, stageVersion: stageVersion, formatVersion: formatVersion,
            build: json["build"]?.stringValue ?? "", parameters: parameters, inputs: keyInputs)
        self.keyHash = keyHash
        succeeded = status == "ok"
        self.outputs = outs
        toolVersion = json["tool_version"]?.stringValue ?? ""
        started = json["started"]?.stringValue ?? ""
        finished = json["finished"]?.stringValue ?? ""
        seconds = json["seconds"]?.doubleValue ?? 0
        threads = json["threads"]?.intValue
        summary = StageSummary(json: json["summary"] ?? .object([("stage", .string(key.stage))]))
        failure = json["failure"]?.stringValue
    }

    /// Loads a record file; nil when there is none, an error when it is unusable.
    public static func load(_ path: String) throws(Unreadable) -> StageRecord? {
        guard FileSystem.exists(path) else { return nil }
        let bytes: [UInt8]
        do {
            bytes = try FileSystem.read(path)
        } catch {
            throw Unreadable(path: path, reason: error.reason)
        }
        let json: JSONValue
        do {
            json = try bytes.withUnsafeBufferPointer { (b) throws(JSONParseError) -> JSONValue in
                try JSONParser.parse(bytes: b)
            }
        } catch {
            throw Unreadable(path: path, reason: "not valid JSON: \(error)")
        }
        return try StageRecord(json: json, path: path)
    }

    /// Writes the record atomically. Not synced: a record only counts when every output it lists
    /// still hashes to its value, so one that a power cut lost or emptied means a rerun, never a
    /// wrong result.
    public func write(to path: String) throws(RunnerError) {
        do {
            try AtomicFile.write(json.serialized(sortedKeys: false, pretty: true) + "\n", to: path, durable: false)
        } catch let e as ArtifactError {
            // The reason alone: the error's own text repeats the path and its advice, which the
            // failure adds again.
            var reason = "\(e)"
            if case .writeFailed(_, let why) = e { reason = why }
            throw RunnerError.fileSystem(
                .init(
                    path: path, operation: "write run record",
                    reason: reason + " (the stage's output is kept without a record: the next run does the stage again)"
                ))
        } catch {
            throw RunnerError.fileSystem(.init(path: path, operation: "write run record", reason: "\(error)"))
        }
    }
}
