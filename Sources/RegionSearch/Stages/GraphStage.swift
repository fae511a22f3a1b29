/// The `graph` stage (placeholder until implemented).
public enum GraphStage {
    public static let definition = StageDefinition(
        name: "graph", abstract: "graph stage", version: 1,
        inputs: [.init(option: "input", fileName: "projected.rsa", kind: .projected, producer: "project")],
        outputs: [.init(option: "output", fileName: "graph.rsa", kind: .graph)],
        parameters: [])

    /// Entry point of `regionsearch-graph`.
    public static func main() -> Never {
        ToolMain.run(definition.commandSpec()) { _ in
            throw ToolFailure("graph: not implemented yet")
        }
    }
}
