// The audio libraries' own noise, silenced before it can be made.
//
// OpenAL Soft 1.19 logs its errors ("AL lib: (EE) ...": a failed probe, a
// device left open at exit) to stderr at level 1 unless ALSOFT_LOGLEVEL,
// which it reads once at its first ALC call, says otherwise; ALSA prints every
// failed probe ("ALSA lib confmisc.c: cannot find card '0'") through its
// error handler, stderr by default. In an app's process or sysound's own,
// that is noise on the user's terminal: sysound says itself what it tried
// and what to do. Both are set here, in a constructor: it runs when the
// process (or the library linking sysound) loads, before main and before any
// thread, the one time the environment may be written without racing
// another thread's getenv. libopenal links libasound (through libsndio), so
// ALSA is loaded by then. SYSOUND_LOG_LEVEL=trace or debug keeps both
// libraries' messages; a user's own ALSOFT_LOGLEVEL is left alone. The
// handler is variadic, which Swift cannot define.
#include <dlfcn.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
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

static int audio_libraries_verbose(void) {
    const char *level = getenv("SYSOUND_LOG_LEVEL");
    return level != NULL && (strcmp(level, "trace") == 0 || strcmp(level, "debug") == 0);
}

// The Swift runtime's own record of argv. Linked statically
// (--static-swift-stdlib, as sysound ships), it finds argv by walking back
// from `environ`, which a setenv that adds a variable moves to the heap:
// CommandLine.arguments would then be empty. So the constructor, which glibc
// calls with the process's argc and argv, hands them over first. Weak: the
// shared runtime captures argv itself and does not export the function.
extern void _swift_stdlib_overrideUnsafeArgvArgc(char **argv, int argc) __attribute__((weak));

__attribute__((constructor)) static void sysound_quiet_audio_libraries(int argc, char **argv, char **envp) {
    (void)envp;
    if (audio_libraries_verbose()) return;
    if (getenv("ALSOFT_LOGLEVEL") == NULL) {
        if (_swift_stdlib_overrideUnsafeArgvArgc != NULL && argv != NULL) _swift_stdlib_overrideUnsafeArgvArgc(argv, argc);
        setenv("ALSOFT_LOGLEVEL", "0", 1);
    }
    sysound_alsa_quiet();
}
