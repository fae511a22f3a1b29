import RegionSearchOutput

/// Why a lineage could not be followed or a change report made. Each case names the file (and,
/// where it applies, the region) and says what to do next.
public enum LineageError: Error, CustomStringConvertible, Equatable {
    /// A lineage or region file that cannot be read as one.
    case unreadable(path: String, reason: String)
    /// A lineage file of a format this build does not know (written by a newer regionsearch).
    case unsupportedFormat(path: String, version: Int)
    /// A region's geometry GEOS could not compare.
    case geometry(path: String, region: Int, reason: String)

    public var description: String {
        switch self {
        case .unreadable(let path, let reason):
            return "\(path): not a region or lineage file this regionsearch can read (\(reason)); "
                + "give a regions output or its .lineage.json, or start a fresh lineage (regionsearch run --fresh-lineage)"
        case .unsupportedFormat(let path, let version):
            return "\(path): lineage format \(version) is newer than this regionsearch reads "
                + "(\(LineageState.formatVersion)); upgrade regionsearch, or start a fresh lineage (regionsearch run --fresh-lineage)"
        case .geometry(let path, let region, let reason):
            return "\(path): region \(region): its polygon cannot be compared (\(reason)); "
                + "check the file with ogrinfo, or start a fresh lineage (regionsearch run --fresh-lineage)"
        }
    }
}
