import RegionSearchCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The files one run publishes — the regions output, the POI layer, their sidecars and styles,
/// the maps, the change reports and the lineage file — made visible together: a reader never
/// sees today's regions with yesterday's maps, POI layer or lineage, also after a crash or
/// SIGKILL at any moment.
///
/// Layout, in a folder beside the regions output (``root(besides:)``):
///
/// ```
/// out/.r.geojson.published/
///     g000042/                   one complete set: output/r.geojson, output/r.qml,
///         SET.json               poi_output/p.gpkg, maps/r.png, …, and what it holds
///     g000041/                   the previous set, kept until the next one is published
///     current -> g000042         which set is current (a symbolic link, replaced by rename)
/// out/r.geojson -> .r.geojson.published/current/output/r.geojson
/// out/r.png     -> .r.geojson.published/current/maps/r.png          (and so on)
/// ```
///
/// A new set is built in `.gNNNNNN.tmp-<pid>/` (files that did not change are hard links to the
/// current set's), every file and folder synced, renamed to `gNNNNNN/`, and then `current` is
/// replaced by a new link in one `rename(2)`: the flip. The paths the manifest names are links
/// through `current`, so they all change at that instant. A run that fails or dies before the
/// flip leaves the current set as it was (its leftovers are removed by the next run); after it,
/// the new set is complete. A reader that needs the files of one set opens them under the
/// folder `current` resolves to (`readlink`), which stays until the set after the next.
///
/// The first run over outputs written as plain files adopts them first: they are hard-linked
/// into a set of their own and replaced by links to it (the same bytes), so even that run never
/// shows a mix.
public struct PublishedSet {
    /// The set folder's name beside the output: `.<name>.published`.
    static let suffix = ".published"
    /// What a set holds, inside its folder.
    static let recordName = "SET.json"
    /// The lock file of the set folder (``lock(wait:)``).
    static let lockName = ".lock"
    /// Sets older than the current and the previous one are removed.
    static let kept = 2

    let root: String
    var currentLink: String { root + "/current" }

    init(root: String) { self.root = root }

    /// `<directory>/.<name>.published` for the file `path`.
    static func root(besides path: String) -> String {
        AtomicFile.directory(of: path) + "/." + AtomicFile.baseName(of: path) + suffix
    }

    /// The set folder of a manifest's run: beside its first output that is a file (the regions,
    /// else the POI layer); nil for an experiment or when no output is a file.
    static func root(of manifest: Manifest) -> String? {
        guard manifest.experiment == nil, !manifest.isCombination else { return nil }
        guard let first = manifest.outputTargets.first(where: { !$0.files.isEmpty && isPublished($0) }) else {
            return nil
        }
        return root(besides: publishedPath(first.path))
    }

    /// Whether `target` is published as files of a set: a file replaced by rename (or already one
    /// of a set's links) — not a database, standard output, a pipe or a device (`/dev/stdout`),
    /// which are written in place and beside which nothing may be created.
    static func isPublished(_ target: OutputTarget) -> Bool {
        guard target.format != .postgis, !target.isStandardOutput else { return false }
        // Classified as given first: `/dev/stdout` links to the descriptor, whose file (the
        // shell's redirection) must be written through, never replaced or given neighbours.
        let given = try? AtomicFile.Target(target.path)
        if let given, !given.isReplaced { return false }
        let path = publishedPath(target.path)
        if isSetLink(path) { return true }
        return (try? AtomicFile.Target(path))?.isReplaced ?? false
    }

    // MARK: Generations

    static func generationName(_ n: Int) -> String {
        let digits = String(n)
        return "g" + String(repeating: "0", count: max(0, 6 - digits.count)) + digits
    }

    static func generationNumber(_ name: String) -> Int? {
        guard name.hasPrefix("g"), name.count >= 7 else { return nil }
        let digits = name.dropFirst()
        guard digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(digits)
    }

    /// The generations in the folder, oldest first.
    var generations: [Int] {
        FileSystem.list(root).compactMap(Self.generationNumber).sorted()
    }

    func directory(_ generation: Int) -> String { root + "/" + Self.generationName(generation) }

    /// The current set: its generation and record; nil when there is none (or `current` points
    /// to something that is not a complete set). With no `current` link at all — removed by
    /// hand: the runner only ever replaces it by rename — the newest complete set stands for it,
    /// so the next night goes on from what was published (its lineage, its unchanged files) and
    /// makes the link again (``restoreCurrentLink(_:)``, ``flip(to:)``).
    func current() -> (generation: Int, record: Record)? {
        var buffer = [CChar](repeating: 0, count: 256)
        let n = readlink(currentLink, &buffer, buffer.count - 1)
        guard n > 0 else {
            guard !FileSystem.exists(currentLink), FileSystem.isDirectory(root) else { return nil }
            for g in generations.reversed() {
                if let record = Record.load(directory(g) + "/" + Self.recordName), record.generation == g {
                    return (g, record)
                }
            }
            return nil
        }
        let target = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let g = Self.generationNumber(target), let record = Record.load(directory(g) + "/" + Self.recordName)
        else { return nil }
        return (g, record)
    }

    // MARK: The record

    /// One file of a set: its name inside the set's folder and the path readers use.
    struct File: Equatable {
        var name: String
        var path: String
        var digest: FileDigest
    }

    /// A part of a set written as one: an output with its sidecars, or the maps.
    struct Member: Equatable {
        /// `output`, `poi_output`, `maps` (also the member's folder in the set).
        var role: String
        /// What its content depends on; equal keys, equal files.
        var key: String
        var files: [File]
    }

    /// `SET.json`: the set's generation, when and by what it was published, and its files.
    struct Record: Equatable {
        var generation: Int
        var published: String
        var manifest: String
        var members: [Member]

        func member(_ role: String) -> Member? { members.first { $0.role == role } }

        var json: JSONValue {
            .object([
                ("generation", .number(Double(generation))),
                ("published", .string(published)),
                ("written_by", .string("regionsearch \(RegionSearchVersion.current)")),
                ("manifest", .string(manifest)),
                (
                    "members",
                    .array(
                        members.map { m in
                            .object([
                                ("role", .string(m.role)), ("key", .string(m.key)),
                                (
                                    "files",
                                    .array(
                                        m.files.map { f in
                                            .object(
                                                [("name", .string(f.name)), ("path", .string(f.path))]
                                                    + f.digest.jsonMembers)
                                        })
                                ),
                            ])
                        })
                ),
            ])
        }

        static func load(_ path: String) -> Record? {
            guard let bytes = try? FileSystem.read(path),
                let json = try? bytes.withUnsafeBufferPointer({ (b) throws(JSONParseError) -> JSONValue in
                    try JSONParser.parse(bytes: b)
                }),
                let generation = json["generation"]?.intValue, let members = json["members"]?.arrayValue
            else { return nil }
            var out: [Member] = []
            for m in members {
                guard let role = m["role"]?.stringValue, let key = m["key"]?.stringValue,
                    let files = m["files"]?.arrayValue
                else { return nil }
                var parsed: [File] = []
                for f in files {
                    guard let name = f["name"]?.stringValue, let p = f["path"]?.stringValue,
                        let d = FileDigest(json: f)
                    else { return nil }
                    parsed.append(File(name: name, path: p, digest: d))
                }
                out.append(Member(role: role, key: key, files: parsed))
            }
            return Record(
                generation: generation, published: json["published"]?.stringValue ?? "",
                manifest: json["manifest"]?.stringValue ?? "", members: out)
        }
    }

    // MARK: Paths readers use

    /// The path a file is published at for a manifest's `path`: a symbolic link the user made
    /// is followed (written through, the link kept) to the first path that is not a link, or is
    /// one of the set's own links.
    static func publishedPath(_ path: String) -> String { linkHops(path).last ?? path }

    /// `path` and each path its user's links lead to in turn, up to ``publishedPath(_:)`` (the
    /// first that is not a link, or is one of the set's own links; at most 40 links followed).
    static func linkHops(_ path: String) -> [String] {
        var hops = [path]
        for _ in 0..<40 {
            let p = hops[hops.count - 1]
            guard let target = linkText(p), !target.contains(suffix + "/current/") else { break }
            // From the folder the link really lies in, as the kernel follows it: `..` in a link
            // inside a folder that is itself a link leads out of where that folder points.
            hops.append(PathResolver.absolute(target, relativeTo: realDirectory(AtomicFile.directory(of: p))))
        }
        return hops
    }

    /// Whether `path` (through a user's links) is a published set's link: a file a run published,
    /// which only a run replaces. Writing through it (a map drawn by hand at the run's map's
    /// name) would change the current set's file under its record.
    public static func isPublishedFile(_ path: String) -> Bool { isSetLink(publishedPath(path)) }

    /// Whether `path` is a set's own link (into its folder, through `current`), whether or not
    /// what it shows is there.
    static func isSetLink(_ path: String) -> Bool {
        linkText(path)?.contains(suffix + "/current/") ?? false
    }

    /// The text of a symbolic link; nil for anything else.
    static func linkText(_ path: String) -> String? {
        var st = stat()
        guard lstat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFLNK else { return nil }
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink(path, &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The link a published path holds for the set file `name`: relative, through `current`.
    func linkText(for path: String, name: String) -> String {
        Self.relativePath(from: Self.realDirectory(AtomicFile.directory(of: path)), to: Self.realPath(root))
            + "/current/" + name
    }

    /// Whether `path` is this set's link to `name`.
    func isLink(_ path: String, to name: String) -> Bool {
        Self.linkText(path) == linkText(for: path, name: name)
    }

    /// `realpath` of a directory (the path itself when it cannot be resolved).
    static func realDirectory(_ dir: String) -> String {
        guard let r = realpath(dir, nil) else { return PathResolver.normalize(dir) }
        defer { free(r) }
        return String(cString: r)
    }

    /// `realpath` of the parent and the last component as it is.
    static func realPath(_ path: String) -> String {
        let dir = realDirectory(AtomicFile.directory(of: path))
        return (dir == "/" ? "" : dir) + "/" + AtomicFile.baseName(of: path)
    }

    /// The relative path from directory `from` to `to` (both absolute, normalised).
    static func relativePath(from: String, to: String) -> String {
        let a = from.split(separator: "/")
        let b = to.split(separator: "/")
        var common = 0
        while common < a.count && common < b.count && a[common] == b[common] { common += 1 }
        let up = Array(repeating: "..", count: a.count - common)
        let down = b[common...].map(String.init)
        let parts = up + down
        return parts.isEmpty ? "." : parts.joined(separator: "/")
    }

    // MARK: Publishing

    /// A set being built: its temporary folder and the files placed so far.
    struct Staging {
        let generation: Int
        let directory: String
        var members: [Member] = []
    }

    /// Starts the next set (`.gNNNNNN.tmp-<pid>/` with a folder per member role).
    func begin(roles: [String]) throws(FileSystem.Failure) -> Staging {
        try FileSystem.createDirectories(root)
        let next = (generations.last ?? -1) + 1
        let dir = root + "/." + Self.generationName(next) + AtomicFile.temporaryMarker + String(getpid())
        try FileSystem.removeTree(dir)
        try FileSystem.createDirectories(dir)
        for role in roles { try FileSystem.createDirectories(dir + "/" + role) }
        return Staging(generation: next, directory: dir)
    }

    /// Hard-links (or, where links are not possible, copies) a file of the current set into the
    /// set being built.
    func carry(_ file: File, from generation: Int, into staging: Staging) throws(FileSystem.Failure) {
        let source = directory(generation) + "/" + file.name
        let target = staging.directory + "/" + file.name
        if link(source, target) == 0 { return }
        let bytes = try FileSystem.read(source)
        do {
            try AtomicFile.write(bytes, to: target)
        } catch {
            throw FileSystem.Failure(path: target, operation: "copy from the current set", reason: "\(error)")
        }
    }

    /// Completes `staging` with its record and makes it current (see the type's documentation);
    /// then links every published path through `current`, removes the links of files the set no
    /// longer has, and the sets before the previous one.
    func commit(_ staging: Staging, manifest: String) throws {
        let record = Record(
            generation: staging.generation, published: Timestamp.now(), manifest: manifest, members: staging.members)
        try refuseOtherSetsLinks(record, manifest: manifest)
        for file in record.members.flatMap(\.files) { try Self.refuseNonFile(file.path) }
        try AtomicFile.write(
            record.json.serialized(sortedKeys: false, pretty: true) + "\n",
            to: staging.directory + "/" + Self.recordName, durable: true)
        for role in staging.members.map(\.role) { try AtomicFile.syncDirectory(staging.directory + "/" + role) }
        try AtomicFile.syncDirectory(staging.directory)
        let previous = current()
        // With `current` gone, ``current()`` stood in the newest complete set, which may be one a
        // killed run never made current; the set readers last saw may be older: none is removed.
        let linkWasMissing = !FileSystem.exists(currentLink)
        let final = directory(staging.generation)
        try FileSystem.rename(staging.directory, to: final)
        try AtomicFile.syncDirectory(root)
        CrashPoint.reached("set-ready")
        try flip(to: staging.generation)
        CrashPoint.reached("set-current")
        try linkPaths(record)
        if let old = previous?.record {
            let kept = Set(record.members.flatMap(\.files).map(\.path))
            for file in old.members.flatMap(\.files) where !kept.contains(file.path) && isLink(file.path, to: file.name)
            {
                unlink(file.path)
            }
        }
        for g in generations where g != staging.generation && g != previous?.generation && !linkWasMissing {
            removeSet(g)
        }
    }

    /// Removes an old set: the files its record lists, the record, and the folders they leave
    /// empty. A file someone else put in the set's folder stays, with a warning (the whole folder
    /// had been removed, with it).
    func removeSet(_ generation: Int) {
        let dir = directory(generation)
        // Without its record (what a run removed before, leaving someone else's files) only what
        // is left is told again.
        if let record = Record.load(dir + "/" + Self.recordName) {
            // Only names inside the folder: a record edited to name `../x` removes nothing outside.
            for file in record.members.flatMap(\.files)
            where !file.name.hasPrefix("/") && !file.name.split(separator: "/").contains("..") {
                unlink(dir + "/" + file.name)
            }
            unlink(dir + "/" + Self.recordName)
            for role in Set(record.members.map(\.role)).sorted() { rmdir(dir + "/" + role) }
        }
        guard rmdir(dir) != 0, errno != ENOENT else { return }
        let left = FileSystem.list(dir)
        let shown = left.prefix(3).joined(separator: ", ") + (left.count > 3 ? ", …" : "")
        Log.warning(
            "\(dir): the old published set is removed but for what RegionSearch did not put there (\(shown)); "
                + "it is kept: move it away and remove the folder")
    }

    /// The set folder's lock, held until ``release()`` (or until it is freed): `flock` on the
    /// descriptor it owns, which the kernel also drops when the process dies.
    final class Lock {
        private var fd: Int32

        fileprivate init(fd: Int32) { self.fd = fd }

        deinit { release() }

        func release() {
            if fd >= 0 { close(fd) }
            fd = -1
        }
    }

    /// Takes the set folder's lock (`flock` on `.lock` in it). Two manifests that name one output
    /// publish into one folder: one at a time, or both would number their set alike, and one's
    /// start-up sweep would take the other's set being built for a leftover. `wait`: block while
    /// another run holds it (saying so); otherwise nil when it is held.
    func lock(wait: Bool) throws(FileSystem.Failure) -> Lock? {
        try FileSystem.createDirectories(root)
        let path = root + "/" + Self.lockName
        // Read-only: flock needs no write access, so a folder shared by a group's users locks.
        let fd = open(path, O_RDONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard fd >= 0 else {
            throw FileSystem.Failure(path: path, operation: "open lock file", reason: String(cString: strerror(errno)))
        }
        var operation = LOCK_EX | LOCK_NB
        while flock(fd, operation) != 0 {
            if errno == EINTR { continue }
            if errno == EWOULDBLOCK && operation != LOCK_EX {
                guard wait else {
                    close(fd)
                    return nil
                }
                Log.info("\(root): another run is publishing there; waiting for it to finish")
                operation = LOCK_EX
                continue
            }
            let reason = String(cString: strerror(errno))
            close(fd)
            throw FileSystem.Failure(path: path, operation: "lock", reason: reason)
        }
        return Lock(fd: fd)
    }

    /// Runs `body` holding the folder's lock, unless another run holds it (nil then): for sweeps
    /// of the temporaries a publication makes, which are another run's while it holds the lock.
    /// With no folder yet, nobody publishes, and `body` runs without it.
    func whenIdle<T>(_ body: () throws(FileSystem.Failure) -> T) throws(FileSystem.Failure) -> T? {
        guard FileSystem.exists(root) else { return try body() }
        guard let lock = try lock(wait: false) else { return nil }
        defer { lock.release() }
        return try body()
    }

    /// Makes the `current` link again when it is gone, pointing at `generation` (the set that
    /// ``current()`` found standing for it).
    func restoreCurrentLink(_ generation: Int) throws {
        guard !FileSystem.exists(currentLink) else { return }
        Log.warning("\(currentLink) was missing; made again, pointing at \(Self.generationName(generation))")
        try flip(to: generation)
    }

    /// Points `current` at `generation`: a new link renamed over the old one, then synced.
    func flip(to generation: Int) throws {
        let temporary = root + "/.current" + AtomicFile.temporaryMarker + String(getpid())
        unlink(temporary)
        guard symlink(Self.generationName(generation), temporary) == 0 else {
            throw FileSystem.Failure(
                path: temporary, operation: "create link", reason: String(cString: strerror(errno)))
        }
        try FileSystem.rename(temporary, to: currentLink)
        try AtomicFile.syncDirectory(root)
    }

    /// Refuses, before anything is made current, a path of `record` that is the link of another
    /// manifest's set. Two outputs in one folder with the same stem (`r.geojson` and `r.shp`) have
    /// maps and a style of the same names (`r.png`, `r.qml`): each run would take over the other's,
    /// and a reader would see one output's regions with the other's maps. A set that `manifest`
    /// itself published (its output renamed from `r.geojson` to `r.gpkg`), or whose publisher is
    /// unknown, gives its links up as before.
    func refuseOtherSetsLinks(_ record: Record, manifest: String) throws {
        let marker = Self.suffix + "/current/"
        for file in record.members.flatMap(\.files) {
            guard let text = Self.linkText(file.path), let at = text.range(of: marker) else { continue }
            let ours = linkText(for: file.path, name: file.name)
            guard let own = ours.range(of: marker), !text.hasPrefix(ours[..<own.upperBound]) else { continue }
            let otherRoot = PathResolver.absolute(
                String(text[..<at.lowerBound]) + Self.suffix,
                relativeTo: Self.realDirectory(AtomicFile.directory(of: file.path)))
            guard let publisher = PublishedSet(root: otherRoot).current()?.record.manifest,
                ManifestOwner(path: manifest).relation(to: publisher) == .other
            else { continue }
            let folder = AtomicFile.baseName(of: String(text[..<at.lowerBound]))
            let other = folder.hasPrefix(".") ? String(folder.dropFirst()) : folder
            throw ToolFailure(
                "\(file.path) belongs to the output \(other) that \(publisher) publishes in the same folder (it links "
                    + "to \(text)): the two outputs' maps and styles have the same names; give one of them another "
                    + "name or folder",
                status: .usage)
        }
    }

    /// Throws unless `path` is a file, a link or nothing: the only things a set's link replaces,
    /// whatever changed since the run's checks (``OutputPreflight/checkSetMembers(_:)``) — never a
    /// device, pipe or folder.
    static func refuseNonFile(_ path: String) throws(FileSystem.Failure) {
        var st = stat()
        guard lstat(path, &st) == 0 else { return }
        let type = st.st_mode & S_IFMT
        if type != S_IFREG && type != S_IFLNK {
            throw FileSystem.Failure(
                path: path, operation: "publish",
                reason: "is not a file; a pipe, device or folder is never replaced (remove it and run again)")
        }
    }

    /// Makes every path of `record` this set's link to its file (a path already linked is left
    /// alone; a plain file or nothing is replaced by a new link renamed over it).
    func linkPaths(_ record: Record) throws {
        var directories: Set<String> = []
        for file in record.members.flatMap(\.files) where !isLink(file.path, to: file.name) {
            try Self.refuseNonFile(file.path)
            let text = linkText(for: file.path, name: file.name)
            let dir = AtomicFile.directory(of: file.path)
            try FileSystem.createDirectories(dir)
            let temporary =
                dir + "/." + AtomicFile.baseName(of: file.path) + AtomicFile.temporaryMarker + "\(getpid())-0"
            unlink(temporary)
            guard symlink(text, temporary) == 0 else {
                throw FileSystem.Failure(
                    path: temporary, operation: "create link", reason: String(cString: strerror(errno)))
            }
            try FileSystem.rename(temporary, to: file.path)
            directories.insert(dir)
        }
        for dir in directories.sorted() { try AtomicFile.syncDirectory(dir) }
    }

    /// Removes what an interrupted publication left in the folder: a set being built
    /// (`.gNNNNNN.tmp-<pid>`) and a link being made (`.current.tmp-<pid>`). Only these names.
    @discardableResult
    func removeLeftovers() throws(FileSystem.Failure) -> [String] {
        var removed: [String] = []
        for name in FileSystem.list(root) {
            guard let base = WorkDirectory.temporaryBase(name),
                base == "current" || Self.generationNumber(base) != nil
            else { continue }
            try FileSystem.removeTree(root + "/" + name)
            removed.append(root + "/" + name)
        }
        return removed
    }
}
