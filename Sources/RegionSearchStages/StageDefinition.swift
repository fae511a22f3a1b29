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
    /// The stage's parameters (its options type's ``StageOptions/specs``).
    public var parameters: [ParameterSpec]
    /// Builds the stage's typed options from resolved parameters, to validate a manifest or a
    /// command line before anything runs.
    public let validate: @Sendable (Parameters) throws(ParameterError) -> Void

    public var executable: String { "regionsearch-" + name }

    public init<Options: StageOptions>(
        name: String, abstract: String, version: Int, inputs: [Port], outputs: [Port], options: Options.Type
    ) {
        self.name = name
        self.abstract = abstract
        self.version = version
        self.inputs = inputs
        self.outputs = outputs
        self.parameters = Options.specs
        self.validate = { parameters throws(ParameterError) in _ = try Options(parameters) }
    }

    /// Resolves a manifest object against the stage's parameters and validates it as options;
    /// errors name `context.key`.
    public func resolve(_ object: JSONValue?, context: String) throws(UsageError) -> Parameters {
        let parameters = try Parameters.resolve(object, specs: self.parameters, context: context)
        do {
            try validate(parameters)
        } catch {
            throw error.usage(context: context)
        }
        return parameters
    }

    /// The input port named `option` (a programming error when there is none).
    public func input(_ option: String) -> Port {
        guard let port = inputs.first(where: { $0.option == option }) else {
            preconditionFailure("stage \(name) has no input port \(option)")
        }
        return port
    }

    /// The output port named `option` (a programming error when there is none).
    public func output(_ option: String) -> Port {
        guard let port = outputs.first(where: { $0.option == option }) else {
            preconditionFailure("stage \(name) has no output port \(option)")
        }
        return port
    }

    /// Output port `output` of this stage as another stage's input port named `option`: the
    /// file name and kind are declared once, by the producer.
    func provides(_ output: String, as option: String) -> Port {
        let port = self.output(output)
        return Port(option: option, fileName: port.fileName, kind: port.kind, producer: name)
    }

    /// This stage's provenance entry: its version and parameters.
    func provenanceEntry(_ parameters: Parameters, extra: [(String, JSONValue)] = []) -> JSONValue {
        .object([("version", .number(Double(version))), ("parameters", parameters.canonical)] + extra)
    }

    /// `--summary PATH`, which every stage accepts.
    static let summaryOption = CommandSpec.Option(
        "summary", .path,
        help: "Also write the run's counts and timings as JSON to PATH (used by 'regionsearch run').")
    /// `--threads N`, which every stage accepts.
    public static let threadsOption = CommandSpec.Option.threads("Output is identical for any N.")

    /// `--no-sync`, which every stage accepts: `regionsearch run` passes it (see
    /// ``AtomicFile/durable``).
    public static let noSyncOption = CommandSpec.Option(
        "no-sync", .flag,
        help: "Write outputs atomically but without fsync (regionsearch run passes this: it checks every "
            + "object's content hash before using it, so a file a power cut damaged is rebuilt).")

    /// The command-line option of input port `option`.
    func inputOption(_ option: String) -> CommandSpec.Option {
        let p = input(option)
        return .init(
            p.option, .path, default: .required,
            help: "Input: the \(p.kind?.description ?? p.option) file\(p.producer.map { " written by \($0)" } ?? "").")
    }

    /// The command-line option of output port `option`.
    func outputOption(_ option: String) -> CommandSpec.Option {
        let p = output(option)
        return .init(
            p.option, .path, default: .required,
            help: "Output: where to write the \(p.kind?.description ?? p.option) file (written atomically).")
    }

    /// The command-line spec of the stage executable: input/output path options, the
    /// stage's parameters, `--summary`, `--threads` and `--no-sync`; the usage line follows from
    /// them.
    func commandSpec(discussion: String = "", extraOptions: [CommandSpec.Option] = [], positionals: [String] = [])
        -> CommandSpec
    {
        var options = inputs.map { inputOption($0.option) } + outputs.map { outputOption($0.option) }
        options += extraOptions
        options += [Self.summaryOption, Self.threadsOption, Self.noSyncOption]
        return CommandSpec(
            name: executable, abstract: abstract, positionals: positionals, discussion: discussion, options: options,
            parameters: parameters)
    }
}

/// The pipeline's stages, in run order.
public enum Pipeline {
    public static var stages: [StageDefinition] {
        [
            IngestStage.definition, ProjectStage.definition, GraphStage.definition,
            PropagateStage.definition, RegionsStage.definition, HullsStage.definition,
        ]
    }

    public static func stage(named name: String) -> StageDefinition? { stages.first { $0.name == name } }
}
