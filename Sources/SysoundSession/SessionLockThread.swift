import Logging
import SysoundCore
import SysoundEventLoop

/// The lock sources on an `EventLoop` of their own, run by one thread named
/// `sysound-session`, for a daemon whose socket side is not on the event
/// loop yet. Once it is, make the `SessionLock` on the daemon's loop instead
/// and this type goes.
public final class SessionLockThread: @unchecked Sendable {
    // @unchecked: `lock` is touched on the loop thread only (posted work).
    private let loop: EventLoop
    private var lock: SessionLock?

    /// Starts the sources named in `sources`; nil (one log line) when there
    /// are none or the loop cannot be set up: the locked file works alone.
    public static func start(sources: [LockSource], logger: Logger, write: @escaping LockFollower.Write) -> SessionLockThread? {
        guard !sources.isEmpty else {
            logger.info("lock sources: none ([session] lock_sources = []); the locked file alone decides")
            return nil
        }
        do {
            let loop = try EventLoop()
            // Made and started here, before the loop's thread runs: from then
            // on only that thread touches it.
            let lock = SessionLock(sources: sources, event: loop.event, logger: logger, write: write)
            lock.start()
            let thread = SessionLockThread(loop: loop, lock: lock)
            try loop.runOnThread(name: "sysound-session")
            return thread
        } catch {
            logger.error("cannot start the session lock's event loop: \(error); the locked file alone decides")
            return nil
        }
    }

    private init(loop: EventLoop, lock: SessionLock) {
        self.loop = loop
        self.lock = lock
    }

    /// Closes the buses and ends the thread's loop; from any thread.
    public func stop() {
        loop.post { [self] in
            lock?.stop()
            lock = nil
            loop.exit()
        }
    }
}
