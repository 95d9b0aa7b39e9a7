import Glibc
import SysoundCore

/// The daemon's listening SOCK_SEQPACKET socket: bound by the daemon itself,
/// or passed in by systemd.
struct ListeningSocket: Sendable {
    let fd: Int32
    /// The socket's path in the file system.
    let path: String
    /// Whether the daemon made the file and so removes it on exit (not systemd's).
    let ownsPath: Bool
    /// The file's identity when bound, to notice it was deleted or replaced.
    let identity: FileIdentity?

    /// Binds a new socket at `path` (`socket`, `bind`, `chmod`, `listen`, `rename`).
    /// Mode 0600, or 0660 owned by `group` when a group is allowed in.
    /// The socket is made ready beside `path` and renamed onto it, so a
    /// client never finds a file that refuses connections (bound, not yet
    /// listening) where a daemon serves; a stale socket file is replaced. The
    /// caller holds the instance lock, so nothing else may be serving there.
    static func bind(path: String, group: gid_t?) throws(DaemonError) -> ListeningSocket {
        guard path.utf8.count <= UnixSocket.maximumPathLength else { throw .socketPathTooLong(path) }
        let fd = UnixSocket.seqpacket()
        guard fd >= 0 else { throw .socket(call: "socket", path: path, errno: errno) }
        // At the very longest path there is no room for the staging name: bound in place.
        let staging = path.utf8.count < UnixSocket.maximumPathLength ? path + "~" : path
        func fail(_ call: String) -> DaemonError {
            let code = errno
            UnixSocket.close(fd)
            if staging != path { unlink(staging) }
            return .socket(call: call, path: path, errno: code)
        }
        if unlink(staging) != 0 && errno != ENOENT { throw fail("unlink") }
        guard UnixSocket.withAddress(staging, { Glibc.bind(fd, $0, $1) }) == 0 else { throw fail("bind") }
        // The state directory (0700) keeps others out while the umask's mode
        // is in force for these few microseconds; SO_PEERCRED is checked anyway.
        if let group {
            guard chown(staging, uid_t.max, group) == 0, chmod(staging, 0o660) == 0 else { throw fail("chmod") }
        } else {
            guard chmod(staging, 0o600) == 0 else { throw fail("chmod") }
        }
        guard listen(fd, 128) == 0 else { throw fail("listen") }
        if staging != path {
            guard rename(staging, path) == 0 else { throw fail("rename") }
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        return ListeningSocket(fd: fd, path: path, ownsPath: true, identity: FileIdentity(path: path))
    }

    /// Adopts a socket systemd passed (fd 3 …), after checking it is a
    /// listening SOCK_SEQPACKET unix socket (`getsockopt` SO_TYPE, SO_ACCEPTCONN).
    static func adopt(fd: Int32) throws(DaemonError) -> ListeningSocket {
        var type: Int32 = 0, accepting: Int32 = 0, domain: Int32 = 0
        var size = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &size) == 0,
              getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &size) == 0,
              getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &accepting, &size) == 0
        else { throw .activation("fd \(fd) passed by systemd is not a socket: \(UnixSocket.errorText(errno))") }
        guard domain == AF_UNIX, type == Int32(SOCK_SEQPACKET.rawValue), accepting == 1 else {
            throw .activation(
                "fd \(fd) passed by systemd is not a listening unix SOCK_SEQPACKET socket; "
                    + "the .socket unit needs ListenSequentialPacket=%t/sysound/socket")
        }
        _ = fcntl(fd, F_SETFD, fcntl(fd, F_GETFD) | FD_CLOEXEC)
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        let path = boundPath(of: fd) ?? ""
        return ListeningSocket(fd: fd, path: path, ownsPath: false, identity: FileIdentity(path: path))
    }

    /// Whether the file at `path` is still this socket (deleted or replaced otherwise).
    var fileIsIntact: Bool {
        guard let identity, !path.isEmpty else { return true }
        return FileIdentity(path: path) == identity
    }

    /// Closes the socket and, if the daemon made it and it is still ours, removes the file.
    func close() {
        UnixSocket.close(fd)
        if ownsPath, fileIsIntact { unlink(path) }
    }

    /// The path the socket is bound to (`getsockname(2)`), nil for abstract or unnamed.
    private static func boundPath(of fd: Int32) -> String? {
        var address = sockaddr_un()
        var length = socklen_t(MemoryLayout<sockaddr_un>.size)
        let rc = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard rc == 0 else { return nil }
        return withUnsafeBytes(of: &address.sun_path) { raw in
            guard let first = raw.first, first != 0 else { return nil }
            let bytes = raw.prefix(while: { $0 != 0 })
            return String(decoding: bytes, as: UTF8.self)
        }
    }
}

/// Device and inode of a file (`stat(2)`), nil if it does not exist.
struct FileIdentity: Sendable, Equatable {
    let device: UInt64
    let inode: UInt64

    init?(path: String) {
        var st = stat()
        guard !path.isEmpty, stat(path, &st) == 0 else { return nil }
        device = UInt64(st.st_dev)
        inode = UInt64(st.st_ino)
    }

    init?(fd: Int32) {
        var st = stat()
        guard fstat(fd, &st) == 0 else { return nil }
        device = UInt64(st.st_dev)
        inode = UInt64(st.st_ino)
    }
}
