/// The `hulls` stage (placeholder until implemented).
public enum HullsStage {
    public static let definition = StageDefinition(
        name: "hulls", abstract: "hulls stage", version: 1,
        inputs: [
                .init(option: "pois", fileName: "pois.rsa", kind: .pois, producer: "ingest"),
                .init(option: "projected", fileName: "projected.rsa", kind: .projected, producer: "project"),
                .init(option: "regions", fileName: "regions.rsa", kind: .regions, producer: "regions"),
            ],
        outputs: [.init(option: "output", fileName: "regions.geojson", kind: nil)],
        parameters: [])

    /// Entry point of `regionsearch-hulls`.
    public static func main() -> Never {
        ToolMain.run(definition.commandSpec()) { _ in
            throw ToolFailure("hulls: not implemented yet")
        }
    }
}
