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

    /// The calling thread's CPU time in nanoseconds (CLOCK_THREAD_CPUTIME_ID):
    /// what a call itself costs, without the time it waited or was preempted.
    static func threadCPU() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    /// The calling thread's context switches so far (getrusage RUSAGE_THREAD):
    /// voluntary (it blocked: a lock, a syscall) and involuntary (preempted).
    static func threadSwitches() -> (voluntary: Int, involuntary: Int) {
        var usage = rusage()
        getrusage(__rusage_who_t(1), &usage)  // RUSAGE_THREAD
        return (usage.ru_nvcsw, usage.ru_nivcsw)
    }
}

extension Array where Element == Double {
    var mean: Double { isEmpty ? 0 : reduce(0, +) / Double(count) }
}
