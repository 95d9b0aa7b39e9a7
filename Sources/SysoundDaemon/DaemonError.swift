import Glibc
import SysoundCore

/// Why the daemon could not start.
package enum DaemonError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Another daemon serves this state directory (its PID, if it could be read).
    case alreadyRunning(pid: pid_t?, lockPath: String, socketPath: String)
    case lockFailed(path: String, errno: Int32)
    case socketPathTooLong(String)
    case socket(call: String, path: String, errno: Int32)
    /// systemd passed something other than a listening SOCK_SEQPACKET unix socket.
    case activation(String)
    /// The configured allowed group does not exist.
    case unknownGroup(String)
    case system(call: String, errno: Int32)

    package var description: String {
        switch self {
        case .alreadyRunning(let pid, let lockPath, let socketPath):
            let who = pid.map { "PID \($0)" } ?? "a daemon whose PID is unknown"
            return "another sysound daemon (\(who)) already serves \(socketPath) (lock \(lockPath)); "
                + "stop it first (kill \(pid.map(String.init) ?? "<pid>")) or use another --state-dir"
        case .lockFailed(let path, let code):
            return "cannot lock \(path): \(UnixSocket.errorText(code)); check the state directory's owner and mode"
        case .socketPathTooLong(let path):
            return "socket path \(path) is longer than \(UnixSocket.maximumPathLength) bytes; use a shorter --state-dir"
        case .socket(let call, let path, let code):
            return "\(call) on \(path) failed: \(UnixSocket.errorText(code))"
        case .activation(let message):
            return message
        case .unknownGroup(let name):
            return "allowed group \"\(name)\" does not exist; fix the config or create the group"
        case .system(let call, let code):
            return "\(call) failed: \(UnixSocket.errorText(code))"
        }
    }
}
