import Logging
import SysoundCore

/// Where the lock sources' readings meet the one `locked` control file.
///
/// Every source reports here on the loop's thread; `LockArbiter` lets a
/// reading through only when that source's value changed (the latest change
/// wins), and `write` then changes the control file the way the CLI does —
/// through the daemon's manager, atomically, applied at once — and records
/// the origin for `sysound status`.
package final class LockFollower {
    /// Writes the `locked` file and records `origin` (`logind session 3`).
    package typealias Write = (_ locked: Bool, _ origin: String) throws -> Void

    private var arbiter = LockArbiter()
    private let write: Write
    private let logger: Logger

    package init(logger: Logger, write: @escaping Write) {
        self.logger = logger
        self.write = write
    }

    /// A reading of `source` (a stable key, the same across a session switch
    /// or a reconnect); `origin` says who, for the log and for status.
    package func report(_ locked: Bool, source: String, origin: String) {
        guard let value = arbiter.reading(locked, from: source) else { return }
        do {
            try write(value, origin)
            logger.info("screen \(value ? "locked" : "unlocked") (\(origin))")
        } catch {
            logger.error("cannot follow the screen lock of \(origin): \(error)")
        }
    }
}

/// The daemon refused to set the lock (its reply's message).
package struct LockWriteRefused: Error, Sendable, CustomStringConvertible {
    package var message: String
    package init(_ message: String) { self.message = message }
    package var description: String { message }
}
