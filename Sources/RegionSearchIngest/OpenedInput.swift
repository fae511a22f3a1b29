import RegionSearchCore
import RegionSearchGDAL

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An input file opened for reading: its resolved format and the reader over it.
public struct OpenedInput {
    public let spec: InputSpec
    /// The concrete format (never `auto`).
    public let format: InputSpec.Format
    var family: InputSpec.Family { InputFormatDetector.family(of: format) }
    public let source: RecordSource
    /// Content hash of the file as stored (compressed bytes for gzip input).
    public let contentHash: ContentHash
    public let fileSize: UInt64
    public let isGzip: Bool
    /// The input's files with their signatures taken before the hash (``checkUnchanged()``): it
    /// is hashed first and parsed afterwards, both by its path, so a file written, truncated,
    /// grown or replaced in between would give POIs that match neither the recorded hash nor any
    /// one state of the file.
    let stamps: [(path: String, stamp: FileSignature?)]
    /// The private copy read instead of a database with a write-ahead log; removed by
    /// ``checkUnchanged()``, which ends the reading.
    let snapshot: DatabaseSnapshot?

    /// The delimiter in use, for delimited text.
    public var delimiter: UInt8? { (source as? DelimitedReader)?.delimiter }
    /// The header line as in the file, for delimited text with a header.
    var headerText: String? { (source as? DelimitedReader)?.headerText }

    /// Opens `spec.path`: hashes the file, detects the format when `auto`, checks the spec's
    /// keys against it, and creates the reader.
    ///
    /// - Throws: ``InputError`` when the file cannot be read or the format is unsupported;
    ///   `UsageError` when the spec does not fit the file (a column that is not in the header,
    ///   a delimited-text key for GeoJSON, …).
    public static func open(_ spec: InputSpec) throws -> OpenedInput {
        // A database or a directory (a folder of Shapefiles, a FileGDB) is read through OGR and
        // has no bytes of its own to sniff.
        if InputSpec.isConnectionString(spec.path) || isDirectory(spec.path) {
            try spec.checkApplicable(to: .ogr)
            let stamps = stamps(
                InputSpec.isConnectionString(spec.path)
                    ? [] : DirectoryListing.regularFiles(spec.path).map { spec.path + "/" + $0 })
            let (hash, size) = try hashSource(spec.path)
            return OpenedInput(
                spec: spec, format: .ogr, source: try OGRReader(spec: spec, fileSize: size), contentHash: hash,
                fileSize: size, isGzip: false, stamps: stamps, snapshot: nil)
        }
        let stamps = stamps(watchedFiles(spec.path))
        var (hash, size) = try hashFile(spec.path)
        var format = spec.format
        let probe = try ByteReader(path: spec.path)
        let isGzip = probe.isGzip
        if format != .ogr {
            var prefix = [UInt8](repeating: 0, count: InputFormatDetector.prefixLength)
            var filled = 0
            while filled < prefix.count {
                let n = try prefix.withUnsafeMutableBytes { raw in
                    try probe.read(into: UnsafeMutableRawBufferPointer(rebasing: raw[filled...]))
                }
                if n == 0 { break }
                filled += n
            }
            let head = Array(prefix[0..<filled])
            if format == .auto {
                format = try InputFormatDetector.detect(head, path: spec.path)
            } else if format == .csv || format == .geojson {
                try InputFormatDetector.checkText(head, format: format, path: spec.path)
            }
        }
        if format == .ogr, spec.path.lowercased().hasSuffix(".shp"),
            !Self.sourceFiles(spec.path).contains(where: { $0.lowercased().hasSuffix(".dbf") })
        {
            // GDAL reads the geometry alone, with no fields: every POI without id, name or keyword.
            throw InputError.unsupported(
                path: spec.path,
                reason:
                    "has no .dbf beside it (the Shapefile's attributes: ids, names and keywords); copy the .dbf "
                    + "of the same name with the .shp")
        }
        // A rollback journal beside an SQLite database: a writer's transaction is open, or was cut
        // off (a hot journal, which only a writer rolls back); GDAL said "attempt to write a
        // readonly database".
        if format == .ogr, let log = DatabaseSnapshot.writeAheadLog(of: spec.path) {
            let journal = String(log.dropLast(4)) + "-journal"
            var st = stat()
            if stat(journal, &st) == 0, st.st_size > 0 {
                throw InputError.unsupported(
                    path: spec.path,
                    reason:
                        "has a rollback journal (\(AtomicFile.baseName(of: journal))): a writer's transaction "
                        + "is open, or was cut off by a crash; run again when the writer is done, or open the file once "
                        + "in a writer (QGIS, sqlite3), which rolls the cut-off transaction back")
            }
        }
        var snapshot: DatabaseSnapshot?
        if format == .ogr, let log = DatabaseSnapshot.committedLog(of: spec.path) {
            let copy: DatabaseSnapshot
            do {
                copy = try DatabaseSnapshot(copying: spec.path, log: log, stamps: stamps)
            } catch {
                switch error {
                case .cannotCopy(let path, let reason): throw InputError.cannotOpen(path: path, reason: reason)
                case .changed(let path): throw InputError.changedWhileRead(path: path)
                }
            }
            (hash, size) = try hashFiles(copy.path)
            snapshot = copy
        } else if format == .ogr, Self.sourceFiles(spec.path).count > 1 {
            (hash, size) = try hashFiles(spec.path)
        }
        if format == .ogr && isGzip {
            throw InputError.unsupported(
                path: spec.path, reason: "gzip-compressed input is not read through GDAL; decompress it first")
        }
        try spec.checkApplicable(to: InputFormatDetector.family(of: format))
        let source: RecordSource
        switch format {
        case .ogr:
            source = try OGRReader(spec: spec, fileSize: size, snapshot: snapshot)
        case .auto, .csv:
            source = try DelimitedReader(reader: ByteReader(path: spec.path), spec: spec)
        case .geojson:
            source = try GeoJSONReader(reader: ByteReader(path: spec.path), spec: spec)
        case .osmPBF:
            if isGzip {
                throw InputError.unsupported(
                    path: spec.path,
                    reason:
                        "gzip-compressed OSM PBF is not supported (PBF blocks are compressed already); decompress "
                        + "the file first"
                )
            }
            source = try OSMPBFReader(path: spec.path, options: osmOptions(spec))
        case .osmXML:
            source = try OSMXMLReader(reader: ByteReader(path: spec.path), options: osmOptions(spec))
        }
        return OpenedInput(
            spec: spec, format: format, source: source, contentHash: hash, fileSize: size, isGzip: isGzip,
            stamps: stamps, snapshot: snapshot)
    }

    static func stamps(_ files: [String]) -> [(path: String, stamp: FileSignature?)] {
        files.map { ($0, stamp(of: $0)) }
    }

    /// The file's signature; nil when it does not exist, and for a database's write-ahead log
    /// (`-wal`) also when it is empty: SQLite creates an empty log when GDAL opens a WAL-mode
    /// GeoPackage to read it, and removes it at the close, with nothing in it either way.
    static func stamp(of path: String) -> FileSignature? {
        path.hasSuffix("-wal") ? DatabaseSnapshot.signature(of: path) : FileSignature.current(path: path)
    }

    /// Throws when a file of the input is no longer what it was when it was opened (written,
    /// truncated, grown or replaced while it was read): its POIs would match neither the hash
    /// recorded for it nor any one state of the file.
    public func checkUnchanged() throws {
        // The reading is over: the copy goes now (a stage process exits without deinitialisers,
        // and left a copy of the database in TMPDIR every night).
        snapshot?.remove()
        for (path, stamp) in stamps where Self.stamp(of: path) != stamp {
            throw InputError.changedWhileRead(path: path)
        }
    }

    static func osmOptions(_ spec: InputSpec) -> OSMOptions {
        var o = OSMOptions()
        if let v = spec.osm.poiKeys { o.poiKeys = v }
        if let v = spec.osm.keywordKeys { o.keywordKeys = v }
        if let v = spec.osm.nameKey { o.nameKey = v }
        return o
    }

    static func isDirectory(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
    }

    /// The content hash of a source that is not one file: a directory's regular files (names
    /// and bytes, in name order), or a connection string's text (password removed) — a
    /// database has no content to hash without reading it, so its POIs are read on every run.
    static func hashSource(_ path: String) throws -> (ContentHash, UInt64) {
        var hasher = ContentHasher()
        guard isDirectory(path) else {
            let text = Array(GDALLibrary.redacted(path).utf8)
            text.withUnsafeBytes { hasher.update($0) }
            return (hasher.finalize(), 0)
        }
        var total: UInt64 = 0
        for name in DirectoryListing.regularFiles(path) {
            let (h, size) = try hashFile(path + "/" + name)
            let line = Array("\(name) \(h) \(size)\n".utf8)
            line.withUnsafeBytes { hasher.update($0) }
            total += size
        }
        return (hasher.finalize(), total)
    }

    /// The files a file input consists of: a Shapefile's `.shp` with its `.shx`, `.dbf`, `.prj`
    /// and `.cpg`, a MapInfo `.tab` with its `.dat`, `.map`, `.id` and `.ind`, an SQLite
    /// database's (a GeoPackage's) write-ahead log `-wal` when it holds commits (those that exist,
    /// in this order); any other file alone. A change to any of them is a changed input.
    ///
    /// The write-ahead log holds what a writer in WAL mode (QGIS editing a GeoPackage, a script
    /// that did not close it) committed since the last checkpoint: the database GDAL reads is the
    /// main file with those pages, while the main file's bytes stay as they were. Keyed by the
    /// main file alone, such an edit would leave the night's POIs as the night before. Found by
    /// the file's header, whatever its name (``DatabaseSnapshot/committedLog(of:)``).
    public static func sourceFiles(_ path: String) -> [String] {
        let lower = path.lowercased()
        let sidecars: [String]
        if let log = DatabaseSnapshot.committedLog(of: path) {
            return [path, log]
        } else if lower.hasSuffix(".shp") {
            sidecars = ["shx", "dbf", "prj", "cpg"]
        } else if lower.hasSuffix(".tab") {
            sidecars = ["dat", "map", "id", "ind"]
        } else {
            return [path]
        }
        let stem = String(path.dropLast(3))
        var out = [path]
        for ext in sidecars {
            // Lower case first, then upper, whatever the main file's case, as GDAL's shapelib
            // looks for them: the file hashed is the one GDAL reads (`pts.shp` with `pts.DBF` is
            // read with its attributes; `pts.SHP` beside `pts.dbf` and `pts.DBF` reads `pts.dbf`).
            for candidate in [stem + ext, stem + ext.uppercased()] {
                var st = stat()
                if stat(candidate, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG {
                    out.append(candidate)
                    break
                }
            }
        }
        return out
    }

    /// The files whose change while the input is read makes the read worthless: its
    /// ``sourceFiles(_:)``, and a database's write-ahead log even while it is absent or empty, so
    /// that a writer committing during the read is seen.
    static func watchedFiles(_ path: String) -> [String] {
        let files = sourceFiles(path)
        guard let log = DatabaseSnapshot.writeAheadLog(of: path), !files.contains(log) else { return files }
        return files + [log]
    }

    /// The name a file of the input is hashed under: its own, but a database's write-ahead log as
    /// `<the input's name>-wal` (SQLite keeps it beside the file a link points to, under that
    /// file's name), so that the same bytes hash the same through a link and in a copy.
    public static func hashName(of file: String, input path: String) -> String {
        file != path && file.hasSuffix("-wal") && DatabaseSnapshot.writeAheadLog(of: path) == file
            ? AtomicFile.baseName(of: path) + "-wal" : AtomicFile.baseName(of: file)
    }

    /// The hash of a file input with its sidecars (``sourceFiles(_:)``).
    static func hashFiles(_ path: String) throws -> (ContentHash, UInt64) {
        var hasher = ContentHasher()
        var total: UInt64 = 0
        for file in sourceFiles(path) {
            let (h, size) = try hashFile(file)
            let line = Array("\(hashName(of: file, input: path)) \(h) \(size)\n".utf8)
            line.withUnsafeBytes { hasher.update($0) }
            total += size
        }
        return (hasher.finalize(), total)
    }

    /// The ``ContentHash`` and size of a file's bytes as stored.
    ///
    /// Only a regular file: it is read twice (hashed here, then parsed), `/dev/zero` never ends
    /// and a FIFO could not be read again — the same rule as the runner's (`FileDigest`), so the
    /// stage run by hand refuses what `regionsearch run` refuses (exit 3) instead of reading
    /// forever. Opened non-blocking, so a FIFO without a writer does not hang the check.
    public static func hashFile(_ path: String) throws -> (ContentHash, UInt64) {
        #if canImport(Glibc)
            let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        #else
            let fd = Darwin.open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        #endif
        guard fd >= 0 else { throw InputError.cannotOpen(path: path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            throw InputError.cannotOpen(path: path, reason: String(cString: strerror(errno)))
        }
        switch st.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: throw InputError.cannotOpen(path: path, reason: "is a directory")
        default:
            throw InputError.cannotOpen(
                path: path,
                reason:
                    "is not a regular file (a device, FIFO or socket); give a file, e.g. save a stream to disk first")
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        var hasher = ContentHasher()
        let chunk = 1 << 20
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: chunk, alignment: 16)
        defer { buffer.deallocate() }
        var total: UInt64 = 0
        while true {
            let n = read(fd, buffer, chunk)
            if n < 0 {
                if errno == EINTR { continue }
                throw InputError.readFailed(path: path, reason: String(cString: strerror(errno)))
            }
            if n == 0 { break }
            hasher.update(UnsafeRawBufferPointer(start: buffer, count: n))
            total += UInt64(n)
        }
        return (hasher.finalize(), total)
    }
}
