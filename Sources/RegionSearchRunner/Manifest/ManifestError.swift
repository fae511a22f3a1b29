import RegionSearchCore

/// Why a pipeline manifest cannot be used. Every message starts with the manifest file (as the
/// user named it) and, where the document has one, the line and column of the offending key:
/// `pipelines/x.json:14:5: graph.prune_factr: unknown key (did you mean 'prune_factor'?)`.
public enum ManifestError: ExitCoded, Equatable {
    /// The file could not be read.
    case unreadable(file: String, reason: String)
    /// The file is not valid JSON.
    case syntax(file: String, line: Int, column: Int, reason: String)
    /// A key is unknown, missing or has a bad value. `key` is a path like `inputs[0].path`
    /// (empty for the document itself).
    case invalid(file: String, key: String, position: JSONKeyLocator.Position?, reason: String)

    public var description: String {
        switch self {
        case .unreadable(let file, let reason):
            // A missing file says where manifests are; the other reasons say what to give already.
            let hint = reason.contains(";") ? "" : "; check the path (the shipped manifests are in pipelines/)"
            return "\(file): cannot read manifest: \(reason)" + hint
        case .syntax(let file, let line, let column, let reason):
            return "\(file):\(line):\(column): invalid JSON: \(reason)"
        case .invalid(let file, let key, let position, let reason):
            let at = position.map { "\(file):\($0.line):\($0.column)" } ?? file
            return key.isEmpty ? "\(at): \(reason)" : "\(at): \(key): \(reason)"
        }
    }

    public var exitStatus: ExitStatus { .usage }
}
