import Glibc

/// A POSIX unnamed semaphore (sem_init), for a thread to wait until another
/// posts: the worker pool's queue, a result handed back to a waiting caller.
/// TSan sees sem_post/sem_wait as the hand-off they are.
final class PosixSemaphore: @unchecked Sendable {
    // @unchecked: the semaphore is allocated once and never moves, as sem_init requires.
    private let semaphore = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)

    init(value: UInt32 = 0) {
        sem_init(semaphore, 0, value)
    }

    deinit {
        sem_destroy(semaphore)
        semaphore.deallocate()
    }

    /// `sem_post`.
    func post() { sem_post(semaphore) }

    /// `sem_wait`, again after a signal interrupts it.
    func wait() {
        while sem_wait(semaphore) != 0 && errno == EINTR {}
    }

    /// `sem_timedwait` for at most `milliseconds`: false when they pass first.
    func wait(milliseconds: Int) -> Bool {
        var deadline = timespec()
        clock_gettime(CLOCK_REALTIME, &deadline)
        let ns = deadline.tv_nsec + milliseconds * 1_000_000
        deadline.tv_sec += ns / 1_000_000_000
        deadline.tv_nsec = ns % 1_000_000_000
        while sem_timedwait(semaphore, &deadline) != 0 {
            if errno != EINTR { return false }
        }
        return true
    }
}
