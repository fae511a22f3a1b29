import RegionSearchCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

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
    func relation(to recorded: String?, relativeTo directory: String = "/") -> Relation {
        guard let recorded, !recorded.isEmpty else { return .unrecorded }
        guard let theirs = FileIdentity(path: Self.resolve(recorded, relativeTo: directory)) else { return .gone }
        return theirs == FileIdentity(path: path) ? .same : .other
    }

    /// The manifest's path relative to `directory`, both through their links: how a file that
    /// moves with the tree it lies in (the lineage file, beside the outputs) records its manifest —
    /// the same bytes wherever the tree is copied or checked out.
    func path(relativeTo directory: String) -> String {
        PublishedSet.relativePath(
            from: Self.resolvedDirectory(directory),
            to: Self.resolvedDirectory(AtomicFile.directory(of: path)) + "/" + PathResolver.baseName(path))
    }

    /// A recorded manifest path (relative to `directory`, or absolute) as an absolute path.
    static func resolve(_ recorded: String, relativeTo directory: String) -> String {
        PathResolver.absolute(recorded, relativeTo: resolvedDirectory(directory))
    }

    /// `directory` with the links of its deepest existing ancestor resolved: the folder a lineage
    /// file will be written to may not exist yet on the first night, and must give the same
    /// relative path then as on the nights after.
    static func resolvedDirectory(_ directory: String) -> String {
        var existing = PathResolver.normalize(directory)
        var rest: [String] = []
        while true {
            if let real = realpath(existing, nil) {
                defer { free(real) }
                let base = String(cString: real)
                return rest.isEmpty ? base : (base == "/" ? "" : base) + "/" + rest.reversed().joined(separator: "/")
            }
            guard existing != "/" else { return PathResolver.normalize(directory) }
            rest.append(PathResolver.baseName(existing))
            existing = AtomicFile.directory(of: existing)
        }
    }
}
