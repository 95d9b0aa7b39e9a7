#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include "CSysoundSignals.h"

static volatile sig_atomic_t forward_fd = -1;

static void forward(int sig) {
    int saved = errno;
    int fd = forward_fd;
    if (fd >= 0) {
        unsigned char byte = (unsigned char)sig;
        (void)!write(fd, &byte, 1);
    }
    errno = saved;
}

int sysound_forward_signals(int fd, const int *signals, int count) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = forward;
    action.sa_flags = SA_RESTART;
    sigemptyset(&action.sa_mask);
    forward_fd = fd;
    for (int i = 0; i < count; i++) {
        if (sigaction(signals[i], &action, NULL) != 0) return -1;
    }
    return 0;
}

void sysound_restore_signals(const int *signals, int count) {
    for (int i = 0; i < count; i++) signal(signals[i], SIG_DFL);
    forward_fd = -1;
}
