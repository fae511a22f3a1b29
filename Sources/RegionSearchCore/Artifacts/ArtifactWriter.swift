/// Builds an artifact from in-memory columns and writes it atomically (see ``ArtifactFormat``).
///
/// Columns are kept by reference (Swift arrays are copy-on-write), so adding a column copies
/// nothing; `write(to:)` streams them to disk once while computing their checksums.
public struct ArtifactWriter {
    private struct Entry {
        var name: String
        var type: ColumnType
        var count: Int
        var withBytes: ((UnsafeRawBufferPointer) throws -> Void) throws -> Void
    }

    public let kind: ArtifactKind
    public var rowCount: Int
    public var metadata: JSONValue
    private var columns: [Entry] = []

    public init(kind: ArtifactKind, rowCount: Int, metadata: JSONValue = .object([])) {
        self.kind = kind
        self.rowCount = rowCount
        self.metadata = metadata
    }

    /// Adds a numeric column.
    public mutating func add<T: ArtifactScalar>(_ name: String, _ values: [T]) {
        precondition(name.utf8.count <= ArtifactFormat.maxColumnNameBytes, "column name too long: \(name)")
        precondition(!columns.contains { $0.name == name }, "duplicate column \(name)")
        columns.append(
            Entry(name: name, type: T.columnType, count: values.count) { (body) throws in
                try values.withUnsafeBytes { (raw) throws in try body(raw) }
            })
    }

    /// Adds a numeric column from memory that `owner` keeps valid (a mapped artifact's column).
    public mutating func add<T: ArtifactScalar>(
        _ name: String, _ values: UnsafeBufferPointer<T>, keepingAlive owner: Any
    ) {
        precondition(name.utf8.count <= ArtifactFormat.maxColumnNameBytes, "column name too long: \(name)")
        precondition(!columns.contains { $0.name == name }, "duplicate column \(name)")
        columns.append(
            Entry(name: name, type: T.columnType, count: values.count) { (body) throws in
                try withExtendedLifetime(owner) { try body(UnsafeRawBufferPointer(values)) }
            })
    }

    /// Adds a string column as `NAME.offsets` and `NAME.bytes`.
    public mutating func add(_ name: String, _ strings: StringColumn) {
        add(name + ".offsets", strings.offsets)
        add(name + ".bytes", strings.bytes)
    }

    /// Size in bytes of the file `write(to:)` produces.
    var encodedSize: Int { layout().total }

    private static func align(_ x: Int, _ to: Int = ArtifactFormat.alignment) -> Int { (x + to - 1) / to * to }

    private func metadataBytes() -> [UInt8] { Array(metadata.serialized(sortedKeys: true).utf8) }

    private func layout() -> (columns: [Int], meta: Int, metaLength: Int, directory: Int, total: Int) {
        var offset = ArtifactFormat.headerSize
        var offsets: [Int] = []
        for c in columns {
            offsets.append(offset)
            offset = Self.align(offset + c.count * c.type.byteWidth)
        }
        let meta = offset
        let metaLength = metadataBytes().count
        let directory = Self.align(meta + metaLength, 8)
        let total = directory + columns.count * ArtifactFormat.directoryEntrySize + ArtifactFormat.trailerSize
        return (offsets, meta, metaLength, directory, total)
    }

    /// Writes the artifact atomically and returns its size and checksum (the trailer's). Each
    /// column is hashed as it is written (its checksum goes into the directory at the end).
    @discardableResult
    public func write(to path: String) throws -> (size: Int, checksum: UInt64) {
        let (offsets, meta, metaLength, directory, total) = layout()
        let file = try AtomicFile(path: path)
        var position = 0

        func emit(_ raw: UnsafeRawBufferPointer) throws {
            try file.write(raw)
            position += raw.count
        }
        func emit(_ bytes: [UInt8]) throws {
            try bytes.withUnsafeBytes { (raw) throws in try emit(raw) }
        }
        func padTo(_ target: Int) throws {
            if target > position { try emit([UInt8](repeating: 0, count: target - position)) }
        }

        var header = ByteWriter()
        header.append(ArtifactFormat.magic)
        header.append(UInt16(ArtifactFormat.version))
        header.append(kind.rawValue)
        header.append(UInt32(columns.count))
        header.append(UInt64(rowCount))
        header.append(UInt64(meta))
        header.append(UInt64(metaLength))
        header.append(UInt64(directory))
        header.append(UInt64(total))
        header.append(UInt64(0))
        do {
            try emit(header.bytes)
            var sums: [UInt64] = []
            for (c, offset) in zip(columns, offsets) {
                try padTo(offset)
                var hasher = XXHash64(seed: 0)
                try c.withBytes { (raw) throws in
                    hasher.update(raw)
                    try emit(raw)
                }
                sums.append(hasher.finalize())
            }
            try padTo(meta)
            var tail = ByteWriter()
            tail.append(metadataBytes())
            tail.append([UInt8](repeating: 0, count: directory - meta - metaLength))
            for ((c, offset), sum) in zip(zip(columns, offsets), sums) {
                var name = Array(c.name.utf8)
                name += [UInt8](repeating: 0, count: ArtifactFormat.maxColumnNameBytes - name.count)
                tail.append(name)
                tail.append([c.type.rawValue, 0, 0, 0, 0, 0, 0, 0])
                tail.append(UInt64(c.count))
                tail.append(UInt64(offset))
                tail.append(UInt64(c.count * c.type.byteWidth))
                tail.append(sum)
                tail.append([UInt8](repeating: 0, count: 24))
            }
            try emit(tail.bytes)
            var hasher = XXHash64(seed: 0)
            header.bytes.withUnsafeBytes { hasher.update($0) }
            tail.bytes.withUnsafeBytes { hasher.update($0) }
            let checksum = hasher.finalize()
            var trailer = ByteWriter()
            trailer.append(ArtifactFormat.trailerMagic)
            trailer.append(checksum)
            trailer.append(UInt64(total))
            trailer.append(UInt64(0))
            try file.write(trailer.bytes)
            try file.commit()
            return (total, checksum)
        } catch {
            file.discard()
            throw error
        }
    }
}

/// Little-endian byte accumulation for headers.
struct ByteWriter {
    var bytes: [UInt8] = []

    mutating func append(_ b: [UInt8]) { bytes += b }

    mutating func append<T: FixedWidthInteger>(_ v: T) {
        var le = v.littleEndian
        withUnsafeBytes(of: &le) { bytes.append(contentsOf: $0) }
    }
}
