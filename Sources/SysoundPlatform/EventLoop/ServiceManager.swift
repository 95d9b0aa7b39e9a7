import CSystemd
import Glibc

/// The daemon's side of systemd's service protocol (sd-daemon): readiness,
/// reload and stop notifications, status text, watchdog pings, and the
/// sockets passed for socket activation. Without systemd (no NOTIFY_SOCKET,
/// no LISTEN_FDS) every call is a no-op.
package enum ServiceManager {
    /// What the daemon tells the service manager (`sd_notify(3)`).
    package enum Notification: Sendable, Equatable {
        case ready
        case reloading
        case stopping
        case watchdog
        case status(String)

        var text: String {
            switch self {
            case .ready: "READY=1\nMAINPID=\(getpid())"
            // Type=notify-reload wants the reload's start on the monotonic clock.
            case .reloading: "RELOADING=1\nMONOTONIC_USEC=\(EventLoop.monotonicNow())"
            case .stopping: "STOPPING=1"
            case .watchdog: "WATCHDOG=1"
            case .status(let text): "STATUS=\(text)"
            }
        }
    }

    /// Sends `notifications` in one datagram; false if there is no service manager to tell.
    @discardableResult
    package static func notify(_ notifications: Notification...) -> Bool {
        sd_notify(0, notifications.map(\.text).joined(separator: "\n")) > 0
    }

    /// The watchdog interval the service manager expects pings within
    /// (`sd_watchdog_enabled`: WatchdogSec=, for this PID), nil if none.
    package static func watchdogInterval() -> UInt64? {
        var usec: UInt64 = 0
        guard sd_watchdog_enabled(0, &usec) > 0, usec > 0 else { return nil }
        return usec
    }

    /// The sockets passed to this process (`sd_listen_fds`): numbered from
    /// `firstFD` (SD_LISTEN_FDS_START, 3; tests pass another). LISTEN_PID,
    /// LISTEN_FDS and LISTEN_FDNAMES are unset so children do not inherit
    /// them; the descriptors get close-on-exec.
    package static func passedSockets(firstFD: Int32 = 3) -> [Int32] {
        let count = sd_listen_fds(1)
        guard count > 0 else { return [] }
        let fds = Array(firstFD..<(firstFD + count))
        for fd in fds { _ = fcntl(fd, F_SETFD, fcntl(fd, F_GETFD) | FD_CLOEXEC) }
        return fds
    }
}

extension EventLoop {
    /// Pings the service manager's watchdog at half its interval, if it has
    /// one: a loop stuck in a handler stops pinging and systemd restarts the
    /// daemon. Nil without a watchdog.
    package func startWatchdogPings() throws(EventLoopError) -> EventSource? {
        guard let interval = ServiceManager.watchdogInterval() else { return nil }
        ServiceManager.notify(.watchdog)
        // Coarse: a ping only has to land within the half interval left.
        let every = interval / 2
        return try addRepeatingTimer(every: every, accuracy: .coarse(every: every)) { _ in ServiceManager.notify(.watchdog) }
    }
}
