// Thin wrappers for what Swift cannot import from the C headers directly:
// function-like ioctl request macros, variadic ioctl(2), and struct ucred,
// which glibc only declares under _GNU_SOURCE.
#ifndef CSYSOUND_SHIMS_H
#define CSYSOUND_SHIMS_H

#include <sys/types.h>
#include "CSysoundForceFeedback.h"
#include "CSysoundThreads.h"
#include "CSysoundAlsa.h"
#include "CSysoundSandbox.h"

/// Returns the free pages of every malloc arena to the kernel (malloc_trim(0),
/// which <malloc.h> declares outside Swift's Glibc module). 1 if any was returned.
int sysound_trim_heap(void);

/// mallopt(M_MMAP_THRESHOLD, bytes): allocations of at least `bytes` get
/// mappings of their own, unmapped when freed; fixing it also stops glibc
/// raising it (and the trim threshold with it) after such a free. 1 on success.
int sysound_set_mmap_threshold(int bytes);

/// Peer credentials of a connected unix socket (getsockopt SO_PEERCRED).
/// Returns 0 and fills the out parameters, or -1 with errno set.
int sysound_peer_credentials(int fd, pid_t *pid, uid_t *uid, gid_t *gid);

/// Sends `length` bytes on a unix stream socket with this process's
/// credentials attached (sendmsg with SCM_CREDENTIALS: pid, uid, gid), as
/// libpulse sends its AUTH packet; MSG_NOSIGNAL | MSG_DONTWAIT. Returns the
/// bytes sent, or -1 with errno set.
long sysound_send_with_credentials(int fd, const void *bytes, unsigned long length);

#endif
