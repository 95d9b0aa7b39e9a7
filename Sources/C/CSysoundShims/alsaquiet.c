// ALSA prints every failed probe ("ALSA lib confmisc.c: cannot find card
// '0'") through its error handler, stderr by default. OpenAL Soft's ALSA
// backend opens devices through libasound, which libopenal links: setting
// the handler once, before any thread, hides that noise without touching
// file descriptor 2. The handler is variadic, which Swift cannot define.
#include <dlfcn.h>
#include <stddef.h>
#include "CSysoundAlsa.h"

static void quiet(const char *file, int line, const char *function, int err, const char *fmt, ...) {
    (void)file; (void)line; (void)function; (void)err; (void)fmt;
}

typedef void (*error_handler)(const char *, int, const char *, int, const char *, ...);

int sysound_alsa_quiet(void) {
    // RTLD_NOLOAD: only an ALSA already in the process (through libopenal) is quieted.
    void *alsa = dlopen("libasound.so.2", RTLD_NOW | RTLD_NOLOAD);
    if (alsa == NULL) return 0;
    int (*set)(error_handler) = (int (*)(error_handler))dlsym(alsa, "snd_lib_error_set_handler");
    int done = set != NULL && set(quiet) == 0;
    dlclose(alsa);
    return done;
}
