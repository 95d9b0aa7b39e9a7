#define _GNU_SOURCE
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>
#include "CSysoundShims.h"

int sysound_peer_credentials(int fd, pid_t *pid, uid_t *uid, gid_t *gid) {
    struct ucred cred;
    socklen_t len = sizeof cred;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) return -1;
    *pid = cred.pid;
    *uid = cred.uid;
    *gid = cred.gid;
    return 0;
}

long sysound_send_with_credentials(int fd, const void *bytes, unsigned long length) {
    struct iovec iov = { .iov_base = (void *)bytes, .iov_len = length };
    union {
        char buffer[CMSG_SPACE(sizeof(struct ucred))];
        struct cmsghdr align;
    } control;
    memset(&control, 0, sizeof control);
    struct msghdr message = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buffer, .msg_controllen = sizeof control.buffer,
    };
    struct cmsghdr *header = CMSG_FIRSTHDR(&message);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_CREDENTIALS;
    header->cmsg_len = CMSG_LEN(sizeof(struct ucred));
    struct ucred cred = { .pid = getpid(), .uid = getuid(), .gid = getgid() };
    memcpy(CMSG_DATA(header), &cred, sizeof cred);
    return sendmsg(fd, &message, MSG_NOSIGNAL | MSG_DONTWAIT);
}
