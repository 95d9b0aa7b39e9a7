
/// A bus connection that comes back: opened on the event loop `loop`,
/// and when it is lost (the bus daemon stopped, or was not there yet)
/// opened again with back-off (0.1 s doubling to 5 s). Each user (`addUser`)
/// has `connected` run for every new connection (export objects, request
/// names, add matches there: nothing survives a lost connection) and
/// `disconnected` once per loss. Several users share one connection: the
/// daemon's D-Bus face and its screensaver lock source are two users of its
/// session bus. Everything runs on the loop's thread.
package final class BusConnection: @unchecked Sendable {
    package private(set) var bus: Bus?
    /// Why the last attempt failed, while there is no connection.
    package private(set) var lastError: BusError?
    package private(set) var connections = 0

    /// One user's callbacks.
    private struct User {
        var connected: (Bus) -> Void
        var disconnected: (BusError?) -> Void
    }

    private let loop: EventLoop
    private let open: () throws(BusError) -> Bus
    private var users: [Int: User] = [:]
    private var nextUser = 0
    private var disconnectSlot: BusSlot?
    private var timer: EventSource?
    private var delay: UInt64 = BusConnection.firstDelay
    private var stopped = true

    static let firstDelay: UInt64 = 100_000  // µs
    static let maximumDelay: UInt64 = 5_000_000

    package init(loop: EventLoop, open: @escaping () throws(BusError) -> Bus) {
        self.loop = loop
        self.open = open
    }

    /// A connection with its one user.
    package convenience init(
        loop: EventLoop, open: @escaping () throws(BusError) -> Bus,
        connected: @escaping (Bus) -> Void, disconnected: @escaping (BusError?) -> Void = { _ in }
    ) {
        self.init(loop: loop, open: open)
        addUser(connected: connected, disconnected: disconnected)
    }

    /// Adds a user; `connected` runs at once if the connection is up. The
    /// returned id ends it (`removeUser`).
    @discardableResult
    package func addUser(connected: @escaping (Bus) -> Void, disconnected: @escaping (BusError?) -> Void = { _ in }) -> Int {
        nextUser += 1
        users[nextUser] = User(connected: connected, disconnected: disconnected)
        if let bus { connected(bus) }
        return nextUser
    }

    /// Ends a user: none of its callbacks runs any more. The connection stays.
    package func removeUser(_ id: Int) {
        users[id] = nil
    }

    /// Connects now (or schedules the first retry); call on the loop's thread.
    /// Once started, further calls change nothing.
    package func start() {
        guard stopped else { return }
        stopped = false
        connect()
    }

    /// Closes the connection and stops retrying.
    package func stop() {
        stopped = true
        cancelTimer()
        disconnectSlot = nil
        bus?.close()
        bus = nil
    }

    deinit { cancelTimer() }

    private func connect() {
        guard !stopped, bus == nil else { return }
        do throws(BusError) {
            let bus = try open()
            try bus.attach(to: loop)
            disconnectSlot = try bus.onDisconnect { [weak self] in self?.lost() }
            self.bus = bus
            lastError = nil
            delay = Self.firstDelay
            connections += 1
            // In the order added; a user that removes another takes effect at once.
            for id in users.keys.sorted() { users[id]?.connected(bus) }
        } catch {
            bus = nil
            lastError = error
            retry()
        }
    }

    private func lost() {
        // Called from inside the dead bus's dispatch: let go of it from the timer, not here.
        lastError = BusError(name: BusError.noReply, message: "the bus connection was lost")
        for id in users.keys.sorted() { users[id]?.disconnected(lastError) }
        delay = Self.firstDelay
        retry()
    }

    private func retry() {
        guard !stopped, timer == nil else { return }
        // Coarse: a reconnect only has to happen eventually, and may share a wake-up.
        do {
            timer = try loop.addTimer(after: delay, accuracy: .coarse(every: delay)) { [weak self] _ in
                guard let self else { return }
                cancelTimer()
                disconnectSlot = nil
                bus?.close()
                bus = nil
                connect()
            }
        } catch {
            // The users log what they are told: that no reconnect will come, and why.
            lastError = BusError(name: BusError.failed, message: "no timer to reconnect the bus (\(error)); it stays disconnected")
            for id in users.keys.sorted() { users[id]?.disconnected(lastError) }
        }
        delay = min(delay * 2, Self.maximumDelay)
    }

    private func cancelTimer() {
        timer?.cancel()
        timer = nil
    }
}
