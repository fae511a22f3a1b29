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
    /// Starts a child with `spawn` and runs `body` with it, the three signals passed on to it
    /// meanwhile.
    ///
    /// The handlers are in place before the child starts, and a signal that arrives while it is
    /// being started is held until its pid is known, then passed on: with the child started first
    /// and the handlers installed after (as before), a SIGTERM in between ended the runner by the
    /// default action and left the stage running, orphaned (`SignalForwardingTests` failed so on
    /// a loaded machine). A signal that arrives when `spawn` fails ends this process all the same.
    public static func forwarding<T, E: Error>(
        spawn: () throws(E) -> ChildProcess, _ body: (ChildProcess) -> T
    ) throws(E) -> T {
        // Stored before the handlers are installed: the handler never initialises the global.
        forwardedChild.store(spawningMarker, ordering: .sequentiallyConsistent)
        installed.withLock { done in
            guard !done else { return }
            let ignored = ignoredAtStart
            for s in [SIGTERM, SIGINT, SIGHUP] where !ignored.contains(s) { signal(s, forwardAndEnd) }
            done = true
        }
        let child: ChildProcess
        do {
            child = try spawn()
        } catch {
            forwardedChild.store(0, ordering: .sequentiallyConsistent)
            endIfSignalled(forwardingTo: 0)
            throw error
        }
        // The moment a signal used to orphan the child: started, its pid not stored yet.
        CrashPoint.signalIfDue("spawned")
        forwardedChild.store(child.pid, ordering: .sequentiallyConsistent)
        endIfSignalled(forwardingTo: child.pid)
        defer { forwardedChild.store(0, ordering: .sequentiallyConsistent) }
        return body(child)
    }

    /// Passes on and ends by a signal that the handler held while a child was being started.
    private static func endIfSignalled(forwardingTo pid: pid_t) {
        let held = pendingSignal.exchange(0, ordering: .sequentiallyConsistent)
        guard held != 0 else { return }
        if pid > 0 { _ = kill(pid, held) }
        _ = signal(held, SIG_DFL)
        _ = raise(held)
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

/// The child the signals go to (0: none; ``spawningMarker``: one is being started).
private let forwardedChild = Atomic<Int32>(0)
/// A child is being started: its pid is not known yet.
private let spawningMarker: Int32 = -1
/// A signal the handler held while a child was being started (0: none).
private let pendingSignal = Atomic<Int32>(0)

/// The handler: only async-signal-safe calls (atomic loads and stores, kill, signal, raise).
/// While a child is being started the signal is held for the starting thread; if that thread
/// has moved on meanwhile (the child's pid stored, or none), the handler acts itself — both may
/// act, and a second kill of the child or raise of this process changes nothing.
private func forwardAndEnd(_ number: Int32) {
    var pid = forwardedChild.load(ordering: .sequentiallyConsistent)
    if pid == spawningMarker {
        pendingSignal.store(number, ordering: .sequentiallyConsistent)
        pid = forwardedChild.load(ordering: .sequentiallyConsistent)
        if pid == spawningMarker { return }
    }
    if pid > 0 { _ = kill(pid, number) }
    _ = signal(number, SIG_DFL)
    _ = raise(number)
}
