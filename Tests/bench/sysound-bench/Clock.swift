import Glibc

/// CLOCK_MONOTONIC in nanoseconds (`clock_gettime`): the clock PulseAudio's
/// null sink, the haptics engine and the fake device's records also use.
enum Clock {
    static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    static func seconds(since start: UInt64) -> Double { Double(now() &- start) / 1e9 }

    /// Sleeps (`clock_nanosleep`, absolute) until `deadline`.
    static func sleep(until deadline: UInt64) {
        var ts = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nil) == EINTR {}
    }

    static func sleep(seconds: Double) { sleep(until: now() + UInt64(seconds * 1e9)) }
}

extension Array where Element == Double {
    var mean: Double { isEmpty ? 0 : reduce(0, +) / Double(count) }
}
