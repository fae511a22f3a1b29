import RegionSearchCore
import RegionSearchStages

/// The identity of one stage run: everything its outputs depend on, hashed into the key that
/// names its object directory and record.
///
/// The key covers the content hashes of the stage's inputs (never paths or timestamps, so a
/// copied or freshly checked-out work directory is still up to date), its resolved parameters in
/// canonical form (sorted keys), the stage's version, the artifact format version, the build
/// of the stage executable (``BuildIdentity``) and raw inputs' file names (recorded in the
/// outputs). The thread count is deliberately left out: outputs are identical for any thread
/// count.
public struct StageKey: Equatable {
    /// One input file of the stage.
    public struct Input: Equatable {
        /// The port option (`input`, `graph`), or `inputs[i]` for ingest's raw files.
        public var name: String
        /// The stage that wrote it; nil for raw input files.
        public var producer: String?
        /// Where it is: absolute for raw inputs, relative to the work directory for objects.
        public var path: String
        var digest: FileDigest
        /// For raw inputs: the manifest's input object without `path` (format options count,
        /// the file's location does not).
        public var options: JSONValue?
        /// The last component of ``path``.
        var fileName: String {
            // A connection string's password is no name (and the name is printed by status).
            String(ConnectionSecrets.redacted(path).split(separator: "/", omittingEmptySubsequences: true).last ?? "")
        }

        public init(name: String, producer: String?, path: String, digest: FileDigest, options: JSONValue? = nil) {
            self.name = name
            self.producer = producer
            self.path = path
            self.digest = digest
            self.options = options
        }
    }

    public var stage: String
    var stageVersion: Int
    var formatVersion: Int
    /// The stage executable's build (``BuildIdentity``); empty where no executable is involved.
    var build: String
    /// `Parameters.canonical`.
    public var parameters: JSONValue
    public var inputs: [Input]

    public init(stage: StageDefinition, parameters: Parameters, inputs: [Input], build: String = "") {
        self.stage = stage.name
        stageVersion = stage.version
        formatVersion = Int(ArtifactFormat.version)
        self.build = build
        self.parameters = parameters.canonical
        self.inputs = inputs
    }

    /// Bumped if the key derivation itself changes.
    static let scheme = "regionsearch stage key 2"

    /// The key.
    public var hash: ContentHash {
        var h = ContentHasher()
        h.update(Self.scheme)
        h.update(stage)
        h.update("stage_version=\(stageVersion)")
        h.update("format_version=\(formatVersion)")
        h.update("build=\(build)")
        h.update(parameters.serialized(sortedKeys: true))
        h.update("inputs=\(inputs.count)")
        for input in inputs {
            h.update(input.name)
            h.update(input.digest.hash.description)
            h.update(String(input.digest.size))
            h.update(input.options?.serialized(sortedKeys: true) ?? "")
            // A raw input's file name (not its directory) is recorded in the artifacts and the
            // GeoJSON provenance, so the same bytes under another name are another result.
            if input.producer == nil { h.update("file=" + input.fileName) }
        }
        return h.finalize()
    }

    /// The manifest input object without its `path`, for the key of a raw input.
    static func inputOptions(_ spec: JSONValue) -> JSONValue {
        .object((spec.objectValue ?? []).filter { $0.0 != "path" })
    }
}

extension StageKey {
    /// Rebuilds a key from a record's members.
    init(
        stageName: String, stageVersion: Int, formatVersion: Int, build: String, parameters: JSONValue, inputs: [Input]
    ) {
        stage = stageName
        self.stageVersion = stageVersion
        self.formatVersion = formatVersion
        self.build = build
        self.parameters = parameters
        self.inputs = inputs
    }
}
