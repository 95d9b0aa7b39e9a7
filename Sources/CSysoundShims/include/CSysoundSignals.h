// Async-signal-safe forwarding of signals to a pipe, so a poll loop can handle
// SIGTERM/SIGINT/SIGHUP as ordinary events (the self-pipe trick). Written in C
// because a signal handler may call only async-signal-safe functions.
#ifndef CSYSOUND_SIGNALS_H
#define CSYSOUND_SIGNALS_H

/// Installs a handler (sigaction, SA_RESTART) for each of `signals` that writes
/// the signal number as one byte to `fd` (write(2); a full pipe drops the byte).
/// Returns 0, or -1 with errno set.
int sysound_forward_signals(int fd, const int *signals, int count);

/// Restores the default action (SIG_DFL) of `signals` and stops forwarding.
void sysound_restore_signals(const int *signals, int count);

#endif
