import Glibc
import SysoundClient

/// One daemon per state directory: an exclusive `flock(2)` on `$STATE/daemon.lock`,
/// held for the daemon's life, with the holder's PID written inside so a
/// second daemon can name it.
///
/// The file is removed on release while still locked; an acquirer that locked
/// a file since unlinked sees its inode differ from the path's and retries.
final class InstanceLock: Sendable {
    let path: String
    private let fd: Int32

    /// Takes the lock without waiting.
    ///
    /// - Throws: `DaemonError.alreadyRunning` with the holder's PID, or
    ///   `.lockFailed` if the file cannot be opened or locked.
    init(path: String, socketPath: String) throws(DaemonError) {
        self.path = path
        while true {
            let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
            guard fd >= 0 else { throw .lockFailed(path: path, errno: errno) }
            if flock(fd, LOCK_EX | LOCK_NB) != 0 {
                let code = errno
                let pid = Self.readPID(fd)
                UnixSocket.close(fd)
                if code == EWOULDBLOCK { throw .alreadyRunning(pid: pid, lockPath: path, socketPath: socketPath) }
                throw .lockFailed(path: path, errno: code)
            }
            // Locked; but if the previous holder unlinked it meanwhile, this
            // file is no longer the one others will open.
            guard let mine = FileIdentity(fd: fd), FileIdentity(path: path) == mine else {
                UnixSocket.close(fd)
                continue
            }
            let text = Array("\(getpid())\n".utf8)
            _ = ftruncate(fd, 0)
            _ = text.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
            self.fd = fd
            return
        }
    }

    /// Removes the file and drops the lock.
    func release() {
        unlink(path)
        UnixSocket.close(fd)
    }

    private static func readPID(_ fd: Int32) -> pid_t? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { return nil }
        let text = String(decoding: buffer[..<n], as: UTF8.self).split(separator: "\n").first ?? ""
        return pid_t(text)
    }
}
