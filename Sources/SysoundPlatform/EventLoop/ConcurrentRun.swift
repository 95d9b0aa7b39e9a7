import SysoundCore

/// One `WorkerPool.concurrentMap`: the indices not taken yet, the results,
/// and a semaphore posted once, by whoever finishes the last index.
final class ConcurrentRun<T: Sendable>: @unchecked Sendable {
    // @unchecked: the state is locked, the rest immutable.
    private struct State {
        var next = 0
        var finished = 0
        var results: [T?]
    }

    private let count: Int
    private let transform: @Sendable (Int) -> T
    private let state: Locked<State>
    private let done = PosixSemaphore()

    init(count: Int, transform: @escaping @Sendable (Int) -> T) {
        self.count = count
        self.transform = transform
        state = Locked(State(results: Array(repeating: nil, count: count)))
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
            if last { done.post() }
        }
    }

    /// Waits until every index has its result (the caller, after its own `work()`).
    func waitForResults() -> [T] {
        done.wait()
        return state.withLock { s in s.results.map { $0! } }
    }
}
