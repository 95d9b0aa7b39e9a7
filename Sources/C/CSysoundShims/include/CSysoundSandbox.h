// What reading a sandboxed caller's identity and files needs from the kernel:
// pidfds and openat2(2), which glibc 2.36 wraps only partly (or not at all)
// and which Swift cannot reach through the variadic syscall(2).
#ifndef CSYSOUND_SANDBOX_H
#define CSYSOUND_SANDBOX_H

#include <sys/types.h>

/// pidfd_open(2) (Linux ≥ 5.3): a close-on-exec file descriptor that refers
/// to process `pid` itself, not to whatever later reuses the number.
/// Returns -1 with errno set (ESRCH: no such process).
int sysound_pidfd_open(pid_t pid);

/// Whether the process a pidfd refers to still runs (pidfd_send_signal(2)
/// with signal 0): 1 yes, 0 it exited (ESRCH), -1 with errno set otherwise.
int sysound_pidfd_alive(int pidfd);

/// The pid a pidfd refers to in this process's pid namespace, from
/// /proc/self/fdinfo (its `Pid:` line); 0 if the process exited, -1 on error.
pid_t sysound_pidfd_pid(int pidfd);

/// getsockopt SO_PEERPIDFD (Linux ≥ 6.5): a pidfd for the process that
/// connected a unix socket, taken by the kernel at connect time.
/// Returns -1 with errno set (ENOPROTOOPT on older kernels).
int sysound_peer_pidfd(int fd);

/// openat2(2) (Linux ≥ 5.6) with RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS:
/// `path` resolved as if `root` were `/` (an absolute path, `..` and every
/// symbolic link stay inside it; /proc's magic links are refused). `flags`
/// are open(2)'s. Returns the fd, or -1 with errno set (ENOSYS: no openat2).
int sysound_open_in_root(int root, const char *path, int flags);

/// The root directory of the process whose /proc/PID directory is `proc_dir`
/// (openat "root", O_PATH | O_DIRECTORY): a handle to walk from, never read.
/// Returns -1 with errno set.
int sysound_open_process_root(int proc_dir);

/// Whether `path` is on a FUSE file system (statfs): 1 yes, 0 no or unknown.
int sysound_is_fuse(const char *path);

#endif
