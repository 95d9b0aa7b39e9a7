import Glibc
import Logging
import SysoundClient
import SysoundCore
import SysoundState

/// Accepts connections on the listening socket, checks each peer, and serves
/// each connection on a thread of its own: receive a datagram, parse, call the
/// handler, reply. A request waiting for its sound to end (`wait=1`) holds
/// only its own connection.
final class SocketServer: @unchecked Sendable {
    // @unchecked: `listener` is touched only by the accept loop's thread;
    // `connections` and `nextID` only under `lock`.
    private var listener: ListeningSocket
    private let handler: any RequestHandler
    private let access: PeerAccess
    private let group: gid_t?
    private let logger: Logger
    private let limits: DaemonOptions
    private let lock = PthreadLock()
    private var connections: [Int: Int32] = [:]
    private var nextID = 0
    private var recreateFailing = false

    init(listener: ListeningSocket, handler: any RequestHandler, access: PeerAccess, options: DaemonOptions, logger: Logger) {
        self.listener = listener
        self.handler = handler
        self.access = access
        self.group = access.allowedGroup
        self.limits = options
        self.logger = logger
    }

    var socketPath: String { listener.path }

    /// The number of connections being served now.
    var connectionCount: Int { lock.withLock { connections.count } }

    /// Accepts every pending connection (`accept4(2)`, non-blocking listener).
    func acceptPending() {
        while true {
            // accept4 is a _GNU_SOURCE name; the daemon never execs, so setting
            // close-on-exec right after accept leaves no window that matters.
            let fd = accept(listener.fd, nil, nil)
            if fd >= 0 { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
            if fd < 0 {
                switch errno {
                case EINTR, ECONNABORTED: continue
                case EAGAIN: return
                case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                    logger.error("cannot accept a connection on \(listener.path): \(UnixSocket.errorText(errno)); retrying shortly")
                    usleep(50_000)  // the listener stays readable: do not spin
                    return
                default:
                    logger.error("accept on \(listener.path) failed: \(UnixSocket.errorText(errno))")
                    return
                }
            }
            admit(fd)
        }
    }

    /// Checks the peer and starts serving it, or refuses it with one `error` reply.
    private func admit(_ fd: Int32) {
        let id: Int? = lock.withLock {
            guard connections.count < limits.maximumConnections else { return nil }
            nextID += 1
            connections[nextID] = fd
            return nextID
        }
        guard let id else {
            logger.warning("refused a connection: \(limits.maximumConnections) connections already open")
            Self.refuseNow(fd, .error(.busy, "the daemon is serving \(limits.maximumConnections) connections; retry shortly"))
            return
        }
        let peer = PeerIdentity.credentials(of: fd)
        let groups = access.allowedGroup == nil ? [] : PeerIdentity.groups(of: fd)
        let refusal: Reply?
        if let peer {
            refusal = access.allows(peer, groups: groups) ? nil : .error(
                .denied, "uid \(peer.uid) may not use this daemon (it serves uid \(access.uid)\(access.allowedGroup.map { " and group \($0)" } ?? ""))")
            if refusal != nil { logger.warning("refused \(peer): not uid \(access.uid) or root, nor in the allowed group") }
        } else {
            logger.warning("refused a connection whose credentials are unknown: \(UnixSocket.errorText(errno))")
            refusal = .error(.denied, "the daemon could not read your credentials")
        }
        startThread(name: "sysound-conn") { [self] in
            defer {
                lock.withLock { _ = connections.removeValue(forKey: id) }
                UnixSocket.close(fd)
            }
            if let refusal {
                refuseAfterRequest(fd, refusal)
            } else if let peer {
                serve(fd, peer: peer)
            }
        }
    }

    /// Answers a refused peer's first request (waiting at most a second for it),
    /// so a simple client such as socat, which writes before it reads, sees why.
    private func refuseAfterRequest(_ fd: Int32, _ reply: Reply) {
        UnixSocket.setTimeout(fd, milliseconds: 1000)
        _ = UnixSocket.receivePacket(fd, capacity: 1)
        _ = UnixSocket.sendPacket(fd, reply.encoded())
        Self.drain(fd)
    }

    /// Refuses without a thread (at the connection limit): reply, drain, close.
    private static func refuseNow(_ fd: Int32, _ reply: Reply) {
        let bytes = reply.encoded()
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
        drain(fd)
        UnixSocket.close(fd)
    }

    /// Reads what the peer already sent: closing with unread data would make the
    /// peer's next recv fail with ECONNRESET before it sees the reply.
    private static func drain(_ fd: Int32) {
        while case .packet = UnixSocket.receivePacket(fd, capacity: 1, flags: Int32(MSG_DONTWAIT)) {}
    }

    /// One connection's loop; returns when the peer closes or the daemon stops.
    private func serve(_ fd: Int32, peer: PeerCredentials) {
        while true {
            let reply: Reply
            switch UnixSocket.receivePacket(fd, capacity: WireProtocol.maximumRequestSize + 1) {
            case .packet(let bytes, let size):
                if size > WireProtocol.maximumRequestSize {
                    reply = RequestParseError.tooLarge(size: size).reply
                } else {
                    reply = handler.reply(to: bytes, from: peer)
                }
            case .zero:
                // An empty datagram and the end of the connection both read as 0 bytes;
                // only the end also shows up as a hang-up.
                guard !Self.peerHungUp(fd) else { return }
                reply = RequestParseError.empty.reply
            case .failure(let code):
                if code != ECONNRESET { logger.debug("recv from \(peer) failed: \(UnixSocket.errorText(code))") }
                return
            }
            var bytes = reply.encoded()
            if bytes.count > WireProtocol.maximumReplySize {
                logger.error("reply of \(bytes.count) bytes to \(peer) exceeds the limit")
                bytes = Reply.error(.tooLarge, "the reply of \(bytes.count) bytes exceeds \(WireProtocol.maximumReplySize)").encoded()
            }
            // The peer may be gone already; its request was still carried out.
            _ = UnixSocket.sendPacket(fd, bytes)
        }
    }

    /// POLLRDHUP, which glibc defines only under _GNU_SOURCE (Linux value).
    private static let pollReadHangUp: Int16 = 0x2000

    /// Whether the connection's read side is shut (`poll(2)` POLLHUP/POLLRDHUP).
    private static func peerHungUp(_ fd: Int32) -> Bool {
        var p = pollfd(fd: fd, events: Int16(POLLIN) | pollReadHangUp, revents: 0)
        guard poll(&p, 1, 0) >= 0 else { return true }
        return p.revents & (Int16(POLLHUP) | pollReadHangUp | Int16(POLLERR)) != 0
    }

    // MARK: Listener upkeep

    var listenerFD: Int32 { listener.fd }

    /// Recreates the socket file if someone deleted or replaced it.
    func checkSocketFile() {
        guard !listener.fileIsIntact else { return }
        guard !listener.path.isEmpty else { return }
        if !recreateFailing { logger.warning("socket \(listener.path) was deleted or replaced; binding a new one") }
        do {
            let fresh = try ListeningSocket.bind(path: listener.path, group: group)
            // The old socket's file is gone: closing it must not unlink the new one.
            UnixSocket.close(listener.fd)
            listener = fresh
            if recreateFailing { logger.notice("socket \(listener.path) recreated") }
            recreateFailing = false
        } catch {
            // Retried at every check; logged once, not every second.
            if !recreateFailing { logger.error("cannot recreate the socket: \(error); clients cannot reach this daemon until it can") }
            recreateFailing = true
        }
    }

    /// Stops accepting, lets every connection finish its reply in flight, and
    /// waits up to the grace period for them.
    func shutdown() {
        listener.close()
        // SHUT_RD wakes a connection blocked in recv; one in the handler
        // still sends its reply, then reads end-of-file and exits.
        lock.withLock { for fd in connections.values { _ = Glibc.shutdown(fd, Int32(SHUT_RD)) } }
        var waited = 0
        while connectionCount > 0 && waited < limits.shutdownGraceMilliseconds {
            usleep(5_000)
            waited += 5
        }
        let left = connectionCount
        if left > 0 { logger.warning("stopping with \(left) request(s) still waiting (e.g. wait=1 for a long sound)") }
    }
}
