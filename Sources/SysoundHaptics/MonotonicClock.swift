#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// CLOCK_MONOTONIC in nanoseconds: the clock the kernel stamps input events
/// with, so the engine's schedule and a device's records can be compared.
package enum MonotonicClock {
    /// Now, from clock_gettime(CLOCK_MONOTONIC).
    package static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    /// Sleeps until the monotonic time `deadline` (clock_nanosleep, absolute).
    package static func sleep(until deadline: UInt64) {
        var ts = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nil) == EINTR {}
    }

    /// Sleeps for `ms` milliseconds.
    package static func sleep(ms: Int) {
        sleep(until: now() + UInt64(max(ms, 0)) * 1_000_000)
    }
}
