import RegionSearchCore

/// The manifest a run works for, as state other runs read records it: a published set's
/// `SET.json` (`manifest`) names the manifest whose run published it, so that a run of another
/// manifest that would replace or take over that state is told apart from a rerun of the same one.
///
/// A manifest is recorded by its path and recognised by what the path is on disk
/// (``FileIdentity``: device and inode, after links), not by its spelling: a link to it, `..` or
/// another current directory is the same manifest, and so is a manifest edited in place or saved
/// by rename.
struct ManifestOwner {
    /// How a recorded manifest relates to the manifest of this run.
    enum Relation: Equatable {
        /// The same manifest file.
        case same
        /// Another manifest file, which exists.
        case other
        /// A manifest was recorded, but nothing is at its path now (moved or removed): whose the
        /// state was can no longer be told.
        case gone
        /// No manifest was recorded (state written before owners were, or by hand).
        case unrecorded
    }

    /// The manifest's absolute path, as it is recorded.
    let path: String

    init(_ manifest: Manifest) {
        path = PathResolver.absolute(manifest.file, relativeTo: PathResolver.currentDirectory())
    }

    /// The manifest at `path` (absolute), as a record names it.
    init(path: String) { self.path = path }

    /// How the manifest `recorded` (an absolute path; nil or empty when none was recorded)
    /// relates to this one.
    func relation(to recorded: String?) -> Relation {
        guard let recorded, !recorded.isEmpty else { return .unrecorded }
        guard let theirs = FileIdentity(path: recorded) else { return .gone }
        return theirs == FileIdentity(path: path) ? .same : .other
    }
}
