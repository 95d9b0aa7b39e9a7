import Glibc
import SysoundCore

/// Who is on the other end of a connection, as the kernel vouches for it
/// (SO_PEERCRED, taken when the client connected).
public struct PeerCredentials: Sendable, Equatable, Hashable, CustomStringConvertible {
    public var pid: pid_t
    public var uid: uid_t
    public var gid: gid_t

    public init(pid: pid_t, uid: uid_t, gid: gid_t) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
    }

    public var description: String { "pid \(pid) uid \(uid) gid \(gid)" }
}

/// What the daemon's socket machinery hands requests to: the lead's
/// `FeedbackManager` in the daemon, a small fake in tests.
///
/// `handle` runs on the connection's own thread, several at once for several
/// clients: it must be thread-safe, and should return quickly unless the
/// request asked to wait (`play … wait=1`).
public protocol RequestHandler: Sendable {
    /// Answers one well-formed request. Malformed ones never get here: the
    /// server replies to them itself.
    func handle(_ request: Request, from peer: PeerCredentials) -> Reply

    /// Re-reads configuration and theme (SIGHUP). Throwing keeps the old ones;
    /// the daemon logs the error and keeps serving.
    func reload() throws(ReloadError)
}

/// Why a reload was refused; the old configuration stays in force.
public struct ReloadError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

extension RequestHandler {
    /// Parses a datagram and answers it: the whole request path, one call.
    func reply(to datagram: [UInt8], from peer: PeerCredentials) -> Reply {
        let request: Request
        do {
            request = try Request(parsing: datagram)
        } catch {
            return error.reply
        }
        return handle(request, from: peer)
    }
}
