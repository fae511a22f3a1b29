import RegionSearchCore
import RegionSearchRunner

/// `state/inputs.json`: the content of every file the prepare step reads (the manifest and its
/// file inputs, as plan.json lists them), written by `regionsearch tile inputs` and rewritten
/// only when one of them changed.
///
/// Snakemake reruns a rule when an input is newer than its output, so a POI file replaced by other
/// data with an older modification time (`cp -p`, `rsync -t` of an older download) kept a stale
/// result. The Snakefile brings this file up to date each time Snakemake starts (before the
/// rules are evaluated) and the prepare rule depends on it, so its date moves exactly when
/// content does. Each file's digest is the runner's (``InputDigest``: a Shapefile with its
/// sidecars, a folder by its files), so "changed" means what it means to `regionsearch run`.
///
/// A file is hashed again only when its ``FileSignature`` differs from the one remembered in
/// `state/inputs-signatures.json` (device, inode, size and both file times: a write always moves
/// the status-change time, which no user can set back), so a Snakemake start reads no input
/// that did not change.
public struct TileInputsKey {
    /// Why the inputs could not be hashed (exit status 3).
    public enum KeyError: Error, CustomStringConvertible, ExitCoded {
        /// An input listed in plan.json is missing or unreadable.
        case unreadable(role: String, failure: FileDigest.Failure)

        public var description: String {
            switch self {
            case .unreadable(let role, let failure):
                let fix =
                    failure.isMissing
                    ? "put it back, or, if the manifest's inputs changed, write the plan again with 'regionsearch plan'"
                    : "make it readable"
                return "\(role) \(failure.path): cannot read it to check for changes: \(failure.reason); \(fix)"
            }
        }

        public var exitStatus: ExitStatus { .inputData }
    }

    public let plan: TilePlan

    public init(plan: TilePlan) { self.plan = plan }

    /// The key file the prepare rule depends on.
    public var path: String { plan.directory + "/state/inputs.json" }
    /// The signatures the digests were computed for (not a rule's input: a touch rewrites it).
    var signaturesPath: String { plan.directory + "/state/inputs-signatures.json" }

    /// Hashes the inputs (each only when its signature changed) and writes the key file when its
    /// content differs from what is there; returns whether it did.
    @discardableResult
    public func update() throws -> Bool {
        let known = loadSignatures()
        var seen: [(String, FileSignature, FileDigest)] = []
        func hashing(_ file: String) throws(FileDigest.Failure) -> FileDigest {
            if let now = FileSignature.current(path: file), let (signature, digest) = known[file], signature == now {
                seen.append((file, signature, digest))
                return digest
            }
            let (digest, signature) = try FileDigest.hashed(path: file)
            // A file written in this clock tick has no trustworthy signature: hashed again next time.
            if let signature { seen.append((file, signature, digest)) }
            return digest
        }
        var entries: [JSONValue] = []
        for (k, input) in plan.inputs.enumerated() {
            let role = k == 0 ? "the manifest" : "inputs[\(k - 1)]"
            do throws(FileDigest.Failure) {
                let digest = try InputDigest.of(path: input, hashing: hashing)
                entries.append(.object([("path", .string(input))] + digest.jsonMembers))
            } catch {
                throw KeyError.unreadable(role: role, failure: error)
            }
        }
        try FileSystem.createDirectories(plan.directory + "/state")
        let signatures =
            JSONValue.object([
                (
                    "files",
                    .array(
                        seen.map { file, s, d in
                            .object([("path", .string(file)), ("signature", .object(s.jsonMembers))] + d.jsonMembers)
                        })
                )
            ]).serialized(pretty: true) + "\n"
        if (try? FileSystem.read(signaturesPath)) != Array(signatures.utf8) {
            try AtomicFile.write(signatures, to: signaturesPath)
        }
        let key =
            JSONValue.object([
                ("written_by", .string("regionsearch tile inputs")), ("inputs", .array(entries)),
            ]).serialized(pretty: true) + "\n"
        // Rewritten (and so dated now) only when some content changed: its date is what
        // Snakemake compares with the prepare step's output.
        guard (try? FileSystem.read(path)) != Array(key.utf8) else { return false }
        try AtomicFile.write(key, to: path)
        return true
    }

    /// The remembered signatures and digests by path; empty when the file is missing or damaged
    /// (then every input is hashed).
    func loadSignatures() -> [String: (FileSignature, FileDigest)] {
        guard let bytes = try? FileSystem.read(signaturesPath),
            let json = try? bytes.withUnsafeBufferPointer({ (b) throws(JSONParseError) -> JSONValue in
                try JSONParser.parse(bytes: b)
            }),
            let files = json["files"]?.arrayValue
        else { return [:] }
        var out: [String: (FileSignature, FileDigest)] = [:]
        for f in files {
            guard let path = f["path"]?.stringValue,
                let signature = f["signature"].flatMap({ FileSignature(json: $0) }),
                let digest = FileDigest(json: f)
            else { continue }
            out[path] = (signature, digest)
        }
        return out
    }
}
