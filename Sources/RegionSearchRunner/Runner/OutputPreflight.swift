import RegionSearchCore
import RegionSearchGDAL
import RegionSearchOutput

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Checks, before any stage runs, that every output of a manifest can be written, so that a
/// nightly run does not compute for an hour and then fail on a read-only directory or a
/// database that refuses the connection.
///
/// - A file: what is at the path must be writable as ``AtomicFile/Target`` says (not a
///   directory, block device or dangling link); its directory is created when missing, and a
///   probe file is created and removed in it (`access(2)` would not do: root passes it on a
///   read-only or special file system).
/// - A pipe or device: it must be writable (it is not opened: a pipe would block).
/// - Standard output: a Shapefile, being several files, cannot go there.
/// - PostGIS: the connection is opened once for update and asked whether this role may write
///   the tables (``PostGISTableWriter/checkConnection(tables:)``).
/// - Any format but GeoJSON: GDAL, which writes it, can be loaded.
enum OutputPreflight {
    /// An output that cannot be written (exit status 6).
    struct Failure: ExitCoded {
        var message: String
        var description: String { message }
        var exitStatus: ExitStatus { .output }
    }

    static func check(_ targets: [OutputTarget]) throws(Failure) {
        for target in targets {
            let at = target.display
            // Every format but GeoJSON is written through GDAL, which is loaded on first use.
            if target.format != .geojson {
                do {
                    try GDALLibrary.ensureRegistered()
                } catch {
                    throw Failure(message: "\(at): \(error)")
                }
            }
            if target.format == .postgis {
                do {
                    // The tables of this database in this manifest, with the fields that tell a
                    // RegionSearch table from a user's and their modes: a user's table, a
                    // read-only connection or a missing privilege is refused now, not after the
                    // stages.
                    let tables = targets.filter { $0.format == .postgis && $0.sharesDestination(with: target) }.map {
                        t in
                        (
                            table: t.layer,
                            firstFields: t.role == .regions
                                ? RegionFeatureSchema.fields.prefix(2).map(\.name)
                                : POIFeatureSchema.fields(keywords: []).prefix(2).map(\.name),
                            mode: t.mode
                        )
                    }
                    try PostGISTableWriter(connection: target.path).checkConnection(tables: tables)
                } catch {
                    // A missing schema or privilege, a read-only connection or a user's table says
                    // what to do itself.
                    if case .invalidArgument = error {
                        throw Failure(message: "\(at): cannot write: \(error)")
                    }
                    throw Failure(
                        message: "\(at): cannot write: \(error); check the connection string and that the server runs")
                }
                continue
            }
            let kind: AtomicFile.Target
            // Classified as given first, as the publisher does (``PublishedSet/isPublished(_:)``):
            // `/dev/stdout` links to the descriptor, and when that is a pipe the link's text
            // (`pipe:[N]`) is no path to follow.
            if let given = try? AtomicFile.Target(target.path), !given.isReplaced {
                kind = given
            } else {
                // A published path is a link into its set: the probe goes where the link is (the
                // set's folder is beside it), never into a published set.
                let published = PublishedSet.publishedPath(target.path)
                do {
                    kind =
                        PublishedSet.linkText(published) != nil ? .replace(published) : try AtomicFile.Target(published)
                } catch {
                    throw Failure(message: "\(at): cannot write: \(error)")
                }
            }
            switch kind {
            case .writeThrough(let path, let descriptor):
                if target.format == .shapefile && !path.lowercased().hasSuffix(".zip") {
                    throw Failure(
                        message:
                            "\(at): a Shapefile is several files and cannot be written to a pipe or device; "
                            + "write name.shp.zip"
                    )
                }
                if descriptor == nil && access(path, W_OK) != 0 {
                    throw Failure(message: "\(at): cannot write: \(String(cString: strerror(errno)))")
                }
            case .replace(let path):
                if target.format == .gpkg {
                    let staged = Self.stagingPath(of: target, published: path, among: targets)
                    if staged.utf8.count > Self.sqlitePathLimit {
                        throw Failure(
                            message: "\(at): a GeoPackage is written through SQLite, which opens paths of at most "
                                + "\(Self.sqlitePathLimit) bytes, and publishing writes it at \(staged.utf8.count) "
                                + "(\(staged)); choose a shorter output path or file name")
                    }
                }
                let dir = AtomicFile.directory(of: path)
                // A folder is made for an output path, never at the end of a user's link: a link
                // into a folder that does not exist is a broken link, not a place to create.
                if path != target.path && !FileSystem.exists(dir) {
                    throw Failure(
                        message: "\(at): is a symbolic link to \(path), in a folder that does not exist (\(dir)); "
                            + "create the folder or fix the link")
                }
                do {
                    try FileSystem.createDirectories(dir)
                } catch {
                    throw Failure(message: "\(at): cannot create its directory: \(error)")
                }
                let probe =
                    dir + "/." + AtomicFile.baseName(of: path) + AtomicFile.temporaryMarker + "\(getpid())-probe"
                let fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
                guard fd >= 0 else {
                    throw Failure(
                        message: "\(at): cannot write in \(dir): \(String(cString: strerror(errno))); "
                            + "choose another output or make the directory writable")
                }
                close(fd)
                unlink(probe)
            }
        }
    }

    /// Checks the paths a published set links to its files — the maps, the outputs' other files
    /// (styles, a Shapefile's parts), the lineage file — as ``check(_:)`` checks an output's own:
    /// each must be a file, nothing yet, or a set's link, and a user's link to it must lead
    /// into a folder that exists. Publishing renames a link over what a path leads to, so a map
    /// path linked to a device (`x.png -> /dev/null`) replaced the device with a link (exit 0),
    /// a link to a folder failed only after the new set was made current, and a link into a
    /// missing folder had that folder created.
    static func checkSetMembers(_ paths: [String]) throws(Failure) {
        for path in paths {
            // A link into /dev or /proc (`x.svg -> /dev/stdout`) leads wherever the shell's
            // descriptor does (a log file, which publishing then replaced, or a pipe): a file of
            // the set is never there.
            let hops = PublishedSet.linkHops(path)
            for hop in hops {
                let absolute = PathResolver.absolute(hop, relativeTo: PathResolver.currentDirectory())
                if absolute.hasPrefix("/dev/") || absolute.hasPrefix("/proc/") {
                    throw Failure(
                        message: "\(path) leads to \(absolute): the run publishes this file with its regions, by "
                            + "renaming a link over the path, and never into /dev or /proc; remove the link or point "
                            + "it at a file (for a map not wanted, leave its format out of \"maps\")")
                }
            }
            let published = hops[hops.count - 1]
            if PublishedSet.isSetLink(published) { continue }
            let via = published == path ? "" : " (a symbolic link to \(published))"
            let kind: AtomicFile.Target
            do {
                kind = try AtomicFile.Target(published)
            } catch {
                throw Failure(message: "\(path)\(via): cannot publish there: \(error)")
            }
            guard case .replace(let file) = kind else {
                throw Failure(
                    message: "\(path)\(via) is a pipe or device: the run publishes this file with its regions, "
                        + "by renaming a link over the path, and never replaces a pipe or device; remove it or "
                        + "point it at a file (for a map not wanted, leave its format out of \"maps\")")
            }
            let dir = AtomicFile.directory(of: file)
            if file != path && !FileSystem.exists(dir) {
                throw Failure(
                    message: "\(path): is a symbolic link to \(file), in a folder that does not exist (\(dir)); "
                        + "create the folder or fix the link")
            }
        }
    }

    /// Checks that files the run writes beside its outputs (the lineage file and change reports,
    /// whose names are longer than the output's: `<stem>.changes.json`) can be created under their
    /// temporary names (`.<name>.tmp-<pid>-<n>`): a name the file system cannot hold would fail
    /// the night after every stage has run.
    static func checkNames(_ paths: [String]) throws(Failure) {
        // In the set folder, files of one name are told apart by a prefix (`2-r.changes.json`).
        let inSet = Publisher.preparedNames(paths)
        for (path, setName) in zip(paths, inSet) {
            let own = AtomicFile.baseName(of: path)
            let name = setName.utf8.count > own.utf8.count ? setName : own
            let temporary = "." + name + AtomicFile.temporaryMarker + "4194304-15"
            let directory = AtomicFile.directory(of: path)
            let reported = pathconf(directory, Int32(_PC_NAME_MAX))
            let limit = reported > 0 ? reported : 255
            if temporary.utf8.count > limit {
                throw Failure(
                    message: "\(path): the run writes this file through a temporary name of "
                        + "\(temporary.utf8.count) bytes (\(name.utf8.count) for its own), over the \(limit) bytes a "
                        + "file name may have in \(directory); choose a shorter output file name")
            }
        }
    }

    /// The longest path SQLite's Unix file system layer opens (its `MAX_PATHNAME` is 512 bytes,
    /// the terminating zero included).
    static let sqlitePathLimit = 511

    /// The longest path a file output is written at before it is published: inside the set being
    /// built (`.<name>.published/.g000000.tmp-<pid>/<role>/.<name>.tmp-<pid>-<n>/<name>`, beside
    /// the manifest's first published file, in the folder of the first role sharing the file),
    /// or beside itself (`.<name>.tmp-<pid>-<n>/<name>`) when no set is published. Process ids
    /// (Linux's widest) and the writer's random 32-bit suffix at their widest.
    static func stagingPath(of target: OutputTarget, published path: String, among targets: [OutputTarget]) -> String {
        let absolute = PathResolver.absolute(path, relativeTo: PathResolver.currentDirectory())
        let name = AtomicFile.baseName(of: absolute)
        let pid = "4194304"
        let temporary = "." + name + AtomicFile.temporaryMarker + pid + "-\(UInt32.max)/" + name
        guard PublishedSet.isPublished(target),
            let first = targets.first(where: { !$0.files.isEmpty && PublishedSet.isPublished($0) })
        else { return AtomicFile.directory(of: absolute) + "/" + temporary }
        let root = PublishedSet.root(
            besides: PathResolver.absolute(
                PublishedSet.publishedPath(first.path), relativeTo: PathResolver.currentDirectory()))
        let role = targets.first { $0.sharesDestination(with: target) }?.role ?? target.role
        return root + "/.g000000" + AtomicFile.temporaryMarker + pid + "/" + role.rawValue + "/" + temporary
    }
}
