import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A validated artifact, mapped into memory read-only (see ``ArtifactFormat``).
///
/// Opening maps the file and checks its header, trailer, directory and metadata (the trailer
/// checksum covers them, with every column's checksum) and its zero padding; a column's own
/// checksum is verified the first time the column is handed out, so its first read is its check
/// and columns the stage never asks for are never read. Column views point into the mapping and
/// live as long as this object. Mapping instead of reading saves a copy of every byte and the page
/// faults of a fresh buffer; each column's pages are populated when it is verified. Artifacts are
/// only ever replaced by rename (``AtomicFile``), never rewritten in place, so a mapping keeps
/// seeing the complete file it opened. Files that cannot be mapped are read.
public final class ArtifactFile {
    public struct ColumnInfo {
        public var name: String
        public var type: ColumnType
        public var count: Int
        public var offset: Int
        public var length: Int
        /// XXH64 of the column's data, from the directory.
        public var checksum: UInt64
    }

    public let path: String
    public let kind: ArtifactKind
    public let rowCount: Int
    public let metadata: JSONValue
    /// The trailer's XXH64 (of the header, metadata and directory, column checksums included):
    /// it changes with any byte of the file's content.
    public let checksum: UInt64
    public let size: Int
    public let columns: [ColumnInfo]
    private let storage: UnsafeRawBufferPointer
    /// Whether `storage` is a mapping (else a malloc'ed copy).
    private let mapped: Bool
    /// Per column: whether its checksum has been verified.
    private let verified: Mutex<[Bool]>

    /// Loads and validates an artifact (its columns are verified when first used).
    ///
    /// - Parameter expected: the kind the caller needs; any other kind is an error naming both.
    public init(path: String, expected: ArtifactKind?) throws(ArtifactError) {
        self.path = path
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ArtifactError.cannotOpen(path: path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            throw ArtifactError.cannotOpen(path: path, reason: String(cString: strerror(errno)))
        }
        let size = Int(st.st_size)
        self.size = size
        guard size >= ArtifactFormat.headerSize + ArtifactFormat.trailerSize else {
            if size >= 8 {
                var head = [UInt8](repeating: 0, count: 8)
                _ = read(fd, &head, 8)
                if head != ArtifactFormat.magic { throw ArtifactError.badMagic(path: path) }
            }
            throw ArtifactError.truncated(path: path, detail: "\(size) bytes, shorter than header and trailer")
        }
        let storage: UnsafeRawBufferPointer
        var mapped = false
        let map = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0)
        if let map, map != MAP_FAILED {
            storage = UnsafeRawBufferPointer(start: map, count: size)
            mapped = true
        } else {
            var raw: UnsafeMutableRawPointer?
            guard posix_memalign(&raw, ArtifactFormat.alignment, size) == 0, let base = raw else {
                throw ArtifactError.cannotOpen(path: path, reason: "out of memory for \(size) bytes")
            }
            var done = 0
            while done < size {
                let n = read(fd, base + done, size - done)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 {
                    free(base)
                    throw ArtifactError.cannotOpen(
                        path: path, reason: n < 0 ? String(cString: strerror(errno)) : "short read")
                }
                done += n
            }
            storage = UnsafeRawBufferPointer(start: base, count: size)
        }
        do {
            let parsed = try ArtifactFile.validate(storage, path: path, expected: expected)
            self.storage = storage
            self.mapped = mapped
            kind = parsed.kind
            rowCount = parsed.rowCount
            metadata = parsed.metadata
            checksum = parsed.checksum
            columns = parsed.columns
            verified = Mutex([Bool](repeating: false, count: parsed.columns.count))
        } catch {
            ArtifactFile.release(storage, mapped: mapped)
            throw error
        }
    }

    deinit { ArtifactFile.release(storage, mapped: mapped) }

    private static func release(_ storage: UnsafeRawBufferPointer, mapped: Bool) {
        if mapped {
            munmap(UnsafeMutableRawPointer(mutating: storage.baseAddress), storage.count)
        } else {
            free(UnsafeMutableRawPointer(mutating: storage.baseAddress))
        }
    }

    private static func validate(_ buf: UnsafeRawBufferPointer, path: String, expected: ArtifactKind?)
        throws(ArtifactError) -> (
            kind: ArtifactKind, rowCount: Int, metadata: JSONValue, checksum: UInt64, columns: [ColumnInfo]
        )
    {
        let size = buf.count
        let base = buf.baseAddress!
        func u64(_ at: Int) -> Int {
            Int(truncatingIfNeeded: UInt64(littleEndian: base.loadUnaligned(fromByteOffset: at, as: UInt64.self)))
        }
        guard Array(UnsafeRawBufferPointer(start: base, count: 8)) == ArtifactFormat.magic else {
            throw ArtifactError.badMagic(path: path)
        }
        let version = UInt16(littleEndian: base.loadUnaligned(fromByteOffset: 8, as: UInt16.self))
        guard version == ArtifactFormat.version else {
            throw ArtifactError.unsupportedVersion(path: path, found: version)
        }
        let declared = u64(48)
        guard declared == size else {
            throw ArtifactError.truncated(path: path, detail: "header declares \(declared) bytes, file has \(size)")
        }
        let trailer = size - ArtifactFormat.trailerSize
        guard Array(UnsafeRawBufferPointer(start: base + trailer, count: 8)) == ArtifactFormat.trailerMagic,
            u64(trailer + 16) == size, u64(trailer + 24) == 0
        else {
            throw ArtifactError.truncated(path: path, detail: "trailer missing or damaged")
        }
        let columnCount = Int(UInt32(littleEndian: base.loadUnaligned(fromByteOffset: 12, as: UInt32.self)))
        let metaOffset = u64(24)
        let metaLength = u64(32)
        let dirOffset = u64(40)
        // The checksummed tail: metadata, padding, directory — right before the trailer.
        guard metaOffset >= ArtifactFormat.headerSize, metaLength >= 0, metaOffset <= trailer,
            dirOffset >= metaOffset, dirOffset + columnCount &* ArtifactFormat.directoryEntrySize == trailer,
            metaOffset + metaLength <= dirOffset
        else {
            throw ArtifactError.malformed(path: path, detail: "directory or metadata out of bounds")
        }
        let stored = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: trailer + 8, as: UInt64.self))
        var hasher = XXHash64(seed: 0)
        hasher.update(UnsafeRawBufferPointer(start: base, count: ArtifactFormat.headerSize))
        hasher.update(UnsafeRawBufferPointer(start: base + metaOffset, count: trailer - metaOffset))
        let computed = hasher.finalize()
        guard stored == computed else {
            throw ArtifactError.checksumMismatch(path: path, stored: stored, computed: computed)
        }
        guard u64(56) == 0 else { throw ArtifactError.malformed(path: path, detail: "reserved header field is not 0") }
        let rawKind = UInt16(littleEndian: base.loadUnaligned(fromByteOffset: 10, as: UInt16.self))
        guard let kind = ArtifactKind(rawValue: rawKind) else {
            throw ArtifactError.malformed(path: path, detail: "unknown artifact kind \(rawKind)")
        }
        if let expected, expected != kind {
            throw ArtifactError.wrongKind(path: path, expected: expected, found: kind.description)
        }
        let rowCount = u64(16)
        let metadata: JSONValue
        do {
            metadata = try JSONParser.parse(
                bytes: UnsafeBufferPointer(
                    start: (base + metaOffset).assumingMemoryBound(to: UInt8.self), count: metaLength))
        } catch {
            throw ArtifactError.malformed(path: path, detail: "metadata is not valid JSON (\(error))")
        }
        func zeros(_ from: Int, _ to: Int) -> Bool {
            for i in from..<to where base.load(fromByteOffset: i, as: UInt8.self) != 0 { return false }
            return true
        }
        guard zeros(metaOffset + metaLength, dirOffset) else {
            throw ArtifactError.malformed(path: path, detail: "padding after the metadata is not zero")
        }
        var columns: [ColumnInfo] = []
        // Columns lie in directory order from the header on, each at the next 64-byte boundary.
        var end = ArtifactFormat.headerSize
        for i in 0..<columnCount {
            let e = dirOffset + i * ArtifactFormat.directoryEntrySize
            let nameBytes = Array(UnsafeRawBufferPointer(start: base + e, count: ArtifactFormat.maxColumnNameBytes))
            let name = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
            guard let type = ColumnType(rawValue: base.load(fromByteOffset: e + 32, as: UInt8.self)) else {
                throw ArtifactError.malformed(path: path, detail: "column '\(name)' has an unknown type")
            }
            let count = u64(e + 40)
            let offset = u64(e + 48)
            let length = u64(e + 56)
            let sum = UInt64(truncatingIfNeeded: u64(e + 64))
            let aligned = (end + ArtifactFormat.alignment - 1) / ArtifactFormat.alignment * ArtifactFormat.alignment
            guard count >= 0, offset == aligned, length == count &* type.byteWidth, offset + length <= metaOffset
            else {
                throw ArtifactError.malformed(path: path, detail: "column '\(name)' out of bounds")
            }
            guard zeros(end, offset) else {
                throw ArtifactError.malformed(path: path, detail: "padding before column '\(name)' is not zero")
            }
            end = offset + length
            columns.append(
                ColumnInfo(name: name, type: type, count: count, offset: offset, length: length, checksum: sum))
        }
        guard zeros(end, metaOffset),
            (end + ArtifactFormat.alignment - 1) / ArtifactFormat.alignment * ArtifactFormat.alignment == metaOffset
        else {
            throw ArtifactError.malformed(path: path, detail: "padding before the metadata is not zero")
        }
        return (kind, rowCount, metadata, stored, columns)
    }

    /// Verifies column `index`'s checksum unless that was done already (populating its pages).
    private func verify(_ index: Int) throws(ArtifactError) {
        if verified.withLock({ $0[index] }) { return }
        let info = columns[index]
        let start = storage.baseAddress! + info.offset
        #if os(Linux)
            if mapped && info.length >= 1 << 16 {
                // Fault the column's pages in one call rather than one page at a time (Linux ≥ 5.14;
                // elsewhere, and on macOS, which has no MADV_POPULATE_READ, the hash below faults them).
                let page = Int(sysconf(Int32(_SC_PAGESIZE)))
                let lo = info.offset / page * page
                _ = madvise(
                    UnsafeMutableRawPointer(mutating: storage.baseAddress! + lo), info.offset + info.length - lo,
                    MADV_POPULATE_READ)
            }
        #endif
        let computed = XXHash64.hash(UnsafeRawBufferPointer(start: start, count: info.length))
        guard computed == info.checksum else {
            throw ArtifactError.checksumMismatch(
                path: path, stored: info.checksum, computed: computed, column: info.name)
        }
        verified.withLock { $0[index] = true }
    }

    /// Verifies every column not verified yet (what a reader of the whole file would check).
    ///
    /// The columns are shared out over the threads, largest first to the least loaded (hashing is
    /// bound by one multiplier per core, not by memory); when several fail, the error is the
    /// first failing column's, as one thread would report.
    public func verifyAllColumns() throws(ArtifactError) {
        let workers = min(Parallel.threadCount, columns.count)
        guard workers > 1, size >= 1 << 23 else {
            for i in columns.indices { try verify(i) }
            return
        }
        var share = [[Int]](repeating: [], count: workers)
        var load = [Int](repeating: 0, count: workers)
        for i in columns.indices.sorted(by: { (columns[$0].length, $1) > (columns[$1].length, $0) }) {
            let w = load.indices.min { load[$0] < load[$1] }!
            share[w].append(i)
            load[w] += columns[i].length
        }
        var failures = [(column: Int, error: ArtifactError)?](repeating: nil, count: workers)
        failures.withUnsafeMutableBufferPointer { failures in
            let failures = failures
            Parallel.forEach(workers) { w in
                for i in share[w].sorted() {
                    do throws(ArtifactError) {
                        try verify(i)
                    } catch {
                        failures[w] = (i, error)
                        return
                    }
                }
            }
        }
        if let first = failures.compactMap({ $0 }).min(by: { $0.column < $1.column }) { throw first.error }
    }

    /// The identity of an artifact file: a ``ContentHash`` of its header, metadata, directory and
    /// trailer (which hold every column's checksum), with its size — what `regionsearch run`
    /// records for an artifact, read from a few kilobytes instead of hashing the whole file.
    /// With `verifyingColumns` every column is checked against its checksum as well, so the
    /// identity then stands for the complete content (a damaged column is an error naming it).
    public static func identity(path: String, verifyingColumns: Bool) throws(ArtifactError) -> (
        hash: ContentHash, size: Int
    ) {
        let file = try ArtifactFile(path: path, expected: nil)
        if verifyingColumns { try file.verifyAllColumns() }
        return (file.identity, file.size)
    }

    /// See ``identity(path:verifyingColumns:)``.
    public var identity: ContentHash {
        let base = storage.baseAddress!
        let metaOffset = Int(UInt64(littleEndian: base.loadUnaligned(fromByteOffset: 24, as: UInt64.self)))
        var hasher = ContentHasher()
        hasher.update("regionsearch artifact identity 1")
        hasher.update(UnsafeRawBufferPointer(start: base, count: ArtifactFormat.headerSize))
        hasher.update(UnsafeRawBufferPointer(start: base + metaOffset, count: size - metaOffset))
        return hasher.finalize()
    }

    /// Whether a column of this name exists.
    public func hasColumn(_ name: String) -> Bool { columns.contains { $0.name == name } }

    /// A typed view of a column, verified against its checksum; valid while this object is alive.
    public func column<T: ArtifactScalar>(_ name: String, as: T.Type = T.self) throws(ArtifactError)
        -> UnsafeBufferPointer<T>
    {
        guard let index = columns.firstIndex(where: { $0.name == name }) else {
            throw ArtifactError.missingColumn(path: path, name: name)
        }
        let info = columns[index]
        guard info.type == T.columnType else {
            throw ArtifactError.columnType(path: path, name: name, expected: T.columnType, found: info.type)
        }
        try verify(index)
        let p = (storage.baseAddress! + info.offset).assumingMemoryBound(to: T.self)
        return UnsafeBufferPointer(start: p, count: info.count)
    }

    /// A column copied into an array, checked to have `count` elements.
    public func array<T: ArtifactScalar>(_ name: String, as: T.Type = T.self, count: Int? = nil) throws(ArtifactError)
        -> [T]
    {
        let view = try column(name, as: T.self)
        if let count, view.count != count {
            throw ArtifactError.malformed(
                path: path, detail: "column '\(name)' has \(view.count) entries, expected \(count)")
        }
        return Array(view)
    }

    /// A string column (see ``StringColumn``), validated for monotone offsets.
    public func strings(_ name: String, count: Int? = nil) throws(ArtifactError) -> StringColumn {
        let offsets = try array(name + ".offsets", as: UInt64.self)
        let bytes = try array(name + ".bytes", as: UInt8.self)
        guard let last = offsets.last, offsets.first == 0, Int(last) == bytes.count else {
            throw ArtifactError.malformed(path: path, detail: "string column '\(name)' has inconsistent offsets")
        }
        for i in 1..<offsets.count where offsets[i] < offsets[i - 1] {
            throw ArtifactError.malformed(path: path, detail: "string column '\(name)' has decreasing offsets")
        }
        if let count, offsets.count != count + 1 {
            throw ArtifactError.malformed(
                path: path, detail: "string column '\(name)' has \(offsets.count - 1) entries, expected \(count)")
        }
        return StringColumn(offsets: offsets, bytes: bytes)
    }

    /// A required metadata member, with an error naming the file when it is missing.
    public func meta(_ key: String) throws(ArtifactError) -> JSONValue {
        guard let v = metadata[key] else {
            throw ArtifactError.malformed(path: path, detail: "metadata has no '\(key)'")
        }
        return v
    }
}
