import CSysoundShims
import Glibc

/// A POSIX unnamed semaphore (sem_init), for a thread to wait until another
/// posts: the worker pool's queue, a result handed back to a waiting caller.
/// TSan sees sem_post/sem_wait as the hand-off they are.
package final class PosixSemaphore: @unchecked Sendable {
    // @unchecked: the semaphore is allocated once and never moves, as sem_init requires.
    private let semaphore = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)

    package init(value: UInt32 = 0) {
        sem_init(semaphore, 0, value)
    }

    deinit {
        sem_destroy(semaphore)
        semaphore.deallocate()
    }

    /// `sem_post`.
    package func post() { sem_post(semaphore) }

    /// `sem_wait`, again after a signal interrupts it.
    package func wait() {
        while sem_wait(semaphore) != 0 && errno == EINTR {}
    }

    /// Waits for at most `milliseconds` on CLOCK_MONOTONIC (`sem_clockwait`):
    /// false when they pass first. A wall clock set back does not stretch it.
    package func wait(milliseconds: Int) -> Bool {
        var deadline = timespec()
        clock_gettime(CLOCK_MONOTONIC, &deadline)
        let ns = deadline.tv_nsec + milliseconds * 1_000_000
        deadline.tv_sec += ns / 1_000_000_000
        deadline.tv_nsec = ns % 1_000_000_000
        while sysound_sem_wait_monotonic(semaphore, &deadline) != 0 {
            if errno != EINTR { return false }
        }
        return true
    }
}
