import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Passes SIGTERM, SIGINT and SIGHUP that this process receives on to the child it is waiting
/// for, then ends this process by the same signal, as it would have ended without a handler.
///
/// Stages run in the runner's process group, so a signal to the group (Ctrl-C, a scheduler
/// stopping the job's group) reaches both. A signal to the runner's pid alone (`kill PID`, a
/// service manager that signals the main process) did not: the stage ran on to its end,
/// orphaned, writing into a staging folder nothing would read.
public enum SignalForwarding {
    /// Runs `body` with `pid` as the process the three signals are passed to.
    public static func forwarding<T, E: Error>(to pid: pid_t, _ body: () throws(E) -> T) throws(E) -> T {
        // Stored before the handlers are installed: the handler never initialises the global.
        forwardedChild.store(pid, ordering: .sequentiallyConsistent)
        defer { forwardedChild.store(0, ordering: .sequentiallyConsistent) }
        installed.withLock { done in
            guard !done else { return }
            let ignored = ignoredAtStart
            for s in [SIGTERM, SIGINT, SIGHUP] where !ignored.contains(s) { signal(s, forwardAndEnd) }
            done = true
        }
        return try body()
    }

    private static let installed = Mutex(false)

    /// The signals among SIGTERM, SIGINT, SIGHUP and SIGQUIT this process was started ignoring
    /// (`nohup` ignores SIGHUP; a shell's `&` in a script, SIGINT and SIGQUIT), read before any
    /// handler is installed. They stay ignored, in this process and in the stages it starts
    /// (``ChildProcess``): a nightly job started with `nohup` survives the hangup at logout.
    public static let ignoredAtStart: Set<Int32> = {
        var ignored: Set<Int32> = []
        for s in [SIGTERM, SIGINT, SIGHUP, SIGQUIT] {
            var current = sigaction()
            if sigaction(s, nil, &current) == 0 && isIgnore(current) { ignored.insert(s) }
        }
        return ignored
    }()

    private static func isIgnore(_ action: sigaction) -> Bool {
        #if canImport(Glibc)
            return unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self) == 1  // SIG_IGN
        #else
            return unsafeBitCast(action.__sigaction_u.__sa_handler, to: Int.self) == 1  // SIG_IGN
        #endif
    }
}

/// The child the signals go to (0: none).
private let forwardedChild = Atomic<Int32>(0)

/// The handler: only async-signal-safe calls (an atomic load, kill, signal, raise).
private func forwardAndEnd(_ number: Int32) {
    let pid = forwardedChild.load(ordering: .sequentiallyConsistent)
    if pid > 0 { _ = kill(pid, number) }
    _ = signal(number, SIG_DFL)
    _ = raise(number)
}
