import RegionSearchCore

/// The static description of a pipeline stage: its executable, its artifact inputs and outputs,
/// its parameters and its version. The runner builds command lines and cache keys from it; the
/// stage executables build their `--help` and option parsing from it.
public struct StageDefinition: Sendable {
    /// A file a stage reads or writes, passed as `--OPTION PATH`.
    public struct Port: Sendable {
        /// Command-line option (without dashes), e.g. `pois`.
        public var option: String
        /// File name inside the work directory's object store, e.g. `pois.rsa`.
        public var fileName: String
        /// The artifact kind, or nil for a non-artifact file (rejects, GeoJSON).
        public var kind: ArtifactKind?
        /// Which stage produces it (for inputs).
        public var producer: String?

        public init(option: String, fileName: String, kind: ArtifactKind?, producer: String? = nil) {
            self.option = option
            self.fileName = fileName
            self.kind = kind
            self.producer = producer
        }
    }

    /// Short name: `ingest`, `project`, `graph`, `propagate`, `regions`, `hulls`.
    public var name: String
    public var abstract: String
    /// Bumped whenever the stage's output for the same input and parameters can change; part of
    /// the cache key, so a new version reruns the stage.
    public var version: Int
    public var inputs: [Port]
    public var outputs: [Port]
    public var parameters: [ParameterSpec]

    public var executable: String { "regionsearch-" + name }

    public init(name: String, abstract: String, version: Int, inputs: [Port], outputs: [Port], parameters: [ParameterSpec]) {
        self.name = name
        self.abstract = abstract
        self.version = version
        self.inputs = inputs
        self.outputs = outputs
        self.parameters = parameters
    }

    /// The command-line spec of the stage executable: input/output path options, the
    /// stage's parameters, `--summary` and `--threads`.
    public func commandSpec(usage: String? = nil, discussion: String = "", extraOptions: [CommandSpec.Option] = [], positionals: Bool = false)
        -> CommandSpec
    {
        var options: [CommandSpec.Option] = []
        for p in inputs {
            options.append(.init(p.option, .value, placeholder: "PATH", help: "Input: the \(p.kind?.description ?? p.option) file\(p.producer.map { " written by \($0)" } ?? "")."))
        }
        for p in outputs {
            options.append(.init(p.option, .value, placeholder: "PATH", help: "Output: where to write the \(p.kind?.description ?? p.option) file (written atomically)."))
        }
        options += extraOptions
        options.append(.init("summary", .value, placeholder: "PATH", help: "Also write the run's counts and timings as JSON to PATH (used by 'regionsearch run')."))
        options.append(.init("threads", .value, placeholder: "N", help: "Worker threads (default: all cores). Output is identical for any N."))
        let ports = (inputs + outputs).map { "--\($0.option) PATH" }.joined(separator: " ")
        return CommandSpec(
            name: executable, abstract: abstract, usage: usage ?? "\(executable) \(ports) [parameters]",
            discussion: discussion, options: options, parameters: parameters, acceptsPositionals: positionals)
    }
}

/// The pipeline's stages, in run order.
public enum Pipeline {
    public static var stages: [StageDefinition] {
        [IngestStage.definition, ProjectStage.definition, GraphStage.definition,
         PropagateStage.definition, RegionsStage.definition, HullsStage.definition]
    }

    public static func stage(named name: String) -> StageDefinition? { stages.first { $0.name == name } }
}
