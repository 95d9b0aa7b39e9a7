import CSysoundShims
import Glibc

/// Who may talk to the daemon: its own user, root, and optionally the members
/// of one group. Checked on every connection, since the socket file's mode
/// alone can be loosened by anyone who owns it.
package struct PeerAccess: Sendable, Equatable {
    /// The daemon's user.
    package var uid: uid_t
    /// Members of this group (primary or supplementary) are let in too.
    package var allowedGroup: gid_t?

    package init(uid: uid_t = getuid(), allowedGroup: gid_t? = nil) {
        self.uid = uid
        self.allowedGroup = allowedGroup
    }

    /// Whether a peer with these credentials and supplementary groups may connect.
    package func allows(_ peer: PeerCredentials, groups: [gid_t]) -> Bool {
        if peer.uid == uid || peer.uid == 0 { return true }
        guard let allowedGroup else { return false }
        return peer.gid == allowedGroup || groups.contains(allowedGroup)
    }

    /// Resolves a group name (or a decimal gid) to its gid (`getgrnam_r(3)`).
    ///
    /// - Throws: `DaemonError.unknownGroup` if no such group exists.
    package static func groupID(named name: String) throws(DaemonError) -> gid_t {
        if let number = gid_t(name) { return number }
        var group = group()
        var result: UnsafeMutablePointer<group>?
        var buffer = [CChar](repeating: 0, count: 4096)
        while true {
            let rc = getgrnam_r(name, &group, &buffer, buffer.count, &result)
            if rc == ERANGE && buffer.count < 1 << 20 {
                buffer = [CChar](repeating: 0, count: buffer.count * 4)
                continue
            }
            guard rc == 0, let found = result else { throw .unknownGroup(name) }
            return found.pointee.gr_gid
        }
    }
}

/// The kernel's view of a connected peer (getsockopt SO_PEERCRED, SO_PEERGROUPS).
enum PeerIdentity {
    /// `sysound_peer_credentials` (SO_PEERCRED); nil if the call fails.
    static func credentials(of fd: Int32) -> PeerCredentials? {
        var pid: pid_t = 0, uid: uid_t = 0, gid: gid_t = 0
        guard sysound_peer_credentials(fd, &pid, &uid, &gid) == 0 else { return nil }
        return PeerCredentials(pid: pid, uid: uid, gid: gid)
    }

    /// The peer's supplementary groups (getsockopt SO_PEERGROUPS, Linux ≥ 4.13);
    /// empty if the kernel cannot tell.
    static func groups(of fd: Int32) -> [gid_t] {
        var groups = [gid_t](repeating: 0, count: 64)
        while true {
            var length = socklen_t(groups.count * MemoryLayout<gid_t>.size)
            let rc = getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, &groups, &length)
            if rc == 0 { return Array(groups.prefix(Int(length) / MemoryLayout<gid_t>.size)) }
            // ERANGE reports the size needed in `length`.
            guard errno == ERANGE, Int(length) > groups.count * MemoryLayout<gid_t>.size else { return [] }
            groups = [gid_t](repeating: 0, count: Int(length) / MemoryLayout<gid_t>.size + 1)
        }
    }
}
