/// The `ingest` stage (placeholder until implemented).
public enum IngestStage {
    public static let definition = StageDefinition(
        name: "ingest", abstract: "ingest stage", version: 1,
        inputs: [],
        outputs: [.init(option: "output", fileName: "pois.rsa", kind: .pois), .init(option: "rejects", fileName: "rejects.txt", kind: nil)],
        parameters: [])

    /// Entry point of `regionsearch-ingest`.
    public static func main() -> Never {
        ToolMain.run(definition.commandSpec()) { _ in
            throw ToolFailure("ingest: not implemented yet")
        }
    }
}
