#if canImport(Glibc)
import Glibc
#endif

/// OpenAL Soft and ALSA print every backend they probe and fail on
/// ("ALSA lib confmisc.c: cannot find card '0'", "AL lib: (EE) …") to
/// standard error. The engine reports the outcome itself — a typed error
/// naming what to do, a log line naming the device — so that noise is hidden
/// while a device is opened, unless SYSOUND_LOG_LEVEL is trace or debug.
enum StandardError {
    static func silenced<T>(_ body: () -> T) -> T {
        if let level = getenv("SYSOUND_LOG_LEVEL").map({ String(cString: $0) }), level == "trace" || level == "debug" {
            return body()
        }
        let saved = dup(2)
        let null = open("/dev/null", O_WRONLY | O_CLOEXEC)
        guard saved >= 0, null >= 0 else {
            if saved >= 0 { close(saved) }
            if null >= 0 { close(null) }
            return body()
        }
        dup2(null, 2)
        close(null)
        defer {
            dup2(saved, 2)
            close(saved)
        }
        return body()
    }
}
