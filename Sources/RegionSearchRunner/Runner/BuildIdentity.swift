import RegionSearchCore
import RegionSearchStages

/// The build of a stage executable, as part of its stage key: the content hash of the
/// executable file.
///
/// A stage's hand-set ``StageDefinition/version`` says when its output format or method
/// changed on purpose; the build identity catches everything else (an upgraded or rebuilt binary
/// whose code differs in any way), so results of another build are never reported as up to
/// date. The same build gives the same identity anywhere: a copied work directory run with the
/// same executables stays up to date, and a new build reruns every stage once. Identities are
/// hashed once per run (about 50 MB of executables; well under the time of a no-op run).
public final class BuildIdentity {
    /// Directory holding the `regionsearch-<stage>` executables.
    let toolDirectory: String
    private var cache: [String: String] = [:]

    public init(toolDirectory: String) { self.toolDirectory = toolDirectory }

    /// `xxh128:<hex>` of the stage's executable, or `missing` when it cannot be read (the stage
    /// cannot run then; `status` still reports the other stages).
    func of(_ stage: StageDefinition) -> String { of(executable: stage.executable) }

    /// `xxh128:<hex>` of the executable `name` in the tool directory (the runner's own steps:
    /// `regionsearch`), or `missing`.
    func of(executable name: String) -> String {
        let path = toolDirectory + "/" + name
        if let known = cache[path] { return known }
        let identity = (try? FileDigest.of(path: path)).map { "xxh128:\($0.hash)" } ?? "missing"
        cache[path] = identity
        return identity
    }
}
