import RegionSearchOutput

/// Why a lineage could not be followed or a change report made. Each case names the file (and,
/// where it applies, the region) and says what to do next.
///
/// ``description`` advises on the file as a region file (`regionsearch diff` reads any two);
/// ``lineageDescription`` is the message where the file is the lineage a run would continue,
/// which `regionsearch run --fresh-lineage` can leave behind.
public enum LineageError: Error, CustomStringConvertible, Equatable {
    /// Nothing is at the path (or a folder on the way to it is missing).
    case missing(path: String)
    /// The path exists but cannot be opened or read (permissions, a folder, an I/O error).
    case cannotRead(path: String, reason: String)
    /// A lineage or region file that cannot be read as one.
    case unreadable(path: String, reason: String)
    /// A lineage file of a format this build does not know (written by a newer regionsearch).
    case unsupportedFormat(path: String, version: Int)
    /// A region's geometry GEOS could not compare.
    case geometry(path: String, region: Int, reason: String)

    public var description: String {
        switch self {
        case .missing(let path):
            return "\(path): no such file; check the path (a regions output, or its <output stem>.lineage.json)"
        case .cannotRead(let path, let reason):
            return "\(path): cannot be read (\(reason)); check the path and that it is a file you may read"
        case .unreadable(let path, let reason):
            return "\(path): not a region or lineage file this regionsearch can read (\(reason)); "
                + "give a regions output or its .lineage.json"
        case .unsupportedFormat(let path, let version):
            return "\(path): lineage format \(version) is newer than this regionsearch reads "
                + "(\(LineageState.formatVersion)); upgrade regionsearch"
        case .geometry(let path, let region, let reason):
            return "\(path): region \(region): its polygon cannot be compared (\(reason)); check the file with ogrinfo"
        }
    }

    /// The message when the file is the lineage a run continues: the ``description`` and, where
    /// the lineage itself is unusable, that a fresh one can be started instead.
    public var lineageDescription: String {
        switch self {
        case .missing, .cannotRead: return description
        case .unreadable, .unsupportedFormat, .geometry:
            return description + ", or start a fresh lineage (regionsearch run --fresh-lineage)"
        }
    }
}
