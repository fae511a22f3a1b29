import RegionSearchCore

/// The manifest a run works for, as state other runs read records it: a published set's
/// `SET.json` (`manifest`) names the manifest whose run published it, and a lineage file
/// (`regionsearch_lineage.manifest`) the manifest whose runs keep it, so that a run of another
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

    /// How the manifest `recorded` (a path, relative to `directory` or absolute; nil or empty
    /// when none was recorded) relates to this one.
    ///
    /// A manifest with this one's exact bytes is the same manifest (another checkout of one
    /// repository, an old CI workspace still on disk): it runs the same pipeline, so a run of
    /// either is a rerun for the other, not a second pipeline advancing the same state.
    func relation(to recorded: String?, relativeTo directory: String = "/") -> Relation {
        guard let recorded, !recorded.isEmpty else { return .unrecorded }
        let theirPath = Self.resolve(recorded, relativeTo: directory)
        guard let theirs = FileIdentity(path: theirPath) else { return .gone }
        if theirs == FileIdentity(path: path) { return .same }
        if let a = try? FileSystem.read(theirPath), let b = try? FileSystem.read(path), a == b { return .same }
        return .other
    }

    /// The manifest's path relative to `directory`, both through their links: how a file that
    /// moves with the tree it lies in (the lineage file, beside the outputs) records its manifest —
    /// the same bytes wherever the tree is copied or checked out.
    func path(relativeTo directory: String) -> String {
        PublishedSet.relativePath(
            from: PathResolver.resolvingLinks(directory),
            to: PathResolver.resolvingLinks(AtomicFile.directory(of: path)) + "/" + AtomicFile.baseName(of: path))
    }

    /// A recorded manifest path (relative to `directory`, or absolute) as an absolute path.
    static func resolve(_ recorded: String, relativeTo directory: String) -> String {
        PathResolver.absolute(recorded, relativeTo: PathResolver.resolvingLinks(directory))
    }
}
