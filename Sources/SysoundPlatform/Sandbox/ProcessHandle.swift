import CSysoundShims
import Glibc

/// A process held by a pidfd: the number may be reused once the process
/// exits, the pidfd never refers to another. What is read of the process is
/// read through its `/proc/PID` directory, opened while the pidfd showed the
/// process alive, so it is this process's directory or fails.
package final class ProcessHandle: @unchecked Sendable {
    package let pid: pid_t
    let pidfd: Int32

    /// pidfd_open(2) on a pid another party reported (the bus's ProcessID).
    /// The one race left is before this call: the process the pid named may
    /// have exited and the number been reused already (docs/security.md).
    package init(pid: pid_t) throws(SandboxError) {
        guard pid > 0 else { throw .system("no process id (\(pid))") }
        let fd = sysound_pidfd_open(pid)
        guard fd >= 0 else {
            let e = errno
            if e == ESRCH { throw .gone("process \(pid) has exited") }
            throw .system("pidfd_open(\(pid)): \(String(cString: strerror(e)))")
        }
        self.pid = pid
        pidfd = fd
    }

    /// Takes over a pidfd the kernel handed (SO_PEERPIDFD, the bus's ProcessFD).
    package init(adoptingPidfd fd: Int32) throws(SandboxError) {
        let pid = sysound_pidfd_pid(fd)
        guard pid > 0 else {
            close(fd)
            throw pid == 0 ? .gone("the caller's process has exited") : .system("cannot read the pidfd's process id")
        }
        self.pid = pid
        pidfd = fd
    }

    deinit { close(pidfd) }

    /// Whether the process still runs.
    package var isAlive: Bool { sysound_pidfd_alive(pidfd) == 1 }

    /// `/proc/PID` of this very process, as a directory fd the caller closes.
    package func openProcDirectory() throws(SandboxError) -> Int32 {
        let dir = open("/proc/\(pid)", O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOCTTY)
        guard dir >= 0 else {
            let e = errno
            if e == ENOENT || e == ESRCH { throw .gone("process \(pid) has exited") }
            throw .system("/proc/\(pid): \(String(cString: strerror(e)))")
        }
        // Alive after the open: the directory is the pidfd's process, not a
        // later one with its number (a /proc directory stays with its process).
        guard isAlive else {
            close(dir)
            throw .gone("process \(pid) exited while it was examined")
        }
        return dir
    }
}
