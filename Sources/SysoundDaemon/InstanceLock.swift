import Glibc
import SysoundClient
import SysoundCore

/// One daemon per state directory: an exclusive `flock(2)` on `$STATE/daemon.lock`,
/// held for the daemon's life, with the holder's PID written inside so a
/// second daemon can name it.
///
/// The file is removed on release while still locked; an acquirer that locked
/// a file since unlinked sees its inode differ from the path's and retries.
/// If someone else removes it (or the whole state directory), the daemon
/// takes it again with `reclaimIfRemoved`, so the guarantee outlives the file.
final class InstanceLock: Sendable {
    let path: String
    private let socketPath: String
    private let fd: Locked<Int32>

    /// What `reclaimIfRemoved` found.
    enum Check: Equatable {
        /// The file at `path` is still the one this daemon holds.
        case intact
        /// It was gone or replaced; this daemon holds the new file now.
        case reclaimed
        /// Another daemon locked a new file at `path` first.
        case takenOver(pid: pid_t?)
        /// The file cannot be created now (e.g. the directory is gone).
        case failed(errno: Int32)
    }

    /// Takes the lock without waiting.
    ///
    /// - Throws: `DaemonError.alreadyRunning` with the holder's PID, or
    ///   `.lockFailed` if the file cannot be opened or locked.
    init(path: String, socketPath: String) throws(DaemonError) {
        self.path = path
        self.socketPath = socketPath
        fd = Locked(try Self.acquire(path: path, socketPath: socketPath))
    }

    /// Locks the file again if the path no longer names the file this daemon
    /// locked (`fstat`/`stat` identity), keeping the old lock until the new
    /// one is held.
    func reclaimIfRemoved() -> Check {
        fd.withLock { fd in
            if Self.names(path, fd) { return .intact }
            do throws(DaemonError) {
                let fresh = try Self.acquire(path: path, socketPath: socketPath)
                UnixSocket.close(fd)
                fd = fresh
                return .reclaimed
            } catch {
                switch error {
                case .alreadyRunning(let pid, _, _): return .takenOver(pid: pid)
                case .lockFailed(_, let code): return .failed(errno: code)
                default: return .failed(errno: EIO)
                }
            }
        }
    }

    /// Removes the file and drops the lock.
    func release() {
        fd.withLock { fd in
            // Only our own file: one that replaced it may be another daemon's.
            if Self.names(path, fd) { unlink(path) }
            UnixSocket.close(fd)
        }
    }

    /// `open(2)` + `flock(2)` on `path`, retrying if the file was unlinked
    /// between the two; writes this process's PID into it.
    private static func acquire(path: String, socketPath: String) throws(DaemonError) -> Int32 {
        while true {
            let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
            guard fd >= 0 else { throw .lockFailed(path: path, errno: errno) }
            if flock(fd, LOCK_EX | LOCK_NB) != 0 {
                let code = errno
                let pid = readPID(fd)
                UnixSocket.close(fd)
                if code == EWOULDBLOCK { throw .alreadyRunning(pid: pid, lockPath: path, socketPath: socketPath) }
                throw .lockFailed(path: path, errno: code)
            }
            // Locked; but if the previous holder unlinked it meanwhile, this
            // file is no longer the one others will open.
            guard names(path, fd) else {
                UnixSocket.close(fd)
                continue
            }
            let text = Array("\(getpid())\n".utf8)
            _ = ftruncate(fd, 0)
            _ = text.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
            return fd
        }
    }

    /// Whether `path` still names the file open as `fd` (`fstat`/`stat` identity).
    private static func names(_ path: String, _ fd: Int32) -> Bool {
        guard let open = FileIdentity(fd: fd) else { return false }
        return FileIdentity(path: path) == open
    }

    private static func readPID(_ fd: Int32) -> pid_t? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { return nil }
        let text = String(decoding: buffer[..<n], as: UTF8.self).split(separator: "\n").first ?? ""
        return pid_t(text)
    }
}
