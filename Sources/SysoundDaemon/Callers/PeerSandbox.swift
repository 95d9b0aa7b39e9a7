import CSysoundShims
import Glibc
import SysoundCore
import SysoundPlatform

/// A socket peer's process and the sandbox it proves, read once per
/// connection at its first request that plays or vibrates. The kernel's
/// SO_PEERPIDFD (Linux ≥ 6.5), taken when the connection is admitted, names
/// the process that connected for certain; without it, the SO_PEERCRED pid
/// is opened as a pidfd (the race docs/security.md describes).
package final class PeerSandbox: @unchecked Sendable {
    private let pid: pid_t
    private let state: Locked<(pidfd: Int32?, identity: SandboxIdentity?)>

    /// - Parameter socket: the connected socket (SO_PEERPIDFD is asked now).
    init(socket: Int32, pid: pid_t) {
        self.pid = pid
        let fd = sysound_peer_pidfd(socket)
        state = Locked((fd >= 0 ? fd : nil, nil))
    }

    deinit { state.withLock { if let fd = $0.pidfd { close(fd) } } }

    var identity: SandboxIdentity {
        state.withLock { state in
            if let known = state.identity { return known }
            let identity: SandboxIdentity
            do throws(SandboxError) {
                let process: ProcessHandle
                if let fd = state.pidfd {
                    process = try ProcessHandle(adoptingPidfd: fd)  // closes it when done
                    state.pidfd = nil
                } else {
                    process = try ProcessHandle(pid: pid)
                }
                identity = SandboxProbe.identity(of: process)
            } catch {
                identity = .unknown(reason: error.description)
            }
            state.identity = identity
            return identity
        }
    }
}
