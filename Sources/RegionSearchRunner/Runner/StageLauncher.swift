import RegionSearchCore
import RegionSearchStages

/// Starts one stage executable and waits for it. The runner's seam for tests: a launcher can
/// wrap the real one to act while a stage runs (change an input, for instance).
public protocol StageLauncher {
    /// Runs `executable` with `arguments` to completion; the stage's output goes to stderr.
    func launch(stage: StageDefinition, executable: String, arguments: [String]) throws(RunnerError) -> StageLaunch
}

/// How a stage run ended.
public struct StageLaunch {
    public var termination: ChildProcess.Termination
    /// The stage's error lines (for the failure record and `status`).
    public var errorLines: [String]

    public init(termination: ChildProcess.Termination, errorLines: [String]) {
        self.termination = termination
        self.errorLines = errorLines
    }
}

/// Runs stages as child processes in the runner's process group (in their
/// ``StageEnvironment/forStage(_:_:)``),
/// copying their output to stderr as it comes and keeping its tail for the error message.
public struct ProcessStageLauncher: StageLauncher {
    public init() {}

    public func launch(stage: StageDefinition, executable: String, arguments: [String]) throws(RunnerError)
        -> StageLaunch
    {
        // Started inside the signal forwarding: a SIGTERM while it starts still reaches it.
        func start() throws(ChildProcess.SpawnError) -> ChildProcess {
            try ChildProcess(
                executable: executable, arguments: arguments, environment: StageEnvironment.forStage(stage.name),
                output: .tee(tail: 1 << 16))
        }
        do throws(ChildProcess.SpawnError) {
            // The forwarding ends as soon as the stage is reaped: its pid may be another's then.
            var child: ChildProcess?
            let termination = try SignalForwarding.forwarding(spawn: start) { started in
                child = started
                return started.wait()
            }
            return StageLaunch(termination: termination, errorLines: child?.errorLines ?? [])
        } catch {
            throw RunnerError.spawnFailed(executable: executable, reason: error.reason)
        }
    }
}
