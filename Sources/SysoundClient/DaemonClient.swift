import Glibc
import SysoundCore

/// Sends requests to a running `sysound serve` over its unix socket.
///
/// Made for the CLI's fast path: no Foundation, a handful of system calls
/// (socket, setsockopt, connect, send, recv, close) per request.
public struct DaemonClient: Sendable {
    /// The daemon's socket, usually `$STATE/socket`.
    public let socketPath: String
    /// How long to wait for the connection, the send and the reply; nil waits forever
    /// (`play … wait=1` replies only when the sound has ended).
    public var timeoutMilliseconds: Int?

    /// Long enough for a daemon that socket activation starts on this very
    /// request to load its theme and answer.
    public static let defaultTimeoutMilliseconds = 5000

    public init(socketPath: String, timeoutMilliseconds: Int? = DaemonClient.defaultTimeoutMilliseconds) {
        self.socketPath = socketPath
        self.timeoutMilliseconds = timeoutMilliseconds
    }

    /// A client for the daemon of the state directory `directory` (socket `directory/socket`).
    public init(stateDirectory directory: String, timeoutMilliseconds: Int? = DaemonClient.defaultTimeoutMilliseconds) {
        self.init(socketPath: directory + "/socket", timeoutMilliseconds: timeoutMilliseconds)
    }

    /// Connects, sends `request`, returns the daemon's reply and disconnects.
    ///
    /// - Throws: `ClientError`; `.noDaemon` means nothing listens at the socket
    ///   (the caller may fall back to the embedded engine).
    public func send(_ request: Request) throws(ClientError) -> Reply {
        let connection = try DaemonConnection(socketPath: socketPath, timeoutMilliseconds: timeoutMilliseconds)
        return try connection.send(request)
    }

    /// Whether a daemon answers `ping` at the socket.
    public func isDaemonRunning() -> Bool {
        (try? send(.ping))?.isOK ?? false
    }
}

/// One open connection to the daemon, for several requests in a row (the
/// library keeps one). Requests on one connection are answered in order;
/// `send` is serialized, so one connection can be shared between threads.
public final class DaemonConnection: @unchecked Sendable {
    // @unchecked: `fd` is immutable and every use of it holds `lock`.
    private let fd: Int32
    private let lock = PthreadLock()
    public let socketPath: String

    /// Connects to the daemon's socket (`socket(2)`, `connect(2)`).
    public init(socketPath: String, timeoutMilliseconds: Int? = DaemonClient.defaultTimeoutMilliseconds) throws(ClientError) {
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
            case EAGAIN, EINPROGRESS: throw .timedOut(path: socketPath)
            default: throw .system(call: "connect", path: socketPath, errno: result)
            }
        }
        self.fd = fd
    }

    deinit { UnixSocket.close(fd) }

    /// Sends one request and waits for its reply.
    public func send(_ request: Request) throws(ClientError) -> Reply {
        let bytes = try send(raw: request.encoded())
        do {
            return try Reply(parsing: bytes)
        } catch {
            throw .badReply(error)
        }
    }

    /// Sends one datagram as is and returns the reply datagram: for tests and
    /// tools that speak the protocol's text themselves.
    public func send(raw bytes: [UInt8]) throws(ClientError) -> [UInt8] {
        lock.lock()
        defer { lock.unlock() }
        let sendError = UnixSocket.sendPacket(fd, bytes)
        // A refused peer finds the daemon's `error denied` waiting even though
        // its own send failed (EPIPE): read it before reporting the send.
        if sendError != 0 && sendError != EPIPE && sendError != ECONNRESET {
            if sendError == EAGAIN { throw .timedOut(path: socketPath) }
            throw .system(call: "send", path: socketPath, errno: sendError)
        }
        var received = UnixSocket.receivePacket(fd, capacity: WireProtocol.maximumReplySize + 1)
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

/// Why a request could not be exchanged with the daemon.
public enum ClientError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Nothing listens at the socket (missing, stale, or its directory is missing).
    case noDaemon(path: String, errno: Int32)
    /// The socket path is empty or longer than a unix socket address allows.
    case badPath(String)
    /// No connection, or no reply, within the timeout.
    case timedOut(path: String)
    /// The daemon closed the connection without replying (it is stopping, or crashed).
    case closed(path: String)
    case replyTooLarge(size: Int)
    case badReply(ReplyParseError)
    case system(call: String, path: String, errno: Int32)

    /// Whether no daemon runs, so the embedded engine should be used instead.
    public var isNoDaemon: Bool { if case .noDaemon = self { true } else { false } }

    public var description: String {
        switch self {
        case .noDaemon(let path, let code):
            return "no sysound daemon at \(path) (\(UnixSocket.errorText(code))); start one with `sysound serve`"
        case .badPath(let path):
            return "socket path \(ControlValue.quoted(path, limit: 120)) is empty or longer than \(UnixSocket.maximumPathLength) bytes; use a shorter state directory"
        case .timedOut(let path):
            return "the daemon at \(path) did not answer in time; check `sysound status` or restart it"
        case .closed(let path):
            return "the daemon at \(path) closed the connection without replying; it may be stopping"
        case .replyTooLarge(let size):
            return "the daemon's reply of \(size) bytes exceeds \(WireProtocol.maximumReplySize)"
        case .badReply(let error):
            return error.description
        case .system(let call, let path, let code):
            return "\(call) on \(path) failed: \(UnixSocket.errorText(code))"
        }
    }
}
