import Foundation
import Glibc

/// A mutex with priority inheritance (PTHREAD_PRIO_INHERIT) and its condition
/// variable, with the part of NSCondition's interface the engine uses.
///
/// Why not NSCondition: the engine's lock is taken both by the real-time audio
/// thread (PulseStream renders the mix under it) and by normal-priority
/// threads (the loop's `play`, the monitor, workers). With a plain mutex a
/// normal thread preempted while holding it — both cores busy — keeps the
/// real-time thread waiting for a whole time slice, longer than the stream's
/// buffer: the priority inversion PulseAudio avoids with PI mutexes
/// (pa_mutex_new(…, inherit_priority)). With PI the holder runs at the
/// waiter's priority until it unlocks.
final class PriorityInheritingCondition: @unchecked Sendable {
    // @unchecked: both are allocated once and never move, as pthreads requires.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    init() {
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        pthread_mutexattr_setprotocol(&attributes, Int32(PTHREAD_PRIO_INHERIT))
        pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    func lock() { pthread_mutex_lock(mutex) }

    func unlock() { pthread_mutex_unlock(mutex) }

    /// Waits for `broadcast()` (the mutex held, released while waiting).
    func wait() { pthread_cond_wait(condition, mutex) }

    /// Waits for `broadcast()` until `deadline` (wall clock, as the condition
    /// variable's default clock): false when the deadline passed first.
    func wait(until deadline: Date) -> Bool {
        let seconds = deadline.timeIntervalSince1970
        var time = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - seconds.rounded(.down)) * 1e9))
        return pthread_cond_timedwait(condition, mutex, &time) != ETIMEDOUT
    }

    func broadcast() { pthread_cond_broadcast(condition) }
}
