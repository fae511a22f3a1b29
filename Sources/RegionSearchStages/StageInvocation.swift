import RegionSearchCore

/// What every stage executable does before its own work: apply `--threads`, resolve its
/// parameters, find `--output`, start the report, and open input artifacts by port name with the
/// kind the port declares.
struct StageInvocation {
    let definition: StageDefinition
    let commandLine: ParsedCommandLine
    let parameters: Parameters
    let output: String
    var report: StageReport
    let start = monotonicSeconds()

    init(_ commandLine: ParsedCommandLine, _ definition: StageDefinition) throws {
        try Parallel.configure(from: commandLine.value("threads"))
        self.definition = definition
        self.commandLine = commandLine
        parameters = try commandLine.parameters()
        output = try commandLine.required("output")
        report = StageReport(stage: definition.name)
    }

    /// Opens and validates the artifact given for input port `option`.
    func input(_ option: String) throws -> ArtifactFile {
        let port = definition.inputs.first { $0.option == option }
        precondition(port != nil, "\(definition.name) has no input port \(option)")
        return try ArtifactFile(path: try commandLine.required(option), expected: port!.kind)
    }

    /// Opens the artifacts of several input ports at once (see ``ArtifactFile/openAll(_:)``), in
    /// the order given.
    func inputs(_ options: [String]) throws -> [ArtifactFile] {
        var list: [(path: String, expected: ArtifactKind?)] = []
        for option in options {
            let port = definition.inputs.first { $0.option == option }
            precondition(port != nil, "\(definition.name) has no input port \(option)")
            list.append((try commandLine.required(option), port!.kind))
        }
        return try ArtifactFile.openAll(list)
    }

    /// Writes the report where `--summary` asks.
    func finish() throws { try report.write(to: commandLine.value("summary")) }
}
