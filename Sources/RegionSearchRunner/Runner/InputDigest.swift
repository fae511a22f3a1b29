import RegionSearchCore
import RegionSearchIngest

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The digest that keys a raw input in ingest's stage key.
///
/// A file: its content (``FileDigest``). A Shapefile or MapInfo table: the content of every
/// file of its set (`.shp .shx .dbf .prj .cpg`), so that an edited `.dbf` reruns ingest. A
/// directory (a folder of Shapefiles, a FileGDB): its regular files. A database (`PG:`): a value
/// unique to this process — a database's content cannot be hashed without reading it, so ingest
/// reads it on every run; the stages after it still skip when the POIs it wrote are the same.
public enum InputDigest {
    /// Whether the input has no content of its own to hash (a database connection).
    static func isVolatile(_ path: String) -> Bool { InputSpec.isConnectionString(path) }

    /// The input's digest; `hashing` gives each file's (a ``DigestCache`` during a run, so that a
    /// file is read once per run).
    public static func of(
        path: String,
        hashing: (String) throws(FileDigest.Failure) -> FileDigest = { p throws(FileDigest.Failure) in
            try FileDigest.of(path: p)
        }
    ) throws(FileDigest.Failure) -> FileDigest {
        if isVolatile(path) {
            var hasher = ContentHasher()
            let nonce = Array("\(path)\n\(getpid())\n\(monotonicSeconds())\n\(UInt64.random(in: 0...UInt64.max))".utf8)
            nonce.withUnsafeBytes { hasher.update($0) }
            return FileDigest(hash: hasher.finalize(), size: 0)
        }
        var st = stat()
        let isDirectory = stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
        let members: [String]
        if isDirectory {
            members = FileSystem.list(path).filter { name in
                var s = stat()
                return stat(path + "/" + name, &s) == 0 && (s.st_mode & S_IFMT) == S_IFREG
            }.map { path + "/" + $0 }
        } else {
            members = OpenedInput.sourceFiles(path)
        }
        if members.count == 1 && !isDirectory { return try hashing(path) }
        var hasher = ContentHasher()
        var size = 0
        for file in members {
            let d = try hashing(file)
            let name = isDirectory ? AtomicFile.baseName(of: file) : OpenedInput.hashName(of: file, input: path)
            let line = Array("\(name) \(d.hash) \(d.size)\n".utf8)
            line.withUnsafeBytes { hasher.update($0) }
            size += d.size
        }
        return FileDigest(hash: hasher.finalize(), size: size)
    }
}
