/// Where an engine runs: the event loop that owns its timers and watches, and
/// the workers its blocking device calls go to (their completions come back
/// to `loop`).
///
/// The daemon hands every engine its own loop and pool. Embedded users (the
/// library, the CLI without a daemon, tools and tests) have no loop to join,
/// so `ownThread` starts one on a thread of its own: the same code paths run
/// in both, only the thread differs.
package struct LoopHost: Sendable {
    package let loop: EventLoop
    package let workers: WorkerPool

    package init(loop: EventLoop, workers: WorkerPool) {
        self.loop = loop
        self.workers = workers
    }

    /// A loop running on a thread named `name` and `workerCount` workers.
    /// Sources can be added from any thread with `loop.post`; the thread and
    /// workers live as long as the process (embedded engines live that long).
    package static func ownThread(name: String, workerCount: Int = 2) throws(EventLoopError) -> LoopHost {
        let loop = try EventLoop()
        let workers = try WorkerPool(size: workerCount, name: "\(name)-work", loop: loop)
        try loop.runOnThread(name: name)
        return LoopHost(loop: loop, workers: workers)
    }

    /// The process's one embedded host (the library, the CLI without a
    /// daemon, tools, tests): a loop thread and two workers started on first
    /// use and kept for the life of the process, shared by its audio and
    /// haptics engines however many come and go.
    package static func embedded() throws(EventLoopError) -> LoopHost {
        try EmbeddedHost.shared.get()
    }
}

/// The embedded host, started on first use.
private enum EmbeddedHost {
    static let shared: Result<LoopHost, EventLoopError> = Result { () throws(EventLoopError) in
        try LoopHost.ownThread(name: "sysound-loop")
    }
}
