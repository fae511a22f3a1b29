/// The `regions` stage (placeholder until implemented).
public enum RegionsStage {
    public static let definition = StageDefinition(
        name: "regions", abstract: "regions stage", version: 1, inputs: [], outputs: [], parameters: [])

    /// Entry point of `regionsearch-regions`.
    public static func main() -> Never {
        ToolMain.run(definition.commandSpec()) { _ in
            throw ToolFailure("regions: not implemented yet")
        }
    }
}
