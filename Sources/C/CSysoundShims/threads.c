#define _GNU_SOURCE
#include <pthread.h>
#include <string.h>
#include <sched.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include <semaphore.h>
#include <time.h>
#include "CSysoundThreads.h"

void sysound_set_thread_name(const char *name) {
    char short_name[16];
    strncpy(short_name, name, sizeof short_name - 1);
    short_name[sizeof short_name - 1] = 0;
    pthread_setname_np(pthread_self(), short_name);
}

int sysound_eventfd(void) {
    return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
}

pid_t sysound_gettid(void) {
    return gettid();
}

int sysound_sched_reset_on_fork(void) {
    return SCHED_RESET_ON_FORK;
}

int sysound_sem_wait_monotonic(sem_t *sem, const struct timespec *deadline) {
    return sem_clockwait(sem, CLOCK_MONOTONIC, deadline);
}

int sysound_cond_init_monotonic(pthread_cond_t *condition) {
    pthread_condattr_t attributes;
    pthread_condattr_init(&attributes);
    pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC);
    int rc = pthread_cond_init(condition, &attributes);
    pthread_condattr_destroy(&attributes);
    return rc;
}
