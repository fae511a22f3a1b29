/// The `propagate` stage (placeholder until implemented).
public enum PropagateStage {
    public static let definition = StageDefinition(
        name: "propagate", abstract: "propagate stage", version: 1,
        inputs: [
                .init(option: "pois", fileName: "pois.rsa", kind: .pois, producer: "ingest"),
                .init(option: "projected", fileName: "projected.rsa", kind: .projected, producer: "project"),
                .init(option: "graph", fileName: "graph.rsa", kind: .graph, producer: "graph"),
            ],
        outputs: [.init(option: "output", fileName: "scores.rsa", kind: .scores)],
        parameters: [])

    /// Entry point of `regionsearch-propagate`.
    public static func main() -> Never {
        ToolMain.run(definition.commandSpec()) { _ in
            throw ToolFailure("propagate: not implemented yet")
        }
    }
}
