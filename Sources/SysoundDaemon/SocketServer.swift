import Glibc
import Logging
import SysoundClient
import SysoundCore
import SysoundPlatform

/// Serves the listening socket and every connection from the daemon's loop:
/// all descriptors non-blocking, no thread per connection. Each time a
/// connection is readable it reads one request, hands it to the handler on
/// the loop thread, and sends the reply; the loop's level-triggered watch
/// brings it back for the next one after the other ready connections had
/// theirs (fair, and no `recv` that finds nothing). A request waiting for its
/// sound to end (`wait=1`) holds only its own connection, which is not
/// watched until the reply is out; the wait runs on a worker.
///
/// Loop thread only, but for `Responder`s, which post to the loop.
final class SocketServer: @unchecked Sendable {
    // @unchecked: everything is touched by the loop thread only; a
    // Responder called elsewhere posts to the loop first.
    private var listener: ListeningSocket
    private var listenerSource: EventSource?
    private let handler: any RequestHandler
    private let access: PeerAccess
    private let logger: Logger
    private let limits: DaemonOptions
    private let loop: EventLoop
    private let workers: WorkerPool
    private var connections: [Int: Connection] = [:]
    private var nextID = 0
    private var recreateFailing = false
    private var stopping: (() -> Void)?

    /// One client's connection.
    private final class Connection {
        let id: Int
        let fd: Int32
        let peer: PeerCredentials
        var source: EventSource?
        /// A reply is due (from a worker): reading waits for it.
        var awaitingReply = false
        /// Its watch is off while a worker's reply is due.
        var parked = false
        /// Replies the socket could not take yet (the peer reads slowly).
        var outbox: [[UInt8]] = []
        /// Set for a refused peer: answered after its first request, or after a second.
        var refusal: Reply?
        var refusalTimer: EventSource?

        init(id: Int, fd: Int32, peer: PeerCredentials) {
            self.id = id
            self.fd = fd
            self.peer = peer
        }
    }

    init(
        listener: ListeningSocket, handler: any RequestHandler, access: PeerAccess, options: DaemonOptions,
        loop: EventLoop, workers: WorkerPool, logger: Logger
    ) {
        self.listener = listener
        self.handler = handler
        self.access = access
        self.limits = options
        self.loop = loop
        self.workers = workers
        self.logger = logger
    }

    var socketPath: String { listener.path }

    /// The number of connections being served now.
    var connectionCount: Int { connections.count }

    /// Starts accepting on the loop.
    func start() throws(EventLoopError) {
        listenerSource = try loop.addIO(fd: listener.fd, events: .readable) { [unowned self] _ in acceptPending() }
    }

    /// Accepts every pending connection (non-blocking listener).
    private func acceptPending() {
        while true {
            let fd = accept(listener.fd, nil, nil)
            if fd < 0 {
                switch errno {
                case EINTR, ECONNABORTED: continue
                case EAGAIN: return
                case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                    logger.error("cannot accept a connection on \(listener.path): \(UnixSocket.errorText(errno)); retrying shortly")
                    pauseAccepting()  // the listener stays readable: do not spin
                    return
                default:
                    logger.error("accept on \(listener.path) failed: \(UnixSocket.errorText(errno))")
                    return
                }
            }
            // accept4 is a _GNU_SOURCE name; the daemon never execs, so setting
            // the flags right after accept leaves no window that matters.
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            admit(fd)
        }
    }

    private var acceptPause: EventSource?

    /// Stops accepting for 50 ms (out of descriptors or memory).
    private func pauseAccepting() {
        do {
            acceptPause = try loop.addTimer(after: 50_000, accuracy: .millisecond) { [unowned self] _ in
                acceptPause = nil
                listenerSource?.setEnabled(true)
            }
            listenerSource?.setEnabled(false)
        } catch {
            // Without the timer that resumes it a paused listener would never
            // accept again: keep accepting (the next accept fails fast) instead.
            logger.error("cannot pause accepting for 50 ms (\(error)); accepting on while descriptors or memory run out")
        }
    }

    /// Checks the peer and starts serving it, or refuses it with one `error` reply.
    private func admit(_ fd: Int32) {
        guard connections.count < limits.maximumConnections else {
            logger.warning("refused a connection: \(limits.maximumConnections) connections already open")
            Self.refuseNow(fd, .error(.busy, "the daemon is serving \(limits.maximumConnections) connections; retry shortly"))
            return
        }
        var peer = PeerIdentity.credentials(of: fd)
        if let pid = peer?.pid { peer?.sandbox = PeerSandbox(socket: fd, pid: pid) }
        let groups = access.allowedGroup == nil ? [] : PeerIdentity.groups(of: fd)
        nextID += 1
        let connection = Connection(id: nextID, fd: fd, peer: peer ?? PeerCredentials(pid: 0, uid: uid_t.max, gid: gid_t.max))
        if let peer {
            if !access.allows(peer, groups: groups) {
                logger.warning("refused \(peer): not uid \(access.uid) or root, nor in the allowed group")
                connection.refusal = .error(
                    .denied, "uid \(peer.uid) may not use this daemon (it serves uid \(access.uid)\(access.allowedGroup.map { " and group \($0)" } ?? ""))")
            }
        } else {
            logger.warning("refused a connection whose credentials are unknown: \(UnixSocket.errorText(errno))")
            connection.refusal = .error(.denied, "the daemon could not read your credentials")
        }
        do {
            connection.source = try loop.addIO(fd: fd, events: .readable) { [unowned self, unowned connection] events in
                // A peer that hung up with replies queued: sending them fails
                // (EPIPE, counted as sent) and the read then finds the end.
                if !connection.outbox.isEmpty, !events.isDisjoint(with: [.writable, .hangUp, .error]) { flush(connection) }
                if !events.isDisjoint(with: [.readable, .hangUp, .error]) { readRequest(connection) }
            }
            if connection.refusal != nil {
                // A simple client such as socat writes before it reads: answer
                // its first request, or after a second without one.
                connection.refusalTimer = try loop.addTimer(after: 1_000_000, accuracy: .millisecond) { [unowned self, unowned connection] _ in
                    refuse(connection)
                }
            }
        } catch {
            logger.error("cannot serve a connection: \(error)")
            UnixSocket.close(fd)
            return
        }
        connections[connection.id] = connection
    }

    /// Refuses without registering (at the connection limit): reply, drain, close.
    private static func refuseNow(_ fd: Int32, _ reply: Reply) {
        let bytes = reply.encoded()
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
        drain(fd)
        UnixSocket.close(fd)
    }

    private func refuse(_ connection: Connection) {
        guard let refusal = connection.refusal else { return }
        connection.refusal = nil
        Self.refuseNow(connection.fd, refusal)
        forget(connection, closing: false)
    }

    /// Reads what the peer already sent: closing with unread data would make the
    /// peer's next recv fail with ECONNRESET before it sees the reply.
    private static func drain(_ fd: Int32) {
        while case .packet = UnixSocket.receivePacket(fd, capacity: 1, flags: Int32(MSG_DONTWAIT)) {}
    }

    /// The server's one receive buffer (loop thread only): a request is
    /// parsed before the next is read.
    private var receiveBuffer = [UInt8](repeating: 0, count: WireProtocol.maximumRequestSize + 1)

    /// Reads and answers one request, if the peer sent one.
    private func readRequest(_ connection: Connection) {
        if connection.refusal != nil { return refuse(connection) }
        guard !connection.awaitingReply && connection.outbox.isEmpty else { return }
        let capacity = receiveBuffer.count
        let (size, code) = receiveBuffer.withUnsafeMutableBytes { raw in
            while true {
                let n = recv(connection.fd, raw.baseAddress, capacity, Int32(MSG_TRUNC) | Int32(MSG_DONTWAIT))
                if n < 0 && errno == EINTR { continue }
                return (n, n < 0 ? errno : 0)
            }
        }
        if size > WireProtocol.maximumRequestSize {
            answer(connection, RequestParseError.tooLarge(size: size).reply)
        } else if size > 0 {
            dispatch(receiveBuffer[..<size], on: connection)
        } else if size == 0 {
            // An empty datagram and the end of the connection both read as 0 bytes;
            // only the end also shows up as a hang-up.
            if Self.peerHungUp(connection.fd) { return close(connection) }
            answer(connection, RequestParseError.empty.reply)
        } else if code != EAGAIN {
            logger.trace("recv from \(connection.peer): \(UnixSocket.errorText(code))")
            if code != ECONNRESET { logger.debug("recv from \(connection.peer) failed: \(UnixSocket.errorText(code))") }
            close(connection)
        }
    }

    /// Parses a datagram and hands it to the handler; its reply comes through a Responder.
    private func dispatch(_ datagram: ArraySlice<UInt8>, on connection: Connection) {
        let request: Request
        do {
            request = try Request(parsing: datagram)
        } catch {
            return answer(connection, error.reply)
        }
        logger.trace("request from \(connection.peer): \(request.text)")
        connection.awaitingReply = true
        let id = connection.id
        let loop = loop
        // Strong, not weak: a weak reference's side table outlives the
        // server for LeakSanitizer. No cycle lasts: a worker releases the
        // job once run, and the loop drops what is posted after it exited.
        let respond = Responder { [self] reply in
            if loop.isLoopThread {
                replied(id, reply)
            } else {
                loop.post { [self] in replied(id, reply) }
            }
        }
        handler.handle(request, from: connection.peer, workers: workers, respond: respond)
        if connection.awaitingReply {
            // Answered later, from a worker: unwatched till then, or a
            // readable (or hung-up) socket would wake the loop in vain.
            connection.parked = true
            connection.source?.setEnabled(false)
        }
    }

    private func replied(_ id: Int, _ reply: Reply) {
        // The connection may have been closed while the reply was on its way;
        // the request was still carried out.
        guard let connection = connections[id], connection.awaitingReply else { return }
        connection.awaitingReply = false
        answer(connection, reply)
        if connection.parked {
            // Watched again: a request that came meanwhile is read at once,
            // a queued reply flushed when the socket takes it.
            connection.parked = false
            connection.source?.setEnabled(true)
        }
        // Shutting down: closed once the reply is out (`flush` does it if it was queued).
        if stopping != nil, connection.outbox.isEmpty { close(connection) }
    }

    /// Sends a reply, or queues it while the peer's socket is full.
    private func answer(_ connection: Connection, _ reply: Reply) {
        var bytes = reply.encoded()
        if bytes.count > WireProtocol.maximumReplySize {
            logger.error("reply of \(bytes.count) bytes to \(connection.peer) exceeds the limit")
            bytes = Reply.error(.tooLarge, "the reply of \(bytes.count) bytes exceeds \(WireProtocol.maximumReplySize)").encoded()
        }
        if connection.outbox.isEmpty, send(bytes, on: connection) { return }
        connection.outbox.append(bytes)
        flush(connection)
    }

    /// Sends one reply unless the socket is full (false: queue it). A peer
    /// that is gone (EPIPE) counts as sent: its request was carried out.
    private func send(_ bytes: [UInt8], on connection: Connection) -> Bool {
        while true {
            let n = bytes.withUnsafeBytes { Glibc.send(connection.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
            if n < 0 && errno == EINTR { continue }
            return !(n < 0 && errno == EAGAIN)
        }
    }

    /// Sends queued replies; waits for the socket to be writable if it is full.
    private func flush(_ connection: Connection) {
        while let bytes = connection.outbox.first {
            guard send(bytes, on: connection) else {
                // Only writability matters until the queue is out: reading waits.
                connection.source?.setIOEvents(.writable)
                return
            }
            connection.outbox.removeFirst()
        }
        connection.source?.setIOEvents(.readable)
        if stopping != nil, !connection.awaitingReply { close(connection) }
    }

    /// Whether the connection's read side is shut (`poll(2)` POLLHUP/POLLRDHUP).
    private static func peerHungUp(_ fd: Int32) -> Bool {
        var p = pollfd(fd: fd, events: Int16(POLLIN) | pollReadHangUp, revents: 0)
        guard poll(&p, 1, 0) >= 0 else { return true }
        return p.revents & (Int16(POLLHUP) | pollReadHangUp | Int16(POLLERR)) != 0
    }

    /// POLLRDHUP, which glibc defines only under _GNU_SOURCE (Linux value).
    private static let pollReadHangUp: Int16 = 0x2000

    private func close(_ connection: Connection) {
        forget(connection, closing: true)
    }

    private func forget(_ connection: Connection, closing: Bool) {
        connection.source?.cancel()
        connection.refusalTimer?.cancel()
        connections[connection.id] = nil
        if closing { UnixSocket.close(connection.fd) }
        if connections.isEmpty, let stopping {
            self.stopping = nil
            stopping()
        }
    }

    // MARK: Listener upkeep

    /// Recreates the socket file if someone deleted or replaced it.
    func checkSocketFile() {
        guard !listenerClosed, !listener.fileIsIntact else { return }
        guard !listener.path.isEmpty else { return }
        if !recreateFailing { logger.warning("socket \(listener.path) was deleted or replaced; binding a new one") }
        do {
            let fresh = try ListeningSocket.bind(path: listener.path, group: access.allowedGroup)
            let watch: EventSource
            do {
                watch = try loop.addIO(fd: fresh.fd, events: .readable) { [unowned self] _ in acceptPending() }
            } catch {
                // A socket nobody accepts on is worse than none: clients would
                // queue on it unanswered. Dropped; the next check binds again.
                fresh.close()
                if !recreateFailing { logger.error("cannot watch the recreated socket \(fresh.path): \(error); clients cannot reach this daemon until it can") }
                recreateFailing = true
                return
            }
            listenerSource?.cancel()
            // The old socket's file is gone: closing it must not unlink the new one.
            UnixSocket.close(listener.fd)
            listener = fresh
            listenerSource = watch
            if recreateFailing { logger.notice("socket \(listener.path) recreated") }
            recreateFailing = false
        } catch {
            // Retried at every check; logged once, not every second.
            if !recreateFailing { logger.error("cannot recreate the socket: \(error); clients cannot reach this daemon until it can") }
            recreateFailing = true
        }
    }

    /// Stops accepting and closes idle connections; those awaiting a reply
    /// close once it is sent. `done` runs on the loop when none is left.
    func shutdown(_ done: @escaping () -> Void) {
        closeListener()
        for connection in Array(connections.values) where !connection.awaitingReply && connection.outbox.isEmpty {
            if connection.refusal != nil { refuse(connection) } else { close(connection) }
        }
        if connections.isEmpty { return done() }
        stopping = done
    }

    private var listenerClosed = false

    /// Stops accepting and closes the listening socket (its file removed if the daemon made it). Idempotent.
    func closeListener() {
        guard !listenerClosed else { return }
        listenerClosed = true
        listenerSource?.cancel()
        listenerSource = nil
        acceptPause?.cancel()
        listener.close()
    }

    /// Closes what is left after the grace period.
    func abandonConnections() {
        stopping = nil
        for connection in Array(connections.values) { close(connection) }
    }
}
