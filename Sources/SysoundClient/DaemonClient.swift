import Glibc
import SysoundCore

/// Sends requests to a running `sysound serve` over its unix socket.
///
/// Made for the CLI's fast path: no Foundation, a handful of system calls
/// (socket, setsockopt, connect, send, recv, close) per request.
package struct DaemonClient: Sendable {
    /// The daemon's socket, usually `$STATE/socket`.
    package let socketPath: String
    /// How long to wait for the connection, the send and the reply; nil waits forever
    /// (`play … wait=1` replies only when the sound has ended).
    package var timeoutMilliseconds: Int?

    /// Long enough for a daemon that socket activation starts on this very
    /// request to load its theme and answer.
    package static let defaultTimeoutMilliseconds = 5000

    package init(socketPath: String, timeoutMilliseconds: Int? = DaemonClient.defaultTimeoutMilliseconds) {
        self.socketPath = socketPath
        self.timeoutMilliseconds = timeoutMilliseconds
    }

    /// A client for the daemon of the state directory `directory` (socket `directory/socket`).
    package init(stateDirectory directory: String, timeoutMilliseconds: Int? = DaemonClient.defaultTimeoutMilliseconds) {
        self.init(socketPath: directory + "/socket", timeoutMilliseconds: timeoutMilliseconds)
    }

    /// Connects, sends `request`, returns the daemon's reply and disconnects.
    ///
    /// - Throws: `ClientError`; `.noDaemon` means nothing listens at the socket
    ///   (the caller may fall back to the embedded engine).
    package func send(_ request: Request) throws(ClientError) -> Reply {
        let connection = try DaemonConnection(socketPath: socketPath, timeoutMilliseconds: timeoutMilliseconds)
        return try connection.send(request)
    }

    /// Whether a daemon answers `ping` at the socket.
    package func isDaemonRunning() -> Bool {
        // Any failure to ping means no daemon answers, which is the question.
        (try? send(.ping))?.isOK ?? false
    }
}

/// One open connection to the daemon, for several requests in a row (the
/// library keeps one). Requests on one connection are answered in order;
/// `send` is serialized, so one connection can be shared between threads.
package final class DaemonConnection: @unchecked Sendable {
    // @unchecked: `fd` is immutable and every use of it holds `lock`.
    private let fd: Int32
    private let lock = PthreadLock()
    package let socketPath: String

    /// Connects to the daemon's socket (`socket(2)`, `connect(2)`).
    package init(socketPath: String, timeoutMilliseconds: Int? = DaemonClient.defaultTimeoutMilliseconds) throws(ClientError) {
        self.socketPath = socketPath
        let fd = UnixSocket.seqpacket()
        guard fd >= 0 else { throw .system(call: "socket", path: socketPath, errno: errno) }
        UnixSocket.setTimeout(fd, milliseconds: timeoutMilliseconds)
        guard let rc = UnixSocket.withAddress(socketPath, { connect(fd, $0, $1) == 0 ? 0 : errno }) else {
            UnixSocket.close(fd)
            throw .badPath(socketPath)
        }
        if rc != 0 {
            let result = rc
            UnixSocket.close(fd)
            switch result {
            case ENOENT, ECONNREFUSED, ENOTDIR: throw .noDaemon(path: socketPath, errno: result)
            // A unix socket's connect fails this way when the daemon's queue
            // of connections it has not accepted yet is full: nothing was sent.
            case EAGAIN, EINPROGRESS:
                throw .notSent(path: socketPath, connected: false, waitedMilliseconds: timeoutMilliseconds)
            default: throw .system(call: "connect", path: socketPath, errno: result)
            }
        }
        self.fd = fd
        self.timeoutMilliseconds = timeoutMilliseconds
    }

    /// How long connect, send and recv wait, for the messages that say so.
    private let timeoutMilliseconds: Int?

    deinit { UnixSocket.close(fd) }

    /// Whether a connection kept between requests is no use any more: the
    /// daemon closed it (it stopped or restarted), or something unasked for
    /// waits in it. Asked before sending, so a stale connection is replaced
    /// without a request ever being sent on it (and so never sent twice).
    package var isStale: Bool {
        // POLLRDHUP (0x2000) is behind _GNU_SOURCE, which Swift's Glibc leaves out.
        var entry = pollfd(fd: fd, events: Int16(POLLIN) | 0x2000, revents: 0)
        let ready = lock.withLock { poll(&entry, 1, 0) }
        return ready != 0
    }

    /// Sends one request and waits for its reply.
    package func send(_ request: Request) throws(ClientError) -> Reply {
        let bytes = try send(raw: request.encoded())
        do {
            return try Reply(parsing: bytes)
        } catch {
            throw .badReply(error)
        }
    }

    /// Sends one datagram as is and returns the reply datagram: for tests and
    /// tools that speak the protocol's text themselves.
    package func send(raw bytes: [UInt8]) throws(ClientError) -> [UInt8] {
        lock.lock()
        defer { lock.unlock() }
        let sendError = UnixSocket.sendPacket(fd, bytes)
        // A refused peer finds the daemon's `error denied` waiting even though
        // its own send failed (EPIPE): read it before reporting the send.
        if sendError != 0 && sendError != EPIPE && sendError != ECONNRESET {
            // The daemon's queue of requests on this connection stayed full
            // for the whole timeout: the datagram was never queued.
            if sendError == EAGAIN {
                throw .notSent(path: socketPath, connected: true, waitedMilliseconds: timeoutMilliseconds)
            }
            throw .system(call: "send", path: socketPath, errno: sendError)
        }
        var received = UnixSocket.receivePacket(fd, capacity: WireProtocol.maximumReplySize + 1)
        // Under socket activation systemd holds the socket and queues the
        // request while the daemon starts; a slow start is not a timeout.
        var started = DaemonClient.monotonicSeconds()
        while case .failure(EAGAIN) = received, daemonIsStarting,
              DaemonClient.monotonicSeconds() - started < DaemonClient.startupLimitSeconds {
            received = UnixSocket.receivePacket(fd, capacity: WireProtocol.maximumReplySize + 1)
            if case .failure(EAGAIN) = received {} else { break }
            if !daemonIsStarting { started = -.infinity }
        }
        // A daemon that refused us and closed reports ECONNRESET once, ahead
        // of the reply it queued: read again to get the reason.
        if case .failure(ECONNRESET) = received {
            received = UnixSocket.receivePacket(fd, capacity: WireProtocol.maximumReplySize + 1, flags: Int32(MSG_DONTWAIT))
        }
        switch received {
        case .packet(let reply, let size):
            guard size <= WireProtocol.maximumReplySize else { throw .replyTooLarge(size: size) }
            return reply
        case .zero:
            throw .closed(path: socketPath)
        case .failure(let code):
            if code == EAGAIN { throw .timedOut(path: socketPath) }
            if code == ECONNRESET || code == EPIPE { throw .closed(path: socketPath) }
            throw .system(call: "recv", path: socketPath, errno: code)
        }
    }
}

extension DaemonConnection {
    /// Whether the socket answers for a daemon that has not started yet:
    /// no live process holds the state directory's instance lock
    /// (`daemon.lock` names the holder's PID while it runs). Read only after
    /// a timeout, so the common case pays nothing.
    var daemonIsStarting: Bool {
        guard let slash = socketPath.lastIndex(of: "/") else { return false }
        let lockPath = String(socketPath[..<slash]) + "/daemon.lock"
        let fd = open(lockPath, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return errno == ENOENT }
        defer { UnixSocket.close(fd) }
        var buffer = [UInt8](repeating: 0, count: 32)
        let n = read(fd, &buffer, buffer.count)
        let text = n > 0 ? String(decoding: buffer[..<n], as: UTF8.self) : ""
        guard let pid = pid_t(text.split(separator: "\n").first ?? "") , pid > 0 else { return true }
        return kill(pid, 0) != 0 && errno == ESRCH
    }
}

extension DaemonClient {
    /// How long a request waits for a daemon that socket activation is
    /// starting (systemd's default start timeout).
    static let startupLimitSeconds = 90.0

    static func monotonicSeconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}

/// Why a request could not be exchanged with the daemon.
package enum ClientError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Nothing listens at the socket (missing, stale, or its directory is missing).
    case noDaemon(path: String, errno: Int32)
    /// The socket path is empty or longer than a unix socket address allows.
    case badPath(String)
    /// The request was sent and no reply came within the timeout.
    case timedOut(path: String)
    /// The daemon took neither the connection (`connected` false: its queue
    /// of connections not yet accepted is full) nor, on an open connection,
    /// the request within the timeout: it is overloaded or stuck, and the
    /// request was never sent.
    case notSent(path: String, connected: Bool, waitedMilliseconds: Int?)
    /// The daemon closed the connection without replying (it is stopping, or crashed).
    case closed(path: String)
    case replyTooLarge(size: Int)
    case badReply(ReplyParseError)
    case system(call: String, path: String, errno: Int32)

    /// Whether no daemon runs, so the embedded engine should be used instead.
    package var isNoDaemon: Bool { if case .noDaemon = self { true } else { false } }

    /// Whether no daemon could be reached, so another way (the embedded
    /// engine) may carry the request out without doing it twice: nobody
    /// listens, or the socket path cannot be used at all. A daemon that is
    /// there but overloaded (`notSent`) is not replaced by a second engine
    /// fighting it for the device: the caller is told to retry.
    package var reachedNoDaemon: Bool {
        switch self {
        case .noDaemon, .badPath: true
        default: false
        }
    }

    /// The exit status (sysexits.h) of a command that failed this way: a
    /// daemon that did not answer in time, or was too busy to take the
    /// request, is a temporary failure (75), a lost
    /// connection or garbage is the software's (70).
    package var exitStatus: Int32 {
        switch self {
        case .timedOut, .notSent: EX_TEMPFAIL
        case .noDaemon: EX_UNAVAILABLE
        case .badPath: EX_USAGE
        default: EX_SOFTWARE
        }
    }

    package var description: String {
        switch self {
        case .noDaemon(let path, let code):
            return "no sysound daemon at \(path) (\(UnixSocket.errorText(code))); start one with `sysound serve`"
        case .badPath(let path):
            return "socket path \(ControlValue.quoted(path, limit: 120)) is empty or longer than \(UnixSocket.maximumPathLength) bytes; use a shorter state directory"
        case .timedOut(let path):
            return "the daemon at \(path) did not answer in time; the request was sent and may still be carried out "
                + "(not sent again); check `sysound status` or restart it"
        case .notSent(let path, let connected, let waited):
            let within = waited.map { " within \($0) ms" } ?? ""
            let what = connected
                ? "took no request\(within) on an open connection"
                : "accepted no connection\(within): its queue of waiting connections is full"
            return "the daemon at \(path) \(what), so the request was not sent; the daemon is overloaded: "
                + "retry in a moment, and if this persists check `sysound status` or restart the daemon"
        case .closed(let path):
            return "the daemon at \(path) closed the connection without replying; the request may have been "
                + "carried out (not sent again); it may be stopping"
        case .replyTooLarge(let size):
            return "the daemon's reply of \(size) bytes exceeds \(WireProtocol.maximumReplySize)"
        case .badReply(let error):
            return error.description
        case .system(let call, let path, let code):
            return "\(call) on \(path) failed: \(UnixSocket.errorText(code))"
        }
    }
}
