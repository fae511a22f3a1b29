/// The `graph` stage (placeholder until implemented).
public enum GraphStage {
    public static let definition = StageDefinition(
        name: "graph", abstract: "graph stage", version: 1, inputs: [], outputs: [], parameters: [])

    /// Entry point of `regionsearch-graph`.
    public static func main() -> Never {
        ToolMain.run(definition.commandSpec()) { _ in
            throw ToolFailure("graph: not implemented yet")
        }
    }
}
