import RegionSearchCore

/// What an evaluation read from one input file, for reports: counts of features, repairs and
/// skipped records, so nothing is dropped silently.
public struct EvaluationInput: Sendable, Equatable {
    /// Role in the evaluation: "regions", "truth", "a", "b", "pois", "members".
    public var role: String
    public var path: String
    /// Features (GeoJSON) or records (POIs, members) used.
    public var count: Int
    /// Invalid polygons repaired with MakeValid.
    public var repaired: Int = 0
    /// Polygons with no area (after repair); they match nothing.
    public var degenerate: Int = 0
    /// Features without geometry (GeoJSON) or records left out (POIs that cannot be projected,
    /// member ids not found among the POIs).
    public var skipped: Int = 0
    /// Details: GEOS's reasons for the first repairs, what was skipped and why.
    var notes: [String] = []

    public init(role: String, path: String, count: Int) {
        self.role = role
        self.path = path
        self.count = count
    }

    init(role: String, layer: EvaluationLayer) {
        self.init(role: role, path: layer.path, count: layer.count)
        repaired = layer.repairedCount
        degenerate = layer.degenerateCount
        skipped = layer.nullGeometries
        notes = layer.repairNotes.map { "repaired " + $0 }
        if layer.nullGeometries > 0 { notes.append("\(layer.nullGeometries) feature(s) without geometry skipped") }
    }

    /// A file that was not measured because no input had a coordinate (no CRS was chosen): its
    /// features are all without geometry or with empty ones, and all are counted as skipped.
    init(role: String, unmeasured file: RegionFeatureFile) {
        self.init(role: role, path: file.path, count: 0)
        skipped = file.nullGeometries + file.features.count
        if file.nullGeometries > 0 { notes.append("\(file.nullGeometries) feature(s) without geometry skipped") }
        if !file.features.isEmpty { notes.append("\(file.features.count) feature(s) with empty geometry skipped") }
    }

    var json: JSONValue {
        .object([
            ("path", .string(path)), ("count", .number(Double(count))), ("repaired", .number(Double(repaired))),
            ("degenerate", .number(Double(degenerate))), ("skipped", .number(Double(skipped))),
            ("notes", .array(notes.map { .string($0) })),
        ])
    }

    /// The "Notes:" section of a text report: each input's notes (prefixed with its role), then
    /// `notes`; empty when there are none.
    static func notesSection(_ inputs: [EvaluationInput], _ notes: [String]) -> String {
        let all = inputs.flatMap { i in i.notes.map { "\(i.role): " + $0 } } + notes
        if all.isEmpty { return "" }
        return "\nNotes:\n" + all.map { "  - " + $0 + "\n" }.joined()
    }

    /// One line for the table header.
    var summaryLine: String {
        var parts = ["\(count) \(role == "pois" ? "POIs" : role == "members" ? "planted ids" : "features")"]
        if repaired > 0 { parts.append("\(repaired) repaired") }
        if degenerate > 0 { parts.append("\(degenerate) without area") }
        if skipped > 0 { parts.append("\(skipped) skipped") }
        return "\(role): \(path) (" + parts.joined(separator: ", ") + ")"
    }
}
