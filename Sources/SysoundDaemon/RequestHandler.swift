import Glibc
import SysoundCore
import SysoundPlatform

/// Who is on the other end of a connection, as the kernel vouches for it
/// (SO_PEERCRED, taken when the client connected), and the sandbox its
/// process proves (read when first needed; nil where no socket is behind
/// the credentials). Equal by the credentials.
package struct PeerCredentials: Sendable, Equatable, Hashable, CustomStringConvertible {
    package var pid: pid_t
    package var uid: uid_t
    package var gid: gid_t
    package var sandbox: PeerSandbox?

    package init(pid: pid_t, uid: uid_t, gid: gid_t, sandbox: PeerSandbox? = nil) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
        self.sandbox = sandbox
    }

    package var description: String { "pid \(pid) uid \(uid) gid \(gid)" }

    package static func == (a: Self, b: Self) -> Bool { a.pid == b.pid && a.uid == b.uid && a.gid == b.gid }
    package func hash(into hasher: inout Hasher) {
        hasher.combine(pid)
        hasher.combine(uid)
        hasher.combine(gid)
    }
}

/// What the daemon's socket machinery hands requests to: the lead's
/// `FeedbackManager` in the daemon (`DaemonHandler`), a small fake in tests.
///
/// `handle` runs on the daemon's loop thread, one request at a time, so
/// state changes happen in the order requests arrived. It must not block:
/// what waits (`play … wait=1`, a device call) goes to `workers`, and its
/// completion answers through `respond` later. Every request is answered
/// exactly once; the connection reads its next request only then.
package protocol RequestHandler: Sendable {
    /// Answers one well-formed request. Malformed ones never get here: the
    /// server replies to them itself.
    func handle(_ request: Request, from peer: PeerCredentials, workers: WorkerPool, respond: Responder)

    /// Re-reads configuration and theme (SIGHUP), on a worker thread.
    /// Throwing keeps the old ones; the daemon logs the error and keeps serving.
    func reload() throws(ReloadError)
}

/// Sends a request's reply on its connection: from the loop thread at once,
/// from any other thread by way of the loop.
package struct Responder: Sendable {
    private let deliver: @Sendable (Reply) -> Void

    package init(_ deliver: @escaping @Sendable (Reply) -> Void) { self.deliver = deliver }

    package func callAsFunction(_ reply: Reply) { deliver(reply) }
}

/// Why a reload was refused; the old configuration stays in force.
package struct ReloadError: Error, Equatable, Sendable, CustomStringConvertible {
    package var message: String
    package init(_ message: String) { self.message = message }
    package var description: String { message }
}

