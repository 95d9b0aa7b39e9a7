import Glibc
import SysoundClient

/// systemd's side of the daemon's life: sockets passed at start
/// (sd_listen_fds semantics) and readiness notification (sd_notify).
enum SystemdIntegration {
    /// The first passed file descriptor (SD_LISTEN_FDS_START).
    static let firstPassedFD: Int32 = 3

    /// The descriptors systemd passed to this process, per `sd_listen_fds(1)`:
    /// only if LISTEN_PID is this process; the variables are unset either way
    /// so children do not inherit them, and the descriptors get close-on-exec.
    static func takePassedSockets(firstFD: Int32 = firstPassedFD) -> [Int32] {
        defer {
            unsetenv("LISTEN_PID")
            unsetenv("LISTEN_FDS")
            unsetenv("LISTEN_FDNAMES")
        }
        guard let pidText = getenv("LISTEN_PID").map({ String(cString: $0) }), pid_t(pidText) == getpid(),
              let countText = getenv("LISTEN_FDS").map({ String(cString: $0) }), let count = Int32(countText), count > 0,
              count < 1024
        else { return [] }
        let fds = Array(firstFD..<(firstFD + count))
        for fd in fds { _ = fcntl(fd, F_SETFD, fcntl(fd, F_GETFD) | FD_CLOEXEC) }
        return fds
    }

    /// Sends `state` (e.g. `READY=1`) to the service manager if NOTIFY_SOCKET is
    /// set (`sendto(2)` on a datagram socket, like `sd_notify(3)`); false if not sent.
    @discardableResult
    static func notify(_ state: String) -> Bool {
        guard let target = getenv("NOTIFY_SOCKET").map({ String(cString: $0) }), !target.isEmpty else { return false }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { UnixSocket.close(fd) }
        let bytes = Array(state.utf8)
        let sent = UnixSocket.withAddress(target) { address, length in
            bytes.withUnsafeBytes { sendto(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL), address, length) }
        }
        return sent == bytes.count
    }
}
