#ifndef CSYSOUND_ALSA_H
#define CSYSOUND_ALSA_H

/// Sets ALSA's error handler (snd_lib_error_set_handler) to one that prints
/// nothing, if libasound is loaded. Returns 1 when set, 0 otherwise.
int sysound_alsa_quiet(void);

#endif
