import Dispatch
import Glibc
import SysoundClient
import SysoundCore

/// The one connection a service keeps to the daemon: made on first use,
/// kept for every request after, and made anew when the daemon went away
/// (a restart) since the last one. Safe from any thread: requests on it are
/// exchanged one at a time.
final class DaemonLink: Sendable {
    let socketPath: String
    private let connection = Locked<DaemonConnection?>(nil)
    /// Serializes whole exchanges, so a connection is never replaced under a
    /// request that is using it.
    private let exchange = PthreadLock()

    init(socketPath: String) {
        self.socketPath = socketPath
    }

    /// Sends `request` and returns the daemon's reply.
    ///
    /// A connection the daemon has closed is noticed before sending (see
    /// `DaemonConnection.isStale`) and replaced; a request that fails on the
    /// way is never sent again, because it may have been carried out.
    func send(_ request: Request) throws(ClientError) -> Reply {
        exchange.lock()
        defer { exchange.unlock() }
        let open = try connected()
        do {
            return try open.send(request)
        } catch {
            // A connection that failed once may hold a late reply: a later
            // request on it would read the wrong answer.
            connection.withLock { $0 = nil }
            throw error
        }
    }

    /// Opens the connection now if it is not open (for `prepare()`).
    func connect() throws(ClientError) {
        exchange.lock()
        defer { exchange.unlock() }
        _ = try connected()
    }

    /// Whether a connection is open now (for tests of the reconnection).
    var isConnected: Bool { connection.withLock { $0 != nil } }

    private func connected() throws(ClientError) -> DaemonConnection {
        if let kept = connection.withLock({ $0 }), !kept.isStale { return kept }
        let fresh = try DaemonConnection(socketPath: socketPath)
        connection.withLock { $0 = fresh }
        return fresh
    }

    /// Calls `ended` once the daemon's voice `id` has ended, or at once if it
    /// has, or if the daemon is gone (its sounds went with it).
    ///
    /// A connection of its own, because the daemon holds a connection while a
    /// `wait` is pending; its reply is read when it is readable, by a
    /// dispatch source, so no thread is blocked for the sound's duration.
    func whenEnded(_ id: String, _ ended: @escaping @Sendable () -> Void) {
        // Off the caller's thread (an awaiting task's): a daemon whose queue
        // of connections is full holds a connect for up to the timeout.
        Self.waits.async { [socketPath] in Self.watch(id, at: socketPath, ended) }
    }

    private static func watch(_ id: String, at socketPath: String, _ ended: @escaping @Sendable () -> Void) {
        let fd = UnixSocket.seqpacket()
        guard fd >= 0 else { return ended() }
        UnixSocket.setTimeout(fd, milliseconds: DaemonClient.defaultTimeoutMilliseconds)
        let connected = UnixSocket.withAddress(socketPath) { Glibc.connect(fd, $0, $1) == 0 } ?? false
        guard connected, UnixSocket.sendPacket(fd, Request.waitForEnd(id).encoded()) == 0 else {
            UnixSocket.close(fd)
            return ended()
        }
        let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: Self.waits)
        source.setEventHandler {
            // The reply (ok, or an error for an id it does not know), or the
            // connection's end: either way the sound is no more.
            let received = UnixSocket.receivePacket(fd, capacity: WireProtocol.maximumReplySize + 1, flags: Int32(MSG_DONTWAIT))
            if case .failure(EAGAIN) = received { return }
            source.cancel()
        }
        source.setCancelHandler {
            UnixSocket.close(fd)
            ended()
        }
        source.resume()
    }

    private static let waits = DispatchQueue(label: "sysound.playback-ends")
}
