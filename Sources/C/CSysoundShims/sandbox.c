#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <linux/openat2.h>
#include "CSysoundSandbox.h"

#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif
#ifndef SYS_openat2
#define SYS_openat2 437
#endif

int sysound_pidfd_open(pid_t pid) {
    // pidfds are close-on-exec always.
    return (int)syscall(SYS_pidfd_open, pid, 0);
}

int sysound_pidfd_alive(int pidfd) {
    if (syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0) == 0) return 1;
    // EPERM still means it exists (another user's process).
    if (errno == EPERM) return 1;
    return errno == ESRCH ? 0 : -1;
}

pid_t sysound_pidfd_pid(int pidfd) {
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fdinfo/%d", pidfd);
    FILE *f = fopen(path, "re");
    if (!f) return -1;
    char line[256];
    long pid = -1;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "Pid:", 4) == 0) {
            pid = strtol(line + 4, NULL, 10);
            break;
        }
    }
    fclose(f);
    // -1 in fdinfo: the process exited.
    if (pid == -1) return 0;
    return (pid_t)pid;
}

int sysound_peer_pidfd(int fd) {
    int pidfd = -1;
    socklen_t length = sizeof pidfd;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERPIDFD, &pidfd, &length) != 0) return -1;
    return pidfd;
}

int sysound_open_in_root(int root, const char *path, int flags) {
    struct open_how how;
    memset(&how, 0, sizeof how);
    how.flags = (unsigned long long)(flags | O_CLOEXEC);
    how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
    return (int)syscall(SYS_openat2, root, path, &how, sizeof how);
}

int sysound_open_process_root(int proc_dir) {
    return openat(proc_dir, "root", O_PATH | O_DIRECTORY | O_CLOEXEC);
}

int sysound_is_fuse(const char *path) {
    struct statfs fs;
    return statfs(path, &fs) == 0 && fs.f_type == 0x65735546; /* FUSE_SUPER_MAGIC */
}
