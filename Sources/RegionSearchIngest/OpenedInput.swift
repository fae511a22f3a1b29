import RegionSearchCore

#if canImport(Glibc)
    import Glibc
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
        let (hash, size) = try hashFile(spec.path)
        var format = spec.format
        let probe = try ByteReader(path: spec.path)
        let isGzip = probe.isGzip
        if format == .auto {
            var prefix = [UInt8](repeating: 0, count: InputFormatDetector.prefixLength)
            var filled = 0
            while filled < prefix.count {
                let n = try prefix.withUnsafeMutableBytes { raw in
                    try probe.read(into: UnsafeMutableRawBufferPointer(rebasing: raw[filled...]))
                }
                if n == 0 { break }
                filled += n
            }
            format = InputFormatDetector.detect(Array(prefix[0..<filled]))
        }
        try spec.checkApplicable(to: InputFormatDetector.family(of: format))
        let source: RecordSource
        switch format {
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
            spec: spec, format: format, source: source, contentHash: hash, fileSize: size, isGzip: isGzip)
    }

    static func osmOptions(_ spec: InputSpec) -> OSMOptions {
        var o = OSMOptions()
        if let v = spec.osm.poiKeys { o.poiKeys = v }
        if let v = spec.osm.keywordKeys { o.keywordKeys = v }
        if let v = spec.osm.nameKey { o.nameKey = v }
        return o
    }

    /// The ``ContentHash`` and size of a file's bytes as stored.
    public static func hashFile(_ path: String) throws -> (ContentHash, UInt64) {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw InputError.cannotOpen(path: path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        var st = stat()
        fstat(fd, &st)
        if (st.st_mode & S_IFMT) == S_IFDIR { throw InputError.cannotOpen(path: path, reason: "is a directory") }
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
