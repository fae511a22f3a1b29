/// The on-disk layout shared by every intermediate artifact (`*.rsa`), format version 2.
///
/// ```
/// offset  size  field
/// 0       8     magic "RSARTIF\0"
/// 8       2     format version (u16, currently 2)
/// 10      2     kind (u16, see ArtifactKind)
/// 12      4     column count (u32)
/// 16      8     row count (u64): POIs, nodes or regions, depending on kind
/// 24      8     metadata offset (u64)
/// 32      8     metadata length (u64): UTF-8 JSON with sorted keys
/// 40      8     directory offset (u64)
/// 48      8     file length (u64), trailer included
/// 56      8     reserved (0)
/// 64            column data, in directory order, each column 64-byte aligned (zero padding)
/// then          metadata, zero padding to a multiple of 8, the directory:
///               one 96-byte entry per column
///         32    name, UTF-8, NUL-padded
///         1     element type (ColumnType), 7 bytes zero
///         8     element count (u64)
///         8     data offset (u64, 64-byte aligned)
///         8     data length in bytes (u64)
///         8     XXH64 (seed 0) of the column's data bytes
///         24    reserved (0)
/// trailer, last 32 bytes:
///         8     magic "RSEND\0\0\0"
///         8     XXH64 (seed 0) of the header followed by every byte from the metadata offset to
///               the trailer (metadata, padding, directory — so every column checksum too)
///         8     file length again (u64)
///         8     reserved (0)
/// ```
/// All integers and floats are little-endian. Strings are stored as two columns, `NAME.offsets`
/// (u64, count + 1 entries) and `NAME.bytes` (u8, UTF-8).
///
/// A reader validates magic, version, kind, length, the trailer checksum and the zero padding
/// when it opens the file (a few kilobytes), and each column's checksum when that column is
/// first used — its first read is its check, and columns a stage does not use are never read.
/// So every byte is covered and a truncated, altered or half-written file is rejected with the
/// file name and the reason before any damaged value is used. (Version 1 kept one checksum of
/// the whole file, which every stage verified over every column before using any.)
public enum ArtifactFormat {
    public static let magic: [UInt8] = Array("RSARTIF\0".utf8)
    static let trailerMagic: [UInt8] = Array("RSEND\0\0\0".utf8)
    public static let version: UInt16 = 2
    public static let headerSize = 64
    static let directoryEntrySize = 96
    static let trailerSize = 32
    public static let alignment = 64
    static let maxColumnNameBytes = 32
}

/// What an artifact holds; stored in the header so a stage refuses the wrong input.
public enum ArtifactKind: UInt16, CaseIterable, CustomStringConvertible, Sendable {
    /// Normalised POIs from `ingest`: ids, names, keyword text, lon/lat, source positions.
    case pois = 1
    /// Projected points from `project`, in spatial (Hilbert) order, with their POI rows.
    case projected = 2
    /// Undirected adjacency from `graph` in CSR form, with edge lengths and local scales.
    case graph = 3
    /// Label-propagation scores from `propagate`, one column per keyword.
    case scores = 4
    /// Dense regions from `regions`: a table of regions and their member points.
    case regions = 5

    public var description: String {
        switch self {
        case .pois: return "pois"
        case .projected: return "projected"
        case .graph: return "graph"
        case .scores: return "scores"
        case .regions: return "regions"
        }
    }
}

/// Element type of a column.
public enum ColumnType: UInt8, CustomStringConvertible, Sendable {
    case uint8 = 1
    case uint32 = 2
    case uint64 = 3
    case int32 = 4
    case float32 = 5
    case float64 = 6
    case int64 = 7

    var byteWidth: Int {
        switch self {
        case .uint8: return 1
        case .uint32, .int32, .float32: return 4
        case .uint64, .int64, .float64: return 8
        }
    }

    public var description: String {
        switch self {
        case .uint8: return "u8"
        case .uint32: return "u32"
        case .uint64: return "u64"
        case .int32: return "i32"
        case .float32: return "f32"
        case .float64: return "f64"
        case .int64: return "i64"
        }
    }
}

/// A fixed-width scalar that can be stored in an artifact column.
public protocol ArtifactScalar {
    static var columnType: ColumnType { get }
}

extension UInt8: ArtifactScalar { public static var columnType: ColumnType { .uint8 } }
extension UInt32: ArtifactScalar { public static var columnType: ColumnType { .uint32 } }
extension UInt64: ArtifactScalar { public static var columnType: ColumnType { .uint64 } }
extension Int32: ArtifactScalar { public static var columnType: ColumnType { .int32 } }
extension Float: ArtifactScalar { public static var columnType: ColumnType { .float32 } }
extension Double: ArtifactScalar { public static var columnType: ColumnType { .float64 } }
extension Int64: ArtifactScalar { public static var columnType: ColumnType { .int64 } }

/// Why an artifact could not be read.
public enum ArtifactError: Error, CustomStringConvertible {
    case cannotOpen(path: String, reason: String)
    case truncated(path: String, detail: String)
    case badMagic(path: String)
    case unsupportedVersion(path: String, found: UInt16)
    case wrongKind(path: String, expected: ArtifactKind, found: String)
    /// `column`: the column whose data failed its checksum; nil for the header, metadata and directory.
    case checksumMismatch(path: String, stored: UInt64, computed: UInt64, column: String? = nil)
    case malformed(path: String, detail: String)
    case missingColumn(path: String, name: String)
    case columnType(path: String, name: String, expected: ColumnType, found: ColumnType)
    case writeFailed(path: String, reason: String)

    public var description: String {
        let hint = "; rerun the stage that writes it (regionsearch run redoes it automatically)"
        switch self {
        case .cannotOpen(let path, let reason):
            return
                "\(path): cannot open artifact: \(reason); check the path (a stage's inputs are the artifacts the stage before wrote, WORK/objects/<stage>-<key>/; regionsearch run finds them itself)"
        case .truncated(let path, let detail):
            return "\(path): artifact is truncated or was not completely written (\(detail))" + hint
        case .badMagic(let path):
            return "\(path): not a RegionSearch artifact (bad magic bytes)"
        case .unsupportedVersion(let path, let found):
            return
                "\(path): artifact format version \(found) is not "
                + "supported (this build reads version \(ArtifactFormat.version))"
                + hint
        case .wrongKind(let path, let expected, let found):
            return
                "\(path): expected a \(expected) artifact but this is a "
                + "\(found) artifact; check the stage's input argument"
        case .checksumMismatch(let path, let stored, let computed, let column):
            return
                "\(path): checksum mismatch\(column.map { " in column '\($0)'" } ?? "") (stored \(hex64(stored)), "
                + "content hashes to \(hex64(computed))): the file was altered or damaged"
                + hint
        case .malformed(let path, let detail):
            return "\(path): malformed artifact: \(detail)" + hint
        case .missingColumn(let path, let name):
            return "\(path): artifact has no column '\(name)'" + hint
        case .columnType(let path, let name, let expected, let found):
            return "\(path): column '\(name)' has type \(found), expected \(expected)" + hint
        case .writeFailed(let path, let reason):
            return "\(path): cannot write: \(reason)" + FileErrorAdvice.suffix(forReason: reason)
        }
    }
}
