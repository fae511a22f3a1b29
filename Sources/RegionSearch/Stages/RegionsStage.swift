/// The `regions` stage (placeholder until implemented).
public enum RegionsStage {
    public static let definition = StageDefinition(
        name: "regions", abstract: "regions stage", version: 1,
        inputs: [
                .init(option: "pois", fileName: "pois.rsa", kind: .pois, producer: "ingest"),
                .init(option: "projected", fileName: "projected.rsa", kind: .projected, producer: "project"),
                .init(option: "graph", fileName: "graph.rsa", kind: .graph, producer: "graph"),
                .init(option: "scores", fileName: "scores.rsa", kind: .scores, producer: "propagate"),
            ],
        outputs: [.init(option: "output", fileName: "regions.rsa", kind: .regions)],
        parameters: [])

    /// Entry point of `regionsearch-regions`.
    public static func main() -> Never {
        ToolMain.run(definition.commandSpec()) { _ in
            throw ToolFailure("regions: not implemented yet")
        }
    }
}
