/// OpenAL Soft and ALSA print every backend they probe and fail on
/// ("ALSA lib confmisc.c: cannot find card '0'", "AL lib: (EE) …") to
/// standard error; the engine reports the outcome itself (a typed error
/// naming what to do, a log line naming the device). That noise is hidden at
/// its source, once, before any thread (`AudioProcess.prepare`: OpenAL Soft's
/// log level, ALSA's error handler): a device open runs as it is, and file
/// descriptor 2, which every thread of the process shares, is never
/// redirected (another thread's message would be lost meanwhile).
enum StandardError {
    static func silenced<T>(_ body: () -> T) -> T { body() }
}
