import RegionSearchCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why `regionsearch run`, `status` or `clean` stopped. Each message says what to do next.
public enum RunnerError: ExitCoded {
    /// Another run holds the work directory's lock (exit status 5).
    case busy(workDirectory: String, holder: WorkLock.Holder?)
    /// A raw input named in the manifest cannot be read (exit status 3).
    case inputUnreadable(manifest: String, key: String, failure: FileDigest.Failure)
    /// A stage executable is not installed next to `regionsearch`.
    case executableMissing(path: String)
    /// A stage executable could not be started.
    case spawnFailed(executable: String, reason: String)
    /// A stage exited with an error or was killed; its own message is above. Exit status: the
    /// stage's own when it is a documented one, 7 otherwise (``passedThrough(_:)``).
    case stageFailed(stage: String, exit: ChildProcess.Termination, detail: String?)
    /// An input of a stage changed while the stage ran; its outputs were not recorded.
    case inputChanged(stage: String, input: String, path: String)
    /// The work directory or the output could not be written (exit status 6).
    case fileSystem(FileSystem.Failure)
    /// `work_dir` names a folder that holds files and was never a work directory (exit status 2):
    /// the runner's sweeps and `clean` manage that folder, so it is not mixed with other files.
    case notAWorkDirectory(path: String, names: [String])
    /// `work_dir` is a file, or lies under one (`file`), so no folder can be made there (exit
    /// status 2): a mistake in the manifest, not a full disk.
    case notAFolder(path: String, file: String)
    /// A file at the top of the work directory that the runner rewrites (`lock`, `run.json`, …)
    /// holds something the runner did not write (exit status 2); it is not overwritten.
    case foreignFile(path: String, workDirectory: String, what: String)
    /// The lineage file the run would advance keeps the ids of another manifest, which exists
    /// (exit status 2): each manifest's nights would move the other's ids and change reports.
    case lineageOfAnotherManifest(path: String, owner: String, manifest: String)

    /// What a stage failure was, without the advice on how to resume (which depends on what
    /// ran the stage: `regionsearch run`, or a tiled workflow's step); nil for other errors.
    public var stageFailure: String? {
        guard case .stageFailed(let stage, let exit, let detail) = self else { return nil }
        if let detail { return "stage \(stage) failed: \(detail)" }
        if case .signaled(let signal) = exit {
            // A killed process writes no message of its own: say who can have sent the signal.
            return "stage \(stage) was \(exit)"
                + (signal == SIGKILL ? " (the kernel's out-of-memory killer, a scheduler or an operator)" : "")
        }
        return "stage \(stage) failed (\(exit)); its message is above"
    }

    public var description: String {
        switch self {
        case .busy(let work, let holder):
            let who = holder.map { "another run (\($0))" } ?? "another run"
            return
                "work directory \(work) is in use by \(who); wait for it to finish, or pass --wait to queue behind it"
        case .inputUnreadable(let manifest, let key, let failure):
            return "\(manifest): \(key).path: cannot read \(failure.path): \(failure.reason)"
        case .executableMissing(let path):
            return
                "stage executable \(path) not found or not executable; the stage tools must be installed in the same "
                + "directory as regionsearch"
        case .spawnFailed(let executable, let reason):
            return "cannot start \(executable): \(reason)"
        case .stageFailed(let stage, _, _):
            return (stageFailure ?? "")
                + ". Earlier stages are kept; after fixing the cause, 'regionsearch run' resumes at "
                + stage
        case .inputChanged(let stage, let input, let path):
            return
                "input \(input) of stage \(stage) (\(path)) changed while the stage ran, so its result was not "
                + "recorded; run again once the input is stable"
        case .fileSystem(let failure):
            return failure.description + FileErrorAdvice.suffix(forReason: failure.reason)
        case .notAWorkDirectory(let path, let names):
            let shown = names.prefix(3).joined(separator: ", ") + (names.count > 3 ? ", …" : "")
            return
                "work_dir \(path) holds files that RegionSearch did not make (\(shown)) and is not a RegionSearch "
                + "work directory; the runner and 'regionsearch clean' manage everything in it, so it is not shared "
                + "with other files: name a new or empty folder as work_dir (e.g. \"work_dir\": \"work\")"
        case .notAFolder(let path, let file):
            let under = file == path ? "" : " (under \(file))"
            return
                "work_dir \(path) cannot be a folder\(under): \(file) is a file, not a folder; name a new or empty "
                + "folder as work_dir (e.g. \"work_dir\": \"work\")"
        case .foreignFile(let path, let work, let what):
            return
                "\(path) is not RegionSearch's \(what), and the runner would overwrite it; move it out of the work "
                + "directory \(work), or name a new or empty folder as work_dir"
        case .lineageOfAnotherManifest(let path, let owner, let manifest):
            return
                "\(path) is the lineage file of another manifest, \(owner); a run of \(manifest) would advance it, "
                + "and each manifest's nights would then change the other's region ids and change reports. Give each "
                + "manifest its own lineage file (\"lineage\": true keeps it beside the manifest's own output, "
                + "\"lineage\": \"PATH\" names one); or, when \(manifest) now keeps these nights (the other moved "
                + "or retired), run it once with --adopt-lineage to go on from this file (ids kept) or with "
                + "--fresh-lineage to start a new lineage in it (ids numbered afresh); \(owner) is then refused instead"
        }
    }

    /// A stage's own documented exit status (1 failed, 2 bad parameters, 3 bad input data, 4
    /// damaged artifact, 6 output not writable) is the run's, so a nightly job can tell "fix the
    /// input" from "disk full"; a signal, an internal error (70) or an unknown code is 7.
    static func passedThrough(_ exit: ChildProcess.Termination) -> ExitStatus {
        guard case .exited(let code) = exit, let status = ExitStatus(rawValue: code),
            [.failure, .usage, .inputData, .artifact, .output].contains(status)
        else { return .stageFailed }
        return status
    }

    public var exitStatus: ExitStatus {
        switch self {
        case .busy: return .busy
        case .inputUnreadable: return .inputData
        case .executableMissing, .spawnFailed, .inputChanged: return .failure
        case .stageFailed(_, let exit, _): return Self.passedThrough(exit)
        case .fileSystem: return .output
        case .notAWorkDirectory, .notAFolder, .foreignFile, .lineageOfAnotherManifest: return .usage
        }
    }
}
