import CSysoundShims
import Glibc
import SysoundCore

/// The engine's lock (a `PthreadLock`, priority-inheriting) with a condition
/// variable on it: the part of NSCondition's interface the engine uses.
///
/// Why not NSCondition: its mutex does not inherit priority, and the
/// real-time audio thread renders the mix under this lock while the loop's
/// `play`, the monitor and the workers take it at normal priority (see
/// `PthreadLock`). Measured with six busy loops on two cores: UnderLoadTests
/// passed 10 of 10 with a priority-inheriting lock, 3 of 4 with NSCondition.
final class PriorityInheritingCondition: @unchecked Sendable {
    // @unchecked: the condition is allocated once and never moves, as pthreads requires.
    private let mutex = PthreadLock()
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    init() {
        condition.initialize(to: pthread_cond_t())
        // Timed waits count CLOCK_MONOTONIC: a wall clock set back does not stretch them.
        sysound_cond_init_monotonic(condition)
    }

    deinit {
        pthread_cond_destroy(condition)
        condition.deallocate()
    }

    func lock() { mutex.lock() }

    func unlock() { mutex.unlock() }

    /// Waits for `broadcast()` (the lock held, released while waiting).
    func wait() { pthread_cond_wait(condition, mutex.mutex) }

    /// Waits for `broadcast()` until `deadline` (CLOCK_MONOTONIC µs, as
    /// `EventLoop.monotonicNow()`): false when the deadline passed first.
    func wait(until deadline: UInt64) -> Bool {
        var time = timespec(tv_sec: Int(deadline / 1_000_000), tv_nsec: Int(deadline % 1_000_000) * 1000)
        return pthread_cond_timedwait(condition, mutex.mutex, &time) != ETIMEDOUT
    }

    func broadcast() { pthread_cond_broadcast(condition) }
}
