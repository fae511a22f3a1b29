import RegionSearchCore

/// One run of an experiment: an input set with one point of the parameter grid. Its pipeline is
/// ``Manifest/variant(for:)``; its GeoJSON is `OUTPUT/<name>.geojson`.
public struct ExperimentCombination {
    /// Position in ``Experiment/combinations`` (0-based).
    public var index: Int
    /// `seed42__graph.method=knn__propagate.alpha=0.7`: unique within the experiment, usable as a
    /// file name.
    public var name: String
    /// The input set's name.
    public var inputSet: String
    public var inputs: [Manifest.Input]
    /// The grid's parameter values for this combination, axis by axis.
    public var assignments: [Experiment.Assignment]

    /// The GeoJSON file name inside the experiment's output directory.
    public var fileName: String { name + ".geojson" }

    /// The value the grid gives `stage.parameter` here; nil when this combination leaves it to the
    /// manifest (a group axis whose point does not mention it).
    public func value(of key: String) -> JSONValue? { assignments.first { $0.key == key }?.value }
}
