// Thread and wake-up primitives that glibc declares only under _GNU_SOURCE.
#ifndef CSYSOUND_THREADS_H
#define CSYSOUND_THREADS_H

#include <sys/types.h>
#include <semaphore.h>
#include <pthread.h>
#include <time.h>

/// Names the calling thread for ps/top (pthread_setname_np; at most 15 bytes used).
void sysound_set_thread_name(const char *name);

/// A non-blocking, close-on-exec eventfd used to wake a poll loop
/// (eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)). Returns -1 with errno set on failure.
int sysound_eventfd(void);

/// The calling thread's kernel id (gettid): what /proc/self/task lists and
/// sched_setscheduler and rtkit take.
pid_t sysound_gettid(void);

/// SCHED_RESET_ON_FORK, which <sched.h> declares only under _GNU_SOURCE.
int sysound_sched_reset_on_fork(void);

/// sem_clockwait on CLOCK_MONOTONIC until `deadline` (absolute): a wait
/// that a change of the wall clock neither shortens nor stretches.
/// 0, or -1 with errno set (ETIMEDOUT, EINTR).
int sysound_sem_wait_monotonic(sem_t *sem, const struct timespec *deadline);

/// Initializes `condition` to wait on CLOCK_MONOTONIC (pthread_condattr_setclock).
int sysound_cond_init_monotonic(pthread_cond_t *condition);

#endif
