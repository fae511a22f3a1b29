/// The `hulls` stage (placeholder until implemented).
public enum HullsStage {
    public static let definition = StageDefinition(
        name: "hulls", abstract: "hulls stage", version: 1, inputs: [], outputs: [], parameters: [])

    /// Entry point of `regionsearch-hulls`.
    public static func main() -> Never {
        ToolMain.run(definition.commandSpec()) { _ in
            throw ToolFailure("hulls: not implemented yet")
        }
    }
}
