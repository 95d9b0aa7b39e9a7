import Glibc
import SysoundClient
import SysoundCore

/// `sysound play NAME [--state-dir DIR] [--app ID]` with a daemon up: one
/// `connect`, `send`, `recv`.
enum FastPath {
    enum Outcome {
        /// The request reached a daemon: exit with this status.
        case answered(Int32)
        /// No daemon listens (or the socket path is unusable): the embedded
        /// engine plays it (`sysound-play`, given the same argv).
        case noDaemon
    }

    /// What became of the request; nil when the command has another shape
    /// (the full CLI takes it). Once sent, a request is never sent again:
    /// asking twice is not harmless (a daemon that was only slow plays the
    /// sound twice). An error reply, a timeout (75) and a lost connection
    /// (70) are reported here.
    static func play(_ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>, count: Int) -> Outcome? {
        guard let play = PlayArguments.parse(count: count - 1, { argv[$0 + 1].map { String(cString: $0) } }) else { return nil }
        let name = play.name
        let socket = StateDirectoryLocation.path(explicit: play.stateDirectory) + "/socket"
        let reply: Reply
        do {
            reply = try DaemonClient(socketPath: socket).send(.play(PlayRequest(.name(name), app: play.app)))
        } catch {
            guard !error.reachedNoDaemon else {
                return .noDaemon
            }
            standardError("sysound: cannot play \(name): \(error)")
            return .answered(error.exitStatus)
        }
        switch reply {
        case .ok:
            return .answered(0)
        case .error(let code, let message):
            standardError("sysound: cannot play \(name): \(message)")
            return .answered(code.exitStatus)
        }
    }
}

/// Writes one line to standard error with `write(2)`: unbuffered, so it is out before `exit`.
func standardError(_ line: String) {
    var bytes = Array((line + "\n").utf8)[...]
    while !bytes.isEmpty {
        let n = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
        if n > 0 {
            bytes = bytes.dropFirst(n)
        } else if n < 0 && errno == EINTR {
            continue
        } else {
            return
        }
    }
}
