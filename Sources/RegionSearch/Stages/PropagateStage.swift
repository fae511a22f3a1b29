/// The `propagate` stage (placeholder until implemented).
public enum PropagateStage {
    public static let definition = StageDefinition(
        name: "propagate", abstract: "propagate stage", version: 1, inputs: [], outputs: [], parameters: [])

    /// Entry point of `regionsearch-propagate`.
    public static func main() -> Never {
        ToolMain.run(definition.commandSpec()) { _ in
            throw ToolFailure("propagate: not implemented yet")
        }
    }
}
