import RegionSearchCore

/// What every stage executable does before its own work: apply `--threads` (and `--no-sync`), resolve its
/// parameters into typed options, find `--output`, start the summary, and open input artifacts
/// by port name with the kind the port declares.
struct StageInvocation<Options: StageOptions> {
    let definition: StageDefinition
    let commandLine: ParsedCommandLine
    /// The resolved parameters (their canonical form goes into metadata and provenance).
    let parameters: Parameters
    let options: Options
    var summary: StageSummary

    init(_ commandLine: ParsedCommandLine, _ definition: StageDefinition) throws(UsageError) {
        Parallel.configure(threads: commandLine.optionalInteger(StageDefinition.threadsOption))
        if commandLine.flag(StageDefinition.noSyncOption) { AtomicFile.durable = false }
        self.definition = definition
        self.commandLine = commandLine
        parameters = try commandLine.parameters()
        options = try Options.fromCommandLine(parameters)
        summary = StageSummary(stage: definition.name)
        Log.stage = definition.name
        Log.clearDataWarnings()
        try checkPaths()
    }

    /// Refuses a command line whose output (an output port, or `--summary`) names a file the
    /// stage reads (an input port, or one of `inputs`: the ingest stage's files) or another of its
    /// outputs (``OutputCollision``): `regionsearch-graph --input p.rsa --output p.rsa` replaced
    /// the points it read and exited 0.
    func checkPaths(inputs extra: [(label: String, path: String)] = []) throws(UsageError) {
        var inputs: [(label: String, path: String)] = definition.inputs.compactMap { port in
            commandLine.value(definition.inputOption(port.option)).map { ("--\(port.option)", $0) }
        }
        inputs += extra
        var outputs: [(label: String, path: String)] = definition.outputs.compactMap { port in
            commandLine.value(definition.outputOption(port.option)).map { ("--\(port.option)", $0) }
        }
        if let summary = commandLine.value(StageDefinition.summaryOption) { outputs.append(("--summary", summary)) }
        try OutputCollision.check(outputs: outputs, inputs: inputs)
    }

    /// The path given for output port `option`.
    func outputPath(_ option: String = "output") throws -> String {
        let path = try commandLine.required(definition.outputOption(option))
        // What is at the path is checked before the work, not after it: a folder given as the
        // output failed (exit 6) only once all the input was read.
        _ = try AtomicFile.Target(path)
        return path
    }

    /// Opens and validates the artifact given for input port `option`, timed as loading.
    mutating func input(_ option: String) throws -> ArtifactFile {
        let port = definition.input(option)
        let path = try commandLine.required(definition.inputOption(option))
        return try summary.time(.load) { try ArtifactFile(path: path, expected: port.kind) }
    }

    /// Opens the artifacts of several input ports at once (see ``ArtifactFile/openAll(_:)``), in
    /// the order given, timed as loading.
    mutating func inputs(_ options: [String]) throws -> [ArtifactFile] {
        var list: [(path: String, expected: ArtifactKind?)] = []
        for option in options {
            list.append((try commandLine.required(definition.inputOption(option)), definition.input(option).kind))
        }
        return try summary.time(.load) { try ArtifactFile.openAll(list) }
    }

    /// This stage's provenance over its input artifacts.
    func provenance(inputs: [ArtifactFile], extra: [(String, JSONValue)] = []) -> JSONValue {
        Provenance.chain(
            inputs: inputs, stage: definition.name, entry: definition.provenanceEntry(parameters, extra: extra))
    }

    /// Writes the summary where `--summary` asks.
    func finish() throws {
        var summary = self.summary
        let warnings = Log.dataWarnings
        if !warnings.isEmpty { summary.setDetail("warnings", .array(warnings.map { .string($0) })) }
        try summary.write(to: commandLine.value(StageDefinition.summaryOption))
        if Log.format == .json {
            let done = summary.finished()
            Log.event(
                "\(definition.name) finished", phase: "done", counts: done.counts.map { ($0.0.rawValue, $0.1) },
                seconds: done.seconds)
        }
    }
}
