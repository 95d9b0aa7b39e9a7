import Glibc
import Logging
import SysoundPlatform
import SysoundCore
import SysoundState

/// The desktop's screen lock, followed by the daemon: the sources named in
/// `[session] lock_sources`, on one event loop, sharing one `LockFollower`.
package final class SessionLock {
    package let logind: LogindLockSource?
    package let screensaver: ScreensaverLockSource?

    /// - Parameters:
    ///   - loop: the loop the buses are attached to; every call and
    ///     callback happens on its thread.
    ///   - sessionBus: the daemon's session-bus connection, shared with its
    ///     D-Bus face; nil: the screensaver source opens its own.
    ///   - write: changes the `locked` control file (as the CLI does: the
    ///     daemon's manager) and records the origin.
    package init(
        sources: [LockSource], loop: EventLoop, sessionBus: BusConnection? = nil, logger: Logger,
        write: @escaping LockFollower.Write
    ) {
        let follower = LockFollower(logger: logger, write: write)
        logind = sources.contains(.logind)
            ? LogindLockSource(loop: loop, pid: UInt32(getpid()), uid: getuid(), follower: follower, logger: logger) : nil
        screensaver = sources.contains(.screensaver)
            ? ScreensaverLockSource(loop: loop, sessionBus: sessionBus, follower: follower, logger: logger) : nil
    }

    /// Call on the loop's thread.
    package func start() {
        logind?.start()
        screensaver?.start()
    }

    package func stop() {
        logind?.stop()
        screensaver?.stop()
    }

    /// The `write` for a daemon: `set` changes the control file through the
    /// manager (the CLI's path), then `locked-by` records who.
    package static func writer(files: ControlFiles, set: @escaping (Bool) throws -> Void) -> LockFollower.Write {
        { locked, origin in
            try set(locked)
            try LockOrigin(files: files).record(origin)
        }
    }
}
