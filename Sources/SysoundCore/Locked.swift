#if canImport(Glibc)
import Glibc
#endif

/// A pthread mutex: the process's one lock primitive.
///
/// Why not `Synchronization.Mutex`: its futex lock lives in the standard
/// library, which is not built with ThreadSanitizer, so a TSan run cannot see
/// it and reports every access it guards as a race. TSan intercepts
/// `pthread_mutex_lock`, so with this lock a TSan run stays quiet about guarded
/// state and keeps finding the real races. Uncontended, both cost the same.
///
/// Priority inheritance (PTHREAD_PRIO_INHERIT), as PulseAudio's own mutexes:
/// the audio thread runs real-time and takes locks that normal-priority
/// threads (the loop, the workers) take too. With a plain mutex a normal
/// thread preempted while holding one, both cores busy, keeps the real-time
/// thread waiting for a whole time slice, longer than the stream's buffer
/// (docs/latency.md, "Real-time audio threads"); with inheritance the holder runs at the
/// waiter's priority until it unlocks. Uncontended it stays in user space.
package final class PthreadLock: @unchecked Sendable {
    // @unchecked: the mutex is allocated once and never moves, as pthread requires.
    /// The mutex itself, for a condition variable that waits on it.
    package let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    /// `pthread_mutex_init`: priority-inheriting; `recursive`: the thread
    /// that holds it may take it again (and gives it back as often).
    package init(recursive: Bool = false) {
        mutex.initialize(to: pthread_mutex_t())
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        pthread_mutexattr_setprotocol(&attributes, Int32(PTHREAD_PRIO_INHERIT))
        if recursive { pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_RECURSIVE)) }
        pthread_mutex_init(mutex, &attributes)
        pthread_mutexattr_destroy(&attributes)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// `pthread_mutex_lock`.
    @inlinable package func lock() { pthread_mutex_lock(mutex) }

    /// `pthread_mutex_unlock`.
    @inlinable package func unlock() { pthread_mutex_unlock(mutex) }

    /// Runs `body` holding the lock.
    @inlinable package func withLock<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        lock()
        defer { unlock() }
        return try body()
    }
}

/// A value that is only reached while holding its lock: the same shape as
/// `Synchronization.Mutex<Value>`, over a `PthreadLock` (see there for why).
package final class Locked<Value>: @unchecked Sendable {
    // @unchecked: `value` is only touched inside `withLock`, and what goes in
    // and comes out is `sending`, as with `Mutex`.
    // @usableFromInline: `withLock` is inlined where it is called, so it is
    // specialized for the value there. Called generic from another module,
    // its body alone took 5 % of the library's `play()` (perf, bench figure 3):
    // the play path reads six `Locked` values.
    @usableFromInline let lock = PthreadLock()
    @usableFromInline var value: Value

    package init(_ initialValue: consuming sending Value) {
        value = initialValue
    }

    /// Runs `body` on the value while holding the lock.
    @inlinable package func withLock<Result, Failure: Error>(
        _ body: (inout sending Value) throws(Failure) -> sending Result
    ) throws(Failure) -> sending Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
