import RegionSearchCore
import RegionSearchStages

/// The build of a stage executable, as part of its stage key: the content hash of the
/// executable file.
///
/// A stage's hand-set ``StageDefinition/version`` says when its output format or method
/// changed on purpose; the build identity catches everything else (an upgraded or rebuilt binary
/// whose code differs in any way), so results of another build are never reported as up to
/// date. The same build gives the same identity anywhere: a copied work directory run with the
/// same executables stays up to date, and a new build reruns every stage once.
///
/// Hashing the executables (about 100 MB) was a third of a run with nothing to do, so a run
/// remembers each identity in its work directory (``storeName``) under the file's
/// ``FileSignature`` — device, inode, size, modification and status-change times — and a later
/// run takes it from there when the signature is unchanged. Installing, rebuilding or copying a
/// binary over it writes the file, which sets its status-change time to the kernel's clock (no
/// user can set that back) or gives it another inode, so its signature changes and it is hashed
/// again; a signature is stored only when its times lie before the clock tick in which the file
/// was read to its end (as for ``DigestCache``, git's "racy" entries). Only executables are
/// remembered this way: inputs and artifacts are hashed or checked by content on every run.
public final class BuildIdentity {
    /// The file in a work directory that remembers identities between runs.
    public static let storeName = "builds.json"

    /// Directory holding the `regionsearch-<stage>` executables.
    let toolDirectory: String
    /// Where identities are remembered between runs (a run's work directory, written while it
    /// holds the lock); nil to hash every executable.
    let store: String?
    private var cache: [String: String] = [:]
    private var remembered: [String: (signature: FileSignature, identity: String)]?
    /// How many executables this instance hashed (the others came from `store`), for the tests.
    private(set) var hashed = 0

    public init(toolDirectory: String, store: String? = nil) {
        self.toolDirectory = toolDirectory
        self.store = store
    }

    /// `xxh128:<hex>` of the stage's executable, or `missing` when it cannot be read (the stage
    /// cannot run then; `status` still reports the other stages).
    func of(_ stage: StageDefinition) -> String { of(executable: stage.executable) }

    /// `xxh128:<hex>` of the executable `name` in the tool directory (the runner's own steps:
    /// `regionsearch`), or `missing`.
    func of(executable name: String) -> String {
        let path = toolDirectory + "/" + name
        if let known = cache[path] { return known }
        if store != nil, remembered == nil { remembered = Self.load(store!) }
        if let now = FileSignature.current(path: path), let entry = remembered?[path], entry.signature == now {
            cache[path] = entry.identity
            return entry.identity
        }
        guard let (digest, signature) = try? FileDigest.hashed(path: path) else {
            cache[path] = "missing"
            return "missing"
        }
        hashed += 1
        let identity = "xxh128:\(digest.hash)"
        cache[path] = identity
        if let store, let signature {
            remembered?[path] = (signature, identity)
            Self.save(remembered ?? [:], to: store)
        }
        return identity
    }

    /// The remembered identities; empty when the file is missing or not what ``save`` writes.
    private static func load(_ path: String) -> [String: (signature: FileSignature, identity: String)] {
        guard let bytes = try? FileSystem.read(path),
            let json = try? bytes.withUnsafeBufferPointer({ (b) throws(JSONParseError) -> JSONValue in
                try JSONParser.parse(bytes: b)
            }),
            json["version"]?.intValue == 1, let entries = json["executables"]?.objectValue
        else { return [:] }
        var out: [String: (signature: FileSignature, identity: String)] = [:]
        for (file, entry) in entries {
            guard let identity = entry["identity"]?.stringValue, identity.hasPrefix("xxh128:"),
                let signature = FileSignature(json: entry)
            else { continue }
            out[file] = (signature, identity)
        }
        return out
    }

    /// Writes the identities atomically. Best effort: a work directory that cannot take the file
    /// only means the executables are hashed again next time.
    private static func save(_ entries: [String: (signature: FileSignature, identity: String)], to path: String) {
        let executables: [(String, JSONValue)] = entries.keys.sorted().map { file in
            let (s, identity) = entries[file]!
            return (file, .object([("identity", .string(identity))] + s.jsonMembers))
        }
        let json = JSONValue.object([("version", .number(1)), ("executables", .object(executables))])
        try? AtomicFile.write(json.serialized(pretty: true) + "\n", to: path, durable: false)
    }
}
