import RegionSearchCore

/// Where an artifact came from: every upstream stage's parameters and the content hashes of
/// the raw inputs, carried forward in each artifact's metadata under `provenance` so the final
/// GeoJSON can state how it was made without reading every intermediate file.
enum Provenance {
    /// Merges the `provenance` objects of the input artifacts (by stage name, inputs order
    /// first) and adds this stage's entry.
    public static func chain(inputs: [ArtifactFile], stage: String, entry: JSONValue) -> JSONValue {
        var members: [(String, JSONValue)] = []
        for file in inputs {
            guard let prov = file.metadata["provenance"]?.objectValue else { continue }
            for (k, v) in prov where !members.contains(where: { $0.0 == k }) { members.append((k, v)) }
        }
        members.removeAll { $0.0 == stage }
        members.append((stage, entry))
        let order = Pipeline.stages.map(\.name)
        members.sort { (order.firstIndex(of: $0.0) ?? 99, $0.0) < (order.firstIndex(of: $1.0) ?? 99, $1.0) }
        return .object(members)
    }
}
