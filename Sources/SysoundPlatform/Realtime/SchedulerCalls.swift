import CSysoundShims
import Glibc

/// The system calls real-time scheduling needs, one closure each, so that a
/// test can make any of them fail (`RealtimeThreads` takes them at init).
/// Every call returns 0 or an errno.
package struct SchedulerCalls: Sendable {
    /// sched_setscheduler(tid, SCHED_FIFO | SCHED_RESET_ON_FORK, priority).
    package var setFIFO: @Sendable (_ tid: pid_t, _ priority: Int32) -> Int32
    /// getrlimit(RLIMIT_RTTIME): (soft, hard) in µs; RLIM_INFINITY as UInt64.max.
    package var realtimeLimit: @Sendable () -> (soft: UInt64, hard: UInt64)
    /// setrlimit(RLIMIT_RTTIME, soft = hard = µs).
    package var setRealtimeLimit: @Sendable (_ microseconds: UInt64) -> Int32
    /// The process's cpu cgroup's real-time budget, asked only to explain an EPERM.
    package var realtimeBudget: @Sendable () -> CgroupRealtimeBudget?

    package init(
        setFIFO: @escaping @Sendable (pid_t, Int32) -> Int32,
        realtimeLimit: @escaping @Sendable () -> (soft: UInt64, hard: UInt64),
        setRealtimeLimit: @escaping @Sendable (UInt64) -> Int32,
        realtimeBudget: @escaping @Sendable () -> CgroupRealtimeBudget? = { nil }
    ) {
        self.setFIFO = setFIFO
        self.realtimeLimit = realtimeLimit
        self.setRealtimeLimit = setRealtimeLimit
        self.realtimeBudget = realtimeBudget
    }

    /// The kernel's own.
    package static let system = SchedulerCalls(
        setFIFO: { tid, priority in
            var param = sched_param(sched_priority: priority)
            return sched_setscheduler(tid, SCHED_FIFO | sysound_sched_reset_on_fork(), &param) == 0 ? 0 : errno
        },
        realtimeLimit: {
            var limit = rlimit()
            guard getrlimit(rttime, &limit) == 0 else { return (.max, .max) }
            return (UInt64(limit.rlim_cur), UInt64(limit.rlim_max))
        },
        setRealtimeLimit: { microseconds in
            var limit = rlimit(rlim_cur: rlim_t(microseconds), rlim_max: rlim_t(microseconds))
            return setrlimit(rttime, &limit) == 0 ? 0 : errno
        },
        realtimeBudget: { CgroupRealtimeBudget.current() })

    private static var rttime: __rlimit_resource_t { __rlimit_resource_t(__RLIMIT_RTTIME.rawValue) }

    /// The scheduling policy of a thread as the kernel reports it
    /// (sched_getscheduler, SCHED_RESET_ON_FORK included), or nil when it is gone.
    package static func policy(of tid: pid_t) -> Int32? {
        let p = sched_getscheduler(tid)
        return p < 0 ? nil : p
    }

    /// The real-time priority of a thread (sched_getparam), or nil when it is gone.
    package static func priority(of tid: pid_t) -> Int32? {
        var param = sched_param()
        return sched_getparam(tid, &param) == 0 ? param.sched_priority : nil
    }

    /// SCHED_FIFO and SCHED_RR with or without SCHED_RESET_ON_FORK.
    package static func isRealtime(policy: Int32) -> Bool {
        let base = policy & ~sysound_sched_reset_on_fork()
        return base == SCHED_FIFO || base == SCHED_RR
    }

    /// The calling thread's kernel id (gettid).
    package static func currentThread() -> pid_t { sysound_gettid() }
}
