/// What the pipelines of one `regionsearch run` invocation share while it holds the work
/// directory's lock: an experiment runs one pipeline per combination, and a stage run that
/// several combinations use is verified (or, with `--force`, rerun) once, not once per
/// combination. Nothing else writes to the work directory while the lock is held, so what was
/// verified stays verified until the lock is released.
public final class RunSession {
    /// Stage runs verified or produced in this session: entry name (`<stage>-<key>`) → record.
    var completed: [String: StageRecord] = [:]
    /// Stage runs executed in this session (a forced stage is executed once per key).
    var executed: Set<String> = []
    /// Content digests of raw input files hashed in this session, by absolute path.
    var rawDigests: [String: FileDigest] = [:]
    /// Build identities of the stage executables, by tool directory (hashed once per invocation).
    var builds: [String: BuildIdentity] = [:]
    /// Every file hashed in this session, so that each is read once (see ``DigestCache``).
    let digests = DigestCache()

    /// The build identities of the executables in `toolDirectory`, remembered between runs in
    /// `store` (see ``BuildIdentity``).
    func build(toolDirectory: String, store: String? = nil) -> BuildIdentity {
        if let known = builds[toolDirectory] { return known }
        let identity = BuildIdentity(toolDirectory: toolDirectory, store: store)
        builds[toolDirectory] = identity
        return identity
    }

    public init() {}
}
