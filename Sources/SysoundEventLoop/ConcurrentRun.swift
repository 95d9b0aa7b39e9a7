import Glibc
import SysoundCore

/// One `WorkerPool.concurrentMap`: the indices not taken yet, the results,
/// and a semaphore posted once, by whoever finishes the last index.
final class ConcurrentRun<T: Sendable>: @unchecked Sendable {
    // @unchecked: the semaphore is allocated once and never moves; the rest is locked or immutable.
    private struct State {
        var next = 0
        var finished = 0
        var results: [T?]
    }

    private let count: Int
    private let transform: @Sendable (Int) -> T
    private let state: Locked<State>
    private let done: UnsafeMutablePointer<sem_t>

    init(count: Int, transform: @escaping @Sendable (Int) -> T) {
        self.count = count
        self.transform = transform
        state = Locked(State(results: Array(repeating: nil, count: count)))
        done = .allocate(capacity: 1)
        sem_init(done, 0, 0)
    }

    deinit {
        sem_destroy(done)
        done.deallocate()
    }

    /// Takes indices until none is left (a worker that starts late finds none).
    func work() {
        while let i = state.withLock({ s -> Int? in
            guard s.next < count else { return nil }
            defer { s.next += 1 }
            return s.next
        }) {
            let result = transform(i)
            let last = state.withLock { s -> Bool in
                s.results[i] = result
                s.finished += 1
                return s.finished == count
            }
            if last { sem_post(done) }
        }
    }

    /// Waits until every index has its result (the caller, after its own `work()`).
    func waitForResults() -> [T] {
        while sem_wait(done) != 0 && errno == EINTR {}
        return state.withLock { s in s.results.map { $0! } }
    }
}
