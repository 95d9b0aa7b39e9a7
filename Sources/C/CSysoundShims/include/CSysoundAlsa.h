#ifndef CSYSOUND_ALSA_H
#define CSYSOUND_ALSA_H

/// Sets ALSA's error handler (snd_lib_error_set_handler) to one that prints
/// nothing, if libasound is loaded. Returns 1 when set, 0 otherwise. A
/// constructor calls it, and sets ALSOFT_LOGLEVEL=0 when unset, as the
/// process loads (alsaquiet.c), unless SYSOUND_LOG_LEVEL is trace or debug.
int sysound_alsa_quiet(void);

#endif
