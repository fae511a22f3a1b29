import RegionSearchCore
import RegionSearchRunner

/// Why an experiment run cannot go on; each case names the file or combination.
enum ExperimentError: ExitCoded {
    /// The manifest's `output` exists and is not a directory (exit status 6).
    case outputNotDirectory(path: String)
    /// A truth file of an input set cannot be read (exit status 3).
    case truthUnreadable(manifest: String, key: String, failure: FileDigest.Failure)
    /// Scoring a combination failed; `underlying` says why (its exit status is kept).
    case scoring(combination: String, underlying: Error)

    public var description: String {
        switch self {
        case .outputNotDirectory(let path):
            return
                "\(path): the output of an experiment is a directory (one GeoJSON per combination and the results "
                + "tables), but this is a file"
        case .truthUnreadable(let manifest, let key, let failure):
            return "\(manifest): \(key): cannot read \(failure.path): \(failure.reason)"
        case .scoring(let combination, let underlying):
            return "scoring combination \(combination) failed: \(underlying)"
        }
    }

    public var exitStatus: ExitStatus {
        switch self {
        case .outputNotDirectory: return .output
        case .truthUnreadable: return .inputData
        case .scoring(_, let underlying): return (underlying as? ExitCoded)?.exitStatus ?? .failure
        }
    }
}
