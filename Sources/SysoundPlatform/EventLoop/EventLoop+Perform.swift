import Glibc
import Synchronization

extension EventLoop {
    /// Runs `body` on the loop thread and returns its result, for an owner
    /// whose state belongs to the loop (the haptics engine) but whose callers
    /// may be anywhere (the library's caller, a test, the bench).
    ///
    /// At once when the caller is the loop thread or no thread runs the loop
    /// (before `run`, after it returned: the caller holds the loop then);
    /// otherwise posted and waited for. The loop never waits for a device,
    /// so the wait is one wake-up of the loop.
    package func perform<T: Sendable>(_ body: @escaping @Sendable () -> T) -> T {
        if isLoopThread || !isRunning { return body() }
        let call = PerformCall<T>()
        post {
            guard call.claimed.claim() else { return }
            call.finish(body())
        }
        while true {
            if let result = call.wait(milliseconds: 50) { return result }
            // The loop ended and dropped what was posted: run it here, once.
            if !isRunning, call.claimed.claim() { return body() }
        }
    }
}

/// Set once by whoever claims it first.
final class OnceFlag: Sendable {
    private let value = Atomic<Bool>(false)
    /// True for the first caller only.
    func claim() -> Bool { !value.exchange(true, ordering: .acquiringAndReleasing) }
    var isSet: Bool { value.load(ordering: .acquiring) }
}

/// A result handed from the loop thread to a waiting caller.
private final class PerformCall<T: Sendable>: @unchecked Sendable {
    // @unchecked: `result` is written once before `done` is posted and read after it is waited for.
    let claimed = OnceFlag()
    private var result: T?
    private let done = PosixSemaphore()

    func finish(_ value: T) {
        result = value
        done.post()
    }

    /// The result, or nil after `milliseconds` without one.
    func wait(milliseconds: Int) -> T? {
        done.wait(milliseconds: milliseconds) ? result : nil
    }
}
