import Logging
import SysoundPlatform

/// What each lock source does with its bus, in one place: subscribe on
/// every connection (again after a loss), let go on a loss, and say in one
/// log line each when the bus is missing at start, lost, and back. The
/// connection may be shared (the daemon's session bus also carries its D-Bus
/// face): the follower adds itself as one user and leaves it to its owner.
final class BusFollower {
    /// The texts of the three log lines, after "system bus" / "session bus".
    struct Wording {
        /// What is not followed while the bus is away ("the screensaver lock is not followed").
        var meanwhile: String
        /// What happens at start without a bus ("logind's lock is followed once it appears").
        var untilItAppears: String
        /// What happens when it is back ("following the screensavers again").
        var again: String
    }

    let connection: BusConnection
    private let ownsConnection: Bool
    private let busName: String
    private let wording: Wording
    private let logger: Logger
    private let connected: (Bus) -> Void
    private let lost: () -> Void
    private var user: Int?
    private var seen = 0

    /// - Parameters:
    ///   - shared: a connection another part of the daemon uses too; nil
    ///     opens one of this follower's own at `address`.
    ///   - connected: subscribes and reads, on every new connection.
    ///   - lost: forgets what the lost connection held.
    init(
        shared: BusConnection?, address: Bus.Address, loop: EventLoop, busName: String, wording: Wording, logger: Logger,
        connected: @escaping (Bus) -> Void, lost: @escaping () -> Void
    ) {
        connection = shared ?? BusConnection(loop: loop, open: { () throws(BusError) in try Bus.open(address) })
        ownsConnection = shared == nil
        self.busName = busName
        self.wording = wording
        self.logger = logger
        self.connected = connected
        self.lost = lost
    }

    /// A shared connection outlives its users: it must not call a follower that is gone.
    deinit {
        if let user { connection.removeUser(user) }
    }

    /// Follows from now on; call on the loop's thread.
    func start() {
        guard user == nil else { return }
        user = connection.addUser(connected: { [unowned self] bus in
            seen += 1
            if seen > 1 { logger.notice("\(busName) is back; \(wording.again)") }
            connected(bus)
        }, disconnected: { [unowned self] error in
            lost()
            logger.warning("\(busName) lost (\(error.map { "\($0)" } ?? "closed")); \(wording.meanwhile) until it returns")
        })
        connection.start()
        if connection.bus == nil {
            logger.notice("no \(busName) (\(connection.lastError.map { "\($0)" } ?? "?")); \(wording.untilItAppears)")
        }
    }

    func stop() {
        lost()
        if let user { connection.removeUser(user) }
        user = nil
        if ownsConnection { connection.stop() }
    }
}
