#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One framed blob of an OSM PBF file, decompressed.
struct PBFBlob {
    enum Kind: Equatable {
        case header
        case data
        /// A blob type this reader does not know; the format says to skip it.
        case other(String)
    }

    var kind: Kind
    /// File offset of the blob's 4-byte length prefix.
    var offset: UInt64
    /// File offset just past the blob.
    var nextOffset: UInt64
    /// Decompressed payload (empty for ``Kind/other``).
    var data: [UInt8]
}

/// Where one blob lies in a PBF file.
struct PBFBlobEntry {
    var kind: PBFBlob.Kind
    /// File offset of the blob's 4-byte length prefix.
    var offset: UInt64
    /// File offset and size of the `Blob` message.
    var dataOffset: UInt64
    var dataSize: Int
    /// File offset just past the blob.
    var nextOffset: UInt64
}

/// Random access to the blobs of an OSM PBF file: `[4-byte big-endian BlobHeader length]
/// [BlobHeader][Blob]`, repeated (https://wiki.openstreetmap.org/wiki/PBF_Format).
///
/// Sizes are capped as the format specifies (BlobHeader ≤ 64 KiB, Blob and its decompressed data
/// ≤ 32 MiB) and checked against the file size before anything is allocated, so a damaged or
/// hostile file cannot make the reader allocate more than 32 MiB at a time.
final class PBFBlobFile {
    static let maxHeaderSize = 64 * 1024
    static let maxBlobSize = 32 * 1024 * 1024

    let path: String
    let fileSize: UInt64
    private let fd: Int32
    private var buffer: [UInt8] = []

    init(path: String) throws {
        self.path = path
        fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw InputError.cannotOpen(path: path, reason: String(cString: strerror(errno))) }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw InputError.cannotOpen(path: path, reason: reason)
        }
        if (st.st_mode & S_IFMT) == S_IFDIR {
            close(fd)
            throw InputError.cannotOpen(path: path, reason: "is a directory")
        }
        fileSize = UInt64(max(0, st.st_size))
    }

    deinit { close(fd) }

    /// An error about the file's structure at `offset`.
    func damaged(_ offset: UInt64, _ what: String) -> InputError {
        .unsupported(path: path, reason: "damaged OSM PBF data at byte \(offset): \(what)")
    }

    /// Reads exactly `count` bytes at `offset` into the scratch buffer.
    private func readExactly(_ count: Int, at offset: UInt64) throws {
        if buffer.count < count { buffer = [UInt8](repeating: 0, count: max(count, buffer.count * 2)) }
        var done = 0
        try buffer.withUnsafeMutableBytes { dst in
            while done < count {
                let n = pread(fd, dst.baseAddress! + done, count - done, off_t(offset) + off_t(done))
                if n < 0 {
                    if errno == EINTR { continue }
                    throw InputError.readFailed(path: path, reason: String(cString: strerror(errno)))
                }
                if n == 0 {
                    throw damaged(
                        offset + UInt64(done), "file ends early (it may have been truncated or changed while reading)")
                }
                done += n
            }
        }
    }

    /// The framing of the blob at `offset` (its header is read and checked, its data is not),
    /// or nil at the end of the file. Not thread-safe.
    func entry(at offset: UInt64) throws -> PBFBlobEntry? {
        if offset == fileSize { return nil }
        guard offset < fileSize, fileSize - offset >= 4 else {
            throw damaged(offset, "\(fileSize - min(offset, fileSize)) stray bytes at the end of the file (truncated?)")
        }
        try readExactly(4, at: offset)
        let headerSize = Int(buffer[0]) << 24 | Int(buffer[1]) << 16 | Int(buffer[2]) << 8 | Int(buffer[3])
        guard headerSize > 0, headerSize <= PBFBlobFile.maxHeaderSize else {
            if offset == 0 { throw notPBF() }
            throw damaged(offset, "blob header length \(headerSize) is outside 1…65536 bytes")
        }
        let headerStart = offset + 4
        guard UInt64(headerSize) <= fileSize - headerStart else {
            if offset == 0 { throw notPBF() }
            throw damaged(offset, "blob header of \(headerSize) bytes runs past the end of the file (truncated?)")
        }
        try readExactly(headerSize, at: headerStart)
        let (type, dataSize) = try buffer.withUnsafeBytes { raw in
            try parseBlobHeader(UnsafeRawBufferPointer(rebasing: raw[0..<headerSize]), offset: offset)
        }
        let blobStart = headerStart + UInt64(headerSize)
        guard UInt64(dataSize) <= fileSize - blobStart else {
            throw damaged(offset, "blob of \(dataSize) bytes runs past the end of the file (truncated?)")
        }
        let kind: PBFBlob.Kind = type == "OSMHeader" ? .header : (type == "OSMData" ? .data : .other(type))
        if offset == 0 && kind != .header {
            throw InputError.unsupported(
                path: path, reason: "not an OSM PBF file: the first blob has type \"\(type)\", expected \"OSMHeader\"")
        }
        return PBFBlobEntry(
            kind: kind, offset: offset, dataOffset: blobStart, dataSize: dataSize,
            nextOffset: blobStart + UInt64(dataSize))
    }

    /// The still-compressed `Blob` message of an entry, in a fresh array. Not thread-safe.
    func payload(of entry: PBFBlobEntry) throws -> [UInt8] {
        try [UInt8](unsafeUninitializedCapacity: entry.dataSize) { out, count in
            var done = 0
            while done < entry.dataSize {
                let n = pread(fd, out.baseAddress! + done, entry.dataSize - done, off_t(entry.dataOffset) + off_t(done))
                if n < 0 {
                    if errno == EINTR { continue }
                    throw InputError.readFailed(path: path, reason: String(cString: strerror(errno)))
                }
                if n == 0 {
                    throw damaged(entry.offset, "file ends early (it may have been truncated or changed while reading)")
                }
                done += n
            }
            count = done
        }
    }

    /// The decompressed data of a `Blob` message. Thread-safe (touches no reader state).
    func decompress(_ payload: [UInt8], of entry: PBFBlobEntry) throws -> [UInt8] {
        try payload.withUnsafeBytes { try decodeBlob($0, offset: entry.offset) }
    }

    /// The blob at `offset`, decompressed, or nil at the end of the file. Not thread-safe.
    func blob(at offset: UInt64) throws -> PBFBlob? {
        guard let entry = try entry(at: offset) else { return nil }
        if case .other = entry.kind {
            return PBFBlob(kind: entry.kind, offset: offset, nextOffset: entry.nextOffset, data: [])
        }
        let data = try decompress(try payload(of: entry), of: entry)
        return PBFBlob(kind: entry.kind, offset: offset, nextOffset: entry.nextOffset, data: data)
    }

    private func notPBF() -> InputError {
        var magic = [UInt8](repeating: 0, count: 5)
        let n = pread(fd, &magic, 5, 0)
        if n >= 2 && magic[0] == 0x1F && magic[1] == 0x8B {
            return .unsupported(path: path, reason: "not an OSM PBF file: it is gzip-compressed (decompress it first)")
        }
        if n >= 1 && (magic[0] == UInt8(ascii: "<") || magic[0] == 0xEF) {
            return .unsupported(path: path, reason: "not an OSM PBF file: it looks like XML (read it as OSM XML)")
        }
        return .unsupported(
            path: path, reason: "not an OSM PBF file: the first 4 bytes are not a valid blob header length")
    }

    /// `BlobHeader { required string type = 1; optional bytes indexdata = 2; required int32 datasize = 3; }`
    private func parseBlobHeader(_ bytes: UnsafeRawBufferPointer, offset: UInt64) throws -> (String, Int) {
        var cursor = ProtobufCursor(bytes)
        var type: String?
        var dataSize: Int64?
        do {
            while !cursor.isAtEnd {
                let (field, wire) = try cursor.fieldKey()
                switch field {
                case 1:
                    try cursor.expect(.lengthDelimited, wire, field: field, in: "BlobHeader")
                    let raw = try cursor.bytes()
                    guard let s = String(validating: raw.assumingMemoryBound(to: UInt8.self), as: UTF8.self) else {
                        throw cursor.error("blob type is not UTF-8")
                    }
                    type = s
                case 3:
                    try cursor.expect(.varint, wire, field: field, in: "BlobHeader")
                    dataSize = try cursor.int64()
                default:
                    try cursor.skip(wire)
                }
            }
        } catch {
            if offset == 0 { throw notPBF() }
            throw damaged(offset, "blob header: \(error)")
        }
        guard let type, let dataSize else {
            if offset == 0 { throw notPBF() }
            throw damaged(offset, "blob header lacks its \(type == nil ? "type" : "data size")")
        }
        guard dataSize >= 0, dataSize <= PBFBlobFile.maxBlobSize else {
            throw damaged(offset, "blob size \(dataSize) is outside 0…32 MiB")
        }
        return (type, Int(dataSize))
    }

    /// `Blob { optional int32 raw_size = 2; oneof data { bytes raw = 1; bytes zlib_data = 3;
    /// bytes lzma_data = 4; bytes OBSOLETE_bzip2_data = 5; bytes lz4_data = 6; bytes zstd_data = 7; } }`
    private func decodeBlob(_ bytes: UnsafeRawBufferPointer, offset: UInt64) throws -> [UInt8] {
        var cursor = ProtobufCursor(bytes)
        var rawSize: Int64?
        var payload: (field: Int, bytes: UnsafeRawBufferPointer)?
        do {
            while !cursor.isAtEnd {
                let (field, wire) = try cursor.fieldKey()
                switch field {
                case 2:
                    try cursor.expect(.varint, wire, field: field, in: "Blob")
                    rawSize = try cursor.int64()
                case 1, 3, 4, 5, 6, 7:
                    try cursor.expect(.lengthDelimited, wire, field: field, in: "Blob")
                    guard payload == nil else { throw cursor.error("blob has more than one data field") }
                    payload = (field, try cursor.bytes())
                default:
                    try cursor.skip(wire)
                }
            }
        } catch {
            throw damaged(offset, "blob: \(error)")
        }
        guard let payload else { throw damaged(offset, "blob has no data field") }
        switch payload.field {
        case 1:
            return Array(payload.bytes)
        case 3:
            guard let rawSize else { throw damaged(offset, "zlib blob lacks its uncompressed size (raw_size)") }
            guard rawSize >= 0, rawSize <= PBFBlobFile.maxBlobSize else {
                throw damaged(offset, "uncompressed blob size \(rawSize) is outside 0…32 MiB")
            }
            guard let data = zlibInflate(payload.bytes, expectedSize: Int(rawSize)) else {
                throw damaged(
                    offset,
                    "the blob's zlib data is damaged (or does not inflate to the \(rawSize) bytes its header states)")
            }
            return data
        default:
            let names = [4: "LZMA", 5: "bzip2", 6: "LZ4", 7: "Zstandard (ZSTD)"]
            throw InputError.unsupported(
                path: path,
                reason:
                    "blob at byte \(offset) is \(names[payload.field]!)-compressed, which this reader does not support "
                    + "(only raw and zlib blobs); convert the file, e.g. `osmium cat IN -o OUT.osm.pbf`")
        }
    }
}
