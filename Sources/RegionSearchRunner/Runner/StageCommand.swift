import RegionSearchCore
import RegionSearchStages

/// The command line of one stage run, built from its ``StageDefinition``: input ports point into
/// the producers' object directories, outputs into the run's staging directory, then the
/// parameters (``Parameters/commandLine(specs:)``), `--summary`, `--no-sync`, `--threads` and `--quiet`.
enum StageCommand {
    /// The name of the summary file inside the staging directory; removed before promotion,
    /// because its timings must not end up in the content-addressed object.
    static let summaryFileName = ".summary.json"

    /// - Parameters:
    ///   - inputPaths: absolute path of each input port, in `stage.inputs` order.
    ///   - rawInputs: ingest's input objects, each passed as `--input-spec JSON` (paths absolute).
    public static func arguments(
        stage: StageDefinition, parameters: Parameters, inputPaths: [String], rawInputs: [JSONValue],
        outputDirectory: String, threads: Int?, quiet: Bool, logFormat: Log.Format = .human, strict: Bool = false
    ) -> [String] {
        var args: [String] = []
        for spec in rawInputs { args += ["--input-spec", spec.serialized(sortedKeys: false)] }
        for (port, path) in zip(stage.inputs, inputPaths) { args += ["--" + port.option, path] }
        for port in stage.outputs { args += ["--" + port.option, outputDirectory + "/" + port.fileName] }
        args += parameters.commandLine(specs: stage.parameters)
        args += ["--summary", outputDirectory + "/" + summaryFileName]
        // The runner verifies every object by content before it uses it: no fsync needed.
        args.append("--no-sync")
        if let threads { args += ["--threads", String(threads)] }
        if quiet { args.append("--quiet") }
        if logFormat != .human { args += ["--log-format", logFormat.rawValue] }
        if strict { args.append("--strict") }
        return args
    }
}
