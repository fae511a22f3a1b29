/// The `project` stage (placeholder until implemented).
public enum ProjectStage {
    public static let definition = StageDefinition(
        name: "project", abstract: "project stage", version: 1,
        inputs: [.init(option: "input", fileName: "pois.rsa", kind: .pois, producer: "ingest")],
        outputs: [.init(option: "output", fileName: "projected.rsa", kind: .projected)],
        parameters: [])

    /// Entry point of `regionsearch-project`.
    public static func main() -> Never {
        ToolMain.run(definition.commandSpec()) { _ in
            throw ToolFailure("project: not implemented yet")
        }
    }
}
