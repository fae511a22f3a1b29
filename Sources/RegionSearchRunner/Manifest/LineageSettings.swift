import RegionSearchCore
import RegionSearchIngest

/// The manifest's `lineage` key: whether `regionsearch run` keeps region ids from one run to the
/// next, and where the lineage file lives.
///
/// ```json
/// "lineage": true                        // <output stem>.lineage.json beside the output
/// "lineage": "../state/nightly.lineage.json"
/// "lineage": false                       // the default: every run numbers its regions afresh
/// ```
/// Off unless asked for: with a lineage the output depends on the previous night's as well as on
/// the inputs and parameters, so a run's bytes are no longer a function of those two alone (the
/// same input and parameters give the same file only along the same lineage). A nightly job
/// that its consumers follow turns it on; an experiment or a reproduction leaves it off.
/// The lineage file sits beside the regions output when that is a file, else beside the POI
/// layer, else in the work directory (`WORK/lineage.json`: the regions go to a database or a
/// stream). An experiment keeps no lineage. `regionsearch run --fresh-lineage` starts a new one.
public struct LineageSettings: Equatable, Sendable {
    /// Whether ids are kept and a change report written.
    public var enabled: Bool
    /// The lineage file given in the manifest (absolute), or nil for the default place.
    public var path: String?

    public init(enabled: Bool = false, path: String? = nil) {
        self.enabled = enabled
        self.path = path
    }

    /// Parses the value of `lineage`; relative paths resolve against `directory`.
    init(_ value: JSONValue?, directory: String, invalid: (String, String) -> ManifestError) throws(ManifestError) {
        self.init()
        guard let value, value != .null else { return }
        if let b = value.boolValue {
            enabled = b
            return
        }
        guard let s = value.stringValue else {
            throw invalid("lineage", "expected true, false or the lineage file's path, got \(value.typeName)")
        }
        guard !s.isEmpty, !InputSpec.isConnectionString(s), s != "-" else {
            throw invalid("lineage", "expected a file path for the lineage file, got \"\(s)\"")
        }
        enabled = true
        path = PathResolver.absolute(s, relativeTo: directory)
    }
}
